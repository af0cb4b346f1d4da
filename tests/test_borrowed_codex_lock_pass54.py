"""A Gemini chat in a hash-named project dir asks Codex's sessions for their folders
(``OwnRefs.borrowed_cwds``).  Codex's thread index locked by Codex is another provider's
trouble: a ``list -p gemini`` does not wait on it (it waited 2 s, the read's usual busy
timeout) nor says it, and finds the folder in the rollouts all the same; a run that asks for
Codex still waits for the lock, and says it (pass 54, as pass 53 did for Cursor's state DB)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.toolkit import sqlite_ro
from codex_builders import Calls, at, index_row, meta, rollout_path, turn_context, user_message, write_rollout, write_state_db
from gemini_builders import hash_named_chat
from spies import record_calls

runner = CliRunner()

#: a folder only a Codex thread names: the Gemini chat in its hash dir borrows it
FOLDER = "/work/codex-only"
THREAD = "019c5454-0000-7000-8000-00000000000a"


@pytest.fixture
def home(isolated_home: Path) -> Path:
    codex = isolated_home / ".codex"
    calls = Calls()
    rollout = write_rollout(rollout_path(codex, THREAD, at(0)), [
        meta(THREAD, at(0), cwd=FOLDER), turn_context(at(1), cwd=FOLDER), user_message(at(1), "a task"),
        calls.call(at(5), 100, 0, 10)], mtime=at(5).timestamp())
    write_state_db(codex / "state_5.sqlite", [index_row(THREAD, rollout, created=at(0), updated=at(5), cwd=FOLDER)])
    hash_named_chat(isolated_home, FOLDER)
    return isolated_home


def _waits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """(database name, how long its read waits on a lock) of every read-only open from now on."""
    return record_calls(monkeypatch, sqlite_ro, "connect_readonly",
                        lambda path, **named: (Path(path).name, named.get("busy_ms", sqlite_ro.BUSY_TIMEOUT_MS)))


def test_a_gemini_run_does_not_wait_on_codex_locked_index(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    waits = _waits(monkeypatch)
    with closing(sqlite3.connect(home / ".codex" / "state_5.sqlite", isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        result = runner.invoke(app, ["--strict", "list", "-p", "gemini", "--json"])
        assert result.exit_code == 0, result.output
        assert "thread index" not in result.output
        (row,) = orjson.loads(result.stdout)["sessions"]
        assert row["cwd"] == FOLDER  # from the rollout's header, the index unread
        assert ("state_5.sqlite", sqlite_ro.BRIEF_BUSY_MS) in waits
        assert ("state_5.sqlite", sqlite_ro.BUSY_TIMEOUT_MS) not in waits
        waits.clear()
        # Asked for, Codex waits for its index as it always did, and says why it went without.
        result = runner.invoke(app, ["list", "-p", "codex", "--json"])
        holder.execute("ROLLBACK")
    assert result.exit_code == 0, result.output
    said = [warning["message"] for warning in orjson.loads(result.stdout)["warnings"]]
    assert any("thread index unreadable" in message and "locked" in message for message in said), said
    assert waits and all(busy != sqlite_ro.BRIEF_BUSY_MS for _, busy in waits)


def test_unlocked_the_index_is_read_once_for_both(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With both providers asked, the borrowed cwds take the scan's own discovery (no brief read)."""
    waits = _waits(monkeypatch)
    result = runner.invoke(app, ["list", "-p", "gemini,codex", "--json"])
    assert result.exit_code == 0, result.output
    rows = orjson.loads(result.stdout)["sessions"]
    assert {row["cwd"] for row in rows} == {FOLDER}
    assert [busy for name, busy in waits if name == "state_5.sqlite"] == [sqlite_ro.BUSY_TIMEOUT_MS]
