"""A running Claude Code session is running; a reader of a transcript runs nothing (pass 49).

Claude Code opens, writes and closes its transcript for each record, so no process holds a
running session's file open: ``list --running`` never found one, and ``running`` was
``false``.  Its registry (``<config>/sessions/<pid>.json``, guarded against a reused pid by
``procStart``) names the live ones.  And a process holding a transcript open only to read it
(``less``, a backup, another agentscan) made a session of last month "running".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from agentscan.providers.claude import liveprocs
from agentscan.scan import liveness
from builders import claude_session_file, claude_user, invoke

pytestmark = pytest.mark.skipif(not liveness.supported(), reason="/proc is Linux-only; running is null elsewhere")

LIVE, IDLE = "11111111-0000-4000-8000-000000000049", "22222222-0000-4000-8000-000000000049"


def _sessions(home: Path) -> Path:
    (home / ".claude" / "sessions").mkdir(parents=True)  # a current Claude Code's registry, empty
    claude_session_file(home, IDLE, [claude_user(IDLE, "2026-11-01T10:00:00Z", "idle one")])
    return claude_session_file(home, LIVE, [claude_user(LIVE, "2026-11-02T10:00:00Z", "live one")])


def _register(home: Path, pid: int, session: str, *, started: str | None = None, name: str | None = None) -> Path:
    registry = home / ".claude" / "sessions"
    registry.mkdir(parents=True, exist_ok=True)
    entry = {"pid": pid, "sessionId": session, "cwd": "/home/dev/project", "status": "busy",
             "procStart": started if started is not None else liveprocs._started_at(pid), "version": "2.1.278"}
    path = registry / (name or f"{pid}.json")
    path.write_bytes(orjson.dumps(entry))
    return path


def _running() -> dict[str, object]:
    return {row["native_id"]: row["running"] for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}


def test_a_session_its_process_registered_is_running(isolated_home: Path) -> None:
    _sessions(isolated_home)
    assert _running() == {LIVE: False, IDLE: False}
    _register(isolated_home, os.getpid(), LIVE)
    assert _running() == {LIVE: True, IDLE: False}
    live = orjson.loads(invoke("list", "--json", "--running").stdout)["sessions"]
    assert [row["native_id"] for row in live] == [LIVE]
    assert [row["native_id"] for row in orjson.loads(invoke("list", "--json", "--pid", str(os.getpid())).stdout)["sessions"]] == [LIVE]
    assert orjson.loads(invoke("list", "--json", "--pid", "1").stdout)["sessions"] == []


def test_an_entry_of_a_process_gone_or_reused_is_not(isolated_home: Path) -> None:
    _sessions(isolated_home)
    _register(isolated_home, os.getpid(), LIVE, started="1")  # this pid, another process's start
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    _register(isolated_home, int(gone.stdout), IDLE, started="1")
    # The older builds' ``pid-<n>.json`` (no ``procStart``: a reused pid would pass) is not read.
    legacy = isolated_home / ".claude" / "sessions" / f"pid-{os.getpid()}.json"
    legacy.write_bytes(orjson.dumps({"pid": os.getpid(), "session_id": IDLE, "cwd": "/x"}))
    assert _running() == {LIVE: False, IDLE: False}


def test_a_damaged_registry_entry_is_no_running_session_and_no_error(isolated_home: Path) -> None:
    _sessions(isolated_home)
    entry = _register(isolated_home, os.getpid(), LIVE)
    entry.write_bytes(entry.read_bytes()[:20])  # (being written)
    assert _running() == {LIVE: False, IDLE: False}
    assert invoke("list").exit_code == 0


def test_a_reader_holding_a_transcript_runs_nothing(isolated_home: Path) -> None:
    path = _sessions(isolated_home)
    with path.open("rb"):  # ``less``, a backup, another agentscan
        assert _running() == {LIVE: False, IDLE: False}
    with path.open("ab"):  # an agent writing it
        assert _running() == {LIVE: True, IDLE: False}


def test_an_older_claude_code_without_a_registry_is_not_told_idle(isolated_home: Path) -> None:
    # Pass 50: a home of a Claude Code older than its registry said ``running: false``, a
    # guess (its process holds no file open); ``null``, as Gemini's, and ``--running`` says so.
    _sessions(isolated_home)
    (isolated_home / ".claude" / "sessions").rmdir()
    assert _running() == {LIVE: None, IDLE: None}
    shown = orjson.loads(invoke("show", LIVE, "--json").stdout)["session"]
    assert shown["running"] is None
    result = invoke("list", "--running")
    assert result.exit_code == 0 and "no running sessions found\n" in result.stderr
    assert "2 Claude Code sessions left out, their `running` not known (null)" in result.stderr
    path = next((isolated_home / ".claude" / "projects").rglob(f"{LIVE}.jsonl"))
    with path.open("ab"):  # a process writing it still runs it
        assert _running() == {LIVE: True, IDLE: None}
    (isolated_home / ".claude" / "sessions").mkdir()
    assert _running() == {LIVE: False, IDLE: False}


def test_list_running_says_how_many_sessions_it_could_not_tell() -> None:
    from agentscan.cli.list_text import explain_empty
    from agentscan.scan.listing import ListFilter, SessionPage

    def said(untold: int) -> str:
        page = SessionPage([], 3, False, {"running": 3}, {"running": 0}, untold=untold)
        return explain_empty(page, ListFilter(running=True), others=0, cwd_text=None, since_text=None,
                             running_supported=True)

    assert said(0) == "no running sessions: no live process writes or runs any of 3 sessions"
    # Only what was told: it said "no live process writes or runs any of 3 sessions; whether
    # any of them runs cannot be told here", the second half taking back the first; then it
    # said how many could not be told, which the per-provider lines after it say again.
    assert said(1) == "no running sessions: no live process writes or runs any of the 2 sessions it could tell"
    assert said(2) == "no running sessions: no live process writes or runs the only session it could tell"
    assert said(3) == "no running sessions found"
    page = SessionPage([], 3, False, {"running": 3}, {"running": 0}, untold=3)
    assert explain_empty(page, ListFilter(running=True, pid=42), others=0, cwd_text=None, since_text=None,
                         running_supported=True) == "no session found that process 42 writes or runs"
    page = SessionPage([], 3, False, {"running": 3}, {"running": 0}, untold=1)
    assert explain_empty(page, ListFilter(running=True, pid=42), others=0, cwd_text=None, since_text=None,
                         running_supported=True) == "process 42 writes or runs none of the 2 sessions it could tell"
