"""``agentscan export``: choose the rows, take the output's lock, write.

Overlapping runs serialise on a lock file (``filelock``) kept in agentscan's
cache directory, named after the output's real path, so nothing is left
beside the output.  ``--output -`` streams JSON Lines or CSV to stdout.
``--days`` writes JSON Lines or CSV with one record per session, UTC day,
model and run (SQLite's ``token_days``) instead of one per session.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Collection, Iterable, Mapping, Sequence

from agentscan.errors import ExportFailed
from agentscan.export.formats import STDOUT, checked_format
# (also where they were: ``export.run.parse_format``, ``FORMATS`` and ``check_days`` are older than ``formats``)
from agentscan.export.formats import FORMATS as FORMATS, check_days as check_days, parse_format as parse_format
from agentscan.export.history import NO_HISTORY, History, ProviderHistory
from agentscan.export.target import checked_target
from agentscan.export.files import (
    csv_lines, day_csv_lines, day_jsonl_lines, jsonl_lines, sessions_held, write_lines,
)
from agentscan.export.locks import output_lock
from agentscan.export.rows import UsageDay
from agentscan.model import SessionRow
# At run time, as ``ExportResult``'s fields name them: a public type's hints resolve (``typing.get_type_hints``).
from agentscan.export.children import Shrank
from agentscan.export.unread import LeftAsTheyWere

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.progress import Progress
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner

LOCK_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What an export wrote: ``path``; ``format``; ``sessions`` written; ``gone``, an SQLite
    index's sessions marked gone from disk; with ``days``, ``usage_days`` records."""

    path: Path
    format: str
    sessions: int
    gone: int = 0
    #: the price data the costs came from (``PriceData.to_json``)
    prices: dict[str, Any] | None = None
    #: usage-day records written (SQLite's ``token_days`` rows, or ``--days`` lines)
    usage_days: int = 0
    #: the sessions those ``--days`` records are of: fewer than ``sessions`` when some recorded no
    #: tokens (current Cursor builds record no usage), which have no record
    usage_day_sessions: int = 0
    #: sessions of providers none of whose roots exists, by provider: left as they were in an SQLite
    #: index (not marked gone); in a JSON Lines or CSV file, those the replaced file held.  An
    #: index's also counts those left for other reasons (``unread.LeftAsTheyWere``).
    unseen: Mapping[LeftAsTheyWere, int] = field(default_factory=dict)
    #: rows of an SQLite index deleted because their file is now another session's (``gonesessions.drop_merged``)
    merged: int = 0
    #: sessions not written: they could not be read this run (``unread.unread_sessions``)
    unread: int = 0
    #: of ``unread``, those held out for a database found locked alone (``unread.locked_usages``):
    #: a run once the lock is gone writes them, where an unreadable file of theirs needs the user
    unread_locked: int = 0
    #: sessions of an SQLite index whose ``token_days`` lost spend this run (``children``), said as warnings
    shrank: tuple[Shrank, ...] = ()
    #: sessions of an SQLite index left as they were: no usage, where it is kept unreadable (``unread.usage_unknown``)
    held: tuple[str, ...] = ()


