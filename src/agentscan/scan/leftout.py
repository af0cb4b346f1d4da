"""The sessions ``list`` (and ``export``) leave out, and what is still said of them.

A row a filter leaves out is read with its warnings held back (``read_row``): a bad
line in another project's transcript is not this list's, but some of what the read
said still is (``still_ours``).  A session that recorded nothing is left out while its
files are small (``files_small``).  Each one left out is counted at the filter it
failed (``count_failed``, ``count_rest``), for ``SessionPage.emptied_by``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    import os
    from pathlib import Path

    from agentscan.context import Told
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.liveness import Liveness
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.unreadrows import ShelfUnknown


#: a session that recorded nothing is left out of ``list`` only while its files are this
#: small: an empty transcript, a few bad lines.  A larger one that yielded nothing was not
#: read (a permission, a provider's bug: each told as a warning), and may hold real work.
NOTHING_BYTES = 64 * 1024


def files_small(scanner: Scanner, ref: SessionRef) -> bool:
    """Whether ``ref``'s files are small enough, at ``NOTHING_BYTES``, to leave out a row
    that recorded nothing."""
    stats = (scanner.ctx.stat(path) for path in ref.read_files)
    return sum(stat.st_size for stat in stats if stat is not None) <= NOTHING_BYTES


def never_archived(scanner: Scanner, refs: Sequence[SessionRef], filters: ListFilter) -> list[str]:
    """The ids of those of ``refs`` that ``list --archived`` leaves out unread when it is the
    only filter: a provider's that archives nothing (``Provider.can_archive``), whose files are
    too large for a session that recorded nothing (a small one's row is read: such a session
    is no session, counted apart, ``SessionPage.blank``).  Each fails ``archived`` alone, as
    its row would: a cold ``list --archived`` read every other agent's session (3.4 s of a
    1,500-session home).  (A Codex thread's row is read, and kept for the next ``list``.)"""
    if filters.archived is not True or filters.active_stages != ("archived",):
        return []
    return [ref.id for ref in refs if not scanner.provider(ref.provider).can_archive and not files_small(scanner, ref)]


def read_row(scanner: Scanner, ref: SessionRef, liveness: Liveness | None, *, hold: bool) -> tuple[SessionRow, Sequence[Told]]:
    """``ref``'s row, and (``hold``: a filter may leave it out) what reading it said, held
    back for the caller to say if the row is listed; else said as it is read.  ``liveness``:
    what tells its ``running`` (``None``: the caller tells it, of the rows it lists)."""
    if not hold:
        row = scanner.row(ref)
        return (row if liveness is None else row.with_changes(running=liveness.of(ref))), ()
    with scanner.ctx.held_warnings() as held:
        row = scanner.row(ref)
        if liveness is not None:
            row = row.with_changes(running=liveness.of(ref))
    return row, held.said


def files_empty(scanner: Scanner, ref: SessionRef) -> bool:
    """Whether every file of the session is empty (an aborted start): it holds no field a
    filter tests, so a filter that left it out did not leave it out for want of one."""
    return every_file_empty(ref.read_files, scanner.ctx.stat)


def every_file_empty(paths: Sequence[Path], stat: Callable[[Path], os.stat_result | None]) -> bool:
    """Whether ``paths`` are some files, each of them empty by ``stat`` (``None``: it cannot be
    read, so it is not known to be empty).  The one rule for ``list``, which stats through the
    scan, and ``tokens``' table, which stats the files as they are now."""
    if not paths:
        return False
    for path in paths:
        found = stat(path)
        if found is None or found.st_size:
            return False
    return True


def still_ours(said: Sequence[Told], ref: SessionRef, row: SessionRow, failed: str, *, empty: bool = False) -> Sequence[Told]:
    """What reading a row a filter left out said that the list must still say.

    A bad line in another project's transcript is not this list's (a cron job on one
    project stays quiet), but these are: what the row's read said about anything but its
    own files (a database, a root: said once a scan, and other rows depend on it);
    anything ``passing`` (the row may be wrong only this time: a remembered page must
    not be kept); and everything, when the field the filter tested is unknown (the bad
    line may have held the cwd or the time that would have listed it), but of a session
    whose files are ``empty``: there was no line to hold it."""
    if not said:
        return said
    unknown = not empty and ((failed == "cwd" and not row.cwd) or (failed in ("since", "until") and row.updated_at is None)
               or (failed == "grep" and not (row.title or row.cwd or row.model)))
    if unknown:
        return said
    own = {str(path) for path in ref.read_files}
    if ref.path is not None:
        own.add(str(ref.path))
    return [warning for warning in said if warning[3] or warning[0] not in own]


def count_failed(failed: str | None, stages: tuple[str, ...], reached: dict[str, int], passed: dict[str, int]) -> None:
    """A session reached every filter up to the one it ``failed`` (``None``: it matched),
    and passed those before it."""
    for stage in stages:
        reached[stage] += 1
        if stage == failed:
            return
        passed[stage] += 1


def count_rest(refs: Sequence[SessionRef], filters: ListFilter, liveness: Liveness, reached: dict[str, int], passed: dict[str, int]) -> None:
    """Sessions skipped as too old still count in the explanation: they fail ``since``."""
    for ref in refs:
        if filters.needs_liveness:
            reached["running"] += 1
            if liveness.of(ref) is not True:
                continue
            passed["running"] += 1
        reached["since"] += 1


def shelf_asked(scanner: Scanner, filters: ListFilter) -> ShelfUnknown | None:
    """``--archived``/``--no-archived``'s rows of archived state not known (``ShelfUnknown``);
    ``None`` for neither, its module not imported (a millisecond of every other ``list``)."""
    if filters.archived is None:
        return None
    from agentscan.scan.unreadrows import ShelfUnknown

    return ShelfUnknown(scanner)
