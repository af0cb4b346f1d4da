"""Time parsing and formatting shared by every provider and the CLI.

Every time that leaves agentscan is ISO 8601 UTC with a ``Z``; inputs come in
as ISO strings, epoch seconds or epoch milliseconds depending on the provider.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone, tzinfo
from typing import NamedTuple

from agentscan.errors import UsageProblem
from agentscan.toolkit.valuewarnings import note_time
from agentscan.toolkit.words import quoted

UTC = timezone.utc
# Values at or above this are epoch milliseconds (2020-01-01 in ms); Codex's
# thread index stored either unit depending on the build.
_MS_THRESHOLD = 1_577_836_800_000
# Times outside this range are garbage, not history: they are unknown.  They
# also break arithmetic later (year 1 shown in a zone west of UTC overflows).
EARLIEST = datetime(1970, 1, 2, tzinfo=timezone.utc)
LATEST = datetime(9998, 1, 1, tzinfo=timezone.utc)


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
    # ``plausible``, spelt out: one call less on every record's time.
    if parsed is not None and EARLIEST <= parsed < LATEST:
        return parsed
    if parsed is not None:
        note_time(value)  # a time, but none a record holds: told once a file
    return None


def plausible(value: datetime | None, *, now: datetime | None = None) -> datetime | None:
    """An aware ``value`` when a record can hold it (1970-01-02 to 9997), else ``None``:
    the time is unknown.  The line ``parse_iso`` and ``from_epoch`` draw, for a reader
    that makes its own times (Cursor's ``<timestamp>`` wrapper).

    With ``now`` (the clock's time), also ``None`` for a time more than ``FUTURE_SLACK``
    after it: nothing is recorded in the future, so the clock that wrote it was wrong (a
    year 2100, a machine's date unset).  Not part of reading: such a time is kept as
    recorded, and only what orders sessions by it asks (``scan.listing``)."""
    if value is None or not EARLIEST <= value < LATEST:
        return None
    return None if now is not None and value - now > FUTURE_SLACK else value


#: how far past the clock a recorded time may run before it is a wrong clock's: a day
#: covers clocks set apart by a synced home's machines and a zone's offset written as UTC
#: (at most 14 hours), which are skew, not a broken clock
FUTURE_SLACK = timedelta(days=1)

#: a recorded time may run this far past its file's mtime (clocks, buffered writes): how far
#: ``list --since`` and ``tokens``' window trust a file's mtime as a bound of its session's times
CLOCK_SLACK_S = 120.0


_EARLIEST_EPOCH = EARLIEST.timestamp()
_LATEST_EPOCH = LATEST.timestamp()


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
            if _EARLIEST_EPOCH <= epoch < _LATEST_EPOCH:
                return epoch
            note_time(value)
            return None
    parsed = parse_iso(value)
    return parsed.timestamp() if parsed is not None else None


def iso_datetime(text: str) -> datetime | None:
    """``text`` as ``datetime.fromisoformat`` reads it, spaces around it and a ``Z`` (UTC) taken
    too, naive when it names no offset; ``None`` when it is no time.  A record's time
    (``_parse_any_iso``) and a user's (``whentext``) alike: each then says what a naive one is."""
    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except (ValueError, OverflowError):
        return None


def _parse_any_iso(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    parsed = iso_datetime(value)
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        # Year 1 or 9999 with an offset has no UTC equivalent: a time, out of range.
        note_time(value)
        return None


def from_epoch(value: object) -> datetime | None:
    """Epoch seconds or milliseconds (auto-detected) to an aware UTC time."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value != value:  # NaN: no time at all
        return None
    try:
        seconds = value / 1000 if value >= _MS_THRESHOLD else value
        parsed = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        note_time(value)  # a number past any date (an infinity too): told once a file
        return None
    if EARLIEST <= parsed < LATEST:
        return parsed
    if value:  # (0 is how a writer says "no time", not a time it recorded)
        note_time(value)
    return None


# Wall times further than this outside the years a record can hold are taken as the
# nearest of them: a zone's offset there may not exist (year 1 east of UTC overflows).
_NAIVE_EARLIEST = EARLIEST.replace(tzinfo=None) - timedelta(days=2)
_NAIVE_LATEST = LATEST.replace(tzinfo=None) + timedelta(days=2)


#: ``--tz`` values that name no IANA zone: the machine's own (``None``, as without ``--tz``)
LOCAL_NAMES = frozenset({"local"})
#: ... and UTC, however it is cased: ``UTC`` is an IANA name, but ``utc`` is not
UTC_NAMES = frozenset({"utc", "z"})


def zone(name: str | None) -> tzinfo | None:
    """``--tz``: an IANA zone for period buckets, bare dates and printed times; ``None``
    means the local zone (``--tz local``, or no ``--tz``).  ``utc`` in any case is UTC,
    without importing ``zoneinfo`` (its first use costs a few milliseconds)."""
    if name is None:
        return None
    if not name.strip():  # ``--tz "$TZ"`` with the variable unset: said, not taken as the local zone
        raise UsageProblem("an empty time zone: use an IANA name such as Europe/Paris, utc or local")
    folded = name.strip().lower()
    if folded in LOCAL_NAMES:
        return None
    if folded in UTC_NAMES:
        return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # (OSError: ``Europe``, a folder of zones)
        pass
    from agentscan.localzone import problem
    from agentscan.zoneguess import closest_zone, offset_zone

    offset = offset_zone(name)
    if offset:  # the one trap of these names: Etc/GMT-2 is two hours *ahead* of UTC
        raise UsageProblem(f"unknown time zone {quoted(name)}: did you mean {offset[0]}? (its sign is inverted, as POSIX "
                           f"writes it: {offset[0]} is {offset[1]}, with no clock changes; a place's time is its "
                           "IANA name, such as Europe/Paris)") from None
    # (this machine's zone is offered for an abbreviation it prints only when ``TZ`` sets a zone:
    # ``TZ=CST`` sets none, and its "CST" is UTC under that name)
    guess = closest_zone(name, local=problem() is None)
    hint = f": did you mean {guess}?" if guess else ""
    raise UsageProblem(f"unknown time zone {quoted(name)}{hint} (use an IANA name such as Europe/Paris, utc, "
                       "or local for this machine's)") from None


class Shown(NamedTuple):
    """A time as ``shown_time`` prints it: the wall time, its zone's name then, and whether that
    is UTC's time too (its offset is zero)."""

    text: str
    zone: str | None
    utc: bool

    @property
    def named(self) -> str:
        """In prose: ``2026-11-07 14:02 CET``; ``2026-11-07 14:02`` when that is UTC's time too."""
        return self.text if self.utc else f"{self.text} {self.zone}"


def shown_time(value: datetime | None, tz: tzinfo | None) -> Shown:
    """``value`` to the minute in ``tz`` (``None``: the local zone), ``2026-11-07 14:02``,
    with the zone's abbreviation then (``CET``; ``UTC+05:45`` for a zone that has none)."""
    if value is None:
        return Shown("-", None, True)
    asked = getattr(value, "shown", None)
    if asked is not None:  # a time beyond the years a record holds, as asked (``farbounds``)
        return Shown(asked, None, True)
    local = value.astimezone(tz)
    offset = local.utcoffset() or timedelta(0)
    return Shown(local.strftime("%Y-%m-%d %H:%M"), local.tzname() or offset_text(offset), not offset)


def offset_text(offset: timedelta) -> str:
    minutes = int(offset.total_seconds()) // 60
    return f"UTC{'+' if minutes >= 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def zone_names(times: list[Shown]) -> str | None:
    """The zones of ``times``, once, for a heading: ``CET``, or ``CEST/CET`` for times on
    both sides of a clock change (in the order met); ``None`` when each is UTC's time too
    (a zone is named only where a reader could not take the time for UTC: docs/cli.md)."""
    if all(time.utc for time in times):
        return None
    return "/".join(dict.fromkeys(time.zone for time in times if time.zone))


def wall_time(naive: datetime, tz: tzinfo | None) -> datetime:
    """The instant (aware, UTC) a wall-clock time in ``tz`` names; ``None``: the local zone.

    One rule for ``--tz ZONE`` and for the local zone (``TZ=ZONE`` or the system's), PEP
    495's ``fold=0``: a wall time a clock change skips moves forward by the gap (02:30 on
    Berlin's spring-forward night is 03:30 CEST), so a day whose midnight is skipped starts
    at its first instant (2026-09-06 in Santiago: 01:00); a wall time that happens twice is
    its first occurrence.  The local zone's through ``timestamp()``, which is the C
    library's zone read by that rule (``zoneinfo`` and ``/etc/localtime`` would cost an
    import and a file for the same answer).  Not ``naive.astimezone()``: that keeps a
    skipped wall time and gives it the offset after the change, an instant an hour *before*
    the gap.
    """
    naive = naive.replace(fold=0)
    if naive < _NAIVE_EARLIEST:
        return EARLIEST
    if naive >= _NAIVE_LATEST:
        return LATEST
    if tz is not None and not getattr(tz, "is_local", False):  # (``localzone.LocalDays``: the local zone)
        return naive.replace(tzinfo=tz).astimezone(UTC)
    try:
        return datetime.fromtimestamp(naive.timestamp(), UTC)
    except (OverflowError, OSError, ValueError):  # Windows refuses times before 1970
        return naive.replace(tzinfo=UTC)


def newest(*values: datetime | None) -> datetime | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def oldest(*values: datetime | None) -> datetime | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None
