"""The sessions a ``tokens`` report counts nowhere because their transcript could not be read
at all this time (a permission, an I/O error: each told as a ``cannot read: …`` warning), or
the database their usage is kept in could not be read (Cursor's ``state.vscdb`` locked while
Cursor writes, or corrupt: ``Provider.unknown_usage``).

Their usage is not known, which is not "recorded no usage" (``null``) nor "recorded nothing":
such a session gets no row, and the report names it apart (``TokenReport.unreadable``), for
the table to say so under it.  A session whose transcript was read, however empty, and one
with usage from another of its files (a subagent's) keep their rows, and so does one whose
row the index keeps from a run that read the locked database, unchanged since
(``read_with_its_db``): its "recorded no usage" is that database's answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Literal, Sequence

import orjson

from agentscan.context import CANNOT_READ
from agentscan.fsview import legible
from agentscan.model import Counts

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokenreport import TokenRow



def _reasons(scanner: Scanner) -> dict[str, str]:
    """Each path told as unreadable this run (``cannot read: …``) -> why.  The warnings as listed,
    not a set kept beside them: a row's warnings replayed from the index, or held and said
    later, are listed alike."""
    return {warning.path: warning.message[len(CANNOT_READ):] for warning in scanner.ctx.warnings.listed()
            if warning.message.startswith(CANNOT_READ)}


def unread_ids(scanner: Scanner, refs: Sequence[SessionRef], ids: Iterable[str]) -> tuple[str, ...]:
    """Those of ``ids`` (sessions among ``refs`` with no usage counted) whose main transcript
    was told as unreadable this run, or whose usage is kept in a database that could not be
    read (``unknown_usages``), in ``ids``' order."""
    ids = tuple(ids)
    unread = _reasons(scanner)
    by_id = {ref.id: ref for ref in refs}
    paths = {ref.id: legible(str(ref.path)) for ref in refs if ref.path is not None} if unread else {}
    unknown = unknown_usages(scanner, [(by_id[session_id], None) for session_id in ids
                                       if session_id in by_id and paths.get(session_id) not in unread])
    return tuple(session_id for session_id in ids if paths.get(session_id) in unread or session_id in unknown)


def locked_usage(scanner: Scanner, ref: SessionRef) -> tuple[str, str] | None:
    """``(path, why)`` of the database ``ref``'s usage is kept in, when this run found it
    locked (``Provider.locked_usage``: only a database tried this run)."""
    return scanner.provider(ref.provider).locked_usage(ref, scanner.ctx)


def locked_ids(scanner: Scanner, refs: Sequence[SessionRef], rows: Iterable[SessionRow], *,
               days: bool = False) -> set[str]:
    """The ids of ``refs`` whose usage is kept in a database this run found locked
    (``locked_usage``: an export leaves them as they were), but those the index keeps whole
    from a run that read it, unchanged since (``kept_whole``): what is written of them is what
    the database holds.  ``days``: the export needs each one's calls (``token_days``, ``--days``)."""
    locked = [ref for ref in refs if locked_usage(scanner, ref) is not None]
    if not locked:
        return set()
    return {ref.id for ref in locked} - kept_whole(scanner, locked, rows, days=days)


def kept_whole(scanner: Scanner, refs: Sequence[SessionRef], rows: Iterable[SessionRow], *, days: bool) -> set[str]:
    """The ids of ``refs`` (sessions whose usage is kept in a database found locked) of which an
    export writes what that database holds: a row of no usage that the index keeps so
    (``read_with_its_db``), or a row with usage kept whole, its sums (its cost) and, for
    ``days``, its calls, all at the session's fingerprint (which takes in the database's own).
    Only what was read with the database is kept (``statedb_reader.say_unread``,
    ``usageparse.UsageParser.calls``).  A chat with usage was held out of every JSON Lines and
    CSV file while ``list`` and ``tokens`` showed its kept figures (before pass 55)."""
    cache = scanner.cache
    if cache is None or not refs:
        return set()
    by_id = {row.id: row for row in rows}
    blank = [ref for ref in refs if (row := by_id.get(ref.id)) is not None and row.tokens is None and not row.subagents]
    written = read_with_its_db(scanner, blank)
    empty = {ref.id for ref in blank}
    spent = [ref for ref in refs if ref.id in by_id and ref.id not in empty]
    if spent:
        whole = scanner.rows_kept(spent)
        ids = [ref.id for ref in spent if ref.id in whole]
        needed: tuple[Literal["usage", "calls"], ...] = ("usage", "calls") if days else ("usage",)
        for table in needed:
            held = cache.fingerprints_in(table, ids) if ids else {}
            ids = [ref.id for ref in spent if ref.id in ids and held.get(ref.id) == scanner.fingerprint(ref)]
        written.update(ids)
    return written


