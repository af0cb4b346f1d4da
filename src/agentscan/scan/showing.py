"""``show``: one session in detail (``Scanner.show``), by any id ``resolve`` takes.

Only ``show`` needs it: the detail is read from the provider's own ref of the
session (a stored one is rebuilt alone: ``Provider.locate``), and a huge
session's detail starts from its row in the index.  A subagent's own id opens
its parent, with ``focus`` naming the subagent.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from agentscan.errors import SessionUnreadable, TranscriptUnreadable
from agentscan.scan.liveness import Liveness
from agentscan.scan.notfound import not_found
from agentscan.scan.showscope import find_all
from agentscan.scan.unreadrows import archived_unknown_ids, unknown_usage, unread_reason

if TYPE_CHECKING:
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner


def session_detail(scanner: Scanner, query: str, bounds: Bounds) -> SessionDetail:
    """See ``Scanner.show``."""
    # Only the warnings of finding it that may concern it (``scan.showscope``).
    ((_, ref, focus),) = find_all(scanner, [query])
    real = scanner.real_ref(ref, one=True)
    if real is None:  # gone since it was found, or its database could not be read this time
        raise not_found(scanner, query)
    ref = real
    provider = scanner.provider(ref.provider)
    try:
        detail = None
        if provider.shows_from_row(ref, scanner.ctx):
            # A huge session: its row from the index (or parsed once and kept
            # there), and only the newest part of it read for the detail.
            detail = provider.detail_with_row(ref, scanner.ctx, bounds, scanner.row(ref))
        if detail is None:
            detail = provider.detail(ref, scanner.ctx, bounds)
    except Exception as exc:  # noqa: BLE001 - a provider bug is an error message, not a traceback
        raise SessionUnreadable(ref.id, type(exc).__name__) from exc
    if provider.unknown_usage(ref, scanner.ctx) is not None:
        # Any failure of the database, not a lock alone: the kept row and sums are at the
        # session's fingerprint, which takes in the database's stat, so it is as they were read
        # (``tokens`` counted such a chat at its kept figures while ``show`` said "not known"
        # when the DB failed by the query deadline or an I/O error).
        detail = _as_kept(scanner, ref, detail)
    elif detail.row.counts_partial and detail.records_no_usage and scanner.rows_kept([ref]):
        # An Agent CLI chat whose store this run could not read (the CLI writing it): the row the
        # index keeps at its fingerprint (the store's stat in it) was read from the store as it
        # is, and no row of an unread store is kept.  ``list`` showed its title and counts from
        # that row while the card said "title -" and "counts not known".
        kept = scanner.row(ref)
        if not kept.counts_partial:
            detail = replace(detail, row=kept)
    reason = unread_reason(scanner, detail.row)
    if reason is not None:  # not a session that recorded nothing: its records are not known
        if detail.row.path is not None and not os.path.lexists(detail.row.path):
            raise not_found(scanner, query)  # deleted since it was found: "not found", as above
        raise TranscriptUnreadable(ref.id, str(detail.row.path), reason)
    row = detail.row.with_changes(running=Liveness().of(ref))
    if archived_unknown_ids(scanner, [ref], [row]):
        # Whether the chat is archived is in the DB this run could not read (Cursor's state
        # DB): ``null`` and a card's "not known", as ``list`` says it, not "not archived".
        row = row.with_changes(archived=None)
    changes: dict = {"row": row}
    extra = dict(detail.extra)
    if focus is not None:
        extra["focus"] = {"subagent": focus, "query": query.strip(), "opened": "parent"}
    if detail.row.tokens is None and unknown_usage(scanner, ref, detail.row) is not None:
        # its usage is kept in a database this run could not read (Cursor's state DB, corrupt
        # or locked): the card says "not known", not "not recorded" (``show_text.tokens_line``)
        extra["tokens_unknown"] = True
    if extra != detail.extra:
        changes["extra"] = extra
    return replace(detail, **changes)


def _as_kept(scanner: Scanner, ref: SessionRef, detail: SessionDetail) -> SessionDetail:
    """``detail`` of a session whose facts and usage are kept in a database this run could not
    read (Cursor's state DB: Cursor writing, or past the query deadline), with the row ``list``
    and ``tokens`` show of it (``Scanner.row``): the one the index keeps from a run that read it,
    the session and the database unchanged since (the fingerprint takes in its own), else one
    built without it, its tokens from the sums kept (``CursorProvider.row``) and its name, model
    and times from a row kept for older files (``Provider.with_kept``).  The card was built
    without it: the first prompt for its title, no cwd, model or start, its tokens "not known"
    while ``list`` showed them.  Its subagents' tokens and models come from those sums."""
    from agentscan.readsums import read_with_warnings, total_of
    from agentscan.scan.rowreader import note_kept_sums

    # The sums kept at the session's fingerprint, noted as read, as a ``list`` notes them before
    # its rows: the row's pass takes them and says their warnings (a bad bubble value "counted
    # as 100"), once; the row is built by the scanner's one rule, not again here.
    note_kept_sums(scanner, [ref])
    row = scanner.row(ref)
    sums = read_with_warnings(scanner.ctx, ref.id, scanner.fingerprint(ref))
    if sums is None:
        return replace(detail, row=row)
    runs: dict[str | None, list[list]] = {}  # each run's groups (the agent first), in one pass
    for group in sums.groups:
        runs.setdefault(group[0], []).append(group)
    provider = scanner.provider(ref.provider)
    subagents = []
    for sub in detail.subagents:
        if sub.tokens is None and (groups := runs.get(sub.id)):  # (its model: the one most of its calls ran, as a row's)
            sub = replace(sub, tokens=total_of(groups)[0], model=sub.model or provider.kept_model(groups, sub.id))
        subagents.append(sub)
    return replace(detail, row=row, subagents=tuple(subagents))
