"""The cost of whole sessions, for ``list``, ``show`` and ``export`` rows.

A row's cost is priced from the same calls its ``tokens`` count: the
session's own usage entries (its subagents' included), each at its own
time; for a session whose row's own pass kept its sums (a huge Claude
transcript: ``Provider.row_sums``), from those sums, so no second pass
holds every call.  A row whose tokens are ``null`` has a ``null`` cost too, and so does
one whose calls leave its cost unknown (``agentscan.pricing.spend.Priced``;
the price book warns, naming the model).  ``show`` prices each delegated run of its
session from the same sums or calls, split by run, as ``tokens`` prices a run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence
from weakref import WeakKeyDictionary

from agentscan.model import SUBAGENT, SessionRef, SessionRow
from agentscan.pricing import PriceBook, Spend
from agentscan.pricing.spend import Priced
from agentscan.progress import PRICING, PRICING_ROWS

if TYPE_CHECKING:
    from agentscan.detailmodel import SessionDetail
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.sessionsums import SessionSums
    from agentscan.scan.tokenreport import TokenRow

#: each library scanner's price book, made on its first cost (``book_of``)
_books: WeakKeyDictionary[Scanner, PriceBook] = WeakKeyDictionary()


def book_of(scanner: Scanner) -> PriceBook:
    """The price book of ``scanner``'s costs when its caller gives none: one per scanner, not
    one per call (a dashboard calling ``show`` in a loop loaded the price data each time,
    and heard each unpriced model's warning again)."""
    book = _books.get(scanner)
    if book is None:
        book = _books[scanner] = PriceBook(scanner.ctx, scanner.cache)
    return book


def costs_of(per_session: Mapping[str, list[list]], refs: Iterable[SessionRef], book: PriceBook,
             runs: dict[str, dict[str, Priced]] | None = None) -> dict[str, Priced]:
    """Session id -> the cost of its entries (``Priced.cost`` ``None``: nothing recorded, or
    some calls have no price; then ``Priced.priced`` is what the others cost).  With ``runs``,
    each session's delegated runs' costs are put there too (session id -> run id -> cost),
    from the same pass over its entries."""
    costs: dict[str, Priced] = {}
    for ref in refs:
        spend = Spend()
        of_runs: dict[str, Spend] = {}
        for entry in per_session.get(ref.id, ()):
            key = book.entry_key(ref.provider, entry)
            spend.add(entry, key)
            if runs is not None and entry[SUBAGENT] is not None:
                of_runs.setdefault(entry[SUBAGENT], Spend()).add(entry, key)
        costs[ref.id] = spend.priced(book)
        if runs is not None:
            runs[ref.id] = {run: run_spend.priced(book) for run, run_spend in of_runs.items()}
    return costs


def priced(rows: Sequence[SessionRow], costs: Mapping[str, Priced],
           advance: Callable[[int], None] | None = None) -> list[SessionRow]:
    """``rows`` with their cost, and a lower bound where some calls have no price;
    ``advance``: told each ``_TOLD_ROWS`` rows (``PRICING_ROWS``)."""
    changed = []
    for row in rows:
        cost = costs.get(row.id) if row.tokens is not None else None
        if cost is None:
            changed.append(row.with_changes(cost=None, cost_priced=None))
        else:
            changed.append(row.with_changes(cost=cost.cost, cost_priced=cost.priced))
        if advance is not None and len(changed) % _TOLD_ROWS == 0:
            advance(_TOLD_ROWS)
    if advance is not None and len(changed) % _TOLD_ROWS:
        advance(len(changed) % _TOLD_ROWS)
    return changed


#: rows priced between two counts of ``PRICING_ROWS`` (a count a row cost a tenth of the pass)
_TOLD_ROWS = 64


def with_costs(
    scanner: Scanner, rows: Iterable[SessionRow], refs: Iterable[SessionRef] | None = None,
    book: PriceBook | None = None,
) -> list[SessionRow]:
    """``rows`` with ``cost`` filled in, and a resumed session's tokens and cost as ``tokens``
    credits them (its copies of a session found here count there: ``creditedrows``).

    ``refs`` must include each row's session (default: every session the
    scanner discovers); ``book`` is the run's ``PriceBook`` when the caller
    needs its price data version (default: the scanner's, ``book_of``).
    """
    return _with_costs(scanner, rows, refs, book, runs=False)[0]


def _with_costs(
    scanner: Scanner, rows: Iterable[SessionRow], refs: Iterable[SessionRef] | None,
    book: PriceBook | None, *, runs: bool,
) -> tuple[list[SessionRow], dict[str, dict[str, Priced]], dict[str, TokenRow]]:
    """``with_costs``, and with ``runs`` each session's delegated runs' costs (session id ->
    run id -> its cost), priced from the same sums or calls as the session's; and the credited
    rows of those whose copies of another session's calls count there (``creditedrows``), by id."""
    from agentscan.scan.collect import sums_by_session, usage_by_session
    from agentscan.scan.groupprices import GroupPrices
    from agentscan.scan.sessionsums import SessionSums

    rows = list(rows)  # read twice below: a generator would give no row
    if refs is None:
        refs = scanner.refs()
    if book is None:
        book = book_of(scanner)
    wanted = {row.id for row in rows}
    chosen = list({ref.id: ref for ref in refs if ref.id in wanted}.values())
    # From each session's cached sums (exact per group, see ``groupprices.GroupPrices``);
    # only a session with a group that has no single price is read call by call.
    prices = GroupPrices(book)
    costs: dict[str, Priced] = {}
    run_costs: dict[str, dict[str, Priced]] = {}
    by_calls = []
    # A huge session's sums as its row's own pass kept them (the same the row's tokens count).
    known: dict[str, SessionSums] = {}
    by_provider: dict[str, list[SessionRef]] = {}
    for ref in chosen:
        by_provider.setdefault(ref.provider, []).append(ref)
    for name, provider_refs in by_provider.items():
        scanner.provider(name).prefetch_row_sums(provider_refs, scanner.ctx)  # read together, not a query each
    for ref in chosen:
        groups = scanner.provider(ref.provider).row_sums(ref, scanner.ctx, scanner.fingerprint(ref))
        if groups is not None:
            known[ref.id] = SessionSums(groups, [])
    # Named "adding up tokens" by the parse alone, when there is one (``usageparse``), its
    # rate from its own start: named here around the index's lookups too, the phase was drawn
    # and erased with nothing in it on a ``list --all`` after ``tokens`` (every sum kept), and
    # a parse's first frame read "1/500 (14/s)", the lookups' time counted as its own.
    parsed = sums_by_session(scanner, [ref for ref in chosen if ref.id not in known])
    progress = scanner.ctx.progress
    # A phase of its own, counted: a cold ``list --all`` at scale 10 stood 0.5 s on "caching
    # sessions" (a JSON Lines export 0.9 s on "caching sessions 15,000/15,000") while its rows
    # were priced.  (A phase named while no line is up shows nothing: ``show``'s one row.)
    with progress.named(PRICING):
        progress.expect(len(known) + len(parsed))
        # In the sessions' order, wherever their sums came from (a row's pass keeps them only
        # when its capture of warnings held them all; a cached run reads them from the index):
        # all those kept first, a ``list --json`` after a cold ``tokens`` said its "no price"
        # warnings in another order than ``--no-cache`` when a session had 100+ bad lines.
        for ref in chosen:
            sums = known[ref.id] if ref.id in known else parsed.get(ref.id)
            if sums is None:
                continue
            ref_id = ref.id
            of_runs: dict[str, Spend] | None = {} if runs else None
            spend = prices.spend(ref.provider, sums, of_runs)
            if spend is None:
                by_calls.append(ref)
            else:
                costs[ref_id] = spend.priced(book)
                if of_runs is not None:
                    run_costs[ref_id] = {run: run_spend.priced(book) for run, run_spend in of_runs.items()}
            progress.advance()
        if by_calls:
            costs.update(costs_of(usage_by_session(scanner, by_calls), by_calls, book, run_costs if runs else None))
    # The rows given their costs, counted too: a cold ``list --all`` stood ~0.86 s on "pricing
    # sessions 15,000/15,000" at scale 10 before its table (a row copied with its cost each).
    # After the sessions' phase, not inside it: its last count drawn again would read as a step back.
    with progress.named(PRICING_ROWS):
        progress.expect(len(rows))
        rows, credited = priced_and_credited(scanner, rows, chosen, costs, progress.advance)
    return rows, run_costs, credited


def priced_and_credited(scanner: Scanner, rows: Sequence[SessionRow], refs: Sequence[SessionRef],
                        costs: Mapping[str, Priced], advance: Callable[[int], None] | None = None
                        ) -> tuple[list[SessionRow], dict[str, TokenRow]]:
    """``rows`` priced (``priced``), a resumed session's with the tokens and cost ``tokens``
    credits it (its copies of a session found here count there: ``creditedrows``); and the
    credited rows of those, by id.  The one way ``list``, ``show`` and every export price their rows."""
    from agentscan.scan.creditedrows import credited_rows, with_credit

    credit = credited_rows(scanner, rows, refs)
    return with_credit(priced(rows, costs, advance), credit), credit


def with_cost(scanner: Scanner, detail: SessionDetail, book: PriceBook | None = None) -> SessionDetail:
    """``show``'s detail with its row's cost, priced as a listed row's (``Scanner.show``: the
    library's and the CLI's, one path), and each subagent's, as ``tokens`` prices a run: from
    the same sums (no second read), ``None`` where its tokens are."""
    from dataclasses import replace

    from agentscan.scan.creditedrows import runs_credited_elsewhere

    (row,), runs, credited = _with_costs(scanner, [detail.row], [scanner.resolve(detail.row.id)], book, runs=True)
    of_runs = runs.get(row.id, {}) if row.tokens is not None else {}
    subagents = []
    taken = credited.get(row.id)
    # The copied session's runs whose calls count there: its own card lists them, not this one.
    elsewhere = runs_credited_elsewhere(detail.row, taken) if taken is not None else set()
    for sub in detail.subagents:
        if sub.id in elsewhere:
            continue
        cost = of_runs.get(sub.id) if sub.tokens is not None else None
        subagents.append(replace(sub, cost=None if cost is None else cost.cost,
                                 cost_priced=None if cost is None else cost.priced))
    extra = detail.extra
    if row.resumed_from is not None:
        # Whether the card's figures leave the copied calls to the session they name, found here
        # (credited without it, through another session resumed from it, they are not all there).
        there = row.id in credited and bool(scanner.refs_by_id([row.resumed_from]))
        extra = {**extra, "resumed_counted_there": there}
    return replace(detail, row=row, subagents=tuple(subagents), extra=extra)
