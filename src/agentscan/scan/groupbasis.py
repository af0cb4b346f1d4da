"""A basis of a grouped ``tokens`` answer (``--by day|week|month|model|provider``), kept
for ``scan.grouppatch``, laid out as ``scan.answerbasis`` lays out a basis by session.

A grouped row adds up many sessions' calls, so a patch must take a changed
session's part out of every row it added to.  The basis keeps each session's id
and fingerprint, and in ``details`` whether its part in the rows is its own sums
(a session read call by call: its calls shared with another's, or sums that
cannot answer, ``tokens.needs_calls``, has its cost ``OPAQUE``, and a patch of it
gives up).  The sums themselves, and every session's key hashes, are in the one
store all grouped bases share (``scan.groupstore``), found there by id and
fingerprint: a part taken out is added up again from them (at the same prices:
the question's identity holds the price data).  Beside those, it keeps:

* ``rows``: every row as printed (its own part's tokens and exact cost, each
  run's tokens, exact cost and origin) with what decides how it prints once
  parts are taken out: how many groups (or calls, of the sessions read call by
  call) of each agent it holds, of its own part, and of those how many have a
  price (a part of unpriced calls of no tokens alone has no cost) and how many
  are calls;
* ``unrecorded``: the sessions that recorded no usage at all (named under the table).

The header adds ``grouped`` (``GROUP_FORMAT``), ``by`` and ``hidden``: the cost of
rows the report leaves out (an ``unknown`` period of 0 tokens) that its total holds.
The zone the periods were cut in is in the question (``answers.zone_identity``),
so a basis of another zone is never found.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from itertools import chain, repeat
from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any, Iterable, Mapping, cast

import orjson

from agentscan.model import MODEL, SESSION, SUBAGENT, TS
from agentscan.pricing.periods import EXACT
from agentscan.scan import groupstore
from agentscan.scan.answerbasis import OPAQUE, Basis, Damaged, Sections
from agentscan.scan.answerpatch import store, usage_fields
from agentscan.scan.groupby import GROUPING, GroupBy
from agentscan.scan.rowkeys import RowOf

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.scan.providerusage import ProviderUsage
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.sessionsums import SessionSums
    from agentscan.scan.tokenreport import TokenReport

#: the groupings a basis is kept of: a row is a period or a model or agent (``--by cwd``'s
#: and ``--by agent``'s rows are chosen by facts read apart, never patched)
GROUPED = ("day", "week", "month", "model", "provider")
#: the layout of the sections ``keep`` adds; a basis of another is not read
GROUP_FORMAT = 1

#: a row's counts, as kept: groups by agent, own groups, own groups priced, own calls
Counts = list[Any]


#: the index's keys of grouped bases begin so (``slot``)
SLOT = "groupbasis:"
#: the grouped bases kept at most, those kept last: each holds every session's id and
#: fingerprint (1.5 MB at the bench's scale 10; the sums are ``groupstore``'s), and a user
#: who asks ``--by day`` and ``--by model``, each as JSON and as the table, keeps four
KEPT_BASES = 4


def slot(command: str, question: Mapping[str, Any]) -> str:
    """The index's key of the basis of ``command`` (``tokens``, ``tokens-text``) and ``question``."""
    return f"{SLOT}{command}:{question.get('slot', question.get('by', ''))}"


class Tally:
    """What sessions' groups count in each row (``Counts``), counted a provider at a time in
    C: each group's row found by the one field it is made of (a period's time, a model, or the
    agent alone), asked of ``row_of`` once a distinct value; 70,000 groups of a heavy user's
    took 0.11 s a group at a time."""

    def __init__(self, by: GroupBy, row_of: RowOf) -> None:
        self.field = 2 if GROUPING[by].period else 1 if by == "model" else None  # (``SessionSums.groups``')
        self.row_of = row_of
        self.groups: dict[str, list[list[list]]] = {}
        self.keys: dict[str, list[list[int | None]]] = {}

    def add(self, groups: list[list], keys: list[int | None], provider: str) -> None:
        """Count a session's ``groups``, priced by ``keys`` (as far as both go)."""
        if len(keys) != len(groups):
            groups, keys = groups[:len(keys)], keys[:len(groups)]
        self.groups.setdefault(provider, []).append(groups)
        self.keys.setdefault(provider, []).append(keys)

    def into(self, counts: dict[str, Counts], sign: int = 1) -> None:
        """Add (``sign`` -1: take out) what was counted to each row's ``Counts``."""
        field, row_of = self.field, self.row_of
        for provider, parts in self.groups.items():
            groups = list(chain.from_iterable(parts))
            keys = list(chain.from_iterable(self.keys[provider]))
            values = list(map(itemgetter(field), groups)) if field is not None else [None] * len(groups)
            row_by: dict[Any, str] = {value: row_of("", provider, value if field == 1 else None,
                                                    value if field == 2 else None, None)[0] for value in set(values)}
            own = map(is_, map(itemgetter(0), groups), repeat(None))
            priced: Iterable[bool] = (map((-1).__lt__, cast("list[int]", keys)) if None not in keys
                                      else (key is not None and key >= 0 for key in keys))
            for (row, mine, paid), number in Counter(zip(map(row_by.__getitem__, values), own, priced)).items():
                found = counts.get(row)
                if found is None:
                    found = counts[row] = [{}, 0, 0, 0]
                number *= sign
                found[0][provider] = found[0].get(provider, 0) + number
                if mine:
                    found[1] += number
                    found[2] += number if paid else 0


