"""The ``tokens`` report's buckets filled (``scan.tokens``): from a session's cached sums
(``add_sums``), when they can answer (``needs_calls`` says which cannot), else from its calls
(``add_entries``), each group or call the window keeps (``outside``) in its row and price.
The report's hot loops: kept as they are (``scan.tokenmodels``)."""

from __future__ import annotations

import time
from datetime import datetime, timezone, tzinfo
from typing import Callable

from agentscan.model import CACHE_READ, CACHE_WRITE, INPUT, MODEL, SESSION, SUBAGENT, TS
from agentscan.pricing import PriceBook
from agentscan.scan.groupby import GROUPING, GroupBy
from agentscan.scan.groupprices import GroupPrices
from agentscan.scan.rowkeys import RowOf
from agentscan.scan.sessionsums import SessionSums
from agentscan.scan.tokenbucket import Bucket
from agentscan.usagegroups import BUCKET


def needs_calls(by: GroupBy, tz: tzinfo | None, low: float | None, high: float | None,
                 prices: GroupPrices) -> Callable[[str, SessionSums], bool]:
    """Which sessions' sums cannot answer: a window cuts one of their quarter hours, or,
    in a group the window keeps, a period grouping meets a zone offset that is not whole
    quarter hours or a price changes (a group the window leaves out gets no price key)."""
    whole: dict[int, bool] = {}  # (each bucket's ``aligned``)

    def cut(bucket: int | None) -> bool:
        if bucket is None:
            return False
        return (low is not None and bucket < low < bucket + BUCKET) or (high is not None and bucket < high < bucket + BUCKET)

    def misaligned(bucket: int | None) -> bool:
        if bucket is None:
            return False
        known = whole.get(bucket)
        if known is None:
            known = whole[bucket] = aligned(bucket, tz)
        return not known

    windowed = low is not None or high is not None
    periods = GROUPING[by].period
    price = prices.key

    def needs(provider: str, sums: SessionSums) -> bool:
        keys: list[int | None] = []
        for group in sums.groups:
            bucket = group[2]
            if windowed:
                if cut(bucket):
                    return True
                if outside(bucket, low, high):
                    # ``add_sums`` leaves it out: its price (and its zone's offset) does not
                    # matter.  A narrow window over a heavy user's history skips most groups.
                    keys.append(None)
                    continue
            if periods and misaligned(bucket):
                return True
            key = price(provider, group[1], bucket, group[3])
            if key is None:
                return True
            keys.append(key)
        sums.price_keys = keys  # ``add_sums`` takes them from here
        return False

    return needs


def outside(at: float | None, low: float | None, high: float | None) -> bool:
    """Whether a call at ``at``, or a cached group starting at ``at``, is left out of the
    window (a group the window cuts through is read call by call: ``needs_calls``)."""
    return at is None or (low is not None and at < low) or (high is not None and at >= high)


def aligned(bucket: int, tz: tzinfo | None) -> bool:
    """Whether ``tz``'s offset is whole quarter hours at both ends of the quarter hour
    starting at ``bucket`` (then its cached group falls in one day, week and month)."""
    if tz is None:
        # The local zone, as ``astimezone()`` finds it (``tm_gmtoff``), without two datetimes
        # a bucket: a heavy user's history has 40,000 of them.
        return all(time.localtime(at).tm_gmtoff % BUCKET == 0 for at in (bucket, bucket + BUCKET - 1))
    offsets = (datetime.fromtimestamp(at, timezone.utc).astimezone(tz).utcoffset() for at in (bucket, bucket + BUCKET - 1))
    return all(offset is not None and offset.total_seconds() % BUCKET == 0 for offset in offsets)


def add_sums(buckets: dict[str, Bucket], sums: SessionSums, session_id: str, provider_name: str,
              low: float | None, high: float | None, prices: GroupPrices, row_of: RowOf) -> None:
    """A session's cached sums; no window cuts through any of its quarter hours
    and each group the window keeps has one price (``needs_calls`` said so)."""
    windowed = low is not None or high is not None
    keys = sums.price_keys
    for index, group in enumerate(sums.groups):
        subagent, model, bucket, tier = group[0], group[1], group[2], group[3]
        if windowed and outside(bucket, low, high):
            continue
        key, sub_key = row_of(session_id, provider_name, model, bucket, subagent)
        found = buckets.get(key)
        if found is None:
            found = buckets[key] = Bucket()
        found.providers.add(provider_name)
        if windowed and bucket is not None and (found.last is None or bucket > found.last):
            found.last = bucket  # (its calls' date in any zone of whole quarter hours: every zone in use)
        price_key = keys[index] if keys is not None else prices.key(provider_name, model, bucket, tier)
        assert price_key is not None  # sessions with an unpriceable group were read call by call
        found.add_parts(sub_key, price_key, group[5:], group[4])


def add_entries(buckets: dict[str, Bucket], entries: list[list], provider_name: str, low: float | None,
                 high: float | None, book: PriceBook, row_of: RowOf) -> None:
    windowed = low is not None or high is not None
    prefix = provider_name + ":"
    fast_keys = book.fast_keys(provider_name)
    for entry in entries:
        ts = entry[TS]
        if windowed and outside(ts, low, high):
            continue
        key, sub_key = row_of(prefix + entry[SESSION], provider_name, entry[MODEL], ts, entry[SUBAGENT])
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = Bucket()
        bucket.providers.add(provider_name)
        if windowed and (bucket.last is None or ts > bucket.last):
            bucket.last = ts
        found = fast_keys.get(entry[MODEL])  # see PriceBook.fast_keys
        if found.__class__ is int:
            price_key: int = found  # type: ignore[assignment]
        else:
            total_input = entry[INPUT] + entry[CACHE_READ] + entry[CACHE_WRITE]
            if found is None:
                price_key = book.key(provider_name, entry[MODEL], ts, total_input)
            else:
                price_key = found(ts, total_input)  # type: ignore[operator]
        bucket.add(entry, sub_key, price_key)
