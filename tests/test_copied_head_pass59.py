"""Pass 59: a resumed Claude session whose file holds only ``claude --resume``'s copies takes
its title, directory, model and branch by the row's own rules (``row.summarize`` reading the
copies as its own records, ``sessionrow.row_facts``), not by a copy of them: a session titled
by a ``/model`` command, a copied ``custom-title``, an inline subagent run's calls (its model
is the session's only when the session made no call of its own) are read as the first
session's row reads them.  Its tokens stay the resume rules' (none while the first session is
there); cold, warm and ``--no-cache`` runs agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

FIRST, RESUMED = (f"{n * 8}-0000-4000-8000-000000000859" for n in "ef")
HAIKU, SONNET = "claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"
FACTS = ("title", "cwd", "model", "git_branch")
MODEL_COMMAND = ("<command-name>/model</command-name>\n<command-message>model</command-message>\n"
                 "<command-args>opus</command-args>")


def _call(n: int, model: str, **extra: object) -> dict:
    return claude_assistant(FIRST, f"2026-05-01T10:00:{n:02}.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                            usage=claude_usage(100, 10), uuid=f"a{n}", model=model, cwd="/w/proj", **extra)


def _titled_by_a_command() -> list[dict]:
    return [claude_user(FIRST, "2026-05-01T10:00:00.000Z", MODEL_COMMAND, uuid="u1", cwd="/w/proj"),
            _call(1, SONNET, parentUuid="u1")]


def _custom_titled() -> list[dict]:
    title = {**claude_user(FIRST, "2026-05-01T10:00:03.000Z", "", uuid="t1"), "type": "custom-title",
             "customTitle": "parser work"}
    title.pop("message")
    return [claude_user(FIRST, "2026-05-01T10:00:00.000Z", "fix the parser", uuid="u1", cwd="/w/proj"),
            _call(1, SONNET, parentUuid="u1"), title]


def _with_an_inline_run() -> list[dict]:
    # An older build's Task run written inline (``sidechains``): two calls on another model.
    task = claude_user(FIRST, "2026-05-01T10:00:02.000Z", "look around", uuid="s1", sidechain=True, cwd="/w/proj")
    return [claude_user(FIRST, "2026-05-01T10:00:00.000Z", "fix the parser", uuid="u1", cwd="/w/proj"),
            _call(1, SONNET, parentUuid="u1"), task,
            _call(3, HAIKU, parentUuid="s1", isSidechain=True), _call(4, HAIKU, parentUuid="a3", isSidechain=True)]


@pytest.mark.parametrize(("records", "expected"), [
    (_titled_by_a_command, ("/model opus", "/w/proj", SONNET, "main")),
    (_custom_titled, ("parser work", "/w/proj", SONNET, "main")),
    (_with_an_inline_run, ("fix the parser", "/w/proj", SONNET, "main")),
], ids=["model-command", "custom-title", "inline-run"])
def test_a_resumed_session_of_copies_alone_says_what_the_first_ones_row_says(
        isolated_home: Path, records, expected: tuple[str, ...]) -> None:
    first_records = records()
    claude_session_file(isolated_home, FIRST, first_records)
    claude_session_file(isolated_home, RESUMED, first_records)  # (``claude --resume``'s copies alone)
    seen = []
    for cache in ((), (), ("--no-cache",)):  # cold, warm, and without the cache
        rows = {row["id"]: row for row in cli_json(*cache, "list")["sessions"]}
        first, resumed = rows[f"claude:{FIRST}"], rows[f"claude:{RESUMED}"]
        assert tuple(first[k] for k in FACTS) == expected, first
        assert tuple(resumed[k] for k in FACTS) == expected, resumed
        assert (resumed["tokens"] or {}).get("total", 0) == 0, resumed  # (counted as the first session's)
        seen.append(resumed)
    assert seen[0] == seen[1] == seen[2]
    shown = cli_json("show", RESUMED)["session"]
    assert tuple(shown[k] for k in FACTS) == expected, shown


def test_the_copies_are_read_up_to_the_lines_looked_at(tmp_path: Path) -> None:
    from agentscan.providers.claude.copiedhead import _end_of_lines

    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n{"c":3}')
    assert [_end_of_lines(path, n) for n in (1, 2, 3)] == [8, 16, None]
    assert _end_of_lines(tmp_path / "gone.jsonl", 1) is None
