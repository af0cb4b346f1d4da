"""A grouped ``tokens`` report (``--by day|week|month|model|provider``) patched by the
sessions that changed since a whole one was kept (``scan.groupbasis``).

Beside a working agent a session or two change between two runs, and the whole
grouped report adds up every session's sums again (at a heavy user's scale:
its sums read, the shared-call check, each group's price key, the adding up).
Yet each row is exactly the sum of its sessions' parts, in exact decimals.  So,
as ``scan.answerpatch`` does by session (whose ``changes`` this takes; the
check that no changed session's calls meet another's is ``groupstore.clear``),
a run whose answer is not remembered:

1. finds the changed, new and gone sessions (at most ``answerpatch.MAX_CHANGED``);
   gives up when one of those taken out was read call by call (its calls met
   another's) or shares calls now;
2. adds up the parts of the sessions taken out, from their sums as the store
   kept them at the basis's fingerprints (``scan.groupstore``), and of the
   changed and new ones, from their sums now, at the same prices (the
   question's identity holds the price data), into the rows ``rowkeys.row_of``
   puts them in (the zone is the question's);
3. takes the former out of the kept rows and adds the latter, in exact
   decimals; a row that no group holds any more is gone, one new takes its
   place in the order; each row's agents and whether its own part is
   recorded follow the kept counts;
4. gives up on any warning, a price missing, a group a whole report would
   read call by call (a zone offset of no whole quarter hours, a price that
   changes inside a quarter hour), a call of no time (its period's row may be
   left out), an own part left of unpriced calls alone, or a sum near the cap.

Giving up costs only the work done so far: the report is made whole (and keeps a
new basis).  Tests compare patched answers with whole ones, byte for byte.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import tzinfo
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Mapping

from agentscan.bounds import MAX_TOKEN_SUM
from agentscan.model import TokenUsage, sum_usage
from agentscan.pricing.periods import EXACT, plain
from agentscan.pricing.spend import NOTHING, Priced, combined
from agentscan.scan.answerbasis import Damaged
from agentscan.scan import groupstore
from agentscan.scan.answerpatch import basis_of, changes, usage_fields
from agentscan.scan.groupbasis import GROUPED, Counts, GroupBasis, Tally, slot
from agentscan.scan.groupby import GROUPING, GroupBy
from agentscan.scan.tokenreport import ReportCoverage, TokenReport, TokenRow

if TYPE_CHECKING:
    from agentscan.pricing import PriceBook, Spend
    from agentscan.scan.groupprices import GroupPrices
    from agentscan.scan.rowkeys import RowOf
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.sessionsums import SessionSums
    from agentscan.scan.tokenbucket import Bucket
    from agentscan.scan.tokensort import SortKey


class _GiveUp(Exception):
    """The report must be made whole."""


def patched_report(scanner: Scanner, command: str, question: Mapping[str, Any], providers: list[str], by: GroupBy,
                   tz: tzinfo | None, sort: SortKey = "date") -> TokenReport | None:
    """The report of every session of ``providers`` grouped ``by``, as ``token_report`` makes
    it (rows in ``sort``'s order), patched from the basis kept for ``command`` and
    ``question``; ``None``: it must be made whole.  Call it inside a warnings capture."""
    if by not in GROUPED:
        return None
    basis = basis_of(scanner, slot(command, question), command, question)
    if basis is None:
        return None
    try:
        grouped = GroupBasis(basis)
        report = _patch(scanner, grouped, providers, by, tz) if grouped.by == by else None
    except (Damaged, _GiveUp):
        return None
    if report is None or len(scanner.ctx.warnings):
        return None
    from agentscan.scan.tokensort import sorted_rows

    return replace(report, rows=sorted_rows(report.rows, sort))


def _patch(scanner: Scanner, grouped: GroupBasis, providers: list[str], by: GroupBy, tz: tzinfo | None
           ) -> TokenReport | None:
    from agentscan.pricing import PriceBook
    from agentscan.scan.collect import sums_by_session
    from agentscan.scan.groupprices import GroupPrices
    from agentscan.scan.rowkeys import row_of as rows_keyed
    from agentscan.scan.sessionsums import SessionSums
    from agentscan.scan.tokens import needs_calls

    basis = grouped.basis
    found = changes(scanner, basis, providers)
    if found is None:
        return None
    now, refs, changed, taken_out, _ = found  # (none taken out read call by call: ``changes``)
    store = groupstore.load(scanner)
    if store is None:
        return None
    old_sums: list[list[list]] = []
    for index in taken_out:
        groups = store.sums(basis.ids[index], basis.fingerprints[index])
        if groups is None:
            return None  # no longer in the store (``groupstore.KEPT_BEFORE``)
        old_sums.append(groups)
    changed_refs = [refs[position] for position in changed]
    new_sums = sums_by_session(scanner, changed_refs) if changed_refs else {}
    if (len(scanner.ctx.warnings) or any(ref.id not in new_sums for ref in changed_refs)
            or not groupstore.clear(scanner, store, now, changed)):
        return None
    book = PriceBook(scanner.ctx, scanner.cache)
    prices = GroupPrices(book)
    adding = _Adding(book, prices, needs_calls(by, tz, None, None, prices), rows_keyed(by, tz, None, None), by)
    for index, groups in zip(taken_out, old_sums):
        session_id = basis.ids[index]
        adding.add(adding.removed, SessionSums(groups, []), session_id, session_id.partition(":")[0], -1)
    for ref in changed_refs:
        adding.add(adding.added, new_sums[ref.id], ref.id, ref.provider, 1)
    rows = grouped.rows()
    for key in adding.removed.keys() | adding.added.keys():
        rows[key] = adding.row(key, rows.get(key))
    made = [_row(key, kept) for key, kept in sorted(rows.items()) if sum(_counts(kept)[0].values())]
    if not made:
        return None  # no row: a whole report tells why
    if GROUPING[by].dearest_first:
        made.sort(key=lambda row: -(row.tokens.total if row.tokens else 0))
    total = sum_usage(row.tokens for row in made)
    cost = grouped.hidden
    for row in made:
        cost = EXACT.add(cost, row.cost)  # type: ignore[arg-type]
    if total is None or not all(0 <= field < MAX_TOKEN_SUM for field in _fields(total)):
        return None
    before = grouped.unrecorded()
    anew = {ref.id for ref in changed_refs}
    unrecorded = tuple(session_id for session_id, _ in now
                       if (not new_sums[session_id].groups if session_id in anew else session_id in before))
    cost = plain(cost)
    return TokenReport(by, tuple(made), total, cost=cost, prices=book.data.to_json(), cost_priced=cost,
                       unrecorded=unrecorded, selection=ReportCoverage((), (), (), len(refs), refs))


class _Adding:
    """The parts of the sessions taken out and of those added, row by row (``Bucket``s, as a
    whole report adds them up), and what they count in each row (``groupbasis.Tally``)."""

    def __init__(self, book: PriceBook, prices: GroupPrices, needs: Callable[[str, SessionSums], bool],
                 row_of: RowOf, by: GroupBy) -> None:
        self.book, self.prices, self.needs, self.row_of, self.by = book, prices, needs, row_of, by
        self.period = GROUPING[by].period
        self.removed: dict[str, Bucket] = {}
        self.added: dict[str, Bucket] = {}
        self.counts: dict[str, Counts] = {}

    def add(self, buckets: dict[str, Bucket], sums: SessionSums, session_id: str, provider: str, sign: int) -> None:
        from agentscan.scan.tokens import add_sums

        if self.needs(provider, sums):
            raise _GiveUp  # a whole report reads it call by call
        if self.period and any(group[2] is None for group in sums.groups):
            raise _GiveUp  # the calls of no time: their row is left out when it holds 0 tokens
        add_sums(buckets, sums, session_id, provider, None, None, self.prices, self.row_of)
        tally = Tally(self.by, self.row_of)
        tally.add(sums.groups, sums.price_keys or [], provider)
        tally.into(self.counts, sign)

    def row(self, key: str, kept: list | None) -> list:
        """The kept row ``key`` (``None``: a new one) with the parts taken out and added."""
        fresh: list[Any] = [None, None, [], [{}, 0, 0, 0]]
        own, own_cost, subs, counts = kept if kept is not None else fresh
        delta: Counts = self.counts.get(key, [{}, 0, 0, 0])
        agents = dict(counts[0])
        for provider, number in delta[0].items():
            agents[provider] = agents.get(provider, 0) + number
        counts = [agents, *(a + b for a, b in zip(counts[1:], delta[1:]))]
        if any(number < 0 for number in (*agents.values(), *counts[1:])):
            raise Damaged("counts below 0")
        fields = list(own) if own is not None else [0, 0, 0, 0, 0]
        cost = Decimal(own_cost) if own_cost is not None else Decimal(0)
        gone: set[str] = set()
        taken, put = self.removed.get(key), self.added.get(key)
        for bucket, sign in ((taken, -1), (put, 1)):
            if bucket is None:
                continue
            part = bucket.own.tokens()
            if part is not None:
                fields = [a + sign * b for a, b in zip(fields, _fields(part))]
                cost = EXACT.add(cost, sign * self._cost(bucket.own))
            if sign < 0:
                gone.update(bucket.subagents)
        subs = [sub for sub in subs if sub[0] not in gone]
        if put is not None:
            for sub_id, spend in put.subagents.items():
                if not any(key >= 0 for key in spend.parts):
                    raise _GiveUp  # a run of unpriced calls alone has no cost: a whole report warns
                subs.append([sub_id, _fields(spend.tokens()), str(self._cost(spend)), put.recovered.get(sub_id)])
        if not counts[1] + counts[3]:
            if any(fields):
                raise Damaged("an own part of no group")
            return [None, None, subs, counts]
        if not counts[2]:
            raise _GiveUp  # an own part of unpriced calls (or calls read apart) alone
        return [fields, str(plain(cost)), subs, counts]

    def _cost(self, spend: Spend) -> Decimal:
        """The exact cost of ``spend``'s priced calls; unpriced calls of no tokens cost nothing."""
        parts = spend.parts
        if any(key < 0 and (sums[0] or sums[1] or sums[2] or sums[3]) for key, sums in parts.items()):
            raise _GiveUp  # a price missing: the cost is not known
        priced = {key: sums for key, sums in parts.items() if key >= 0}
        found = self.book.assess(priced).cost if priced else Decimal(0)
        if found is None:
            raise _GiveUp
        return found


def _counts(kept: list) -> Counts:
    counts = kept[3]
    if type(counts) is not list or len(counts) != 4 or type(counts[0]) is not dict:
        raise Damaged("counts of another shape")
    return counts


def _row(key: str, kept: list) -> TokenRow:
    """A row as ``tokenbucket.Bucket.row`` makes it, from its parts as kept (``groupbasis.keep``)."""
    try:
        own_fields, own_cost, subs, counts = kept
        own = _usage(own_fields)
        own_priced = NOTHING if own is None else Priced(Decimal(own_cost), Decimal(own_cost), (), True)
        subs = sorted(subs, key=lambda sub: sub[0])
        sub_tokens = tuple((str(sub[0]), _usage(sub[1])) for sub in subs)
        sub_costs = tuple(Decimal(sub[2]) for sub in subs)
        recovered = tuple(sorted((str(sub[0]), str(sub[3])) for sub in subs if sub[3] is not None))
        providers = tuple(sorted(name for name, number in counts[0].items() if number))
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise Damaged(str(exc)) from None
    sub_priced = [Priced(cost, cost, (), True) for cost in sub_costs]
    runs = combined(sub_priced) if sub_priced else NOTHING
    whole = combined([own_priced, runs]) if sub_priced else own_priced
    tokens = sum_usage([own, *(tokens for _, tokens in sub_tokens)])
    if whole.cost is None or tokens is None or not all(0 <= field < MAX_TOKEN_SUM for field in _fields(tokens)):
        raise _GiveUp
    return TokenRow(key, tokens, own, sub_tokens, whole.cost, own_priced.cost, sub_costs, recovered, whole.priced,
                    whole.unpriced, runs.cost, own_priced.priced, sub_costs, runs.priced, providers)


def _usage(fields: Any) -> TokenUsage | None:
    if fields is None:
        return None
    if type(fields) is not list or len(fields) != 5 or not all(type(field) is int for field in fields):
        raise TypeError("tokens of another shape")
    return TokenUsage(*fields)


def _fields(usage: TokenUsage | None) -> list[int]:
    found = usage_fields(usage)
    assert found is not None  # (of a part that recorded usage)
    return found
