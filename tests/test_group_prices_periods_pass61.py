"""A model priced by period: a quarter hour inside a period already found takes its key before
the memo (``scan.groupprices.GroupPrices.key``).

Each group of a session's sums is a quarter hour of its own, so the memo (keyed by quarter
hour) missed every group of a model whose price changed over time (``claude-sonnet-4-5``: ≈
54,000 groups at the bench's scale 10), and each went through ``_key`` and into the memo.  The
key is still the rule's (``PriceBook.span_key`` of the quarter hour), checked here group by
group on both sides of a price change and across it.
"""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.pricing import periods
from agentscan.pricing.book import PriceBook
from agentscan.pricing.periods import Period
from agentscan.scan.groupprices import GroupPrices
from agentscan.scan.sessionsums import tier_range
from agentscan.usagegroups import BUCKET, TIER_BOUNDS

MODEL = "claude-test-model"
CHANGE = 1_780_000_000 // BUCKET * BUCKET + 7  # (a period's end need not be a quarter hour's)


def _book(tmp_path: Path) -> PriceBook:
    """A book that knows ``MODEL``'s two periods, before and after ``CHANGE``, each tiered."""
    book = PriceBook(ScanContext.create(home=tmp_path))
    state = []
    for at, (start, end) in enumerate([(None, CHANGE), (CHANGE, None)]):
        rates = tuple(tuple(Decimal(10 * at + shift + index) for index in range(len(periods.PARTS))) for shift in (0, 5))
        state.append(book._register(Period(start, end, (200_000,), rates)))  # type: ignore[arg-type]
    book._models[("claude", MODEL)] = state
    book._refresh_fast("claude", MODEL, state)
    return book


def _rule(book: PriceBook, bucket: int | None, tier: int) -> int | None:
    low, high = tier_range(tier)
    return book.span_key("claude", MODEL, bucket, None if bucket is None else bucket + BUCKET, low, high)


def test_a_models_groups_priced_by_period_go_through_one_lookup_a_period_and_class(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book, rule_book = _book(tmp_path), _book(tmp_path)
    calls: list[tuple] = []
    real = GroupPrices._key

    def counted(self: GroupPrices, *args: object) -> int | None:
        calls.append(args)
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(GroupPrices, "_key", counted)
    prices = GroupPrices(book)
    seam = CHANGE // BUCKET * BUCKET  # (the quarter hour the change cuts through: no single key)
    buckets = [seam + BUCKET * step for step in range(-2_000, 2_000)] + [None]
    random.Random(61).shuffle(buckets)
    tiers = range(len(TIER_BOUNDS) + 1)
    for bucket in buckets:
        for tier in tiers:
            assert prices.key("claude", MODEL, bucket, tier) == _rule(rule_book, bucket, tier), (bucket, tier)
    # Per class: each period once, the seam's quarter hour, the untimed group (4,001 before).
    assert len(calls) <= 4 * len(tiers), len(calls)
    assert len(prices._memo) == len(calls)  # (the memo holds only what went through ``_key``)
    for bucket in buckets:  # asked again: the same keys
        for tier in tiers:
            assert prices.key("claude", MODEL, bucket, tier) == _rule(rule_book, bucket, tier), (bucket, tier)


def test_a_time_of_day_model_finds_its_period_among_hundreds(tmp_path: Path) -> None:
    # DeepSeek's off-peak windows make a period a few hours long: hundreds of them over a
    # home's months.  A quarter hour finds its own among them by its start (they do not
    # overlap), each key still the rule's; a walk of the whole list cost 100x the memo's lookup.
    book, rule_book = PriceBook(ScanContext.create(home=tmp_path)), PriceBook(ScanContext.create(home=tmp_path))
    prices = GroupPrices(book)
    first = 1_767_225_600 // BUCKET  # 2026-01-01
    asked = [(first + step * 5) * BUCKET for step in range(96 * 40 // 5)] * 2
    random.Random(7).shuffle(asked)
    for bucket in asked:
        want = rule_book.span_key("cursor", "deepseek-chat", bucket, bucket + BUCKET, None, None)
        assert prices.key("cursor", "deepseek-chat", bucket, 0) == want
    starts, ends = prices._stretches[("cursor", "deepseek-chat", 0)]
    assert len(starts) > 40 and starts == sorted(starts)
    spans = [(start, end) for start, (end, _) in zip(starts, ends)]
    assert all(end is not None and end <= later for (_, end), (later, _) in zip(spans, spans[1:]))


def test_a_calls_price_key_from_the_books_resolver_is_its_periods(tmp_path: Path) -> None:
    # The book's per-call resolver finds a period by its start where none overlap (hundreds of
    # time-of-day periods were walked a call); every key is still the book's own rule.
    book = PriceBook(ScanContext.create(home=tmp_path / "a"))
    rule_book = PriceBook(ScanContext.create(home=tmp_path / "b"))
    first = 1_767_225_600
    times = [first + random.Random(seed).random() * 86_400 * 40 for seed in range(1_500)]
    keys = [book.key("cursor", "deepseek-chat", at, 1000) for at in times]  # (the periods stored)
    resolve = book.fast_keys("cursor")["deepseek-chat"]
    assert callable(resolve)
    assert [resolve(at, 1000) for at in times] == keys
    assert keys == [rule_book.key("cursor", "deepseek-chat", at, 1000) for at in times]
    assert resolve(None, 1000) == book.key("cursor", "deepseek-chat", None, 1000)
