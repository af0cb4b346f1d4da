"""A ``--since``/``--until`` outside the years a record can hold, kept as what was asked.

``whentext.parse_when`` takes such a time as the nearest a record can hold (1970-01-02,
9998-01-01): it selects the same records, and a time near the year 1 or 9999 has no local
form to print.  But the clamp alone lied twice: ``tokens --json``'s ``window`` said
``1970-01-02`` for ``--since 0001-01-01``, and ``--since 0001-01-01 --until 0001-02-01``,
both clamped to one instant, was refused as "the range is empty".  A ``Far`` is that
nearest instant (what every reader filters by, unchanged) carrying the instant asked for:
``asked`` (ISO 8601 UTC, a year 0 or 10000 written out when a zone's offset reaches past
the calendar) and ``epoch`` (its seconds, which ``scan.arguments.check_window`` compares).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone, tzinfo

UTC = timezone.utc
_EPOCH = datetime(1970, 1, 1)
#: ``date.toordinal`` of 1970-01-01
_EPOCH_ORDINAL = 719163


class Far(datetime):
    """The nearest instant a record can hold to a time asked for beyond them (see above)."""

    asked: str
    epoch: float
    #: to the minute, as a person wrote it (a wall time in its zone: ``0001-01-01 00:00``) or,
    #: for a time given with its offset, in UTC; ``timeutil.shown_time`` prints it, not the clamp
    shown: str

    def __reduce_ex__(self, protocol: object) -> tuple:
        # (datetime's own pickles the time alone: a helper process's copy kept no ``asked``)
        plain = datetime(self.year, self.month, self.day, self.hour, self.minute, self.second, self.microsecond,
                         tzinfo=self.tzinfo)
        return _remade, (plain, self.epoch, self.asked, self.shown)


def far(nearest: datetime, epoch: float) -> Far:
    """``nearest`` (aware) marked as standing for the instant ``epoch`` seconds (UTC)."""
    made = Far(nearest.year, nearest.month, nearest.day, nearest.hour, nearest.minute, nearest.second,
               nearest.microsecond, tzinfo=nearest.tzinfo)
    made.epoch = epoch
    made.asked = _iso(epoch)
    made.shown = made.asked.partition(":")[0].replace("T", " ") + ":" + made.asked.split(":")[1]
    return made


def _remade(nearest: datetime, epoch: float, asked: str, shown: str) -> Far:
    made = far(nearest, epoch)
    made.asked, made.shown = asked, shown
    return made


def far_wall(nearest: datetime, naive: datetime, tz: tzinfo | None) -> Far:
    """``nearest`` standing for the wall time ``naive`` in ``tz`` (``None``: the local zone,
    whose offset there is taken as it is at ``nearest``: the C library has none for the year 1)."""
    if tz is not None and not getattr(tz, "is_local", False):
        offset = tz.utcoffset(naive) or timedelta(0)
    else:
        offset = nearest.astimezone().utcoffset() or timedelta(0)
    made = far(nearest, (naive - _EPOCH - offset).total_seconds())
    made.shown = f"{naive.year:04d}-{naive.month:02d}-{naive.day:02d} {naive.hour:02d}:{naive.minute:02d}"
    return made


def after_last_day(nearest: datetime, tz: tzinfo | None) -> Far:
    """``nearest`` standing for the instant after 9999-12-31 in ``tz``: an ``--until`` of the
    last day, week or month there is, counted whole."""
    last = far_wall(nearest, datetime(9999, 12, 31), tz)
    return far(nearest, last.epoch + 86400)


def instant_of(moment: datetime) -> float:
    """The epoch seconds ``moment`` stands for: a ``Far``'s asked instant, else its own."""
    return moment.epoch if isinstance(moment, Far) else moment.timestamp()


def _iso(epoch: float) -> str:
    """``epoch`` as ISO 8601 UTC to the millisecond, as every time in the JSON is written
    (``timeutil.to_iso``: ``2026-11-01T04:00:00.000Z``, the fraction cut, not rounded), for
    any year from 0 to 10000."""
    # In whole milliseconds first: a float's fraction rounded on its own could reach 1,000.
    days, millis = divmod(round(epoch * 1_000_000) // 1000, 86_400_000)
    ordinal = _EPOCH_ORDINAL + days
    # A zone's offset (under a day) reaches at most one day past the calendar ``date`` knows.
    if ordinal < 1:
        day = "0000-12-31"
    elif ordinal > date.max.toordinal():
        day = "10000-01-01"
    else:
        day = date.fromordinal(ordinal).isoformat()
    whole, milli = divmod(millis, 1000)
    return f"{day}T{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}.{milli:03d}Z"
