"""The price key of each group of a session's sums (``scan.sessionsums``)."""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import TYPE_CHECKING

from agentscan.scan.sessionsums import SessionSums, tier_range
from agentscan.usagegroups import BUCKET, GROUP_KEYS

if TYPE_CHECKING:
    from agentscan.pricing import PriceBook, Spend

_UNKNOWN = object()


class GroupPrices:
    """The price key of each cached group (``None``: its calls may be priced apart).

    Most models have one price at every time: their key depends on the tier
    class alone, so it is worked out once per model and class, not per quarter hour;
    one priced by period, once per period and class.
    """

    def __init__(self, book: PriceBook) -> None:
        self.book = book
        self._timeless: dict[tuple[str, str | None], bool] = {}
        #: (provider, model, tier class) -> the key of a model whose key does not depend on the
        #: time (the hot path: a 1 GB transcript's 24,000 groups, each of its own quarter hour)
        self._by_class: dict[tuple, int | None] = {}
        self._memo: dict[tuple, int | None] = {}  # every other group asked about, as asked
        #: (provider, model, tier class) -> the starts (``-inf`` for none) of the price periods a
        #: quarter hour was found in, in order, and beside them each one's end and key: a model
        #: priced by period is looked up once a period, not twice a quarter hour, and a quarter
        #: hour finds its period by bisection (a time-of-day price has periods by the hundred)
        self._stretches: dict[tuple, tuple[list[float], list[tuple[float | None, int]]]] = {}

    def key(self, provider: str, model: str | None, bucket: int | None, tier: int) -> int | None:
        in_class = (provider, model, tier)
        found = self._by_class.get(in_class, _UNKNOWN)
        if found is not _UNKNOWN:
            return found  # type: ignore[return-value]
        asked = (provider, model, bucket, tier)
        found = self._memo.get(asked, _UNKNOWN)
        if found is not _UNKNOWN:
            return found  # type: ignore[return-value]
        # A model priced by period: a quarter hour inside a period already found takes its key
        # here (each of its groups is a quarter hour of its own, so the memo misses every one:
        # ≈ 54,000 groups of ``claude-sonnet-4-5`` at the bench's scale 10).  Periods of one
        # model and class do not overlap: the one starting last at or before it is the only one
        # that can hold it.
        stretches = self._stretches.get(in_class)
        if stretches is not None and bucket is not None:
            starts, ends = stretches
            at = bisect_right(starts, bucket) - 1
            if at >= 0:
                end, key = ends[at]
                if end is None or bucket + BUCKET <= end:
                    return key
        found = self._memo[asked] = self._key(provider, model, bucket, tier)
        return found

    def _key(self, provider: str, model: str | None, bucket: int | None, tier: int) -> int | None:
        fast = self.book.fast_keys(provider).get(model)
        if fast.__class__ is int:
            self._by_class[(provider, model, tier)] = fast  # type: ignore[assignment]
            return fast  # type: ignore[return-value]
        timeless = self._timeless.get((provider, model))
        if timeless is None:
            timeless = self._timeless[(provider, model)] = self.book.timeless(provider, model)
        low, high = tier_range(tier)
        if timeless:
            found = self._by_class[(provider, model, tier)] = self.book.span_key(provider, model, None, None, low, high)
        else:
            found = self.book.span_key(provider, model, bucket, None if bucket is None else bucket + BUCKET, low, high)
            around = self.book.period_around(provider, model, bucket) if found is not None and bucket is not None else None
            if found is not None and around is not None:
                # Every quarter hour inside this period has the same key (for this tier class).
                # No check that this one ends inside it: a key found says its last instant is
                # (each period's keys are its own), and the bounds kept are the period's anyway.
                starts, ends = self._stretches.setdefault((provider, model, tier), ([], []))
                start = -math.inf if around[0] is None else around[0]
                at = bisect_right(starts, start)
                starts.insert(at, start)
                ends.insert(at, (around[1], found))
        return found

    def spend(self, provider: str, sums: SessionSums, runs: dict[str, Spend] | None = None) -> Spend | None:
        """A session's sums as a ``Spend``; ``None`` when a group has no single price.  With
        ``runs``, each delegated run's groups are added to its own ``Spend`` there too (run id
        -> spend: ``show``'s subagents' costs), in the same pass."""
        from agentscan.pricing import Spend

        spend = Spend()
        for group in sums.groups:
            key = self.key(provider, group[1], group[2], group[3])
            if key is None:
                return None
            _add_parts(spend, key, group)
            if runs is not None and group[0] is not None:
                _add_parts(runs.setdefault(group[0], Spend()), key, group)
        return spend


def _add_parts(spend: Spend, key: int, group: list) -> None:
    """``group``'s sums added to ``spend``'s parts at its price ``key``."""
    parts = spend.parts.get(key)
    if parts is None:
        spend.parts[key] = list(group[GROUP_KEYS:])
    else:
        for index, value in enumerate(group[GROUP_KEYS:]):
            parts[index] += value