def keep(scanner: Scanner, command: str, question: Mapping[str, Any], report: TokenReport, tz: tzinfo | None) -> None:
    """Keep a basis of ``report``, a grouped report of every session printed with no warning
    (its usage is the one ``scan.tokens`` left in the scan's memo)."""
    from agentscan.scan.tokens import GROUPED_USAGE

    made: tuple[dict[str, ProviderUsage], RowOf] | None = scanner.ctx.memo.pop(GROUPED_USAGE, None)
    total = report.total
    if (scanner.cache is None or made is None or report.by not in GROUPED or not report.rows or report.cost is None
            or report.unpriced_models or report.unreadable or total is None or total.saturated):
        return
    # The report's own ``row_of``: its periods of each minute found (32,000 minutes at the bench's scale 10)
    usage, row_of = made
    ids: list[str] = []
    fingerprints: list[str] = []
    details: list[bytes] = []
    kept_sums: dict[str, SessionSums | None] = {}
    counts: dict[str, Counts] = {}
    tally = Tally(report.by, row_of)
    readable = b"[null,null,0,0]"
    opaque = orjson.dumps([None, OPAQUE, 0, 0])
    for ref in report.selection.covered:
        fingerprint = scanner.fingerprint(ref)
        part = usage.get(ref.provider)
        if fingerprint is None or part is None:
            return  # a session the index cannot vouch for
        sums = part.sums.get(ref.native_id)
        keys = sums.price_keys if sums is not None else None
        if sums is None or keys is None or len(keys) != len(sums.groups):
            details.append(opaque)  # read call by call: not taken out by a patch
            kept_sums[ref.id] = None
        else:
            details.append(readable)
            kept_sums[ref.id] = sums
            tally.add(sums.groups, keys, ref.provider)
        ids.append(ref.id)
        fingerprints.append(fingerprint)
    tally.into(counts)
    for provider, part in usage.items():
        for entry in part.entries:  # the calls of sessions read call by call, merged
            place, _ = row_of(f"{provider}:{entry[SESSION]}", provider, entry[MODEL], entry[TS], entry[SUBAGENT])
            found = counts.setdefault(place, [{}, 0, 0, 0])
            found[0][provider] = found[0].get(provider, 0) + 1
            found[3] += entry[SUBAGENT] is None
    rows: dict[str, list[Any]] = {}
    hidden: Decimal = report.cost
    for row in report.rows:
        held = counts.get(row.key)
        if (held is None or row.cost is None or (row.own is not None) != bool(held[1] + held[3])
                or None in row.subagent_costs or len(row.subagent_costs) != len(row.subagents)):
            return  # a row not made as counted: not patched
        recovered = dict(row.recovered)
        rows[row.key] = [usage_fields(row.own), None if row.own_cost is None else str(row.own_cost),
                         [[sub_id, usage_fields(tokens), str(cost), recovered.get(sub_id)]
                          for (sub_id, tokens), cost in zip(row.subagents, row.subagent_costs)], held]
        hidden = EXACT.subtract(hidden, row.cost)
    # Each session's sums and key hashes are the store's, shared by every grouped basis
    # (``scan.groupstore``); a session whose calls meet another's is read call by call, so
    # ``OPAQUE``: a patch that would take it out is made whole (``sharing`` names none).
    if not groupstore.keep(scanner, list(zip(ids, fingerprints)), kept_sums):
        return
    stored = Sections()
    stored.add("ids", "\n".join(ids).encode("utf-8", "surrogateescape"))
    stored.add("fingerprints", "\n".join(fingerprints).encode("utf-8", "surrogateescape"))
    stored.add("details", b"\n".join(details))
    stored.add("rows", orjson.dumps(rows))
    stored.add("unrecorded", orjson.dumps(list(report.unrecorded)))
    store(scanner, slot(command, question), command, question, {
        "sharing": {}, "total": usage_fields(total), "recorded": len(report.rows), "known": len(report.rows),
        "cost": str(report.cost), "prices": report.prices, "grouped": GROUP_FORMAT, "by": report.by,
        "hidden": str(hidden)}, stored, commit=False)
    cache = scanner.cache
    cache.keep_newest_snapshots(SLOT, KEPT_BASES)
    cache.commit()  # the store's entries, the basis and the pruning: one transaction


class GroupBasis:
    """A kept grouped basis (``keep``'s), its sections decoded as a patch asks for them."""

    def __init__(self, basis: Basis) -> None:
        header = basis.header
        if header.get("grouped") != GROUP_FORMAT or type(header.get("hidden")) is not str:
            raise Damaged("a basis of another layout")
        self.basis = basis
        self.by = header.get("by")
        try:
            self.hidden = Decimal(header["hidden"])
        except (ArithmeticError, TypeError, ValueError) as exc:
            raise Damaged(str(exc)) from None

    def rows(self) -> dict[str, list]:
        try:
            rows = orjson.loads(self.basis.section("rows"))
        except ValueError as exc:
            raise Damaged(str(exc)) from None
        if type(rows) is not dict:
            raise Damaged("rows of another shape")
        return rows

    def unrecorded(self) -> set[str]:
        try:
            found = orjson.loads(self.basis.section("unrecorded"))
        except ValueError as exc:
            raise Damaged(str(exc)) from None
        if type(found) is not list or not all(type(item) is str for item in found):
            raise Damaged("unrecorded of another shape")
        return set(found)