def export(
    fmt: str,
    output: Path,
    rows: list[SessionRow],
    usage_days: list[UsageDay],
    *,
    scope: Sequence[str] | None = None,
    present_ids: Iterable[str] | None = None,
    lock_timeout: float = LOCK_TIMEOUT_S,
    before_rename: Callable[[], None] | None = None,
    env: Mapping[str, str] | None = None,
    per_day: bool = False,
    days_of: Iterable[str] = (),
    unseen: Sequence[str] = (),
    roots: Mapping[str, Sequence[str]] | None = None,
    owners: Mapping[str, str] | None = None,
    incomplete: Sequence[str] = (),
    locked: bool = False,
    progress: Progress | None = None,
    history: History = NO_HISTORY,
    tokens_unknown: Collection[str] = (),
    held: Collection[str] = (),
) -> ExportResult:
    """Write ``rows`` to ``output`` in ``fmt`` under the output's lock (``-``: stdout, no lock;
    ``locked``: the caller holds it).  ``progress``: an SQLite write counts its sessions there.

    ``per_day``: JSON Lines or CSV of ``usage_days`` instead of ``rows``.  ``incomplete``:
    providers whose discovery could not read everything: none of their sessions is marked gone.
    ``history``: which sessions share history with another (``export.history``).
    ``tokens_unknown``: the rows whose ``null`` tokens are not known (``list --json``'s mark).
    ``held``: an SQLite index's sessions whose row, if it has one, is left as it was (``write_sqlite``).
    """
    fmt = checked_format(fmt, output, per_day)
    lines = _lines(fmt, rows, usage_days, per_day, tokens_unknown)
    if output == STDOUT:  # for a pipe: agentscan export -f csv -o - | duckdb
        from agentscan.export.files import to_stdout

        if progress is not None:  # erased first: the CSV's header came after "adding up days 1,001/1,500"
            progress.finish()
        count = to_stdout(lambda stream: lines(stream) if lines is not None else 0, ExportFailed)
        return _result(STDOUT, fmt, count, per_day, len(rows), usage_days)
    output = output.expanduser()
    target = checked_target(fmt, output)
    # (``locked``: ``run_export`` holds it, since before its scan)
    with output_lock(output, env, lock_timeout) if not locked else nullcontext():
        try:
            if lines is not None:
                held = sessions_held(output, fmt, unseen) if unseen else {}
                written = write_lines(output, lines, before_rename=before_rename)
                result = _result(output, fmt, written, per_day, len(rows), usage_days)
                from agentscan.export.unread import LeftAsTheyWere

                return replace(result, unseen={LeftAsTheyWere(name): count for name, count in held.items()})
            from agentscan.export.sqlite import WRITING, write_sqlite
            from agentscan.progress import Progress

            with (told := progress or Progress()).named(WRITING):
                told.expect(len(rows))
                done = write_sqlite(target, rows, usage_days, scope=scope, present_ids=present_ids,
                                    days_of=days_of, unseen=unseen, roots=roots, owners=owners,
                                    incomplete=incomplete, advance=told.advance, busy_timeout=lock_timeout,
                                    history=history, held=held, progress=told)
            return ExportResult(output, fmt, done.sessions, done.gone, usage_days=len(usage_days),
                                unseen=done.kept, merged=done.merged, shrank=tuple(done.shrank), held=done.held)
        except OSError as exc:
            from agentscan.export.sqlerrors import NO_ROOM

            kept = _no_room_words(output, exc.errno) if exc.errno in NO_ROOM and lines is not None else ""
            raise ExportFailed(f"cannot write {output}: {exc.strerror or exc}{kept}") from None


def _no_room_words(output: Path, errno_: int | None) -> str:
    """What a JSON Lines or CSV export that found no room left, and what to do.  A file is
    written beside the output and renamed over it: a full disk leaves the last run's file
    whole, which an hourly job's reader wants to hear.  A FIFO, device or descriptor of this
    process (``2>>log``) is written into: what it got of the export is cut short."""
    import os
    import stat

    from agentscan.export.sqlerrors import no_room_step
    from agentscan.toolkit.atomicfile import own_descriptor

    try:
        found = os.stat(output)
    except OSError:
        return f"; nothing was written{no_room_step(errno_, output)}"
    if stat.S_ISREG(found.st_mode) and own_descriptor(output) is None:
        return f"; {output.name} was left as it was{no_room_step(errno_, output)}"
    real = Path(os.path.realpath(output))
    if stat.S_ISREG(found.st_mode):  # a descriptor's file: its folder is where room is wanted
        return f"; the export added to {real} is cut short{no_room_step(errno_, real)}"
    return "; what it was given of the export is cut short"


def _lines(fmt: str, rows: list[SessionRow], usage_days: list[UsageDay], per_day: bool,
           unknown: Collection[str] = ()) -> Callable[[BinaryIO], int] | None:
    """What writes a JSON Lines or CSV export (``None``: SQLite)."""
    if fmt == "sqlite":
        return None
    if per_day:
        days = usage_days  # in ``UsageDay.order`` (``export.days``)
        if fmt == "jsonl":
            return lambda handle: day_jsonl_lines(handle, days)
        return lambda handle: day_csv_lines(handle, days)
    if fmt == "jsonl":
        return lambda handle: jsonl_lines(handle, rows, unknown)
    return lambda handle: csv_lines(handle, rows)


