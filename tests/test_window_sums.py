"""A time window over cached sums: groups outside it need no price, and the sums give what the calls give.

``tokens --since/--until`` adds most sessions up from their cached sums (per
quarter hour); a group the window leaves out is skipped.  Only a group the
window keeps needs a single price: a group outside it whose price changes
inside its quarter hour must not send the session to be read call by call
(a narrow window over a heavy user's history leaves out almost every group).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest_hypothesis import FUZZ
from agentscan.model import SessionRow, TokenUsage, UsageEntry
from agentscan.providers.fake import FakeProvider, FakeSession
from agentscan.scan import tokens
from agentscan.scan.collect import Collector
from agentscan.scan.groupprices import GroupPrices
from agentscan.scan.scanner import Scanner

UTC = timezone.utc
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"]


#: UTC, the local zone, a whole quarter-hour offset and two that are not (their days'
#: ends cut quarter hours: ``needs_calls``' misaligned groups)
ZONES = [UTC, None, timezone(timedelta(hours=5, minutes=45)), timezone(timedelta(minutes=7)),
         timezone(-timedelta(minutes=44, seconds=30))]
#: a call's model: two priced, none, and one no price list knows
CALL_MODELS = [*MODELS, None, "mystery-model-x"]


def _scanner(calls: list[tuple], start: datetime = START) -> Scanner:
    """Sessions of calls (session, minute after ``start`` or none, tokens, model, in a
    subagent, dedupe key or none: one key in two sessions is a shared call)."""
    by_session: dict[int, list[UsageEntry]] = {}
    seen = set()
    for session, minute, amount, model, delegated, key in calls:
        if key is not None:
            if (session, key) in seen:
                continue  # a session records a call once
            seen.add((session, key))
        by_session.setdefault(session, []).append(UsageEntry(
            session=f"s{session}", tokens=TokenUsage(input=amount, output=amount // 3),
            timestamp=start + timedelta(minutes=minute, seconds=session) if minute is not None else None,
            model=CALL_MODELS[model], subagent="helper" if delegated else None,
            dedupe_key=f"k{key}" if key is not None else None, rank=session))
    sessions = [FakeSession(SessionRow("claude", f"s{session}", None, title=f"session {session}",
                                       updated_at=max((e.timestamp for e in entries if e.timestamp), default=start)),
                            usage=tuple(entries))
                for session, entries in sorted(by_session.items())]
    return Scanner(providers=[FakeProvider(sessions, name="claude")])


def _facts(report: Any) -> list:
    return [(row.key, row.tokens, row.own, row.subagents, row.cost, row.own_cost, row.subagent_costs, row.recovered,
             row.cost_priced, row.unpriced_models) for row in report.rows] + [report.total, report.cost]


CALLS = st.lists(st.tuples(st.integers(0, 4), st.one_of(st.none(), st.integers(-30, 300)), st.integers(1, 10_000),
                           st.integers(0, 3), st.booleans(), st.one_of(st.none(), st.integers(0, 3))),
                 min_size=1, max_size=40)
#: a window's end: none, any minute, or (often) a quarter hour's first minute, where a group starts
EDGE = st.one_of(st.none(), st.integers(-40, 320), st.integers(-2, 21).map(lambda quarter: quarter * 15))
#: the calls' first hour: a morning, and an hour before a day's, a week's and a month's end
STARTS = [START, datetime(2026, 11, 29, 23, 0, tzinfo=UTC), datetime(2026, 11, 30, 23, 0, tzinfo=UTC)]


@FUZZ
@given(calls=CALLS, since=EDGE, until=EDGE, by=st.sampled_from(["session", "day", "week", "month", "model", "provider"]),
       tz=st.sampled_from(ZONES), start=st.sampled_from(STARTS))
def test_a_window_over_the_sums_is_a_window_over_the_calls(calls, since, until, by, tz, start) -> None:
    """Whatever the window (cutting quarter hours or on their edges), grouping and zone, the
    report from the sums is the report from every call: the reference reads each session
    call by call.  Calls without a time or a known model, and calls two sessions share, too."""
    if since is not None and until is not None and since >= until:
        until = since + 1
    low = start + timedelta(minutes=since) if since is not None else None
    high = start + timedelta(minutes=until) if until is not None else None
    from_sums = tokens.token_report(_scanner(calls, start), since=low, until=high, by=by, tz=tz)
    every_call = pytest.MonkeyPatch()
    every_call.setattr(tokens, "needs_calls", lambda *args: (lambda provider, sums: True))
    try:
        from_calls = tokens.token_report(_scanner(calls, start), since=low, until=high, by=by, tz=tz)
    finally:
        every_call.undo()
    assert _facts(from_sums) == _facts(from_calls)


def test_a_group_outside_the_window_needs_no_price(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session whose morning groups have no single price (as if a price changed inside
    their quarter hours) is still added up from its sums by a window over its afternoon."""
    calls = [(0, minute, 1_000, 0, False, None) for minute in (0, 20, 40, 200, 220)]
    afternoon = (START + timedelta(minutes=180)).timestamp()
    asked: list[int | None] = []
    real_key = GroupPrices.key

    def no_single_price_in_the_morning(self: GroupPrices, provider: str, model: str | None, bucket: int | None,
                                       tier: int) -> int | None:
        asked.append(bucket)
        if bucket is not None and bucket < afternoon:
            return None
        return real_key(self, provider, model, bucket, tier)

    read: list[str] = []
    real_calls = Collector._calls

    def calls_read(self: Collector, refs: list) -> Any:
        read.extend(ref.id for ref in refs)
        return real_calls(self, refs)

    monkeypatch.setattr(GroupPrices, "key", no_single_price_in_the_morning)
    monkeypatch.setattr(Collector, "_calls", calls_read)
    report = tokens.token_report(_scanner(calls), since=START + timedelta(minutes=180))
    assert read == []  # added up from its sums
    assert asked and all(bucket is not None and bucket >= afternoon for bucket in asked)
    (row,) = report.rows
    assert row.tokens is not None and row.tokens.input == 2_000
    # Without a window, the morning's groups count: the session is read call by call.
    whole = tokens.token_report(_scanner(calls))
    assert read == ["claude:s0"]
    assert whole.rows[0].tokens is not None and whole.rows[0].tokens.input == 5_000


@pytest.mark.parametrize("by, day, first, second", [
    ("day", 29, "2026-11-29", "2026-11-30"),
    ("week", 29, "2026-W48", "2026-W49"),  # 29 November 2026 is a Sunday
    ("month", 30, "2026-11", "2026-12"),
])
def test_a_zone_off_the_quarter_hours_puts_each_call_in_its_own_period(by: str, day: int, first: str,
                                                                        second: str) -> None:
    """At +0:07, the quarter hour from 23:45 UTC is 23:52 to 00:07 local: its calls fall in
    two days (weeks, months), so its sums cannot be placed whole (the session is read call
    by call)."""
    calls = [(0, 1, 1_000, 0, False, None), (0, 10, 20, 0, False, None)]  # 23:53 and 00:02 local
    start = datetime(2026, 11, day, 23, 45, tzinfo=UTC)
    report = tokens.token_report(_scanner(calls, start), by=by, tz=timezone(timedelta(minutes=7)))
    assert [(row.key, row.tokens.input if row.tokens else None) for row in report.rows] == [(first, 1_000), (second, 20)]
