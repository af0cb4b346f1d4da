"""A basis of a grouped ``tokens`` answer (``--by day|week|month|model|provider``), kept
for ``scan.grouppatch``, laid out as ``scan.answerbasis`` lays out a basis by session.

A grouped row adds up many sessions' calls, so a patch must take a changed
session's part out of every row it added to.  Beside what a basis by session
keeps of each session (its id, fingerprint and key hashes, each provider's
all sorted: ``answerpatch.key_sections``), this one keeps:

* ``sums``: each session's own sums, as the index holds them
  (``SessionSums.groups``), placed by ``sums_at``; its parts in the rows are
  added up again from them (at the same prices: the question's identity holds
  the price data) when it is taken out.  A session read call by call (its
  calls shared with another's, or sums that cannot answer: ``tokens._needs_calls``)
  has none: its cost is ``OPAQUE`` in ``details``, and a patch of it gives up;
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

from array import array
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Mapping

import orjson

from agentscan.model import MODEL, SESSION, SUBAGENT, TS
from agentscan.pricing.periods import EXACT
from agentscan.scan.answerbasis import OPAQUE, Basis, Damaged, Sections
from agentscan.scan.answerpatch import key_sections, store, usage_fields
from agentscan.scan.rowkeys import RowOf, row_of as rows_keyed

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.scan.providerusage import ProviderUsage
    from agentscan.scan.scanner import Scanner
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
#: the grouped bases kept at most, those kept last: each holds every session's sums and key
#: hashes (14 MB at the bench's scale 10), and a user who asks ``--by day`` and ``--by model``,
#: each as JSON and as the table, keeps four
KEPT_BASES = 4


def slot(command: str, question: Mapping[str, Any]) -> str:
    """The index's key of the basis of ``command`` (``tokens``, ``tokens-text``) and ``question``."""
    return f"{SLOT}{command}:{question.get('slot', question.get('by', ''))}"


def count(counts: dict[str, Counts], groups: list[list], keys: list[int | None], session_id: str,
          provider: str, row_of: RowOf, sign: int = 1, rows: dict[tuple, str] | None = None) -> None:
    """Add (``sign`` -1: take out) what a session's ``groups``, priced by ``keys``, count in
    each row ``row_of`` puts them in; ``rows``: the rows found so far, by agent, model and time
    (``GROUPED``' rows are of those alone: 70,000 groups of a heavy user's ask ``row_of`` less)."""
    rows = {} if rows is None else rows
    for group, key in zip(groups, keys):
        asked = (provider, group[1], group[2])
        row = rows.get(asked)
        if row is None:
            row = rows[asked] = row_of(session_id, provider, group[1], group[2], None)[0]
        found = counts.get(row)
        if found is None:
            found = counts[row] = [{}, 0, 0, 0]
        found[0][provider] = found[0].get(provider, 0) + sign
        if group[0] is None:
            found[1] += sign
            found[2] += sign if key is not None and key >= 0 else 0


def keep(scanner: Scanner, command: str, question: Mapping[str, Any], report: TokenReport, tz: tzinfo | None) -> None:
    """Keep a basis of ``report``, a grouped report of every session printed with no warning
    (its usage is the one ``scan.tokens`` left in the scan's memo)."""
    from agentscan.scan.tokens import GROUPED_USAGE

    usage: dict[str, ProviderUsage] | None = scanner.ctx.memo.pop(GROUPED_USAGE, None)
    total = report.total
    if (scanner.cache is None or usage is None or report.by not in GROUPED or not report.rows or report.cost is None
            or report.unpriced_models or report.unreadable or total is None or total.saturated):
        return
    row_of = rows_keyed(report.by, tz, None, None)
    ids: list[str] = []
    fingerprints: list[str] = []
    details: list[list[Any]] = []
    places = array("q")
    stored = Sections()
    counts: dict[str, Counts] = {}
    found_rows: dict[tuple, str] = {}
    for ref in report.selection.covered:
        fingerprint = scanner.fingerprint(ref)
        part = usage.get(ref.provider)
        if fingerprint is None or part is None:
            return  # a session the index cannot vouch for
        sums = part.sums.get(ref.native_id)
        keys = sums.price_keys if sums is not None else None
        if sums is None or keys is None or len(keys) != len(sums.groups):
            details.append([None, OPAQUE, 0, 0])  # read call by call: not taken out by a patch
            places.extend((0, 0))
        else:
            data = orjson.dumps(sums.groups)
            places.extend((stored.append(data), len(data)))
            details.append([None, None, 0, 0])
            count(counts, sums.groups, keys, ref.id, ref.provider, row_of, rows=found_rows)
        ids.append(ref.id)
        fingerprints.append(fingerprint)
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
    sharing = key_sections(scanner, stored, ids, fingerprints, details)
    if sharing is None:
        return
    stored.add("details", b"\n".join(map(orjson.dumps, details)))
    stored.add("sums_at", places.tobytes())
    stored.add("rows", orjson.dumps(rows))
    stored.add("unrecorded", orjson.dumps(list(report.unrecorded)))
    store(scanner, slot(command, question), command, question, {
        "sharing": sharing, "total": usage_fields(total), "recorded": len(report.rows), "known": len(report.rows),
        "cost": str(report.cost), "prices": report.prices, "grouped": GROUP_FORMAT, "by": report.by,
        "hidden": str(hidden)}, stored)
    cache = scanner.cache
    cache.keep_newest_snapshots(SLOT, KEPT_BASES)
    cache.commit()


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
            self.places = basis.section("sums_at").cast("q")
        except (ArithmeticError, TypeError, ValueError) as exc:
            raise Damaged(str(exc)) from None
        if len(self.places) != 2 * len(basis.ids):
            raise Damaged("sums of another shape")

    def sums(self, index: int) -> list[list]:
        """Session ``index``'s groups as kept (``SessionSums.groups``)."""
        from agentscan.usagegroups import GROUP_WIDTH

        start, length = self.places[2 * index], self.places[2 * index + 1]
        body = self.basis.body
        try:
            if not 0 <= start <= start + length <= len(body):
                raise ValueError("sums out of bounds")
            groups = orjson.loads(body[start:start + length])
            if type(groups) is not list or any(type(group) is not list or len(group) != GROUP_WIDTH for group in groups):
                raise TypeError("groups of another shape")
        except (ValueError, TypeError) as exc:
            raise Damaged(str(exc)) from None
        return groups

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
