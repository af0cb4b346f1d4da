"""Locked databases: we still answer, promptly, and say where the answer came from.

Codex and Cursor hold their databases open while we read.  A writer in
another process either holds an exclusive lock (rollback journal: nobody
may read) or ``BEGIN IMMEDIATE`` in WAL mode (readers see the last commit).
In the first case agentscan waits at most its busy timeout, then answers
from the files and names the fallback in a warning and in ``doctor``; in
the second it reads the committed data and never the uncommitted change.
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.toolkit import sqlite_ro
from agentscan.cli import app
from bad_corpus import LiveWriter, case, lay_out
from codex_builders import at, index_row, write_state_db
from cursor_builders import bubble, composer_data, make_state_db, state_db_path

SHORT_TIMEOUT_MS = 250  # most tests shorten the wait; one measures the real one
SLACK = 3.0  # seconds for a slow CI machine


def run(*args: str) -> tuple[dict, float]:
    started = time.monotonic()
    result = CliRunner().invoke(app, [*args, "--json"])
    elapsed = time.monotonic() - started
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout), elapsed


def _codex_home(home: Path, *, wal: bool) -> tuple[Path, str]:
    item = case("codex", "clean")
    path = lay_out(home, [item])[item.id]
    # The index knows a title the rollout does not, and is fresher: it wins when it can be read.
    db = write_state_db(home / ".codex" / "state_5.sqlite",
                        [index_row(item.native_id, path, created=at(0), updated=at(10**8), title="title from the index")], wal=wal)
    return db, item.id


def _cursor_home(home: Path, *, wal: bool) -> tuple[Path, str]:
    item = case("cursor", "clean")
    lay_out(home, [item])
    db = make_state_db(state_db_path(home), wal=wal,
                       composers=[composer_data(item.native_id, name="title from the state db", bubbles=["b1"])],
                       bubbles={item.native_id: [bubble("b1", 2, "reply", tokens=(30, 4))]})
    return db, item.id


HOMES = {"codex": _codex_home, "cursor": _cursor_home}
FROM_DB = {"codex": ("title from the index", 220), "cursor": ("title from the state db", 34)}
FROM_FILES = {"codex": ("prompt for clean", 220), "cursor": ("prompt for clean", None)}
FALLBACK = {"codex": "thread index unreadable, listing from rollouts instead: database is locked",
            "cursor": "Cursor state DB not used"}
DOCTOR = {"codex": "sessions listed from rollouts only", "cursor": "not used"}


def _row(document: dict, session_id: str) -> tuple[str | None, int | None]:
    (row,) = [row for row in document["sessions"] if row["id"] == session_id]
    return row["title"], row["tokens"]["total"] if row["tokens"] else None


@pytest.mark.parametrize("provider", sorted(HOMES))
def test_an_exclusive_lock_means_the_fallback_within_the_busy_timeout(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    monkeypatch.setattr(sqlite_ro, "BUSY_TIMEOUT_MS", SHORT_TIMEOUT_MS)
    db, session_id = HOMES[provider](isolated_home, wal=False)
    with LiveWriter("exclusive", db):
        listed, list_time = run("list")
        report, tokens_time = run("tokens")
        shown, show_time = run("show", session_id)
        doctor, doctor_time = run("doctor")
    for elapsed in (list_time, tokens_time, show_time, doctor_time):
        assert elapsed < SHORT_TIMEOUT_MS / 1000 + SLACK, f"{elapsed:.1f}s: a lock must not make a command hang"
    assert _row(listed, session_id) == FROM_FILES[provider]
    assert shown["session"]["title"] == FROM_FILES[provider][0]
    if provider == "cursor":  # (pass 49) its usage is in the locked DB: not known, no row
        assert report["rows"] == [] and report["total"]["total"] == 0
    else:
        assert (report["total"] or {}).get("total") == FROM_FILES[provider][1]
    for document in (listed, report, shown):
        messages = [w["message"] for w in document["warnings"] if w["path"] == str(db)]
        assert any(FALLBACK[provider] in m and "locked" in m for m in messages), messages
    (section,) = [p for p in doctor["providers"] if p["provider"] == provider]
    assert any(DOCTOR[provider] in finding for finding in section["findings"]), section["findings"]
    assert any("locked" in finding for finding in section["findings"]) or section["warnings"], section


@pytest.mark.parametrize("provider", sorted(HOMES))
def test_begin_immediate_in_wal_mode_reads_the_last_commit(isolated_home: Path, provider: str) -> None:
    db, session_id = HOMES[provider](isolated_home, wal=True)
    with LiveWriter("immediate", db):
        listed, list_time = run("list")
        report, _ = run("tokens")
        doctor, _ = run("doctor")
    assert list_time < SLACK  # nothing to wait for: WAL readers are never blocked
    assert _row(listed, session_id) == FROM_DB[provider]
    assert (report["total"] or {}).get("total") == FROM_DB[provider][1]
    # Nothing was blocked or skipped; a bubble that names no model only has no price.
    unpriced = [{"path": "model:cursor/unknown"}] if provider == "cursor" else []
    assert [{"path": w["path"]} for w in listed["warnings"]] == unpriced
    assert [{"path": w["path"]} for w in report["warnings"]] == unpriced
    (section,) = [p for p in doctor["providers"] if p["provider"] == provider]
    assert not any("not used" in f or "none readable" in f for f in section["findings"]), section["findings"]


@pytest.mark.slow  # waits out the real busy timeout twice
def test_with_the_real_busy_timeout_both_locked_databases_cost_one_wait_each(isolated_home: Path) -> None:
    """The default timeout, measured: each locked database is waited for once per command, not per query."""
    codex_db, _ = _codex_home(isolated_home, wal=False)
    cursor_db, _ = _cursor_home(isolated_home, wal=False)
    timeout = sqlite_ro.BUSY_TIMEOUT_MS / 1000
    assert 0 < timeout <= 5
    with LiveWriter("exclusive", codex_db, cursor_db):
        listed, elapsed = run("list")
    assert 2 * timeout <= elapsed < 2 * timeout + SLACK, f"{elapsed:.1f}s"
    assert {row["title"] for row in listed["sessions"]} == {"prompt for clean"}
    assert {w["path"] for w in listed["warnings"]} == {str(codex_db), str(cursor_db)}
