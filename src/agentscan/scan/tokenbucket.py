"""One group of a token report: its own part and each delegated run's part (``scan.tokens``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentscan.model import ORIGIN, sum_usage
from agentscan.pricing import PriceBook, Spend
from agentscan.pricing.spend import NOTHING, Priced, combined
from agentscan.scan.tokenreport import TokenRow

if TYPE_CHECKING:
    from agentscan.scan.sessionsums import SessionSums


class Bucket:
    """One group's spend: the own part and each subagent's part, each a ``Spend``
    (token sums per price key), added to without an object per entry."""

    __slots__ = ("own", "subagents", "recovered", "last", "providers")

    def __init__(self) -> None:
        #: the agents whose calls the group holds (a group's REASONING is partial when one of
        #: them records none apart: ``TokenRow.providers``)
        self.providers: set[str] = set()
        self.own = Spend()
        self.subagents: dict[str, Spend] = {}
        self.recovered: dict[str, str] = {}
        #: in a window, when its last call counted was (a cached group's quarter hour's start):
        #: the DATE of a session's row then (``TokenReport.last_calls``)
        self.last: float | None = None

    def _spend(self, sub_key: str | None) -> Spend:
        """The session's own spend, or one subagent's."""
        if sub_key is None:
            return self.own
        found = self.subagents.get(sub_key)
        if found is None:
            found = self.subagents[sub_key] = Spend()
        return found

    def merge(self, other: Bucket) -> None:
        """Add ``other``'s spend (own and each run's), agents and last call to this one's
        (a row's models' buckets made into its own: ``scan.tokenmodels.merged``)."""
        self.providers |= other.providers
        self.own.merge(other.own)
        for sub_key, spend in other.subagents.items():
            self._spend(sub_key).merge(spend)
        self.recovered.update(other.recovered)
        if other.last is not None and (self.last is None or other.last > self.last):
            self.last = other.last

    def add_parts(self, sub_key: str | None, price_key: int, values: list, origin: str | None) -> None:
        """Add a cached group's sums (``values``: ``Spend``'s parts) under its price key."""
        parts = self._spend(sub_key).parts
        if sub_key is not None and origin is not None:
            self.recovered[sub_key] = origin
        sums = parts.get(price_key)
        if sums is None:
            parts[price_key] = list(values)
        else:
            for index, value in enumerate(values):
                sums[index] += value

    def add(self, entry: list, sub_key: str | None, price_key: int) -> None:
        self._spend(sub_key).add(entry, price_key)
        if sub_key is not None and len(entry) > ORIGIN and entry[ORIGIN] is not None:
            self.recovered[sub_key] = entry[ORIGIN]

    def row(self, key: str, book: PriceBook) -> tuple[TokenRow, Priced]:
        """The group's row, and its cost as a ``Priced`` (the report's total combines them)."""
        own = self.own
        subs = sorted(self.subagents.items())
        own_priced = own.priced(book)
        sub_priced = [spend.priced(book) for _, spend in subs]
        sub_tokens = tuple((sub_id, spend.tokens()) for sub_id, spend in subs)
        # Exact decimals: the sum of the parts' costs is the cost of the summed parts.
        runs = combined(sub_priced) if sub_priced else NOTHING
        whole = combined([own_priced, runs]) if sub_priced else own_priced
        own_tokens = own.tokens()
        tokens = sum_usage([own_tokens, *(tokens for _, tokens in sub_tokens)])
        recovered = tuple(sorted(self.recovered.items()))
        row = TokenRow(key, tokens, own_tokens, sub_tokens, whole.cost, own_priced.cost,
                       tuple(p.cost for p in sub_priced), recovered, whole.priced, whole.unpriced, runs.cost,
                       own_priced.priced, tuple(p.priced for p in sub_priced), runs.priced,
                       tuple(sorted(self.providers)))
        return row, whole


def add_session_sums(buckets: dict[str, Bucket], sums: SessionSums, keys: list[int], session_id: str) -> None:
    """``scan.tokens.add_sums`` for ``--by session`` without a window: one bucket, every group in it
    (a heavy user's report adds up 70,000 groups of 15,000 sessions: no call per group)."""
    bucket = buckets.get(session_id)
    if bucket is None:
        bucket = buckets[session_id] = Bucket()
    own = bucket.own.parts
    for index, group in enumerate(sums.groups):
        subagent = group[0]
        if subagent is None:
            parts = own
        else:
            parts = bucket._spend(subagent).parts
            if group[4] is not None:
                bucket.recovered[subagent] = group[4]
        price_key = keys[index]
        found = parts.get(price_key)
        if found is None:
            parts[price_key] = group[5:]
        else:
            found[0] += group[5]
            found[1] += group[6]
            found[2] += group[7]
            found[3] += group[8]
            found[4] += group[9]
            found[5] += group[10]
            found[6] += group[11]
            found[7] += group[12]
