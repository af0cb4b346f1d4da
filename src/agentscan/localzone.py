"""The machine's local zone: what sets it (``TZ``, ``/etc/localtime``), and a ``TZ`` the C
library cannot read.

A mistyped ``TZ`` (``Europe/Berln``) is not an error to the C library: it names no zone
file and is no POSIX rule, so local time silently becomes UTC (named ``Europe``).  Every
local time agentscan prints or reads (``list``'s UPDATED, ``--since 2026-11-01``) would
then be hours off without a word; ``problem`` says it, from the variable and at most a
file's first bytes (``list`` asks on every run where ``TZ`` is set; ``zoneinfo`` is
imported only to suggest a name when there is something to say).
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

#: where the C library looks for a ``TZ`` that names a zone (glibc: ``$TZDIR`` instead when
#: set; macOS keeps its own under /var/db)
ZONE_DIRS = ("/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo", "/etc/zoneinfo",
             "/var/db/timezone/zoneinfo")
#: a POSIX rule, ``EST5EDT``, ``<-04>4<-03>,M9.1.6/24,M4.1.6/24``, ``JST-9``: a name of three
#: letters or more (or ``<…>``) and an offset; whatever follows is the C library's to read.
#: Tried only for a ``TZ`` that names no zone file (most name one).
_POSIX_RULE = r"(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)[+-]?[0-9]{1,2}(?::[0-9]{1,2}){0,2}(?:[A-Za-z<,].*)?"
#: names the C library takes as UTC without a file (``TZ=utc``: what was meant, said nothing of)
_UTC_NAMES = frozenset({"utc", "gmt", "uct", "zulu", "universal"})


def problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why ``TZ`` sets no zone (local times are then UTC), for a note; ``None`` when it does,
    or is unset (the system's zone).  Not on Windows, whose C library reads ``TZ`` otherwise."""
    value = (os.environ if env is None else env).get("TZ")
    if value is None or os.name == "nt" or _readable(value, env):
        return None
    from agentscan.zoneguess import closest_zone

    # (not this machine's zone for ``TZ=CST``: that zone is the UTC the C library fell back to)
    guess = closest_zone(value.lstrip(":"), local=False) if "/" in value or value[:1].isupper() else None
    meant = f" (did you mean {guess}?)" if guess else ""
    return (f"TZ={value} names no time zone this system knows{meant}, so local times are UTC: set TZ to "
            "an IANA name such as Europe/Paris, or unset it for the system's zone")


def _readable(value: str, env: Mapping[str, str] | None) -> bool:
    name = value[1:] if value.startswith(":") else value
    if not name or name.lower() in _UTC_NAMES:
        return True  # ``TZ=`` (POSIX: UTC)
    tzdir = (os.environ if env is None else env).get("TZDIR")
    places = [name] if os.path.isabs(name) else [os.path.join(folder, name) for folder in ((tzdir,) if tzdir else ZONE_DIRS)]
    if any(_zone_file(place) for place in places):
        return True
    import re

    return re.fullmatch(_POSIX_RULE, name) is not None


def _zone_file(path: str) -> bool:
    """Whether ``path`` is a compiled zone (its magic ``TZif``): ``TZ=zone.tab`` names a file
    that is none, ``TZ=Europe`` a directory."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"TZif"
    except OSError:
        return False


class LocalDays(tzinfo):
    """The local zone as a ``tzinfo``, for what takes one and has no "local" of its own
    (``export --days --tz local``, whose default is UTC days): the C library's times, read
    by ``datetime.fromtimestamp(ts, LocalDays())`` (its ``fromutc``).  ``timeutil.wall_time``
    reads a wall time in it as in the local zone (``is_local``), by the one rule for both."""

    is_local = True

    def fromutc(self, dt: datetime) -> datetime:
        stamp = (dt.replace(tzinfo=timezone.utc) - _EPOCH).total_seconds()
        local = time.localtime(stamp)
        return datetime(*local[:6], dt.microsecond, tzinfo=self)

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return timedelta(seconds=self._local(dt).tm_gmtoff or 0)

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)  # (only the offset as a whole is asked for)

    def tzname(self, dt: datetime | None) -> str:
        return self._local(dt).tm_zone or ""

    @staticmethod
    def _local(dt: datetime | None) -> time.struct_time:
        if dt is None:
            return time.localtime()
        return time.localtime(time.mktime((dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, 0, 0, -1)))

    def __repr__(self) -> str:
        return "local"


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
