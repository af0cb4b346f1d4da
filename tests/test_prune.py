"""The index forgets sessions whose files are gone, and nothing else (``scan.prune``)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from agentscan.cli.state import State
from agentscan.scan.cache import FILE_NAME
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

S1 = "aaaaaaaa-1111-4222-8333-000000000001"
S2 = "bbbbbbbb-1111-4222-8333-000000000002"
S3 = "cccccccc-1111-4222-8333-000000000003"
_TABLES = ("ids", "rows", "usage", "calls", "resume", "report_rows")


def session(home: Path, native_id: str, day: int, *, project: str = "-home-dev-project") -> Path:
    return claude_session_file(home, native_id, [
        claude_user(native_id, f"2026-11-{day:02d}T10:00:00Z", f"prompt of {native_id[:4]}"),
        claude_assistant(native_id, f"2026-11-{day:02d}T10:00:01Z", msg_id=f"m-{native_id}", request_id=f"r-{native_id}",
                         usage=claude_usage(100 + day, 10)),
    ], project=project, mtime=1_790_000_000 + day * 86_400)


def scan(home: Path | None = None, *, no_cache: bool = False) -> None:
    """What ``list``, ``show`` of each session and ``tokens`` keep in the index."""
    from agentscan.scan.tokens import token_report

    with State(home=home, no_cache=no_cache).scanner(memo=True) as scanner:
        rows = scanner.list_sessions()
        for row in rows:
            scanner.show(row.id)
        token_report(scanner)


def kept() -> dict[str, set[str]]:
    """Each per-session table's session ids."""
    conn = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)
    try:
        return {table: {row[0] for row in conn.execute(f"SELECT session_id FROM {table}")} for table in _TABLES}
    finally:
        conn.close()


def everywhere(*native_ids: str) -> set[str]:
    return {f"claude:{native_id}" for native_id in native_ids}


def test_a_deleted_session_is_forgotten_everywhere(isolated_home: Path) -> None:
    first, second = session(isolated_home, S1, 1), session(isolated_home, S2, 2)
    scan()
    before = kept()
    assert before["ids"] == before["rows"] == before["usage"] == everywhere(S1, S2)
    first.unlink()
    scan()
    after = kept()
    for table in _TABLES:
        assert after[table] == before[table] - everywhere(S1), table
    second.unlink()
    scan()
    assert all(not ids for ids in kept().values())


def test_a_moved_session_is_kept(isolated_home: Path) -> None:
    old = session(isolated_home, S1, 1)
    session(isolated_home, S2, 2)
    scan()
    new = session(isolated_home, S1, 1, project="-home-dev-elsewhere")
    old.unlink()
    scan()
    assert kept()["usage"] == everywhere(S1, S2)
    conn = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)
    try:
        assert conn.execute("SELECT path FROM ids WHERE session_id=?", (f"claude:{S1}",)).fetchone() == (str(new),)
    finally:
        conn.close()


def test_another_home_leaves_this_homes_sessions_alone(isolated_home: Path, tmp_path: Path) -> None:
    session(isolated_home, S1, 1)
    other = tmp_path / "other-home"
    session(other, S3, 3)
    scan()
    scan(other)  # the same index, another home: S1 is not under its roots
    assert kept()["usage"] == everywhere(S1, S3)
    scan()
    assert kept()["usage"] == everywhere(S1, S3)


def test_a_discovery_that_could_not_read_everything_forgets_nothing(isolated_home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    session(isolated_home, S1, 1)
    session(isolated_home, S2, 2, project="-home-dev-other")
    scan()
    unreadable = str(isolated_home / ".claude" / "projects" / "-home-dev-other")
    real_scandir = os.scandir

    def refusing(path: object = ".") -> object:
        if os.fspath(path) == unreadable:  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", unreadable)
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refusing)
    with State().scanner(memo=True) as scanner:
        found = {row.id for row in scanner.list_sessions()}
        assert found == everywhere(S1)  # S2 could not be listed this time
        assert any("cannot list" in warning.message for warning in scanner.warnings)
    assert kept()["usage"] == everywhere(S1, S2)  # ... and is not forgotten for it


def test_nothing_is_written_without_the_index(isolated_home: Path) -> None:
    session(isolated_home, S1, 1)
    scan(no_cache=True)
    assert not (Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME).exists()
