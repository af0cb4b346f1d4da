"""Pass 52 (fixF): user-facing leftovers.

1. ``hooks install openai`` says why, as ``-p openai`` does: OpenAI's models run in codex and
   cursor sessions (``cli.options._choice_error`` with ``toolkit.words.agent_aside``).
2. With Cursor's global ``state.vscdb`` corrupt (not locked), a transcript session's tokens are
   not known (a transcript records none: they are the DB's bubbles): ``show`` said
   ``not recorded`` and ``tokens`` counted it among the sessions that "recorded no usage"
   (``Provider.unknown_usage``).
3. A first ``tokens`` on a terminal counted the same sessions twice under two names that read
   as two reads: "adding up tokens N/N", then "reading sessions N/N" (the table's titles); the
   second is now "naming sessions", and the upgrade note says what it reads again ("for their tokens"), not "once".
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_sessions, invoke
from cursor_builders import (
    assistant, break_schema, bubble, composer_data, make_state_db, state_db_path, turn_ended, user, write_transcript,
)

runner = CliRunner()


@pytest.mark.parametrize("argv, aside", [
    (["hooks", "install", "openai", "--dry-run"], "OpenAI's models run in codex and cursor sessions: hooks install names the agent"),
    (["hooks", "uninstall", "--agent", "google"], "Google's models run in gemini and cursor sessions: hooks uninstall names the agent"),
    (["hooks", "install", "claude-desktop"], "Claude Desktop's chats are not read; claude is Claude Code's sessions"),
])
def test_a_vendor_given_to_hooks_is_explained_as_for_p(argv: list[str], aside: str, isolated_home: Path) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2 and result.stdout == ""
    flag = "--agent" if "--agent" in argv else "AGENT"
    assert result.stderr.splitlines()[0] == (
        f"error: unknown {flag} {argv[2 if flag == 'AGENT' else 3]!r}; choose from: cursor, claude, gemini ({aside})")


def test_an_unlike_agent_gets_the_list_alone(isolated_home: Path) -> None:
    result = runner.invoke(app, ["hooks", "install", "foo"])
    assert result.stderr.splitlines()[0] == "error: unknown AGENT 'foo'; choose from: cursor, claude, gemini"
    # the -p wording is unchanged
    result = runner.invoke(app, ["--demo", "list", "-p", "openai"])
    assert "(OpenAI's models run in codex and cursor sessions: -p picks the agent, --grep gpt the model)" in result.stderr


A = "a5200000-0000-4000-8000-0000000000a1"
T = "a5200000-0000-4000-8000-0000000000d4"


def _cursor_home(home: Path, *, corrupt: bool) -> None:
    db = make_state_db(state_db_path(home), composers=[composer_data(A, name="global chat", bubbles=["u"])],
                       bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]})
    write_transcript(home, "work-proj", T, [user("fix the bug"), assistant("done"), turn_ended()])
    if corrupt:
        break_schema(db)


@pytest.mark.usefixtures("only_cursor")
def test_a_transcript_session_with_the_state_db_corrupt_has_unknown_tokens(isolated_home: Path) -> None:
    _cursor_home(isolated_home, corrupt=True)
    card = invoke("show", T).stdout
    assert "tokens   not known (could not be read)" in card, card
    assert "counts   1 prompt, 1 response, 0 tool calls" in card  # the transcript's own: known
    shown = orjson.loads(invoke("show", T, "--json").stdout)["session"]
    assert shown["tokens"] is None and shown["tokens_unknown"] is True
    report = invoke("tokens")
    said = report.stdout + report.stderr
    assert "recorded no usage" not in said, said
    assert "could not be read, not counted" in said and f"cursor:{T}" in said
    data = orjson.loads(invoke("tokens", "--json").stdout)
    assert data["rows"] == [] or all(row["key"] != f"cursor:{T}" for row in data["rows"])


@pytest.mark.usefixtures("only_cursor")
def test_a_transcript_session_with_no_state_db_recorded_none(isolated_home: Path) -> None:
    # No DB at all (the Agent CLI alone): nothing was there to read, so "not recorded" stays.
    write_transcript(isolated_home, "work-proj", T, [user("fix the bug"), assistant("done"), turn_ended()])
    card = invoke("show", T).stdout
    assert "tokens   not recorded" in card, card
    assert "tokens_unknown" not in orjson.loads(invoke("show", T, "--json").stdout)["session"]
    # (pass 60: the only session, said once: "recorded none", its ``show`` named whole)
    assert "the only Cursor session recorded none" in invoke("tokens").stderr


@pytest.mark.usefixtures("only_cursor")
def test_a_sound_state_db_gives_the_transcript_its_tokens_as_before(isolated_home: Path) -> None:
    _cursor_home(isolated_home, corrupt=False)
    assert "tokens   not recorded" in invoke("show", T).stdout  # its composer is not in the DB


def _progress_lines(stderr: str) -> list[str]:
    return [line for line in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", stderr)) if line.strip()]


def test_a_first_tokens_names_its_two_counts_apart(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                   tty) -> None:  # noqa: ANN001
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", 0.0)
    monkeypatch.setattr("agentscan.cli.progress.REDRAW_S", 0.0)
    claude_sessions(isolated_home, 5)
    tty(100)
    lines = _progress_lines(invoke("tokens").stderr)
    assert any(line.startswith("adding up tokens 5/5") for line in lines), lines
    assert any(line.startswith("naming sessions 5/5") for line in lines), lines
    assert not any(line.startswith("reading sessions") for line in lines), lines
    # after an upgrade: the note before the counts, no promise of one read
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))
    lines = _progress_lines(invoke("tokens").stderr)
    notes = [line for line in lines if line.startswith("note:")]
    assert notes == ["note: agentscan was upgraded: reading 5 sessions again for their tokens "
                     "(the index holds them from an older version)"], lines
    assert not any(line.startswith("reading sessions") for line in lines), lines