def _result(path: Path, fmt: str, count: int, per_day: bool, sessions: int, days: list[UsageDay]) -> ExportResult:
    """``count`` records were written: sessions, or with ``per_day`` usage days (``days``, of
    ``sessions`` sessions)."""
    if not per_day:
        return ExportResult(path, fmt, count)
    return ExportResult(path, fmt, sessions, usage_days=count,
                        usage_day_sessions=len({day.session_id for day in days}))


def run_export(
    scanner: Scanner,
    fmt: str,
    output: Path,
    *,
    filters: ListFilter,
    lock_timeout: float = LOCK_TIMEOUT_S,
    before_rename: Callable[[], None] | None = None,
    redact: bool = False,
    days: bool = False,
    zone: tzinfo | None = None,
) -> ExportResult:
    """Export every session matching ``filters`` (unclamped), each with its cost;
    ``days``: their usage per UTC day (per day in ``zone``), model and run instead (JSON
    Lines, CSV).  SQLite's ``token_days`` are UTC days, whatever ``zone``.  The output's
    lock is held from before the scan: a run that overlaps another of the same output waits
    for it (a slower run's older scan, written after a newer one's, marked a session that
    had just appeared gone)."""
    if output == STDOUT:
        return _run_export(scanner, fmt, output, filters=filters, lock_timeout=lock_timeout,
                           before_rename=before_rename, redact=redact, days=days, zone=zone)
    checked_format(fmt, output, days)  # (a usage error before any wait)
    with output_lock(output.expanduser(), scanner.ctx.env, lock_timeout, scanner.ctx.warn,
                     scanner.ctx.progress.waiting):
        try:
            return _run_export(scanner, fmt, output, filters=filters, lock_timeout=lock_timeout,
                               before_rename=before_rename, redact=redact, days=days, zone=zone, locked=True)
        except BaseException:
            # A SIGTERM (or SIGHUP) ends the process in the lock's cleanup (``locks._terminated_cleanly``),
            # before the CLI could erase the progress line: the shell's prompt came after
            # ``reading sessions 812/1,700``.  (Erased only where it was drawn: a terminal.)
            scanner.ctx.progress.finish()
            raise


