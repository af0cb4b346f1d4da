"""Rows of a batch that reads every row (``Scanner.prefetch_rows(every=True)``) are committed a
few hundred at a time and all of them by the batch's last row (reported by the review of
c3a72fc): also when that last row is answered from the index, has no cache key, or is not
kept; else they wait, uncommitted and holding the index's write lock, for a later commit or
``close``, and a library caller that never closes loses them."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from agentscan.model import SessionRef
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan.scanner import Scanner
from test_row_build import _session

OLDEST = "00000000"  # ``_session(home, 0)``: the oldest, read last


def _committed() -> set[str]:
    """The rows another connection (another agentscan) sees."""
    index = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite"
    with sqlite3.connect(index) as other:
        return {session_id for (session_id,) in other.execute("SELECT session_id FROM rows")}


def _sessions(home: Path) -> None:
    for number in range(10):
        _session(home, number)


def _newer_ones(scanner: Scanner) -> set[str]:
    return {ref.id for ref in scanner.refs() if not ref.native_id.startswith(OLDEST)}


def test_the_last_row_answered_from_the_index(isolated_home: Path) -> None:
    _sessions(isolated_home)
    with Scanner(use_cache=True) as first:
        oldest = [ref for ref in first.refs() if ref.native_id.startswith(OLDEST)]
        first.row(oldest[0])
    scanner = Scanner(use_cache=True)
    assert len(scanner.all_rows()) == 10
    assert _committed() == {ref.id for ref in scanner.refs()}
    scanner.close()


def test_the_last_row_without_a_cache_key(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``None``: do not cache it (``Provider.fingerprint``; a Cursor transcript gone, say)."""
    _sessions(isolated_home)
    real = ClaudeProvider.fingerprint

    def fingerprint(self: ClaudeProvider, ref: SessionRef, ctx) -> str | None:  # noqa: ANN001
        return None if ref.native_id.startswith(OLDEST) else real(self, ref, ctx)

    monkeypatch.setattr(ClaudeProvider, "fingerprint", fingerprint)
    scanner = Scanner(use_cache=True)
    assert len(scanner.all_rows()) == 10
    assert _committed() == _newer_ones(scanner)
    scanner.close()


def test_the_last_row_not_kept(isolated_home: Path) -> None:
    """Its transcript could not be read this time (gone since discovery): the row is not kept."""
    _sessions(isolated_home)
    scanner = Scanner(use_cache=True)
    refs = scanner.refs()
    oldest = next(ref for ref in refs if ref.native_id.startswith(OLDEST))
    assert oldest is refs[-1] and oldest.path is not None
    oldest.path.unlink()
    rows = scanner.all_rows()
    assert len(rows) == 10 and any("cannot read" in w.message for w in scanner.warnings)
    assert _committed() == _newer_ones(scanner)
    scanner.close()


def _gemini_chats(home: Path) -> None:
    """Gemini chats (read here, never in a worker) among the Claude sessions, by recency."""
    from gemini_builders import gemini, meta, tokens, user, write_chat

    for number in range(0, 30, 3):
        session = f"{number:08x}-3333-4000-8000-000000000000"
        write_chat(home, "proj", f"session-2026-11-01T10-00-{session[:8]}.jsonl", [
            meta(session, start="2026-11-01T10:00:00.000Z"),
            user(f"u{number}", "2026-11-01T10:00:01.000Z", f"gemini task {number}"),
            gemini(f"g{number}", "2026-11-01T10:00:05.000Z", "done", usage=tokens(100, 10)),
        ], mtime=1_790_000_000 + number + 0.5)


def _lock_held() -> bool:
    """Whether some connection holds the index's write lock (another agentscan would wait)."""
    index = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite"
    other = sqlite3.connect(index, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        other.close()


@pytest.mark.parametrize("in_workers", [True, False])
def test_no_write_lock_is_held_while_a_row_is_read_here(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                         in_workers: bool) -> None:
    """Rows taken back from workers are stored a few hundred per commit; a row read in this
    process (a Gemini chat, a huge transcript, every row when too few travel) may take seconds,
    and another agentscan writing to the index would wait all that time."""
    from agentscan.providers.gemini.provider import GeminiProvider
    from agentscan.scan import rowbuild
    from agentscan.toolkit import workers

    if in_workers and not workers.usable_workers():
        pytest.skip("needs two cores and fork")
    monkeypatch.setattr(rowbuild, "MIN_ROWS", 2 if in_workers else 10**9)
    monkeypatch.setattr(rowbuild, "MIN_BYTES", 0)
    for number in range(30):
        _session(isolated_home, number)
    _gemini_chats(isolated_home)
    parent, held = os.getpid(), []
    for provider in (GeminiProvider, ClaudeProvider):
        real = provider.row

        def row(self, ref, ctx, real=real):  # noqa: ANN001, ANN202
            if os.getpid() == parent:
                held.append((ref.provider, _lock_held()))
            return real(self, ref, ctx)

        monkeypatch.setattr(provider, "row", row)
    with Scanner(use_cache=True) as scanner:
        assert len(scanner.all_rows()) == 40
    assert {provider for provider, _ in held} == ({"gemini"} if in_workers else {"gemini", "claude"})
    assert not any(locked for _, locked in held), held


@pytest.mark.parametrize("in_workers", [True, False])
def test_a_list_that_stops_inside_a_batch(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, in_workers: bool) -> None:
    """``list`` asks for rows in growing batches and stops when it has enough: what it stored
    is committed when it returns (the rest of the batch is never asked for)."""
    from agentscan.scan import rowbuild
    from agentscan.toolkit import workers
    from agentscan.scan.listing import ListFilter

    if in_workers and not workers.usable_workers():
        pytest.skip("needs two cores and fork")
    monkeypatch.setattr(rowbuild, "MIN_ROWS", 2 if in_workers else 10**9)
    monkeypatch.setattr(rowbuild, "MIN_BYTES", 0)
    from agentscan.scan import factfilter

    # Rows read in batches are what is tested: no session is left out by its facts (``factfilter``).
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 10**9)
    for number in range(200):  # one match among the newest, one among the oldest
        _session(isolated_home, number, task="rare" if number in (3, 190) else "task")
    scanner = Scanner(use_cache=True)
    rows = scanner.list_sessions(limit=1, filters=ListFilter(grep="rare"))
    assert [row.native_id[:8] for row in rows] == ["000000be"]
    stored = {session_id for (session_id,) in scanner.cache.conn.execute("SELECT session_id FROM rows")}  # type: ignore[union-attr]
    # Read past the first batch; not to the end, but for the rows read ahead in workers
    # and kept (``RowReader._keep_read_ahead``): the last batch's, past the match.
    assert len(stored) == 200 if in_workers else 3 < len(stored) < 200
    assert _committed() == stored and not _lock_held()
    scanner.close()