#: ``ctx.memo``: ``read_with_its_db``'s answers this scan, by session id and fingerprint
_READ_WITH_DB = "unreadrows.read_with_its_db"


def read_with_its_db(scanner: Scanner, refs: Sequence[SessionRef]) -> set[str]:
    """The ids of ``refs`` (sessions whose usage is kept in a database found locked this run)
    that the index keeps as having recorded no usage, for their files as they are (their
    fingerprints, which take in the database's own: Cursor's ``state.vscdb``): their usage sums
    with no call, else their row with no tokens.  Nothing read while the DB is locked is kept
    (``statedb_reader.say_unread``), so what is kept was read with it, and the DB has not changed
    since: its "recorded no usage" is the DB's answer still, as the figures kept of such a
    session are (the locked DB's warning says so).  A session new or changed since has nothing
    kept: its usage is not known.  One kept with usage is not of them: a row built without the
    DB has no tokens, and such a chat, whose kept row said 120 tokens, was told "recorded no
    usage" by ``tokens`` (its sums not kept) or written so by an export (its row not kept)."""
    cache = scanner.cache
    if cache is None or not refs:
        return set()
    # Asked of the same sessions by each output's question (an export's held rows, archived
    # marks, ``tokens_unknown``): a "no usage" the index keeps for files as they are is asked
    # once a scan; it stays so (what is kept at a fingerprint is what was read there).  Not a
    # "not kept": another process may read the DB and keep the session meanwhile, and a
    # long-lived library ``Scanner`` kept saying "not known" of it (its memo outlives runs).
    known: dict[tuple[str, str | None], bool] = scanner.ctx.memo.setdefault(_READ_WITH_DB, {})
    keys = [(ref.id, scanner.fingerprint(ref)) for ref in refs]
    at = {session_id: now for session_id, now in keys if (session_id, now) not in known}
    found: set[str] = set()
    if at:
        from agentscan.scan.sessionsums import SessionSums

        said: dict[str, bool] = {}  # id -> the kept answer is "no usage"
        for session_id, (fingerprint, sums) in cache.get_usage_sums(list(at)).items():
            kept = SessionSums.from_bytes(sums) if fingerprint == at.get(session_id) else None
            if kept is not None:
                said[session_id] = not kept.groups
        rest = [session_id for session_id in at if session_id not in said]
        for session_id, (fingerprint, values) in (cache.row_fields(rest, ("$.tokens", "$.subagents")).items() if rest else ()):
            if fingerprint == at.get(session_id) and values is not None:
                tokens, subagents = orjson.loads(values)
                said[session_id] = tokens is None and not subagents
        found = {session_id for session_id, no_usage in said.items() if no_usage}
        known.update({(session_id, now): True for session_id, now in at.items() if session_id in found})
    return {session_id for session_id, now in keys if session_id in found or (session_id, now) in known}


