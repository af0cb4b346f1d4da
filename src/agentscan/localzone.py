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


def zone_name(zone: tzinfo | None) -> str | None:
    """The name ``--json`` gives the zone days were cut in: ``--tz``'s, or for the local one
    (``None``, ``--tz local``) its IANA name when that is known for sure (``iana_name``: ``null``
    was all a script got, which could not turn a day back into instants), else ``None``;
    ``UTC`` for every name of UTC (``Etc/UTC``, ``Zulu``, ``GMT``)."""
    name = str(zone) if zone is not None and not getattr(zone, "is_local", False) else iana_name()
    # One name for UTC whatever spelt it: a container's local zone is ``Etc/UTC`` (its
    # ``/etc/localtime``), ``--tz utc`` is ``UTC``, ``TZ=GMT`` was ``UTC`` already, and a script
    # that tests ``window.tz == "UTC"`` (or groups reports by it) took them for two zones.
    return "UTC" if name is not None and _is_utc_alias(name) else name


#: the zone files that are UTC under another name (tzdata's links to ``Etc/UTC`` and the
#: ``GMT`` ones, which keep no summer time: ``Europe/London`` is not among them)
_UTC_ALIASES = frozenset({"utc", "uct", "universal", "zulu", "gmt", "gmt0", "gmt+0", "gmt-0", "greenwich"})


def _is_utc_alias(name: str) -> bool:
    lowered = name.lower()
    return (lowered[4:] if lowered.startswith("etc/") else lowered) in _UTC_ALIASES


def iana_name(env: Mapping[str, str] | None = None) -> str | None:
    """The local zone's IANA name (``Europe/Paris``), when it can be known for sure: ``TZ``
    naming a zone file (not a POSIX rule such as ``JST-9``, which has none), else (or ``TZ``
    naming it) the system's ``/etc/localtime``, a link into the zone files or a copy of the one ``/etc/timezone``
    names; ``None`` otherwise (``TZDIR`` set: its files may be anyone's; Windows).  A name the
    ``zoneinfo`` module cannot load, or whose offset now is not the C library's, is no name a
    reader could use for the times agentscan cut: ``None`` too.  ``tokens --json``'s
    ``window.tz`` and ``export --json``'s ``days_tz`` say it for the local zone."""
    env = os.environ if env is None else env
    if os.name == "nt" or env.get("TZDIR"):
        return None
    value = env.get("TZ")
    if value is not None:
        name = value[1:] if value.startswith(":") else value
        if not name or name.lower() in _UTC_NAMES:
            return _checked("UTC")
        if not os.path.isabs(name):
            found = any(_zone_file(os.path.join(folder, name)) for folder in ZONE_DIRS)
            return _checked(_zone_key(name)) if found else None
        if os.path.normpath(name) != _SYSTEM_ZONE:
            return _checked(_under_zoneinfo(name)) if _zone_file(name) else None
        # ``TZ=:/etc/localtime`` (set so the C library need not stat it each call) is the
        # system's zone, as with ``TZ`` unset: named by its link or a true copy alike (its
        # path holds no ``zoneinfo/`` to read the name from).
    return _system_name()


#: the system's zone file, a link into the zone files or a copy of one
_SYSTEM_ZONE = "/etc/localtime"


def _system_name() -> str | None:
    """``iana_name`` of the system's zone (``/etc/localtime``)."""
    try:
        return _checked(_under_zoneinfo(os.readlink(_SYSTEM_ZONE)))
    except OSError:
        pass
    try:
        with open("/etc/timezone", encoding="utf-8") as handle:
            named = handle.read().strip()
        with open(_SYSTEM_ZONE, "rb") as handle:
            copy = handle.read(1 << 20)
    except (OSError, UnicodeDecodeError):
        return None
    # A copy is the named zone only when its bytes are that zone file's (``/etc/timezone`` is
    # not updated by every tool that sets the zone).
    for folder in ZONE_DIRS:
        try:
            with open(os.path.join(folder, named), "rb") as handle:
                if handle.read(1 << 20) == copy:
                    return _checked(named)
        except (OSError, ValueError):
            continue
    return None


def _under_zoneinfo(path: str) -> str | None:
    """The zone name of a zone file's ``path`` (``/usr/share/zoneinfo/Europe/Paris``); ``None``
    outside a ``zoneinfo`` folder, or of ``right/`` (leap seconds counted: no IANA name's times)."""
    if "zoneinfo/" not in path:
        return None
    return _zone_key(path.rsplit("zoneinfo/", 1)[1])


def _zone_key(name: str) -> str | None:
    """The IANA name of a zone file's ``name`` under a zone folder: ``posix/Asia/Tokyo`` is
    ``Asia/Tokyo``'s (the same times); ``None`` of ``right/`` (leap seconds counted: no IANA
    name's times), as ``TZ=right/Europe/Paris`` or ``/usr/share/zoneinfo/right/…`` sets it."""
    if name.startswith("right/"):
        return None
    return name[len("posix/"):] if name.startswith("posix/") else name


#: zone files that are no zone's name: ``localtime`` (a link to ``/etc/localtime``: whichever
#: zone that is), ``posixrules`` (the C library's rules for a POSIX ``TZ``), ``Factory`` (no place)
_NOT_NAMES = frozenset({"localtime", "posixrules", "Factory"})


def _checked(name: str | None) -> str | None:
    """``name`` when it is a zone's name ``zoneinfo`` knows and loads, and its offset now is the C
    library's, else ``None``."""
    # A file ``zoneinfo`` loads may be no zone's name (``TZ=right/Europe/Paris`` loads, and
    # ``localtime``): refused by name; ``available_timezones()`` cost 19-33 ms a run to say as
    # much (its list holds ``localtime`` and ``Factory`` all the same).
    if not name or ".." in name.split("/") or name.startswith(("/", "right/", "posix/")) or name in _NOT_NAMES:
        return None
    try:
        from zoneinfo import ZoneInfo

        zone = ZoneInfo(name)
    except (ValueError, OSError, LookupError):  # (ZoneInfoNotFoundError is a KeyError)
        return None
    now = time.time()
    offset = datetime.fromtimestamp(now, zone).utcoffset()
    return name if offset == timedelta(seconds=time.localtime(now).tm_gmtoff or 0) else None
