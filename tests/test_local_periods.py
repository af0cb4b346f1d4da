"""``tokens --by day|week|month`` in the local zone, read from ``time.localtime``, gives
the periods ``datetime.astimezone()`` gives, and says a quarter hour is aligned when it is.

The local zone is the default (no ``--tz``), so a heavy user's 40,000 quarter
hours each took two datetimes to check and one to name; ``scan.tokens`` now asks
``time.localtime`` directly when the zone is the local one.  Zones with half-hour,
45-minute and DST offsets, and two whose offsets were not whole quarter hours
in the 1970s (Monrovia's -0:44:30 until 1972, Kiritimati's -10:40 until 1979),
are checked against the datetime way.
``export``'s token days are UTC days, each named once (``rows.utc_day``), checked the
same way against each call's own ``datetime``.
Settings: ``conftest_hypothesis.FUZZ``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.scan import rowkeys, tokenfill
from agentscan.usagegroups import BUCKET
from conftest_hypothesis import FUZZ
from zones import in_each_zone

ZONES = ("UTC", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "Africa/Monrovia",
         "Pacific/Kiritimati")


def _reference_period(ts: float, by: str) -> str:
    local = datetime.fromtimestamp(ts // 60 * 60, timezone.utc).astimezone()
    if by == "week":
        year, week, _ = local.isocalendar()
        return f"{year}-W{week:02d}"
    return local.strftime("%Y-%m" if by == "month" else "%Y-%m-%d")


def _reference_aligned(bucket: int) -> bool:
    offsets = (datetime.fromtimestamp(at, timezone.utc).astimezone().utcoffset() for at in (bucket, bucket + BUCKET - 1))
    return all(offset is not None and offset.total_seconds() % BUCKET == 0 for offset in offsets)


def _zones() -> Iterator[str]:
    return in_each_zone(ZONES)


@FUZZ
@given(ts=st.floats(86_400, 4_000_000_000), by=st.sampled_from(["day", "week", "month"]))
def test_local_periods_are_astimezones(ts: float, by: str) -> None:
    for zone in _zones():
        assert rowkeys.period_key(ts, by, None, {}) == _reference_period(ts, by), zone


@FUZZ
@given(quarter=st.integers(96, 4_000_000_000 // BUCKET))
def test_local_alignment_is_astimezones(quarter: int) -> None:
    bucket = quarter * BUCKET
    for zone in _zones():
        assert tokenfill.aligned(bucket, None) == _reference_aligned(bucket), zone


@pytest.mark.parametrize(("zone", "moment", "aligned"), [
    ("Africa/Monrovia", "1971-06-01T12:00:00Z", False), ("Africa/Monrovia", "1975-06-01T12:00:00Z", True),
    ("Pacific/Kiritimati", "1975-06-01T12:00:00Z", False), ("Pacific/Kiritimati", "1985-06-01T12:00:00Z", True),
])
def test_a_zone_off_the_quarter_hours_is_told(zone: str, moment: str, aligned: bool) -> None:
    """Its groups there are read call by call (whole minutes are not enough: -10:40)."""
    bucket = int(datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp()) // BUCKET * BUCKET
    seen = False
    for current in _zones():
        if current == zone:
            seen = True
            assert tokenfill.aligned(bucket, None) is aligned
            assert _reference_aligned(bucket) is aligned
    assert seen


@FUZZ
@given(stamps=st.lists(st.one_of(st.none(), st.floats(0, 4_000_000_000), st.integers(0, 4_000_000_000)), max_size=20))
def test_an_exports_utc_days_are_each_calls_own(stamps: list[float | None]) -> None:
    """``export``'s token days name each UTC day once (``rows.utc_day``): the name a call's
    own ``datetime`` gives, for calls in any order, sharing the names made so far."""
    from agentscan.export.rows import utc_day

    named: dict[float, str] = {}
    for ts in stamps:
        expected = "unknown" if ts is None else datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d")
        assert utc_day(ts, named) == expected
