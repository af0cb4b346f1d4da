"""Pass 59, what a demanding user met on the real samples (the second words helper):

* a sentence that names a provider names it as the tables do (``Claude Code``, ``Cursor``),
  never by its key (``14 claude sessions left out`` beside ``7 Cursor sessions``);
* ``trace ID`` of a session with a transcript but no hook events names ``show ID`` too;
* ``hooks status`` judges a Gemini CLI settings file with comments as Gemini CLI reads it
  (its events counted, a note), not ``events: 0`` and a problem;
* a command to copy that does not fit stays under the values (``show``'s ``hooks``,
  ``trace``'s ``transcript``), never at a label's indent, where it read as a field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke


def test_the_labels_are_the_providers_own() -> None:
    from agentscan.providers import BUILTIN_PROVIDERS, LABELS, get_provider, label_of

    assert set(LABELS) == set(BUILTIN_PROVIDERS)
    for name in BUILTIN_PROVIDERS:
        assert label_of(name) == get_provider(name).label == LABELS[name]
    assert label_of("nope") == "nope"


def test_running_says_the_providers_name() -> None:
    from agentscan.scan.liveness import unknown_lines

    assert unknown_lines([{"provider": "claude", "sessions": 14, "reason": "r"}], "--running") == [
        "--running: 14 Claude Code sessions left out, their `running` not known (null): r"]


def test_an_id_another_provider_holds_names_its_agent() -> None:
    from agentscan.cli.tokens_empty import provider_drops

    assert provider_drops([("claude:x", "claude")], ["codex"], every=False) == (
        "claude:x is a Claude Code session: --provider codex leaves it out")
    assert provider_drops([("claude:x", "claude"), ("cursor:y", "cursor")], ["codex"], every=True) == (
        "--provider codex leaves out 2 of the sessions asked for (Claude Code, Cursor); nothing is left to total")


def test_an_empty_provider_says_its_name(isolated_home: Path) -> None:
    said = invoke("tokens", "-p", "cursor").stderr
    assert said.startswith("no Cursor sessions found"), said
    assert "no Codex CLI sessions found in this home" in invoke("prices", "-p", "codex").stderr


SESSION = "5a5a5a5a-0000-4000-8000-000000000059"


def test_trace_of_a_session_without_hook_events_names_show(isolated_home: Path) -> None:
    claude_session_file(isolated_home, SESSION, [
        claude_user(SESSION, "2026-05-01T10:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(SESSION, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(100, 10), parentUuid="u1", uuid="a1")])
    result = invoke("trace", SESSION[:8])
    assert result.exit_code == 1
    assert f"show claude:{SESSION}` shows it from its transcript" in result.stderr, result.stderr
    # An id no transcript holds: only the hooks' advice, as before.
    assert "shows it from its transcript" not in invoke("trace", "0f0f0f0f").stderr


def _gemini() -> dict[str, Any]:
    (config,) = [c for c in cli_json("hooks", "status")["configs"] if c["agent"] == "gemini" and c["scope"] == "user"]
    return config


def test_a_commented_gemini_file_with_our_entries_counts_them(isolated_home: Path) -> None:
    path = isolated_home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("{}\n")
    assert invoke("hooks", "install", "gemini").exit_code == 0
    path.write_text("// my settings, which Gemini CLI reads\n" + path.read_text())
    config = _gemini()
    assert config["events"] == config["of"] > 0, config
    assert config["problem"] is None, config
    assert "holds comments" in config["note"] and "`hooks install`" in config["note"], config
    # Still refused by an install, whose words are unchanged; the file is left as it was.
    before = path.read_text()
    assert invoke("hooks", "install", "gemini").exit_code == 1 and path.read_text() == before


def test_trace_keeps_the_command_under_the_values_past_the_width() -> None:
    from agentscan.cli.term import cut, cut_left, width_of
    from agentscan.hooks.text import Layout, _command

    layout = Layout(30, width_of, cut, cut_left)
    line = _command("agentscan show {}", "claude:7f3c9a12-4b8e-4000-8000-000000000059", layout,
                    lambda whole: whole[:15])
    assert line == "              agentscan show claude:7f3c9a12"


def test_show_keeps_the_command_under_the_values_past_the_width() -> None:
    from agentscan.cli.copyhint import card_command
    from agentscan.cli.term import Terminal

    lines = card_command("  hooks    3 events", " (", ")", lambda shown: f"agentscan trace {shown}",
                         "claude:7f3c9a12-4b8e-4000-8000-000000000059", Terminal(True, 30, False),
                         lambda whole: whole[:15])
    assert lines == ["  hooks    3 events:", f"{'':11}agentscan trace claude:7f3c9a12"], lines


FIRST, RESUMED = (f"{n * 8}-0000-4000-8000-000000000059" for n in "ab")


def _resumed_of_copies_alone(home: Path, *, first_gone: bool) -> None:
    first = [claude_user(FIRST, "2026-05-01T10:00:00.000Z", "fix the parser", uuid="u1", cwd="/w/proj"),
             claude_assistant(FIRST, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                              usage=claude_usage(100, 10), parentUuid="u1", uuid="a1",
                              model="claude-sonnet-4-5-20250929", cwd="/w/proj")]
    claude_session_file(home, FIRST, first)
    claude_session_file(home, RESUMED, first)  # (``claude --resume``'s copies, no turn of its own yet)
    if first_gone:
        next((home / ".claude" / "projects").rglob(f"{FIRST}.jsonl")).unlink()


@pytest.mark.parametrize("first_gone", [True, False])
@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_a_resumed_session_of_copies_alone_takes_their_cwd_model_and_title(
        isolated_home: Path, first_gone: bool, cache: tuple[str, ...]) -> None:
    _resumed_of_copies_alone(isolated_home, first_gone=first_gone)
    for _ in range(2):  # cold, then warm
        rows = {row["id"]: row for row in cli_json(*cache, "list")["sessions"]}
        row = rows[f"claude:{RESUMED}"]
        assert (row["cwd"], row["model"], row["title"]) == ("/w/proj", "claude-sonnet-4-5-20250929", "fix the parser")
        # Tokens as the resume rules count them: here only when the first session is gone.
        assert (row["tokens"] or {}).get("total", 0) == (110 if first_gone else 0), row
    shown = cli_json(*cache, "show", RESUMED)["session"]
    assert (shown["cwd"], shown["model"], shown["title"]) == ("/w/proj", "claude-sonnet-4-5-20250929", "fix the parser")


def test_a_resumed_session_with_a_turn_of_its_own_keeps_its_own() -> None:
    from agentscan.providers.claude.copiedhead import without_own_records
    from agentscan.providers.claude.filesummary import FileSummary

    summary = FileSummary(Path("x.jsonl"))
    summary.resumed_from, summary.resumed_copies = FIRST, 2
    assert without_own_records(summary)
    summary.own_met = True
    assert not without_own_records(summary)