def _run_export(scanner: Scanner, fmt: str, output: Path, *, filters: ListFilter, lock_timeout: float,
                before_rename: Callable[[], None] | None, redact: bool, days: bool, zone: tzinfo | None,
                locked: bool = False) -> ExportResult:
    from agentscan.pricing import PriceBook
    from agentscan.scan.costs import priced_and_credited, with_costs

    fmt = checked_format(fmt, output, days)
    check_days(fmt, days, zoned=zone is not None)
    problems = scanner.unreadable_explicit_roots()
    if problems:  # before anything is written: a failed run leaves the last good file as it was (docs/cron.md)
        from agentscan.errors import NoReadableRoot

        raise NoReadableRoot("; ".join(problems))
    if output != STDOUT:
        from agentscan.export.ownfolders import refuse_own_folders

        refuse_own_folders(output, scanner.ctx, ExportFailed)
        checked_target(fmt, output.expanduser())  # before the scan: a cron job hears at once, not minutes later
    roots = _roots(scanner)
    # Every path this run could not read (``ScanContext.warn(passing=True)``): a session with
    # one of them among its files would be written blank (no tokens, no title, no days).
    with scanner.ctx.warnings.capture(0) as failed:
        refs = scanner.refs(filters.providers)
        rows = scanner.all_rows(filters=filters)
        # Read: the days and the write are phases of their own, named over the line at once
        # (erased here, a terminal showed no line for a second before "adding up days").
        scanner.ctx.progress.handover()
        wanted = {row.id for row in rows}
        chosen = [ref for ref in refs if ref.id in wanted]
        book = PriceBook(scanner.ctx, scanner.cache)
        found_days: list[UsageDay] = []
        days_of: list[str] = []
        if fmt == "sqlite" or days:
            from agentscan.export.days import export_days

            # The rows priced from the calls read for their days, a batch at a time.
            found_days, days_of, costs = export_days(scanner, refs, chosen, book, zone if days else None)
            # (a resumed session's copies counted where its days count them)
            rows = priced_and_credited(scanner, rows, chosen, costs)[0]
            if fmt != "sqlite" and days_of:  # a file of the chosen sessions' days alone
                others = set(days_of)
                found_days, days_of = [day for day in found_days if day.session_id not in others], []
        else:
            # Priced from each session's sums, as ``list`` prices its rows (the same exact costs):
            # a heavy user's million calls are not held in memory for a line a session.
            rows = with_costs(scanner, rows, chosen, book)
    from agentscan.export.unread import (
        locked_usages, say_held, say_left_as_they_were, say_shrank, say_unread, unread_sessions, usage_unknown,
    )
    from agentscan.scan.unreadrows import locked_ids, tokens_unknown

    held_locked: set[str] = set()  # (not ``locked``: this function's own, the output's lock held)

    def held_by_lock() -> set[str]:
        # (the export needs each one's calls for its days: an index's, ``--days``)
        held_locked.update(locked_ids(scanner, chosen, rows, days=fmt == "sqlite" or days))
        return held_locked

    unread = unread_sessions(chosen, failed.passing_paths, held_by_lock)
    if unread:  # not written: an index keeps its last good row and days, a file leaves it out
        rows = [row for row in rows if row.id not in unread]
        found_days = [day for day in found_days if day.session_id not in unread]
        days_of = [session_id for session_id in days_of if session_id not in unread]
    from agentscan.scan.unreadrows import with_archived_unknown

    # Not known (a Cursor chat read without its state DB): ``null``, an empty cell, NULL, never ``false``.
    rows = with_archived_unknown(scanner, chosen, rows)
    if redact:
        from agentscan.export.redact import redact_row

        rows = [redact_row(row) for row in rows]
    scope = filters.providers or tuple(p.name for p in scanner.providers)
    unseen = _unseen(scanner, scope)
    from agentscan.scan.incomplete import incomplete_discoveries

    incomplete = sorted(incomplete_discoveries(scanner.ctx) & set(scope))
    # The index keeps the last good rows of sessions of no usage whose usage's database is corrupt this run.
    unknown = usage_unknown(scanner, chosen, unread, rows) if fmt == "sqlite" else {}
    result = export(
        fmt, output, rows, found_days,
        scope=tuple(name for name in scope if name not in unseen),
        unseen=unseen,
        present_ids=[ref.id for ref in refs],
        lock_timeout=lock_timeout,
        before_rename=before_rename,
        env=scanner.ctx.env,
        per_day=days,
        days_of=days_of,
        roots=roots,
        incomplete=incomplete,
        # Every present session's files: a row an earlier agentscan wrote for one of them is merged.
        owners={str(path): ref.id for ref in refs for path in ref.read_files} if fmt == "sqlite" else None,
        locked=locked,
        progress=scanner.ctx.progress,
        history=ProviderHistory(tuple(scanner.providers), scanner.ctx),
        tokens_unknown=tokens_unknown(scanner, chosen, rows) if fmt == "jsonl" and not days else (),
        held=unknown,
    )
    by_lock = locked_usages(scanner, chosen, held_locked, failed.passing_paths)
    say_unread(scanner.ctx, output, fmt, unread, by_lock, days)
    say_left_as_they_were(scanner.ctx, output, fmt, result.unseen)
    say_held(scanner.ctx, output, {session_id: unknown[session_id] for session_id in result.held})
    say_shrank(scanner.ctx, output, result.shrank)
    return replace(result, prices=book.data.to_json(), unread=len(unread),
                   unread_locked=sum(1 for session_id in unread if session_id in by_lock))


def _roots(scanner: Scanner) -> dict[str, list[str]]:
    """Each provider's roots and the folders its discovery reads beside them (Cursor's
    ``workspaceStorage``, whose databases are its IDE sessions' paths)."""
    roots: dict[str, list[str]] = {}
    for provider in scanner.providers:
        paths = [str(root.path) for root in provider.roots(scanner.ctx)]
        paths += [str(path) for path in provider.confinement_roots(scanner.ctx) if str(path) not in paths]
        roots[provider.name] = paths
    return roots


def _unseen(scanner: Scanner, names: Sequence[str]) -> list[str]:
    """Those of ``names`` none of whose roots exists: their sessions are not gone, unseen (a
    home not mounted, a disk unplugged, a ``--home`` mistyped); an export marks nothing of theirs."""
    unseen = []
    for provider in scanner.providers:
        if provider.name in names and not any(root.path.exists() for root in provider.roots(scanner.ctx)):
            unseen.append(provider.name)
    return unseen