def unknown_usages(scanner: Scanner, asked: Sequence[tuple[SessionRef, SessionRow | None]]) -> dict[str, tuple[str, str]]:
    """Session id -> ``(path, why)``, for each of ``asked`` (a session of no usage, and its row
    when the caller has it) whose usage is not known (``unknown_usage``): the index is asked
    once for them all."""
    found: dict[str, tuple[str, str]] = {}
    missed: list[tuple[SessionRef, SessionRow | None, tuple[str, str]]] = []
    for ref, row in asked:
        provider = scanner.provider(ref.provider)
        if (database := provider.unknown_usage(ref, scanner.ctx)) is not None:
            # Locked, or failed otherwise (the query deadline, an I/O error): nothing read
            # without the DB is kept (its failure is said to every read after it:
            # ``statedb_reader.say_unread``), and the fingerprint takes in its stat, so what is kept
            # at it was read with the DB as it still is.  (A DB that failed otherwise was always
            # "could not be read", while ``tokens`` counted the kept figures of a chat beside.)
            missed.append((ref, row, database))
        elif (cut := _usage_cut(scanner, ref, row)) is not None:
            found[ref.id] = cut
    # A row kept from a run that read the DB says what it holds (``read_with_its_db``): a chat
    # that recorded no usage was named "could not be read" while the DB could not be read.
    kept = read_with_its_db(scanner, [ref for ref, _, _ in missed]) if missed else set()
    for ref, row, database in missed:
        if ref.id not in kept:
            found[ref.id] = database
        elif (cut := _usage_cut(scanner, ref, row)) is not None:
            found[ref.id] = cut
    return found


def unknown_usage(scanner: Scanner, ref: SessionRef, row: SessionRow | None = None) -> tuple[str, str] | None:
    """``(path, why)`` of the database ``ref``'s usage is kept in, when this run could not read
    it (``Provider.locked_usage``: locked, or broken; only a database tried this run) and the
    index keeps nothing read with it for the session's files as they are (``read_with_its_db``),
    or of its own file, read only up to its damage before any usage (``SessionRow.usage_cut``:
    the mark its row keeps, ``row`` or the scan's, read only of a provider whose rows may carry it)."""
    return unknown_usages(scanner, [(ref, row)]).get(ref.id)


def _usage_cut(scanner: Scanner, ref: SessionRef, row: SessionRow | None) -> tuple[str, str] | None:
    if not scanner.provider(ref.provider).may_cut_usage(ref, scanner.ctx):
        return None
    row = row if row is not None else scanner.row(ref)
    if row.tokens is not None or row.usage_cut is None:
        return None
    from agentscan.settling import shown_message

    path = legible(row.path or str(ref.path))
    return path, shown_message(path, row.usage_cut)  # (worded by the file's age, as its warning is)


def without_unread(scanner: Scanner, refs: Sequence[SessionRef],
                   rows: tuple[TokenRow, ...]) -> tuple[tuple[TokenRow, ...], tuple[str, ...]]:
    """``rows`` (by session) less those of sessions that could not be read (``unread_ids``:
    no usage, no subagent's either), and those sessions' ids."""
    gone = set(unread_ids(scanner, refs, (row.key for row in rows if row.tokens is None and not row.subagents)))
    if not gone:
        return rows, ()
    return tuple(row for row in rows if row.key not in gone), tuple(row.key for row in rows if row.key in gone)


def unread_cause(scanner: Scanner, ref: SessionRef) -> tuple[str, str]:
    """The file that could not be read for ``ref`` (one of ``unread_ids``), and why: its main
    transcript, else the database its usage is kept in, which could not be read."""
    return unread_causes_of(scanner, [ref])[0]


def unread_causes_of(scanner: Scanner, refs: Sequence[SessionRef]) -> list[tuple[str, str]]:
    """``unread_cause`` of each of ``refs``, in their order: the index asked once for them all
    (``unknown_usages``), not once a session."""
    reasons = _reasons(scanner)
    paths = [legible(str(ref.path)) for ref in refs]
    databases = unknown_usages(scanner, [(ref, None) for ref, path in zip(refs, paths) if reasons.get(path) is None])
    causes = []
    for ref, path in zip(refs, paths):
        reason = reasons.get(path)
        database = databases.get(ref.id) if reason is None else None
        causes.append(database if database is not None else (path, reason or "cannot read"))
    return causes


