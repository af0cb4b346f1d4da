"""What a ``tokens`` report says of its sessions besides their sums: which were archived
(``TokenRow.archived``, as ``list`` marks them) and why the unread ones were not read."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

from agentscan.model import SessionRef
from agentscan.pricing.spend import Priced
from agentscan.scan.rowmemo import KeptRow
from agentscan.scan.tokenreport import TokenRow
from agentscan.scan.unreadrows import unread_causes_of

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


def unread_causes(scanner: Scanner, refs: Sequence[SessionRef], unread: Sequence[str]) -> tuple[tuple[str, str, str], ...]:
    """``(id, path, why)`` of each of the ``unread`` sessions, in their order (``unread_cause``;
    the index asked once for them all)."""
    if not unread:
        return ()
    by_id = {ref.id: ref for ref in refs}
    causes = unread_causes_of(scanner, [by_id[session_id] for session_id in unread])
    return tuple((session_id, *cause) for session_id, cause in zip(unread, causes))


def marked_archived(scanner: Scanner, refs: Sequence[SessionRef], priced_rows: list[tuple[TokenRow, Priced]],
                     kept: dict[str, KeptRow]) -> list[tuple[TokenRow, Priced]]:
    """``priced_rows`` (by session: ``refs``' in their order, or those of a window) with those
    of archived sessions marked (``TokenRow.archived``), as ``list`` marks them; a row taken back
    (``kept``) has its mark already; one the provider cannot tell unread has its kept row's.
    Asked only of a provider that archives (``can_archive``)."""
    by_id = {ref.id: ref for ref in refs}
    marks: dict[str, bool | None] = {}
    from agentscan.scan.unreadrows import before_archived_unread

    before_archived_unread(scanner, [ref for row, _ in priced_rows if (ref := by_id.get(row.key)) is not None
                                     and row.key not in kept and not row.archived])
    for row, _ in priced_rows:
        ref = by_id.get(row.key)
        if ref is not None and row.key not in kept and not row.archived:
            provider = scanner.provider(ref.provider)
            if provider.can_archive:
                marks[row.key] = provider.archived_unread(ref, scanner.ctx)
    # Not known unread (a Cursor chat's state DB locked): the row the index keeps says it, as
    # it says it to the table beside this report (``tablefacts.gather``) and to ``list``.  A
    # windowed ``--json`` left such a chat unmarked while its own table said ``(archived)``.
    unknown = [by_id[key] for key, mark in marks.items() if mark is None]
    for session_id in scanner.rows_kept(unknown) if unknown else ():
        marks[session_id] = scanner.row(by_id[session_id]).archived
    # Still not known (no row kept: only ``tokens`` warmed the index): ``None``, said as
    # ``null``, not left out as if the chat were not archived (``list`` counts it so too).
    return [((replace(row, archived=marks[row.key]) if row.key in marks and marks[row.key] is not False else row), priced)
            for row, priced in priced_rows]
