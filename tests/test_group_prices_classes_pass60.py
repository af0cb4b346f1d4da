"""Pass 60: a cached group's price key is worked out once per model and tier class, not per
quarter hour (``scan.groupprices``).

A 1 GB transcript's sums hold 24,000 groups, each of its own quarter hour, of one model whose
price has long-context tiers (so its quick key is a resolver, not a number): each group went
through ``GroupPrices._key`` (0.03 of a warm ``show``'s 0.27 CPU-s).  A model priced by period
asked the book for two keys a quarter hour; it asks once a period now.  Either way the key is
the one ``PriceBook.span_key`` gives for the quarter hour (the rule), checked here bucket by
bucket, across periods' ends and tiers.
"""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.pricing import periods
from agentscan.pricing.access import Found
from agentscan.pricing.book import PriceBook
from agentscan.pricing.periods import Period
from agentscan.scan.groupprices import GroupPrices
from agentscan.scan.sessionsums import tier_range
from agentscan.usagegroups import BUCKET, TIER_BOUNDS

MODEL = "claude-test-model"
OUTSIDE = "outside the test's periods"
JUNE = 1_780_000_000 // BUCKET * BUCKET + 7  # a period's end need not be a quarter hour's


def _rates(scale: int) -> tuple[Decimal, ...]:
    return tuple(Decimal(scale + index) for index in range(len(periods.PARTS)))


def _book(tmp_path: Path, spans: list[tuple[float | None, float | None]]) -> PriceBook:
    """A book that knows ``MODEL``'s periods (each with a tier above 200,000 input tokens)."""
    book = PriceBook(ScanContext.create(home=tmp_path))
    state = [book._register(Period(start, end, (200_000,), (_rates(10 * at), _rates(10 * at + 5))))  # type: ignore[arg-type]
             for at, (start, end) in enumerate(spans)]
    book._models[("claude", MODEL)] = state
    book._unpriced_key("claude", MODEL, OUTSIDE)  # the same negative keys in every such book
    book._refresh_fast("claude", MODEL, state)
    return book


def _rule(book: PriceBook, bucket: int | None, tier: int) -> int | None:
    low, high = tier_range(tier)
    return book.span_key("claude", MODEL, bucket, None if bucket is None else bucket + BUCKET, low, high)


def _buckets(seed: int, spans: list[tuple[float | None, float | None]]) -> list[int | None]:
    """Quarter hours (multiples of ``BUCKET``, as the sums keep them): those around each end of
    a period (the one a period's end cuts through among them), far ones, and the untimed group."""
    rng = random.Random(seed)
    ends = {end for span in spans for end in span if end is not None}
    near = [int(end) // BUCKET * BUCKET + BUCKET * step for end in sorted(ends) for step in range(-3, 4)]
    far = [(JUNE + rng.randrange(-40_000, 40_000) * BUCKET) // BUCKET * BUCKET for _ in range(3_000)]
    every = near + far + [None]
    assert all(bucket % BUCKET == 0 for bucket in near + far)
    rng.shuffle(every)
    return every


@pytest.mark.parametrize("spans, few", [
    ([(None, None)], True),  # one price at every time, with tiers: a resolver, not a number
    ([(None, JUNE), (JUNE, None)], True),  # a price change
    ([(JUNE, None), (None, JUNE)], True),  # stored in the other order
    ([(JUNE - 90 * 86400, JUNE), (JUNE, JUNE + 30 * 86400)], False),  # bounded: times outside are asked of the library
    ([(JUNE - 90 * 86400 + 500, JUNE), (JUNE, JUNE + 30 * 86400 + 600)], False),  # outer ends late in their quarter hours
    ([(JUNE, None), (None, JUNE + 30 * 86400)], False),  # overlapping (the first stored answers): no stretch
    ([(None, JUNE + 30 * 86400), (JUNE, None)], False),
])
def test_each_group_gets_the_key_of_its_quarter_hour(tmp_path: Path, spans: list, few: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float | None] = []
    book = _book(tmp_path, spans)
    rule_book = _book(tmp_path, spans)
    # (A time outside every stored period: the library's answer, here "no price", as the book takes it.)
    monkeypatch.setattr(PriceBook, "_add_period", lambda self, provider, model, ts, total: self._unpriced_key(provider, model, OUTSIDE))
    real_key = PriceBook.key

    def counted(self: PriceBook, provider: str, model: str | None, ts: float | None, total_input: int) -> int:
        if self is book:
            asked.append(ts)
        return real_key(self, provider, model, ts, total_input)

    monkeypatch.setattr(PriceBook, "key", counted)
    prices = GroupPrices(book)
    buckets = _buckets(len(spans), spans)
    tiers = range(len(TIER_BOUNDS) + 1)
    for bucket in buckets:
        for tier in tiers:
            assert prices.key("claude", MODEL, bucket, tier) == _rule(rule_book, bucket, tier), (bucket, tier)
    if few:
        # each period once a class, the quarter hour the seam cuts through (no single key) and
        # the untimed group: it was twice for each of 3,000 quarter hours and class
        assert len(asked) <= 2 * len(tiers) * 4, len(asked)


def test_a_timeless_models_groups_go_through_one_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = _book(tmp_path, [(None, None)])
    calls = []
    real = GroupPrices._key

    def counted(self: GroupPrices, *args: object) -> int | None:
        calls.append(args)
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(GroupPrices, "_key", counted)
    prices = GroupPrices(book)
    for step in range(2_000):
        prices.key("claude", MODEL, JUNE + step * BUCKET, 2)
    assert len(calls) == 1, len(calls)


def test_a_period_added_later_over_a_stretch_leaves_each_key_the_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's periods arrive one at a time (``PriceBook._add_period``, for a time outside
    every stored one): one that overlaps a period a stretch was kept for comes after it in the
    book, so ``key`` still answers by the earlier one there, as the stretch does.  Each answer
    is checked against ``span_key`` of the book as it is at that moment."""
    later = {"before": Period(None, JUNE + 10 * 86400, (200_000,), (_rates(100), _rates(105))),  # type: ignore[arg-type]
             "after": Period(JUNE + 20 * 86400, None, (200_000,), (_rates(200), _rates(205)))}  # type: ignore[arg-type]
    book = _book(tmp_path, [(JUNE, JUNE + 30 * 86400)])
    added: list[str] = []

    class Library:
        def period_at(self, data: object, match: object, ts: float) -> Period:
            added.append("before" if ts < JUNE else "after")
            return later[added[-1]]

    monkeypatch.setattr(PriceBook, "_match", lambda self, provider, ref: Found("anthropic", MODEL, None))
    monkeypatch.setattr("agentscan.pricing.book.library_for", lambda ctx, data: Library())
    prices = GroupPrices(book)
    inside = [JUNE // BUCKET * BUCKET + BUCKET * step for step in range(1, 6)] + \
             [(JUNE + 30 * 86400) // BUCKET * BUCKET - BUCKET * step for step in range(1, 6)]
    outside = [(JUNE - 86400) // BUCKET * BUCKET, (JUNE + 40 * 86400) // BUCKET * BUCKET]
    tiers = range(len(TIER_BOUNDS) + 1)
    for bucket in inside[:1] + outside + inside + outside + [None]:
        for tier in tiers:
            assert prices.key("claude", MODEL, bucket, tier) == _rule(book, bucket, tier), (bucket, tier, added)
    assert sorted(set(added)) == ["after", "before"], added  # both came after the stretch was kept
    assert prices._stretches and book.period_around("claude", MODEL, inside[0]) is None  # it overlaps them now
