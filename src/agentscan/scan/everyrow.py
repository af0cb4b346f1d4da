"""``export``'s rows: every session matching a ``ListFilter``, not clamped (``Scanner.all_rows``).

``list`` reads the newest first and stops when it has enough (``listing.select_sessions``);
an export reads every row, on every core when the index does not hold them (``rowbuild``),
and then keeps each in the index in its turn: a phase of its own on the progress line.
"""

from __future__ import annotations

from contextlib import nullcontext
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agentscan.context import say
from agentscan.progress import caching
from agentscan.scan.grepmodels import Held, needs_second_look, settle_held
from agentscan.scan.keptsince import too_old
from agentscan.scan.leftout import files_empty, read_row, shelf_asked, still_ours
from agentscan.scan.liveness import Liveness

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner


def every_row(scanner: Scanner, filters: ListFilter) -> list[SessionRow]:
    """Every session matching ``filters``, newest first, not clamped (``Scanner.all_rows``)."""
    liveness = Liveness(pid=filters.pid)
    refs = scanner.refs(filters.providers)
    scanner.ctx.progress.expect(len(refs))
    # Kept rows too old for ``--since`` that would say nothing are left undecoded (``keptsince``).
    old = too_old(scanner, refs, filters)
    scanner.prefetch_rows([ref for ref in refs if ref.id not in old] if old else refs, every=True)
    rows: list[SessionRow] = []
    held_rows: list[Held] = []
    shelf = shelf_asked(scanner, filters)
    progress = scanner.ctx.progress
    # Without ``--running``/``--pid``, ``running`` is told of the rows exported alone (as
    # ``list`` tells it, ``listing.select_sessions``): an ``export --since 1d`` asked ``/proc``
    # about each of 15,000 kept rows, a quarter of its time, to write 24.
    told = liveness if filters.needs_liveness else None

    def keep(row: SessionRow, ref: SessionRef) -> None:
        # A row that holds its ``running`` already is not copied (a kept row's ``null``, most
        # sessions': a dataclass copy of each of 15,000 rows was 5 % of an unchanged export).
        if told is None and row.running is not (running := liveness.of(ref)):
            row = row.with_changes(running=running)
        rows.append(row)
    # The rows the workers read were counted as they came: what is left is keeping them in
    # the index, a phase of its own (the line stood at "reading sessions 15,000/15,000" for
    # 1.3 s of a cold ``list --all`` at the bench's scale 10).
    with caching(progress, len(refs)) if scanner.rows_read_ahead() else nullcontext():
        for ref in refs:
            if ref.id in old:
                progress.advance()
                continue
            row, said = read_row(scanner, ref, told, hold=bool(filters.active_stages))
            progress.advance()
            failed = filters.failed_stage(row) if shelf is None else shelf.failed(ref, row, filters.failed_stage(row))
            if needs_second_look(failed, row):
                held_rows.append(Held(0, ref, row, said))  # (looked at together, below: ``grepmodels``)
                continue
            say(scanner.ctx, said if failed is None
                else still_ours(said, ref, row, failed, empty=bool(said) and files_empty(scanner, ref)))
            if failed is None:
                keep(row, ref)

    def admit(_at: int, ref: SessionRef, row: SessionRow, said: Any) -> None:
        say(scanner.ctx, said)
        keep(row, ref)
    settle_held(scanner, held_rows, filters, admit)
    rows.sort(key=lambda r: (r.updated_at is not None, r.updated_at or datetime.min), reverse=True)
    return rows
