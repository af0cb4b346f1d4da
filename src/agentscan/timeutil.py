"""Time parsing and formatting shared by every provider and the CLI.

Every time that leaves agentscan is ISO 8601 UTC with a ``Z``; inputs come in
as ISO strings, epoch seconds or epoch milliseconds depending on the provider.
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta, timezone, tzinfo

from agentscan.errors import UsageProblem

UTC = timezone.utc
# Values at or above this are epoch milliseconds (2020-01-01 in ms); Codex's
# thread index stored either unit depending on the build.
_MS_THRESHOLD = 1_577_836_800_000
# Times outside this range are garbage, not history: they are unknown.  They
# also break arithmetic later (year 1 shown in a zone west of UTC overflows).
_EARLIEST = datetime(1970, 1, 2, tzinfo=timezone.utc)
_LATEST = datetime(9998, 1, 1, tzinfo=timezone.utc)
# The units spelt out, not re.IGNORECASE: that would also take "ſ" (long s) for
# an "s", with no unit to match it, and it costs half a millisecond of every start.
_DURATION = re.compile(r"^\s*(\d+)\s*([smhdwSMHDW])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def local_date(seconds: float) -> tuple[int, int, int]:
    """The local (year, month, day) of epoch ``seconds``, as ``datetime.astimezone()`` finds
    it, read from ``time.localtime`` directly: 2.5× quicker than a datetime made and
    converted (a table's 15,000 dates, a report's 40,000 quarter hours)."""
    local = time.localtime(seconds)
    return local.tm_year, local.tm_mon, local.tm_mday


def to_iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def parse_iso(value: object) -> datetime | None:
    """Parse a recorded ISO timestamp leniently; ``None`` for anything unusable or implausible."""
    parsed = None
    if type(value) is str and len(value) == 24 and value[-1] == "Z":
        # The canonical ``…T12:34:56.789Z`` (every record of a row's pass has one), read
        # directly on Python 3.11+: the same aware UTC time as the lenient way below.
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            pass
    if parsed is None:
        parsed = _parse_any_iso(value)
    return parsed if parsed is not None and _EARLIEST <= parsed < _LATEST else None


_EARLIEST_EPOCH = _EARLIEST.timestamp()
_LATEST_EPOCH = _LATEST.timestamp()


def epoch_of_iso(value: object) -> float | None:
    """``parse_iso(value).timestamp()``, fast for the common ``…T12:34:56.789Z`` form.

    ``tokens`` converts one timestamp per model call (a million for a heavy
    user); ``datetime.fromisoformat`` takes the canonical UTC form directly
    on Python 3.11+, and anything else goes the lenient way.
    """
    if type(value) is str and len(value) == 24 and value[-1] == "Z":
        try:
            epoch = datetime.fromisoformat(value).timestamp()
        except ValueError:  # Python 3.10 does not read "Z"; or not a time at all
            pass
        else:
            return epoch if _EARLIEST_EPOCH <= epoch < _LATEST_EPOCH else None
    parsed = parse_iso(value)
    return parsed.timestamp() if parsed is not None else None


def _parse_any_iso(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        # Year 1 or 9999 with an offset has no UTC equivalent: OverflowError.
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def from_epoch(value: object) -> datetime | None:
    """Epoch seconds or milliseconds (auto-detected) to an aware UTC time."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = value / 1000 if value >= _MS_THRESHOLD else value
        parsed = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return parsed if _EARLIEST <= parsed < _LATEST else None


_DATE_ONLY = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*$")


def zone(name: str | None) -> tzinfo | None:
    """``--tz``: an IANA zone for period buckets and bare dates; ``None`` means the local zone."""
    if name is None:
        return None
    if not name.strip():  # ``--tz "$TZ"`` with the variable unset: said, not taken as the local zone
        raise UsageProblem("an empty time zone: use an IANA name such as Europe/Paris")
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageProblem(f"unknown time zone {name!r} (use an IANA name such as Europe/Paris)") from None


def parse_when(text: str, *, now: datetime | None = None, tz: tzinfo | None = None, end_of_day: bool = False) -> datetime:
    """Parse a ``--since``/``--until`` value: ``2026-11-01``, an ISO time, or ``3d``.

    A date or a time without an offset is read in ``tz`` (default: the local
    zone), as a person means it.  With ``end_of_day`` a bare date means the
    end of that day (``--until 2026-11-30`` includes the 30th, as in ccusage).
    A time outside the years a record can hold (``_EARLIEST``, ``_LATEST``) is taken
    as the nearest of them: it selects the same records, and a time near the year 1
    or 9999 has no local form to print (``--since 9999-12-31T23:30Z`` east of UTC).
    """
    return min(max(_parse_when(text, now=now, tz=tz, end_of_day=end_of_day), _EARLIEST), _LATEST)


def _parse_when(text: str, *, now: datetime | None, tz: tzinfo | None, end_of_day: bool) -> datetime:
    if not text.strip():
        # ``--since "$FROM"`` with the variable unset: every session would pass, silently.
        raise UsageProblem("an empty time: use a date (2026-11-01), an ISO time, or a duration (3d, 12h), "
                           "or leave the option out")
    now = now or datetime.now(UTC)
    match = _DURATION.match(text)
    if match:
        try:
            amount, unit = int(match.group(1)), match.group(2).lower()
            return now - timedelta(**{_UNITS[unit]: amount})
        except (OverflowError, ValueError):  # before the year 1, past timedelta, or past int()'s 4,300 digits
            raise UsageProblem(f"the duration {text.strip()!r} reaches back too far") from None
    parsed = _parse_user_time(text, tz)
    if parsed is None:
        raise UsageProblem(
            f"cannot read the time {text!r}: use a date (2026-11-01), an ISO time, or a duration (3d, 12h)"
        )
    if end_of_day and _DATE_ONLY.match(text):
        midnight = datetime.fromisoformat(text.strip())
        return _attach(midnight + timedelta(days=1), tz).astimezone(UTC)
    return parsed


def _attach(naive: datetime, tz: tzinfo | None) -> datetime:
    """A wall-clock time in ``tz``, or in the local zone when ``tz`` is ``None``."""
    return naive.replace(tzinfo=tz) if tz is not None else naive.astimezone()


def _parse_user_time(value: str, tz: tzinfo | None) -> datetime | None:
    """Like ``_parse_any_iso``, but a time without an offset is wall-clock time in ``tz``."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is None:
            parsed = _attach(parsed, tz)
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def newest(*values: datetime | None) -> datetime | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def oldest(*values: datetime | None) -> datetime | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None
