"""The first ``tokens`` after an upgrade keeps resume states only for sessions at work.

A new agentscan with a bumped parser version changes every session's fingerprint, so every
session is "changed since the index's sums".  That used to mean "an agent is at work in it":
each kept a resume state (``usageparse``), which cost a heavy user's first run 412 MB
instead of 285 at scale 10 and left 100 MB of states in the index for good.  Now a changed
session keeps one only when a file of it was written lately (``RESUME_ACTIVE_DAYS``); and a
state is tied to the parser and code that made it, so an upgrade never resumes with the calls
another parser kept.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from agentscan.providers.claude import filescan, incremental
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan import usageparse
from agentscan.scan.cachefile import FILE_NAME
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json
from spies import record_calls

MODEL = "claude-sonnet-4-5-20250929"


def _records(native: str, turns: int, start: int = 0) -> list[dict]:
    return [record for n in range(start, start + turns) for record in (
        claude_user(native, f"2026-11-02T09:{n:02d}:00.000Z", f"task {n}", uuid=f"u{n}"),
        claude_assistant(native, f"2026-11-02T09:{n:02d}:30.000Z", msg_id=f"m{native[:4]}{n}",
                         request_id=f"r{native[:4]}{n}", uuid=f"a{n}", usage=claude_usage(100 + n, 10)))]


def _native(number: int) -> str:
    return f"{number:08x}-2222-4000-8000-000000000000"


def _states() -> set[str]:
    """Sessions with a resume state in the index."""
    with closing(sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)) as connection:
        return {row[0] for row in connection.execute("SELECT session_id FROM resume")}


def _totals(*args: str) -> list:
    return [(row["key"], row["tokens"]) for row in cli_json("tokens", "--by", "session", *args)["rows"]]


def _upgrade(monkeypatch: pytest.MonkeyPatch) -> None:
    """What installing a new agentscan does to Claude's sessions: another parser version."""
    monkeypatch.setattr(ClaudeProvider, "parser_version", ClaudeProvider.parser_version + "-next")


def test_an_upgrade_keeps_states_only_for_sessions_written_lately(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    month_ago = time.time() - 30 * 86400
    for number in range(3):
        claude_session_file(isolated_home, _native(number), _records(_native(number), 2), mtime=month_ago)
    claude_session_file(isolated_home, _native(9), _records(_native(9), 2))  # written now: at work
    # Dated a year ahead (a copied home, a clock set wrong): not written by an agent at work now.
    claude_session_file(isolated_home, _native(7), _records(_native(7), 2), mtime=time.time() + 365 * 86400)
    before = _totals()
    assert _states() == set()  # a first parse of a small session keeps none
    _upgrade(monkeypatch)
    assert _totals() == before == _totals("--no-cache")
    assert _states() == {f"claude:{_native(9)}"}  # not the idle ones


def test_a_session_being_written_still_resumes(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    native = _native(1)
    path = claude_session_file(isolated_home, native, _records(native, 2))
    _totals()
    starts = record_calls(monkeypatch, incremental, "scan_file", lambda *args, **kwargs: kwargs.get("start", 0))
    with path.open("ab") as handle:  # grown: it keeps a state from this parse
        handle.write(b"".join(orjson.dumps(r) + b"\n" for r in _records(native, 1, start=2)))
    _totals()
    assert _states() == {f"claude:{native}"}
    starts.clear()
    with path.open("ab") as handle:  # grown again: only the new tail is read
        handle.write(b"".join(orjson.dumps(r) + b"\n" for r in _records(native, 1, start=3)))
    grown = _totals()
    assert starts and all(start > 0 for start in starts)
    assert grown == _totals("--no-cache")


def test_a_state_another_parser_kept_is_not_resumed_from(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A state holds the calls its parse kept: the new parser must count the file itself."""
    monkeypatch.setattr(usageparse, "RESUME_MIN_BYTES", 0)  # a state from the first parse
    native = _native(2)
    claude_session_file(isolated_home, native, _records(native, 2))
    old = _totals()
    assert _states() == {f"claude:{native}"}
    real = filescan.call_of

    def tenfold_output(record: dict, *args: object) -> object:
        usage = record.get("message", {}).get("usage")
        if usage:
            record["message"]["usage"] = {**usage, "output_tokens": usage["output_tokens"] * 10}
        return real(record, *args)

    monkeypatch.setattr(filescan, "call_of", tenfold_output)  # the new parser counts otherwise
    _upgrade(monkeypatch)
    new = _totals()
    assert new == _totals("--no-cache") != old


def test_a_state_an_earlier_agentscan_left_is_dropped(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index an earlier agentscan filled with states (one for every session it took for
    active) is emptied of them by the first parse of each idle session."""
    month_ago = time.time() - 30 * 86400
    for number in range(2):
        claude_session_file(isolated_home, _native(number), _records(_native(number), 2), mtime=month_ago)
    monkeypatch.setattr(usageparse, "RESUME_MIN_BYTES", 0)  # as the earlier one kept them
    before = _totals()
    assert len(_states()) == 2
    monkeypatch.setattr(usageparse, "RESUME_MIN_BYTES", 8 * 1024 * 1024)
    _upgrade(monkeypatch)
    assert _totals() == before
    assert _states() == set()
