"""``--running`` and ``--pid`` say how many sessions they left out because their ``running``
cannot be told (``null``: Gemini's, Cursor's), once, in JSON's ``running_unknown`` and on stderr;
not as a warning, which ``--strict`` would fail on in every home holding a Gemini chat.

A script filtering with ``list --running --json`` got ``[]`` and no word of the Gemini
sessions it could not check; a Cursor transcript was ``false`` (or ``true``) by open files
although nothing shows Cursor holding its transcript open while its agent runs.
"""

from __future__ import annotations

import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_session_file, claude_user
from cursor_builders import assistant, composer_data, make_state_db, state_db_path, write_transcript
from cursor_builders import user as cursor_user
from gemini_builders import gemini, meta, tokens, user, write_chat

runner = CliRunner()
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="liveness is read from /proc")
CLAUDE = "c1c1c1c1-1111-4222-8333-444444444444"
CURSOR = "aaaaaaaa-1111-4222-8333-444444444444"


def gemini_chats(home: Path, count: int) -> None:
    for index in range(count):
        native = f"9e9e9e9{index}-1111-4222-8333-444444444444"
        write_chat(home, "api", f"session-2026-05-01T10-0{index}-{native[:8]}.jsonl", [
            meta(native), user("u1", f"2026-05-01T10:0{index}:00.000Z", f"port module {index}"),
            gemini("g1", f"2026-05-01T10:0{index}:05.000Z", "done", usage=tokens(100, 10))])


def claude_session(home: Path) -> Path:
    """A Claude session its home's registry tells (a Claude Code of 2.1.x writes ``sessions/``)."""
    (home / ".claude" / "sessions").mkdir(parents=True, exist_ok=True)
    return claude_session_file(home, CLAUDE, [claude_user(CLAUDE, "2026-05-01T09:00:00Z", "hi")])


def cursor_session(home: Path) -> Path:
    transcript = write_transcript(home, "home-dev-web", CURSOR, [cursor_user("build it"), assistant("ok")])
    make_state_db(state_db_path(home), composers=[composer_data(CURSOR, name="build web")])
    return transcript


def listed(*argv: str) -> dict:
    result = runner.invoke(app, ["list", "--json", *argv])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


@linux_only
def test_running_json_warns_of_the_sessions_it_could_not_tell(isolated_home: Path) -> None:
    gemini_chats(isolated_home, 3)
    held = claude_session(isolated_home)
    with held.open("ab"):
        doc = listed("--running")
    assert [row["native_id"] for row in doc["sessions"]] == [CLAUDE]
    assert doc["running_unknown"] == [{"provider": "gemini", "sessions": 3,
                                       "reason": "no file a running Gemini CLI holds open tells it"}]
    assert doc["warnings"] == []
    assert listed("--pid", "1")["running_unknown"] == doc["running_unknown"]
    # An unfiltered list has no such field: every row is there, each with its ``running``.
    assert "running_unknown" not in listed()


@linux_only
def test_running_text_says_it_once(isolated_home: Path) -> None:
    gemini_chats(isolated_home, 2)
    claude_session(isolated_home)
    result = runner.invoke(app, ["list", "--running"])
    assert result.exit_code == 0
    assert result.stderr.count("2 Gemini CLI sessions left out") == 1, result.stderr
    # The empty list's note says what was told; the line after it, how many could not be and why.
    assert "no live process writes or runs the only session it could tell\n" in result.stderr, result.stderr
    alone = runner.invoke(app, ["list", "--running", "-p", "gemini"])
    assert "no running sessions found\n" in alone.stderr, alone.stderr
    assert alone.stderr.count("left out") == 1
    # --strict does not fail on it: it is what Gemini can never tell, not input that could not
    # be read; a cron check with --strict failed every run.
    assert runner.invoke(app, ["--strict", "list", "--running", "--json"]).exit_code == 0
    strict = runner.invoke(app, ["--strict", "list", "--running", "-p", "gemini"])
    assert strict.exit_code == 0, strict.stderr
    assert strict.stderr.count("--running: 2 Gemini CLI sessions left out") == 1, strict.stderr
    assert "warning" not in strict.stderr
    by_pid = runner.invoke(app, ["--strict", "list", "--pid", "1"])
    assert by_pid.exit_code == 0 and "--pid: 2 Gemini CLI sessions left out" in by_pid.stderr, by_pid.stderr


@linux_only
def test_a_cursor_transcript_is_never_told_running_or_not(isolated_home: Path) -> None:
    """Held open for writing, or Cursor holding (and locking) ``state.vscdb``: ``null`` either way."""
    transcript = cursor_session(isolated_home)
    with transcript.open("ab"), closing(sqlite3.connect(state_db_path(isolated_home))) as db:
        db.execute("BEGIN IMMEDIATE")
        assert [row["running"] for row in listed()["sessions"]] == [None]
        shown = runner.invoke(app, ["show", CURSOR[:8], "--json"])
        assert orjson.loads(shown.stdout)["session"]["running"] is None
        doc = listed("--running")
        db.rollback()
    assert doc["sessions"] == []
    assert [(c["provider"], c["sessions"]) for c in doc["running_unknown"]] == [("cursor", 1)]


def test_off_linux_it_is_said_once_for_every_provider(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import liveness

    monkeypatch.setattr(liveness, "supported", lambda: False)
    gemini_chats(isolated_home, 2)
    claude_session(isolated_home)
    reason = "--running and --pid need Linux (/proc)"
    assert listed("--running")["running_unknown"] == [{"provider": "claude", "sessions": 1, "reason": reason},
                                                      {"provider": "gemini", "sessions": 2, "reason": reason}]
    result = runner.invoke(app, ["--strict", "list", "--running"])
    assert result.exit_code == 0
    assert "--running and --pid could check no session here" in result.stderr, result.stderr
    assert result.stderr.count("need Linux") == 1
    assert "--running: 3 sessions left out, their `running` not known (null)" in result.stderr


def test_the_files_that_tell_mirror_each_provider_class() -> None:
    from agentscan.providers import BUILTIN_PROVIDERS, LIVENESS_FILES, get_provider

    for name in BUILTIN_PROVIDERS:
        assert get_provider(name).liveness_files == LIVENESS_FILES.get(name), name


def test_list_help_says_what_running_does_with_sessions_it_cannot_tell() -> None:
    # It said "left out, with a warning" after they stopped being warnings, and named no
    # Claude Code home without a registry (at scale 10, most of what was left out).
    result = runner.invoke(app, ["list", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    words = " ".join(result.stdout.split())
    assert "with a warning" not in words
    assert "a Claude Code with no session registry" in words and "counted on stderr" in words