def unread_reason(scanner: Scanner, row: SessionRow) -> str | None:
    """Why ``row``'s transcript could not be read (``Permission denied``), when nothing of it
    was read because of it (``show`` then fails rather than tell an empty session); else
    ``None``.  Nothing read is no usage, no subagent and no record counted: what a provider's
    own index tells of the session (a Codex thread's title, cwd and times from
    ``state_*.sqlite``) is no record of its conversation, and ``tokens`` leaves such a
    session out by the same rule (``without_unread``)."""
    if row.path is None or row.tokens is not None or row.subagents or row.counts != Counts():
        return None
    return _reasons(scanner).get(legible(row.path))


def archived_unknown(scanner: Scanner, ref: SessionRef, row: SessionRow) -> tuple[str, str] | None:
    """``(path, why)`` of the database that would say whether ``row`` is archived, when this
    run could not read it: a Cursor chat's ``isArchived`` is in the state DB its usage is
    (``unknown_usage``), so a chat listed without it reads "not archived" whatever it is.
    ``None``: known (archived as read, or no database was missed, or of an agent that archives
    nothing: a Gemini chat read only up to its damage has its usage not known, not this)."""
    return archived_unknowns(scanner, [(ref, row)]).get(ref.id)


def archived_unknowns(scanner: Scanner, asked: Sequence[tuple[SessionRef, SessionRow]]) -> dict[str, tuple[str, str]]:
    """Session id -> ``(path, why)``, ``archived_unknown`` of each of ``asked``.  The database's
    own failure, not ``unknown_usage``'s: a chat whose kept sums say it recorded no usage
    (``read_with_its_db``) has its usage known, but not its archived state, which no sums keep
    (it read "not archived" while the chat beside it, with usage, read "not known").  No index
    question: the provider tells what it could not read this scan."""
    found: dict[str, tuple[str, str]] = {}
    before_archived_unread(scanner, [ref for ref, row in asked if not row.archived])
    for ref, row in asked:
        provider = scanner.provider(ref.provider)
        if row.archived or not provider.can_archive:
            continue
        missed = provider.unknown_usage(ref, scanner.ctx)
        # (known elsewhere: an Agent CLI chat records no such flag, a composer only a workspace
        # DB lists has it in that DB's entry, as its row took it: ``cursor.row.archived_of``)
        if missed is not None and provider.archived_unread(ref, scanner.ctx) is None:
            found[ref.id] = missed
    return found


def before_archived_unread(scanner: Scanner, refs: Sequence[SessionRef]) -> None:
    """Each provider that archives told of its ``refs`` before ``archived_unread`` is asked of
    each (``Provider.before_archived_unread``: one query, not one a chat)."""
    by_provider: dict[str, list[SessionRef]] = {}
    for ref in refs:
        by_provider.setdefault(ref.provider, []).append(ref)
    for name, mine in by_provider.items():
        provider = scanner.provider(name)
        if provider.can_archive:
            provider.before_archived_unread(mine, scanner.ctx)


def archived_unknown_ids(scanner: Scanner, refs: Sequence[SessionRef], rows: Iterable[SessionRow]) -> set[str]:
    """The ids of ``rows`` whose archived state is not known (``archived_unknown``), but those
    whose row the index keeps for their files as they are (``Scanner.rows_kept``): such a row
    was read with the state DB (one read without it is not kept), so its mark is the DB's, as
    ``tokens`` takes it (``tokenrowmarks.marked_archived``)."""
    by_id = {ref.id: ref for ref in refs}
    asked = [(ref, row) for row in rows if (ref := by_id.get(row.id)) is not None]
    missed = archived_unknowns(scanner, asked)
    unknown = [ref for ref, _ in asked if ref.id in missed]
    kept = scanner.rows_kept(unknown) if unknown else set()
    return {ref.id for ref in unknown if ref.id not in kept}


def with_archived_unknown(scanner: Scanner, refs: Sequence[SessionRef], rows: list[SessionRow]) -> list[SessionRow]:
    """``rows`` with ``archived`` ``None`` on those whose archived state is not known
    (``archived_unknown_ids``): ``list`` and the exports said "not archived" of an archived
    Cursor chat listed while its state DB was locked or corrupt (``false``, a plain row).  Made
    for an output only: a row so marked is never kept."""
    names = {row.provider for row in rows}
    if not any(provider.can_archive and provider.unread_stores(scanner.ctx)
               for provider in scanner.providers if provider.name in names):
        return rows  # (every database read, or none tried: nothing unknown; no row asked)
    unknown = archived_unknown_ids(scanner, refs, rows)
    return [row.with_changes(archived=None) if row.id in unknown else row for row in rows] if unknown else rows


