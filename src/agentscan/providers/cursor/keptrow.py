"""What the index keeps of a Cursor chat lends a row built while the state DB cannot be read:
the usage sums kept at its fingerprint (``with_sums``), and the row kept for older files
(``with_kept``; docs/providers/cursor.md, "Errors").

A chat's name, model, folder and times are the DB's (its composer, its header).  While the DB is
locked, a chat whose transcript changed since the DB's last read (Cursor at work in it) has no
row kept for its files as they are, and its row is built without the DB: the first prompt for a
title, no model, the transcript file's mtime for ``updated``.  ``list`` renamed the chat and moved
it to the top, ``show`` said ``model -``, while the row kept from that read (at the chat's older
fingerprint) holds what the DB said.  That row lends those facts: the name, model, folder and
start the DB gave, whether it is archived, and its update time, the newer of it and the row's own (the transcript's
times, or its file's mtime: written since the kept read, and ``list --since 1h`` left the chat
out when the kept time stood for it; the newest call of the sums kept now, ``with_sums``).  The
kept name and start are the DB's as last read whole, not as it is now: with the DB changed since,
a renamed chat shows its older name until the DB can be read again.  The counts
are the transcript's own, and the tokens those of the sums kept at its fingerprint, if any, else
not known (the DB holds them): nothing else is taken.  Such a row is never kept (the DB's
warning is said to its pass).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from agentscan.providers.cursor.mostused import calls_model
from agentscan.timeutil import from_epoch, newest

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef, SessionRow


def with_kept(row: SessionRow, kept: SessionRow, ref: SessionRef, ctx: ScanContext) -> SessionRow:
    """``row``, built without the DB, with what ``kept`` (the row the index keeps of the same
    chat, for other files or another parser) says of it that only the DB tells."""
    changes: dict = {
        "title": kept.title or row.title,
        "model": kept.model or row.model,  # (the DB's; one built without it is its calls' at most)
        "started_at": kept.started_at or row.started_at,
        # The newer: the row's is the transcript's (written since the kept read: Cursor at work
        # in it, ``list --since 1h`` must show it) or the newest call of the sums kept now.
        "updated_at": newest(kept.updated_at, row.updated_at),
        # The DB's mark as last read (``isArchived``): the row kept beside it said ``(archived?)``.
        "archived": kept.archived,
    }
    if kept.cwd:  # the DB's folder (``fsPath``, a header's workspace), not a guess from the tools
        changes.update(cwd=kept.cwd, workspace_folders=kept.workspace_folders)
    return row.with_changes(**changes)


def kept_archived(ref: SessionRef, ctx: ScanContext) -> bool | None:
    """Whether the row the index keeps of ``ref``'s chat (for any files, any parser: the one
    ``with_kept`` lends) says it is archived; ``None``: no row kept (or no index here).  So
    ``archived_unread`` tells a lent row's mark as known, as the row shows it."""
    read = ctx.memo.get(_KEPT_ARCHIVED)
    if read is None or ref.id not in read:
        read = read_kept_archived([ref], ctx)
    return read.get(ref.id)


#: ``ScanContext.memo``'s key of the kept rows' archived marks read (``read_kept_archived``)
_KEPT_ARCHIVED = "cursor.kept_archived"


def read_kept_archived(refs: Sequence[SessionRef], ctx: ScanContext) -> dict[str, bool | None]:
    """The kept rows' archived marks of ``refs`` (``kept_archived``), read in one query and
    remembered for the scan (asked of every chat while the state DB is not read)."""
    read: dict[str, bool | None] = ctx.memo.setdefault(_KEPT_ARCHIVED, {})
    rows = getattr(ctx.file_cache, "row_fields", None)  # (a worker's view of the index has none)
    asked = [ref.id for ref in refs if ref.id not in read]
    if rows is None or not asked:
        return read
    import orjson

    kept = rows(asked, ("$.archived",))
    for session_id in asked:
        values = kept.get(session_id)
        read[session_id] = None if values is None or values[1] is None else orjson.loads(values[1])[0] is True
    return read


def with_sums(row: SessionRow, ref: SessionRef, ctx: ScanContext, fingerprint: str | None) -> SessionRow:
    """``row``, built without the locked DB, with the tokens of the sums the index keeps from a
    run that read it, the chat and the DB unchanged since (``readsums``, noted by ``rowreader`` as
    for Claude), as ``tokens`` shows them (``list`` showed ``-``), and, with no model of its own,
    the one most of its own kept calls ran (``mostused.calls_model``: a run's rule under the
    lock; ``list`` said ``-`` beside a cost priced by it).  Sums whose read said something (a
    bad bubble value "counted as 100") too, their warnings said again, once: here."""
    from agentscan.readsums import read_with_warnings, total_of

    read = read_with_warnings(ctx, ref.id, fingerprint)
    if read is None or not read.groups:
        return row
    for warning in read.warnings:
        ctx.warn(warning.path, warning.message, warning.line)
    # Its update time at least its newest call's quarter hour: a DB-only chat written since the
    # kept row was read showed these tokens beside that row's older time (``list --since``
    # left out what ``tokens --since`` counted).  (The composer's own time, kept with the links,
    # stands when it is no older: ``keptfamily.Links.updated``.)
    buckets = [group[2] for group in read.groups if group[2] is not None]
    last = from_epoch(max(buckets)) if buckets else None
    return row.with_changes(tokens=total_of(read.groups)[0], model=row.model or calls_model(read.groups, None),
                            updated_at=newest(row.updated_at, last))
