"""The SQLite session index (``export --format sqlite``), through sqlite-utils.

Tables (documented in docs/cron.md):

* ``sessions`` (pk ``id``): the flat row (``cost_usd`` included) plus
  ``first_seen_at``, ``last_seen_at`` and ``gone_at`` (set when the
  session's files are gone; the row is kept).  Only a row whose file is now
  one of another session's (an earlier agentscan listed it on its own) is
  deleted, with its children: that session counts its calls;
* ``subagents`` (pk ``session_id, subagent_id``): each delegated run's tokens
  and ``cost_usd``;
* ``token_days`` (pk ``session_id, day, model, subagent_id``): tokens and
  ``cost_usd`` per session, per UTC day, per model (``subagent_id`` is ``''``
  for the session's own calls).

Everything is upserted inside one transaction in WAL mode, so a reader
(Datasette, DuckDB, a dashboard) never sees a half-applied export.  The
schema evolves through ``migrations.py``: an old export is upgraded in place,
keeping every row.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator, Mapping, Sequence

from agentscan.errors import ExportFailed
from agentscan.export.migrations import migrate
from agentscan.bounds import token_sum
from agentscan.filemodes import create_private
from agentscan.export.rows import UsageDay, flat_row, utc_now
from agentscan.export.unread import ELSEWHERE, UNLISTED, LeftAsTheyWere
from agentscan.model import SessionRow
from agentscan.pricing.spend import sum_costs

if TYPE_CHECKING:
    from sqlite_utils import Database

#: the progress line's name for the write (``run.export``): ``writing the index 1,200/15,000``
WRITING = "writing the index"

_TOKEN_COLUMNS = ("tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total")


def _token_columns(values: tuple[int, ...], cost: Decimal | None) -> dict[str, int | float | None]:
    # Sums saturate (bounds.MAX_TOKEN_SUM) so that even the total fits SQLite's 64 bits.
    inp, cache_read, cache_write, output, reasoning = (token_sum(v) for v in values)
    columns: dict[str, int | float | None] = dict(
        zip(_TOKEN_COLUMNS, (inp, cache_read, cache_write, output, reasoning, inp + cache_read + cache_write + output))
    )
    columns["cost_usd"] = None if cost is None else float(cost)
    return columns


def write_sqlite(
    path: Path,
    rows: list[SessionRow],
    usage_days: list[UsageDay],
    *,
    scope: Collection[str] | None = None,
    present_ids: Iterable[str] | None = None,
    days_of: Iterable[str] = (),
    unseen: Collection[str] = (),
    roots: Mapping[str, Sequence[str]] | None = None,
    owners: Mapping[str, str] | None = None,
    incomplete: Collection[str] = (),
    advance: Callable[[], None] | None = None,
) -> tuple[int, int, dict[LeftAsTheyWere, int], int]:
    """Upsert ``rows`` (``advance``: called as each is written); mark sessions no longer on disk as gone. Returns (sessions, newly gone,
    sessions left as they were, by provider and why, sessions merged into another).  ``days_of``: other sessions whose days ``usage_days`` holds whole (shared calls
    credited anew: ``run._merged_as_in_the_whole``); theirs are replaced too.  ``unseen``:
    providers none of whose roots exists (a home not mounted, a disk unplugged): their
    sessions are not gone.  ``owners``: each present session's files, to its id
    (``_drop_merged``).  ``incomplete``: providers whose discovery could not read everything
    this run (a folder it could not list): what it did not find is not gone either."""
    import sqlite3

    import sqlite_utils

    create_private(path)  # sqlite would create it with the umask's mode
    db = sqlite_utils.Database(path)
    try:
        return _write(db, rows, usage_days, scope=scope, present_ids=present_ids, days_of=days_of, unseen=unseen,
                      roots=roots, owners=owners or {}, incomplete=incomplete, advance=advance)
    except sqlite3.Error as exc:
        # No OSError: "file is not a database" (-o names the CSV a nightly job writes), "database
        # is locked" past the busy timeout, a corrupt file.  One line, exit 1; the transaction
        # was rolled back: the file is as it was.
        raise ExportFailed(f"cannot write {path}: {exc}") from None
    except ExportFailed as exc:  # ``migrate``'s: a file a newer agentscan wrote, left as it is
        raise ExportFailed(f"cannot write {path}: {exc}") from None
    finally:
        db.close()


def _write(
    db: Database, rows: list[SessionRow], usage_days: list[UsageDay], *, scope: Collection[str] | None,
    present_ids: Iterable[str] | None, days_of: Iterable[str], unseen: Collection[str],
    roots: Mapping[str, Sequence[str]] | None = None, owners: Mapping[str, str] | None = None,
    incomplete: Collection[str] = (),
    advance: Callable[[], None] | None = None,
) -> tuple[int, int, dict[LeftAsTheyWere, int], int]:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=10000")
    migrate(db)
    now = utc_now()
    present = {row.id for row in rows} if present_ids is None else set(present_ids) | {row.id for row in rows}
    # One transaction: readers see the old index or the new one, and a run killed or failed
    # (a disk full) leaves the old one.  ``atomic``, not ``with db.conn``: sqlite-utils 4 commits
    # each statement opened outside a transaction, and each batch of an upsert (a reader saw
    # 3 of 1,789 ``token_days`` rows mid-export, and a failed run kept the deletes).
    with db.atomic():
        existing = {r["id"]: r["first_seen_at"] for r in db.query("SELECT id, first_seen_at FROM sessions")}

        def records() -> Iterator[dict[str, Any]]:
            for row in rows:
                record = flat_row(row)
                record["running"] = None if row.running is None else int(row.running)
                record["first_seen_at"] = existing.get(row.id) or now
                record["last_seen_at"] = now
                record["gone_at"] = None
                yield record
                if advance is not None:
                    advance()

        db.table("sessions").upsert_all(records(), pk="id")
        ids = [row.id for row in rows] + list(days_of)
        merged, waiting = _drop_merged(db, present, scope, unseen, owners or {}, set(ids))
        gone, kept = _mark_gone(db, present | waiting, scope, now, unseen, roots, incomplete)
        _replace_children(db, ids, usage_days)
    return len(rows), gone, kept, merged


def _under_any(path: str, roots: Iterable[str]) -> bool:
    from agentscan.toolkit.paths import is_within

    return any(is_within(path, root) for root in roots)


def _mark_gone(db, present: set[str], scope: Collection[str] | None, now: str, unseen: Collection[str],
               roots: Mapping[str, Sequence[str]] | None = None,
               incomplete: Collection[str] = ()) -> tuple[int, dict[LeftAsTheyWere, int]]:
    """Sessions of the exported providers (``scope``; ``None``: all) whose files disappeared get
    ``gone_at`` once; those of ``unseen`` providers are counted instead, by provider, and so
    are those of ``incomplete`` ones (``UNLISTED``) and those whose files are elsewhere (``ELSEWHERE``)."""
    count = 0
    kept: dict[LeftAsTheyWere, int] = {}
    for (session_id, provider, path) in db.execute("SELECT id, provider, path FROM sessions WHERE gone_at IS NULL").fetchall():
        if provider in unseen and session_id not in present:
            left = LeftAsTheyWere(provider)
            kept[left] = kept.get(left, 0) + 1
            continue
        if session_id in present or (scope is not None and provider not in scope):
            continue
        if provider in incomplete and not _surely_gone(path):
            # Its discovery could not list a folder (or read a file) this time: the session may
            # be there, unseen, as the index's pruning knows (``scan.prune``).  One whose file
            # the system says is not there is gone all the same: a folder that stays unreadable
            # must not keep every deleted session of its provider from being told gone.
            left = LeftAsTheyWere(provider, UNLISTED)
            kept[left] = kept.get(left, 0) + 1
            continue
        if path and roots is not None and not _under_any(path, roots.get(provider, ())) and os.path.lexists(path):
            # Its file is still there, outside this run's roots: a cron job without the
            # shell's CLAUDE_CONFIG_DIR, say.  Not gone; counted, for a warning.
            left = LeftAsTheyWere(provider, ELSEWHERE)
            kept[left] = kept.get(left, 0) + 1
            continue
        db.execute("UPDATE sessions SET gone_at = ? WHERE id = ?", (now, session_id))
        count += 1
    return count, kept


def _surely_gone(path: str | None) -> bool:
    """Whether ``path`` is not there, as ``lstat`` answers it: a file under a folder that
    cannot be searched is refused (``EACCES``), not missing, and is kept."""
    if not path:
        return False  # known by no file (a Cursor composer in the state DB): nothing says it went
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def _drop_merged(db, present: set[str], scope: Collection[str] | None, unseen: Collection[str],
                 owners: Mapping[str, str], written: set[str]) -> tuple[int, set[str]]:
    """Delete the rows (session, token_days, subagents) of sessions that are no longer sessions
    of their own: their file is now one of a present session's (``owners``: file to session id).
    An earlier agentscan listed a paginated Codex thread's second rollout as a session; this
    one reads it as part of the thread, whose days hold its calls: kept, or marked gone, its
    days would be counted twice by every sum over ``token_days``.  Returns (how many were
    deleted, the ids left as they are because their owner was not written this run: a
    ``--since`` leaving it out, whose old row lacks the calls until a run writes it)."""
    if not owners:
        return 0, set()
    merged: list[str] = []
    waiting: set[str] = set()
    for (session_id, provider, path) in db.execute("SELECT id, provider, path FROM sessions").fetchall():
        owner = owners.get(path) if path else None
        if owner is None or session_id in present or provider in unseen or (scope is not None and provider not in scope):
            continue
        if not owner.startswith(f"{provider}:"):  # another agent's file: not this session's successor
            continue
        if owner in written:
            merged.append(session_id)
        else:
            waiting.add(session_id)
    _delete_rows(db, merged, sessions_too=True)
    return len(merged), waiting


def _delete_rows(db, ids: list[str], *, sessions_too: bool = False) -> None:
    """Delete the ``subagents`` and ``token_days`` rows of the sessions ``ids`` (and, with
    ``sessions_too``, the sessions), 500 at a time: SQLite's bound on a statement's parameters."""
    tables = [("subagents", "session_id"), ("token_days", "session_id")] + ([("sessions", "id")] if sessions_too else [])
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for table, column in tables:
            db.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)


def _replace_children(db, ids: list[str], usage_days: list[UsageDay]) -> None:
    _delete_rows(db, ids)
    days: dict[tuple[str, str, str, str], _Sums] = {}
    subagents: dict[tuple[str, str], _Sums] = {}
    for day in usage_days:
        days.setdefault((day.session_id, day.day, day.model, day.subagent or ""), _Sums()).add(day)
        if day.subagent is not None:
            subagents.setdefault((day.session_id, day.subagent), _Sums()).add(day)
    db.table("token_days").insert_all(
        ({"session_id": s, "day": d, "model": m, "subagent_id": sub, **v.columns()} for (s, d, m, sub), v in days.items()),
        pk=("session_id", "day", "model", "subagent_id"), replace=True,
    )
    db.table("subagents").insert_all(
        ({"session_id": s, "subagent_id": sub, **v.columns()} for (s, sub), v in subagents.items()),
        pk=("session_id", "subagent_id"), replace=True,
    )


class _Sums:
    """Tokens and cost added up, by the rule of every cost total (``pricing.spend.combined``)."""

    def __init__(self) -> None:
        self.tokens = [0, 0, 0, 0, 0]
        self.costs: list[tuple[Decimal | None, bool]] = []

    def add(self, day: UsageDay) -> None:
        for index, value in enumerate(day.tokens):
            self.tokens[index] += value
        self.costs.append((day.cost, any(day.tokens)))

    def columns(self) -> dict[str, int | float | None]:
        cost = sum_costs(self.costs)
        return _token_columns((self.tokens[0], self.tokens[1], self.tokens[2], self.tokens[3], self.tokens[4]), cost)
