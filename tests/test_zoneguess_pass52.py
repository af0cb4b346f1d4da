"""``zoneguess.offset_zone``: a fixed offset typed for ``--tz`` is offered as its IANA name by
trying that one name, not by listing every zone (``available_timezones`` reads the whole zone
directory, ~15 ms); one pattern reads an offset for it and for ``closest_zone``."""

from __future__ import annotations

import zoneinfo

import pytest

from agentscan import zoneguess


def test_an_offset_is_named_without_listing_the_zones(monkeypatch: pytest.MonkeyPatch) -> None:
    def listed() -> set[str]:
        raise AssertionError("every zone listed to try one name")

    monkeypatch.setattr(zoneinfo, "available_timezones", listed)
    assert zoneguess.offset_zone("+02:00") == ("Etc/GMT-2", "UTC+2")
    assert zoneguess.offset_zone(" gmt -5 ") == ("Etc/GMT+5", "UTC-5")
    assert zoneguess.offset_zone("UTC+14") == ("Etc/GMT-14", "UTC+14")
    assert zoneguess.offset_zone("UTC-13") is None  # (``Etc/GMT+13`` is no zone)
    assert zoneguess.offset_zone("+05:30") is None
    assert zoneguess.offset_zone("Etc/GMT-2") is None  # (tzdata's own name: its sign is inverted)


@pytest.mark.parametrize(("typed", "offered"), [
    ("UTC+0", "utc"), ("+00:00", "utc"), ("Etc/GMT+13", None), ("Europe/Berln", "Europe/Berlin"),
    ("PST", "America/Los_Angeles or Asia/Manila"),
])
def test_the_closest_zone_is_as_before(typed: str, offered: str | None) -> None:
    assert zoneguess.closest_zone(typed, local=False) == offered
