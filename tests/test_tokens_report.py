"""Token reports over the fake provider: grouping, own vs subagent parts, null."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from agentscan import providers
from agentscan.scan.listing import ListFilter
from agentscan.scan.scanner import Scanner
from agentscan.errors import UnknownProvider, UsageProblem
from agentscan.model import SessionRow, TokenUsage, UsageEntry
from agentscan.providers.fake import FakeProvider, FakeSession
from agentscan.scan.tokens import token_report

UTC = timezone.utc


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def entry(session: str, ts: str, inp: int, out: int = 0, *, model: str = "m1", subagent: str | None = None) -> UsageEntry:
    return UsageEntry(session=session, tokens=TokenUsage(input=inp, output=out), timestamp=at(ts), model=model, subagent=subagent)


@pytest.fixture
def scanner() -> Scanner:
    sessions = [
        FakeSession(
            SessionRow("fake", "s1", None, title="one", updated_at=at("2026-11-02T00:30:00")),
            usage=(
                entry("s1", "2026-11-01T23:30:00", 100, 40),
                entry("s1", "2026-11-02T00:10:00", 7, 3, model="m2", subagent="child"),
            ),
        ),
        FakeSession(
            SessionRow("fake", "s2", None, title="two", updated_at=at("2026-11-03T10:00:00")),
            usage=(entry("s2", "2026-11-03T09:00:00", 5, 5, model="m2"),),
        ),
        FakeSession(SessionRow("fake", "s3", None, title="silent", updated_at=at("2026-10-01T10:00:00"))),
    ]
    return Scanner(providers=[FakeProvider(sessions)])


def test_by_session_keeps_own_and_subagent_parts(scanner: Scanner) -> None:
    report = token_report(scanner)
    rows = {row.key: row for row in report.rows}
    assert list(rows) == ["fake:s2", "fake:s1", "fake:s3"]  # most recent first
    s1 = rows["fake:s1"]
    assert s1.tokens.total == 150 and s1.own.total == 140
    assert [(sub, t.total) for sub, t in s1.subagents] == [("child", 10)]
    assert rows["fake:s3"].tokens is None  # nothing recorded: null, not zeros
    assert report.total.total == 160


def test_by_day_in_a_time_zone(scanner: Scanner) -> None:
    utc = token_report(scanner, by="day", tz=UTC)
    assert [(r.key, r.tokens.total) for r in utc.rows] == [("2026-11-01", 140), ("2026-11-02", 10), ("2026-11-03", 10)]
    # In Tokyo (UTC+9) the 23:30 UTC call falls on the 2nd, next to the 00:10 one.
    tokyo = token_report(scanner, by="day", tz=ZoneInfo("Asia/Tokyo"))
    assert [(r.key, r.tokens.total) for r in tokyo.rows] == [("2026-11-02", 150), ("2026-11-03", 10)]
    (sub,) = tokyo.rows[0].subagents
    assert sub[0] == "fake:s1/child"


def test_by_model_and_provider(scanner: Scanner) -> None:
    by_model = token_report(scanner, by="model")
    assert [(r.key, r.tokens.total) for r in by_model.rows] == [("m1", 140), ("m2", 20)]
    by_provider = token_report(scanner, by="provider")
    assert [(r.key, r.tokens.total) for r in by_provider.rows] == [("fake", 160)]


def test_since_and_until_filter_calls(scanner: Scanner) -> None:
    report = token_report(scanner, since=at("2026-11-02T00:00:00"), until=at("2026-11-03T00:00:00"))
    assert [(r.key, r.tokens.total) for r in report.rows] == [("fake:s1", 10)]


def test_ids_select_sessions(scanner: Scanner) -> None:
    report = token_report(scanner, ids=["fake:s2"])
    assert [r.key for r in report.rows] == ["fake:s2"]


def test_bad_grouping_is_a_usage_problem(scanner: Scanner) -> None:
    with pytest.raises(UsageProblem):
        token_report(scanner, by="fortnight")


def test_list_over_fake_provider_parses_only_what_it_shows() -> None:
    sessions = [
        FakeSession(SessionRow("fake", f"s{i}", None, title=f"t{i}", updated_at=at(f"2026-11-{i + 1:02d}T00:00:00")))
        for i in range(28)
    ]
    fake = FakeProvider(sessions)
    rows = Scanner(providers=[fake]).list_sessions(limit=5)
    assert [r.native_id for r in rows] == ["s27", "s26", "s25", "s24", "s23"]
    assert fake.row_calls == 5
    grep = Scanner(providers=[fake]).list_sessions(filters=ListFilter(grep="T1"))
    assert {r.native_id for r in grep} == {"s1", "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19"}


def test_registry_registers_and_rejects_unknown_names() -> None:
    fake = FakeProvider([], name="fake-registered")
    providers.register(fake)
    try:
        assert providers.get_provider("fake-registered") is fake
        assert "fake-registered" in providers.available_names()
    finally:
        providers.unregister("fake-registered")
    with pytest.raises(UnknownProvider, match="choose from: claude"):
        providers.get_provider("fake-registered")


class BrokenProvider(FakeProvider):
    """A provider with a bug: every parse raises."""

    def row(self, ref, ctx):
        raise KeyError("bug")

    def usage(self, refs, ctx):
        raise ValueError("bug")

    def detail(self, ref, ctx, bounds):
        raise IndexError("bug")


def test_a_provider_bug_costs_one_session_not_the_command() -> None:
    from agentscan.errors import SessionUnreadable

    broken = BrokenProvider([FakeSession(SessionRow("fake", "bad", None, updated_at=at("2026-11-02T00:00:00")))], name="broken")
    good = FakeProvider([FakeSession(SessionRow("fake", "good", None, title="ok", updated_at=at("2026-11-01T00:00:00")),
                                     usage=(entry("good", "2026-11-01T00:00:00", 5),))])
    scanner = Scanner(providers=[broken, good])
    rows = scanner.list_sessions()
    # The broken session recorded nothing anyone could read: left out of list, named by its warning.
    assert [(r.id, r.title) for r in rows] == [("fake:good", "ok")]
    assert [(r.id, r.title) for r in scanner.all_rows()] == [("broken:bad", None), ("fake:good", "ok")]
    report = token_report(scanner)
    assert report.total.total == 5
    assert any("could not read this session (KeyError)" in w.message for w in scanner.warnings)
    assert any("(ValueError)" in w.message for w in scanner.warnings)
    with pytest.raises(SessionUnreadable, match="broken:bad"):
        scanner.show("broken:bad")
