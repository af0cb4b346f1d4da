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
from agentscan.scan.collect import _Collector
from agentscan.scan.groupprices import GroupPrices
from agentscan.scan.scanner import Scanner

UTC = timezone.utc
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"]


def _scanner(calls: list[tuple[int, int, int, int, bool]]) -> Scanner:
    """Sessions of calls (session, minute after START, tokens, model, in a subagent)."""
    by_session: dict[int, list[UsageEntry]] = {}
    for session, minute, amount, model, delegated in calls:
        by_session.setdefault(session, []).append(UsageEntry(
            session=f"s{session}", tokens=TokenUsage(input=amount, output=amount // 3),
            timestamp=START + timedelta(minutes=minute, seconds=session), model=MODELS[model],
            subagent="helper" if delegated else None))
    sessions = [FakeSession(SessionRow("claude", f"s{session}", None, title=f"session {session}",
                                       updated_at=max(e.timestamp for e in entries if e.timestamp)),
                            usage=tuple(entries))
                for session, entries in sorted(by_session.items())]
    return Scanner(providers=[FakeProvider(sessions, name="claude")])


def _facts(report: Any) -> list:
    return [(row.key, row.tokens, row.own, row.subagents, row.cost) for row in report.rows] + [report.total, report.cost]


CALLS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 240), st.integers(1, 10_000), st.integers(0, 1), st.booleans()),
                 min_size=1, max_size=40)
#: a window's end: none, any minute, or (often) a quarter hour's first minute, where a group starts
EDGE = st.one_of(st.none(), st.integers(-20, 260), st.integers(-1, 17).map(lambda quarter: quarter * 15))


@FUZZ
@given(calls=CALLS, since=EDGE, until=EDGE, by=st.sampled_from(["session", "day", "model", "provider"]))
def test_a_window_over_the_sums_is_a_window_over_the_calls(calls, since, until, by) -> None:
    """Whatever the window (cutting quarter hours or on their edges), the report from the
    sums is the report from every call: the reference reads each session call by call."""
    if since is not None and until is not None and since >= until:
        until = since + 1
    low = START + timedelta(minutes=since) if since is not None else None
    high = START + timedelta(minutes=until) if until is not None else None
    from_sums = tokens.token_report(_scanner(calls), since=low, until=high, by=by, tz=UTC)
    every_call = pytest.MonkeyPatch()
    every_call.setattr(tokens, "_needs_calls", lambda *args: (lambda provider, sums: True))
    try:
        from_calls = tokens.token_report(_scanner(calls), since=low, until=high, by=by, tz=UTC)
    finally:
        every_call.undo()
    assert _facts(from_sums) == _facts(from_calls)


def test_a_group_outside_the_window_needs_no_price(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session whose morning groups have no single price (as if a price changed inside
    their quarter hours) is still added up from its sums by a window over its afternoon."""
    calls = [(0, minute, 1_000, 0, False) for minute in (0, 20, 40, 200, 220)]
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
    real_calls = _Collector._calls

    def calls_read(self: _Collector, refs: list) -> Any:
        read.extend(ref.id for ref in refs)
        return real_calls(self, refs)

    monkeypatch.setattr(GroupPrices, "key", no_single_price_in_the_morning)
    monkeypatch.setattr(_Collector, "_calls", calls_read)
    report = tokens.token_report(_scanner(calls), since=START + timedelta(minutes=180))
    assert read == []  # added up from its sums
    assert asked and all(bucket is not None and bucket >= afternoon for bucket in asked)
    (row,) = report.rows
    assert row.tokens is not None and row.tokens.input == 2_000
    # Without a window, the morning's groups count: the session is read call by call.
    whole = tokens.token_report(_scanner(calls))
    assert read == ["claude:s0"]
    assert whole.rows[0].tokens is not None and whole.rows[0].tokens.input == 5_000