class ShelfUnknown:
    """``--archived`` / ``--no-archived`` of rows whose archived state could not be read (a
    Cursor chat listed while its state DB is locked or corrupt): left out by either, as
    ``--running`` leaves out a ``running`` not known, and counted per provider (``counts``).
    ``--no-archived`` kept such a chat, archived or not, and ``--archived`` missed it.  Made
    only when one of them is given (``leftout.shelf_asked``)."""

    def __init__(self, scanner: Scanner) -> None:
        self.scanner = scanner
        self.unknown: dict[str, tuple[int, str]] = {}
        #: provider -> the ids asked of the index and their rows' fingerprints there, asked
        #: once (not a query a row)
        self._kept: dict[str, tuple[set[str], dict[str, str]]] = {}
        #: provider -> its sessions this scan took, the first asked first: told of before
        #: ``archived_unread`` (one query, not one a row), then asked of the index together
        #: (``_row_kept``); walked once
        self._told: dict[str, list[SessionRef]] = {}

    def failed(self, ref: SessionRef, row: SessionRow, failed: str | None) -> str | None:
        if failed not in (None, "archived"):
            return failed
        if ref.provider not in self._told:
            told = self._told[ref.provider] = [ref, *(r for r in self.scanner.stored_refs(ref.provider) or ()
                                                     if r.id != ref.id)]
            before_archived_unread(self.scanner, told)
        missed = archived_unknown(self.scanner, ref, row)
        if missed is None or self._row_kept(ref):
            # (a row kept from a run that read the state DB knows it: ``archived_unknown_ids``)
            return failed
        count, _ = self.unknown.get(ref.provider, (0, ""))
        self.unknown[ref.provider] = (count + 1, f"{missed[0]} could not be read ({missed[1]})")
        return "archived"

    def _row_kept(self, ref: SessionRef) -> bool:
        """``Scanner.rows_kept`` of ``ref``, its provider's kept rows asked of the index once: a
        ``list --all --no-archived`` of 3,000 chats under a corrupt state DB asked it 3,000 times.
        Asked by the provider's session ids (an ``IN`` list, or one pass over the table for
        many: ``row_fingerprints``): ``WHERE provider=?`` read every row of the index (no index
        on ``provider``), 50-110 ms for 20 Cursor chats beside 20,000 Claude rows."""
        cache = self.scanner.cache
        if cache is None:
            return False
        asked, kept = self._kept.setdefault(ref.provider, (set(), {}))
        if ref.id not in asked:  # (the provider's sessions at once; one this scan did not list alone)
            ids = [ref.id, *(r.id for r in self._told.get(ref.provider, ()) if r.id != ref.id)] if not asked else [ref.id]
            asked.update(ids)
            kept.update(cache.row_fingerprints(ids))
        return ref.id in kept and kept[ref.id] == self.scanner.fingerprint(ref)

    def counts(self) -> list[dict[str, Any]]:
        """``[{"provider", "sessions", "reason"}]``, as ``running_unknown``."""
        return [{"provider": name, "sessions": count, "reason": why} for name, (count, why) in sorted(self.unknown.items())]


def tokens_unknown(scanner: Scanner, refs: Sequence[SessionRef], rows: Iterable[SessionRow]) -> set[str]:
    """The ids of ``rows`` whose ``null`` tokens are not known: the database their usage is kept
    in could not be read this run (Cursor's state DB, corrupt or locked), not "recorded none".
    ``list --json`` and a JSON Lines export mark them ``tokens_unknown`` (as ``show --json``):
    a script summing them took them for sessions that recorded nothing."""
    by_id = {ref.id: ref for ref in refs}
    return set(unknown_usages(scanner, [(ref, row) for row in rows
                                        if row.tokens is None and (ref := by_id.get(row.id)) is not None]))
