"""Pass 59, the seventh review's mends:

* a resumed Claude session made only of copies takes its model, directory and branch by the
  row's own rules (the model most calls ran on, a ``relocated`` record's directory, the last
  ``gitBranch``): the first session's row says the same of those records;
* ``trace <bare id of a Codex session>`` says Codex has no hooks, as ``trace codex:ID`` does;
* ``trace ID``'s hint to ``show`` keeps ``--home`` and ``--demo``;
* docs/cron.md quotes the export's warnings as they read now (providers by their display names).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke

ROOT = Path(__file__).resolve().parents[1]
FIRST, RESUMED = (f"{n * 8}-0000-4000-8000-000000000759" for n in "cd")
HAIKU, SONNET = "claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"


def _first_records() -> list[dict]:
    def call(n: int, model: str, **extra: str) -> dict:
        return claude_assistant(FIRST, f"2026-05-01T10:00:0{n}.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                                usage=claude_usage(100, 10), uuid=f"a{n}", model=model, cwd="/w/proj", **extra)

    relocated = {**claude_user(FIRST, "2026-05-01T10:00:04.000Z", "", uuid="x1", cwd="/w/proj"),
                 "type": "relocated", "relocatedCwd": "/w/moved"}
    relocated.pop("message")
    return [claude_user(FIRST, "2026-05-01T10:00:00.000Z", "fix the parser", uuid="u1", cwd="/w/proj",
                        gitBranch="main"),
            call(1, HAIKU, gitBranch="main"), call(2, SONNET, gitBranch="main"), relocated,
            call(5, SONNET, gitBranch="feat")]


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_a_resumed_session_of_copies_alone_reads_them_as_the_row_rules_do(
        isolated_home: Path, cache: tuple[str, ...]) -> None:
    records = _first_records()
    claude_session_file(isolated_home, FIRST, records)
    claude_session_file(isolated_home, RESUMED, records)  # (``claude --resume``'s copies alone)
    facts = ("cwd", "model", "git_branch")
    for _ in range(2):  # cold, then warm
        rows = {row["id"]: row for row in cli_json(*cache, "list")["sessions"]}
        first, resumed = rows[f"claude:{FIRST}"], rows[f"claude:{RESUMED}"]
        assert [first[k] for k in facts] == ["/w/moved", SONNET, "feat"], first
        assert [resumed[k] for k in facts] == [first[k] for k in facts], resumed
        assert resumed["title"] == first["title"] == "fix the parser"


def _codex_session(home: Path) -> str:
    from builders import write_jsonl

    native = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0759"
    write_jsonl(home / ".codex" / "sessions" / "2025" / "10" / "01" / f"rollout-2025-10-01T00-00-00-{native}.jsonl", [
        {"timestamp": "2025-10-01T00:00:00.000Z", "type": "session_meta",
         "payload": {"id": native, "timestamp": "2025-10-01T00:00:00.000Z", "cwd": "/w/p", "originator": "codex_cli_rs",
                     "cli_version": "0.45.0"}},
        {"timestamp": "2025-10-01T00:00:01.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]}}])
    return native


def test_trace_of_a_bare_codex_id_says_codex_has_no_hooks(isolated_home: Path) -> None:
    native = _codex_session(isolated_home)
    bare = invoke("trace", native[:8])
    prefixed = invoke("trace", f"codex:{native}")  # (the session the bare id opens, named whole)
    assert bare.exit_code == prefixed.exit_code == 1
    assert "hooks install" not in bare.stderr, bare.stderr
    assert "Codex CLI has no hooks" in bare.stderr and bare.stderr == prefixed.stderr, (bare.stderr, prefixed.stderr)


SESSION = "5a5a5a5a-0000-4000-8000-000000000759"


def test_trace_hints_show_with_the_home_it_read(isolated_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    claude_session_file(other, SESSION, [
        claude_user(SESSION, "2026-05-01T10:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(SESSION, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(100, 10), parentUuid="u1", uuid="a1")])
    said = " ".join(invoke("--home", str(other), "trace", SESSION[:8]).stderr.split())
    assert f"show claude:{SESSION}` shows it from its transcript" in said, said
    assert re.search(r"`agentscan --home \S+ show claude:", said), said


def test_demo_trace_of_a_demo_session_without_hook_events_hints_demo_show(isolated_home: Path) -> None:
    from agentscan.demo import demo_events
    from agentscan.hooks import store

    captured = {s.session_id for s in store.stored_sessions(str(demo_events()))}
    listed = [row["id"] for row in cli_json("--demo", "list")["sessions"]]
    (claude,) = [i for i in listed if i.startswith("claude:c2d4e6f8")]
    assert not any(claude.endswith(c) or c.endswith(claude.partition(":")[2]) for c in captured)
    said = " ".join(invoke("--demo", "trace", "claude:c2d4e6f8").stderr.split())
    assert "`agentscan --demo show claude:c2d4e6f8" in said, said


def test_cron_quotes_the_exports_warnings_as_they_read() -> None:
    from agentscan.providers import BUILTIN_PROVIDERS

    text = " ".join((ROOT / "docs" / "cron.md").read_text().split())
    for name in BUILTIN_PROVIDERS:
        assert f"{name}'s discovery" not in text
        assert not re.search(rf"`\d+ {name} sessions? ", text), name


def test_trace_hints_show_with_the_short_id_on_a_narrow_terminal(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import agentscan.cli.term as term

    claude_session_file(isolated_home, SESSION, [
        claude_user(SESSION, "2026-05-01T10:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(SESSION, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(100, 10), parentUuid="u1", uuid="a1")])
    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)
    monkeypatch.setenv("COLUMNS", "40")
    said = invoke("trace", SESSION[:8]).stderr
    assert "`agentscan show claude:5a5a5a5a`" in said and SESSION not in said, said
    monkeypatch.setenv("COLUMNS", "200")
    assert f"`agentscan show claude:{SESSION}`" in invoke("trace", SESSION[:8]).stderr


def test_trace_of_a_mistyped_id_reads_no_transcript_to_say_so(isolated_home: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import resolve

    claude_session_file(isolated_home, SESSION, [
        claude_user(SESSION, "2026-05-01T10:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(SESSION, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(100, 10), parentUuid="u1", uuid="a1")])
    asked: list[str] = []
    for name in ("not_found", "_recorded_children"):  # (they read transcripts: several times discovery's cost)
        def spy(*args: object, _name: str = name, _real: object = getattr(resolve, name), **kwargs: object) -> object:
            asked.append(_name)
            return _real(*args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(resolve, name, spy)
    said = invoke("trace", "deadbeef").stderr
    assert "hooks install" in said and "shows it from its transcript" not in said, said
    assert asked == []
    assert "shows it from its transcript" in invoke("trace", SESSION[:8].upper()).stderr  # (any case, as show)
