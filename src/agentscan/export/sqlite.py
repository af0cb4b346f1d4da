"""The SQLite session index (``export --format sqlite``), through sqlite-utils.

Tables (documented in docs/cron.md):

* ``sessions`` (pk ``id``): the flat row (``cost_usd`` included) plus
  ``first_seen_at``, ``last_seen_at`` and ``gone_at`` (set when the
  session's files are gone; the row is kept).  Only a row whose file is now
  one of another session's (an earlier agentscan listed it on its own) is
  deleted, with its children: that session counts its calls;
* ``subagents`` (pk ``session_id, subagent_id``): each delegated run's tokens
  and ``cost_usd`` (``gone_at`` once its transcript left the disk: ``children``);
* ``token_days`` (pk ``session_id, day, model, subagent_id``): tokens and
  ``cost_usd`` per session, per UTC day, per model (``subagent_id`` is ``''``
  for the session's own calls; ``gone_at`` as for ``subagents``).

Everything is upserted inside one transaction (``BEGIN IMMEDIATE``: it waits out
another writer for the busy timeout), so a reader (Datasette, DuckDB, a
dashboard) never sees a half-applied export.  The file keeps a rollback
journal, not a WAL: a WAL database cannot be read by a user who cannot write
its folder (its ``-shm`` is made there), which the documented share (``chmod
644`` for a dashboard running as another user) is; and a reader that can write
it left a ``-shm`` of its own that failed every later export.  The schema evolves
through ``migrations.py``: an old export is upgraded in place, keeping every row.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator, Mapping, NamedTuple, Sequence

from agentscan.errors import ExportFailed
from agentscan.export.children import Before, Shrank, replace_children
from agentscan.export.gonesessions import drop_merged as _drop_merged, mark_gone as _mark_gone
from agentscan.export.history import NO_HISTORY, History
from agentscan.export.indexfiles import drop_empty, identity, own_journal, remove_new, size_of
from agentscan.export.migrations import migrate
from agentscan.filemodes import create_private
from agentscan.export.rows import UsageDay, flat_row, utc_now
from agentscan.export.unread import LeftAsTheyWere
from agentscan.model import SessionRow
from agentscan.toolkit import sqlitecodes

if TYPE_CHECKING:
    from sqlite_utils import Database

    from agentscan.progress import Progress

#: the progress line's name for the write (``run.export``): ``writing the index 1,200/15,000``
WRITING = "writing the index"
#: its phase after the sessions' rows: their days and subagents compared with the index's, and
#: written (the line stood 0.9-1.6 s on "writing the index 15,000/15,000" at scale 10)
WRITING_DAYS = "writing token days"
#: how long a write waits for another connection's (seconds), when not told (``--lock-timeout``)
BUSY_TIMEOUT_S = 30.0
#: the page cache of the write (KiB; a bound, used only as pages change)
WRITE_CACHE_KIB = 256 * 1024


class Written(NamedTuple):
    """What ``write_sqlite`` did: sessions written, newly gone, left as they were (by provider
    and why), merged into another, and those whose recorded spend shrank (``children``)."""

    sessions: int
    gone: int
    kept: dict[LeftAsTheyWere, int]
    merged: int
    shrank: list[Shrank]
    #: those of ``held`` whose row the index had: left as they were, not written
    held: tuple[str, ...] = ()


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
    busy_timeout: float = BUSY_TIMEOUT_S,
    history: History = NO_HISTORY,
    held: Collection[str] = (),
    progress: Progress | None = None,
) -> Written:
    """Upsert ``rows`` (``advance``: called as each is written; ``progress``: told of the
    ``WRITING_DAYS`` phase after them); mark sessions no longer on disk as gone
    (``Written``; ``busy_timeout``: seconds to wait for another connection's write).  ``days_of``: other sessions whose days ``usage_days`` holds whole (shared calls
    credited anew: ``run._merged_as_in_the_whole``); theirs are replaced too.  ``unseen``:
    providers none of whose roots exists (a home not mounted, a disk unplugged): their
    sessions are not gone.  ``owners``: each present session's files, to its id
    (``_drop_merged``).  ``incomplete``: providers whose discovery could not read everything
    this run (a folder it could not list): what it did not find is not gone either.  ``history``:
    which sessions share history with another (``export.history``).  ``held``: sessions whose
    usage is not known this run (the database it is kept in is corrupt: ``unread.usage_unknown``):
    a row the index has of one is left as it was, with its days; one it has not is written."""
    import sqlite3

    import sqlite_utils

    fresh = not path.exists()  # (a full disk's error says what it left: ``sqlerrors``)
    # A file there but empty (``touch``ed, ``mktemp``'s) is the user's: never removed, but a
    # failed run may have made tables in it, which "left as it was" would deny.
    was_empty = not fresh and size_of(path) == 0
    journal = own_journal(path)  # (first: a refusal leaves no new empty index behind)
    create_private(path)  # sqlite would create it with the umask's mode
    made = identity(path) if fresh else None
    written = False
    db = sqlite_utils.Database(path)
    try:
        # First: every statement after it, the journal mode's switch and the migrations too,
        # waits for another connection's write instead of failing at once.
        db.execute(f"PRAGMA busy_timeout={max(0, int(busy_timeout * 1000))}")
        # Room for the whole write's changed pages (a heavy user's index is ~20 MB): past
        # SQLite's 2 MB a rollback journal's writer spills them into the file mid-transaction,
        # taking the lock that shuts readers out (a dashboard) until it commits.
        db.execute(f"PRAGMA cache_size=-{WRITE_CACHE_KIB}")
        if not fresh:
            _check_whole(db)
        _rollback_journal(db, "TRUNCATE" if journal is not None else "DELETE")
        done = _write(db, rows, usage_days, scope=scope, present_ids=present_ids, days_of=days_of, unseen=unseen,
                      roots=roots, owners=owners or {}, incomplete=incomplete, advance=advance, history=history,
                      held=held, progress=progress)
        written = True
        return done
    except sqlite3.Error as exc:
        # No OSError: "file is not a database" (-o names the CSV a nightly job writes), "database
        # is locked" past the busy timeout, a corrupt file.  One line, exit 1; the transaction
        # was rolled back: the file is as it was.
        from agentscan.export.sqlerrors import next_step

        step = next_step(exc, path, busy_timeout, fresh=fresh, was_empty=was_empty)
        raise ExportFailed(f"cannot write {path}: {exc}{step}") from None
    except ExportFailed as exc:  # ``migrate``'s: a file a newer agentscan wrote, left as it is
        raise ExportFailed(f"cannot write {path}: {exc}") from None
    finally:
        db.close()
        if journal is not None:
            drop_empty(journal)
        if made is not None and not written:
            remove_new(path, made)


def _check_whole(db: Database) -> None:
    """Raise SQLite's ``database disk image is malformed`` for an index that fails its quick
    check (~40 ms for 16 MB): damage in pages this run does not touch (an old session's, a
    reader's own table) let the export say ``wrote N sessions`` hour after hour, and the
    dashboard fail on it.  Said as any damage is (``sqlerrors.next_step``), the file as it was."""
    import sqlite3

    rows = db.execute("PRAGMA quick_check(1)").fetchall()
    found = str(rows[0][0]) if rows else "ok"
    if found != "ok":
        damaged = sqlite3.DatabaseError(f"database disk image is malformed ({found.splitlines()[-1].strip()})")
        damaged.sqlite_errorcode = sqlitecodes.CORRUPT  # type: ignore[attr-defined]
        raise damaged


#: sessions compared with what the output holds of them per query (``_stored``; under
#: SQLite's 999 variables)
_COMPARED = 500


def _write(
    db: Database, rows: list[SessionRow], usage_days: list[UsageDay], *, scope: Collection[str] | None,
    present_ids: Iterable[str] | None, days_of: Iterable[str], unseen: Collection[str],
    roots: Mapping[str, Sequence[str]] | None = None, owners: Mapping[str, str] | None = None,
    incomplete: Collection[str] = (),
    advance: Callable[[], None] | None = None,
    history: History = NO_HISTORY,
    held: Collection[str] = (),
    progress: Progress | None = None,
) -> Written:
    migrate(db)
    now = utc_now()
    present = {row.id for row in rows} if present_ids is None else set(present_ids) | {row.id for row in rows}
    # One transaction: readers see the old index or the new one, and a run killed or failed
    # (a disk full) leaves the old one.  Not ``with db.conn``: sqlite-utils 4 commits each
    # statement opened outside a transaction, and each batch of an upsert (a reader saw 3 of
    # 1,789 ``token_days`` rows mid-export, and a failed run kept the deletes).
    with _immediate(db):
        existing: dict[str, str] = {}
        before: dict[str, Before] = {}
        for session_id, first_seen, path, subagents in db.execute(
                "SELECT id, first_seen_at, path, subagents FROM sessions").fetchall():
            existing[session_id] = first_seen
            before[session_id] = Before(path, subagents)
        # Read under the write lock: a row another run wrote meanwhile is kept too.
        kept_rows = tuple(sorted(session_id for session_id in held if session_id in existing))
        if kept_rows:
            keep = set(kept_rows)
            rows = [row for row in rows if row.id not in keep]
            usage_days = [day for day in usage_days if day.session_id not in keep]
            days_of = [session_id for session_id in days_of if session_id not in keep]
        seen_again: list[str] = []

        def records() -> Iterator[dict[str, Any]]:
            for start in range(0, len(rows), _COMPARED):
                chunk = rows[start:start + _COMPARED]
                stored = _stored(db, [row.id for row in chunk if row.id in existing])
                for row in chunk:
                    record = flat_row(row)
                    record["running"] = None if row.running is None else int(row.running)
                    # (NULL where not known: a row the index had is held as it was, ``held``)
                    record["archived"] = None if row.archived is None else int(row.archived)
                    record["first_seen_at"] = existing.get(row.id) or now
                    record["last_seen_at"] = now
                    record["gone_at"] = None
                    if _as_stored(record, stored.get(row.id)):
                        seen_again.append(row.id)
                    else:
                        yield record
                    if advance is not None:
                        advance()

        db.table("sessions").upsert_all(records(), pk="id")
        # A session whose every column holds what it would be written: only its last sight
        # changes (sqlite-utils' upsert of 15,000 such rows was 0.1-0.2 of this function's
        # 1.4 CPU-s in an unchanged export at scale 10).
        db.conn.executemany("UPDATE sessions SET last_seen_at = ? WHERE id = ?",
                            [(now, session_id) for session_id in seen_again])
        # A held row is left as it was (``last_seen_at`` too: docs/cron.md), but its session was
        # found this run (only what holds its usage could not be read): a ``gone_at`` an
        # earlier run set is taken back, or a query for what is on disk leaves it out.
        db.conn.executemany("UPDATE sessions SET gone_at = NULL WHERE id = ?", [(session_id,) for session_id in kept_rows])
        ids = [row.id for row in rows] + list(days_of)
        if progress is not None:
            progress.handover()  # (dropped: the sessions' phase, restored after, draws no last count again)
        with progress.named(WRITING_DAYS) if progress is not None else nullcontext():
            if progress is not None:
                progress.expect(len(ids))
            merged, waiting = _drop_merged(db, present, scope, unseen, owners or {}, set(ids))
            gone, kept = _mark_gone(db, present | waiting, scope, now, unseen, roots, incomplete)
            shrank = replace_children(db, ids, usage_days, now=now, before=before,
                                      after={row.id: row.subagents for row in rows}, history=history,
                                      advance=None if progress is None else progress.advance)
    return Written(len(rows), gone, kept, merged, shrank, kept_rows)


def _stored(db: Database, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The ``sessions`` rows of ``ids`` as read back, by id (a chunk at a time: 15,000 held
    at once were 17 MB more at the export's peak)."""
    if not ids:
        return {}
    cursor = db.execute(f"SELECT * FROM sessions WHERE id IN ({','.join('?' * len(ids))})", ids)
    names = [column[0] for column in cursor.description]
    key = names.index("id")
    return {values[key]: dict(zip(names, values)) for values in cursor.fetchall()}


#: a record's keys -> what gives its values but ``last_seen_at``: every value, then every type,
#: compared at once (in C; a field at a time was 3 % of an unchanged export at scale 10)
_VALUES_OF: dict[tuple[str, ...], Callable[[Mapping[str, Any]], tuple[Any, ...]]] = {}


def _as_stored(record: Mapping[str, Any], kept: Mapping[str, Any] | None) -> bool:
    """Whether ``kept`` (a ``sessions`` row as read back) holds ``record``'s every value as
    writing it would store it, but its ``last_seen_at``: of the same type too (a float cost
    beside a stored integer is written, as it was)."""
    if kept is None:
        return False
    values_of = _VALUES_OF.get(names := tuple(record))
    if values_of is None:
        keys = [key for key in names if key != "last_seen_at"]
        values_of = _VALUES_OF[names] = itemgetter(*keys) if len(keys) > 1 else lambda row: tuple(map(row.__getitem__, keys))
    try:
        stored, values = values_of(kept), values_of(record)
    except KeyError:
        return False
    if values != stored:
        return False
    # Of the types they would be stored as (a ``bool`` as ``int``): the same, and no ``bool``
    # among them, says it at once for nearly every row.
    types, kept_types = tuple(map(type, values)), tuple(map(type, stored))
    return (types == kept_types and bool not in types) or tuple(map(_STORED_TYPE.get, types, types)) == kept_types


#: a value's type read back, where sqlite3 stores it as another (``True`` as 1)
_STORED_TYPE: dict[type, type] = {bool: int}


def _rollback_journal(db: Database, mode: str = "DELETE") -> None:
    """Keep the index in a rollback journal (module docstring), of ``mode`` (``TRUNCATE``: the
    journal file stays, ``indexfiles.own_journal``).  One an older agentscan left in WAL mode is switched
    back, which SQLite does only when no other connection has it open (a Datasette left
    running): then this run writes it in WAL mode, and a later one switches it."""
    import sqlite3

    if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        if mode != "DELETE":  # (a rollback mode is the connection's, not the file's)
            db.execute(f"PRAGMA journal_mode={mode}")
        return
    try:
        db.execute(f"PRAGMA journal_mode={mode}")
    except sqlite3.OperationalError as exc:
        from agentscan.scan.cachefile import is_busy

        if not is_busy(exc):
            raise


@contextmanager
def _immediate(db: Database) -> Iterator[None]:
    """One transaction, begun ``IMMEDIATE``: the write lock is taken first, waiting out another
    connection's write for the busy timeout.  ``db.atomic()`` began a deferred one, which read
    first and then, finding the lock held, failed at once (``database is locked``): SQLite
    cannot wait for a lock that a transaction which has already read would need.  sqlite-utils
    nests its own inside it (savepoints)."""
    import sqlite3

    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        try:
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            # Busy here is no writer (the lock was had at BEGIN): a reader kept a read transaction
            # open (a dashboard's cursor left unread, a shell's BEGIN) past the busy timeout, and
            # a rollback journal cannot commit under it.  Said so (``sqlerrors.next_step``).
            exc.at_commit = True  # type: ignore[attr-defined]
            raise
    except BaseException:
        if db.conn.in_transaction:
            db.conn.rollback()
        raise
