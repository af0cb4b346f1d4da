"""What to offer for a time zone name ``--tz`` (or ``TZ``) refused or likely not meant: the
zone most like a mistyped one, a city's or an abbreviation's zone, a fixed offset's IANA
name.  Apart from ``timeutil`` and ``localzone``, which both ask it (and only when a name was
refused, or for ``fixed_zone_note``), so neither imports the other to guess.
"""

from __future__ import annotations

import re

from agentscan.toolkit.words import either

#: a fixed offset of hours as people type it (``+02:00``, ``UTC+2``, ``GMT -5``) or as tzdata
#: names it (``Etc/GMT-2``, the sign inverted: ``etc``); its sign and hours
_FIXED = re.compile(r"\s*(?P<etc>etc/)?(?:gmt|utc)?\s*([+-])\s*([0-9]+)(?::?00)?\s*", flags=re.IGNORECASE)


def closest_zone(name: str, *, local: bool = True) -> str | None:
    """What to offer for a refused zone ``name``: the IANA zone most like a mistyped one
    (``Europe/Berln``, ``asia/tokyo``), the zone named for a city (``Paris``), or for an
    abbreviation (``PST``) this machine's zone if it prints it (``local``: the caller
    knows its zone is read, ``localzone.problem`` being ``None``), else the zone it names if it
    names one, else its zones listed (``CST`` is Chicago's, Shanghai's and Havana's); only
    when a name was refused (listing the zones reads a directory)."""
    import difflib
    from zoneinfo import available_timezones

    try:
        known = available_timezones()
    except OSError:  # pragma: no cover - an unreadable zone directory
        return None
    by_case = {zone_name.lower(): zone_name for zone_name in known}
    if name.strip().upper() == "GMT":  # ``gmt``: UTC or London's clocks, both as often meant
        return either(["GMT", _FIXED_ABBREVIATIONS["GMT"][1]])
    if name.strip().upper() in _FIXED_ABBREVIATIONS:  # ``est``: New York's zone, not tzdata's fixed EST
        return _FIXED_ABBREVIATIONS[name.strip().upper()][1]
    if name.strip().lower() in by_case:
        return by_case[name.strip().lower()]
    folded = name.strip().lower().replace("_", " ")
    import time

    if local and folded.isalpha() and folded.upper() in time.tzname:  # (``TZ=Asia/Manila``: ``PST`` is Manila's)
        return f"local (this machine's zone, which prints {folded.upper()})"
    if folded.upper() in _ABBREVIATIONS:
        listed = [zone_name for zone_name in _ABBREVIATIONS[folded.upper()] if zone_name in known]
        return either(listed) if listed else None
    # a city alone (``Paris``, ``new york``): the zone named for it, as people know their zone;
    # the regions' names first (``Europe/Paris``, not a backward alias's)
    # (only the regions' zones: ``eastern`` is ``US/Eastern`` and ``Canada/Eastern``, offered neither)
    if folded in _COUNTRIES:
        return _COUNTRIES[folded]
    if _CITIES.get(folded) in known:  # (``Bombay``, ``Beijing``: named by no zone, or by a backward alias)
        return _CITIES[folded]
    by_city = sorted((zone_name.count("/") != 1, zone_name) for zone_name in known
                     if zone_name.rpartition("/")[2].lower().replace("_", " ") == folded
                     and zone_name.partition("/")[0] in _REGIONS)
    if by_city:
        return by_city[0][1]
    # Never one fixed offset for another: ``Etc/GMT+13`` is no zone, and ``Etc/GMT+3`` is ten hours off it
    offset = _FIXED.fullmatch(name)
    if offset is not None:
        return "utc" if int(offset[3]) == 0 else None  # (``UTC+0``, ``+00:00``)
    found = difflib.get_close_matches(name.strip(), [one for one in known if not _FIXED.fullmatch(one)], n=1, cutoff=0.8)
    return found[0] if found else None


#: tzdata's regions: its other folders (``US/``, ``Canada/``, ``Etc/``) are aliases kept for old names
_REGIONS = frozenset({"Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
                      "Indian", "Pacific"})
#: countries whose name is an alias of another's zone: ``Pacific/Samoa`` is American Samoa's (UTC-11)
_COUNTRIES = {"samoa": "Pacific/Apia"}
#: cities people type whose zone is named for another city (``Beijing`` keeps Shanghai's time,
#: ``Mumbai`` Kolkata's), and old names that tzdata keeps only as backward aliases
#: (``Asia/Calcutta``): offered the zone tzdata names today, as ``Paris`` is ``Europe/Paris``
#: (never a name two places share: ``Hyderabad``, ``Washington``, ``Canton``)
_CITIES = {
    "beijing": "Asia/Shanghai", "peking": "Asia/Shanghai", "chongqing": "Asia/Shanghai",
    "chungking": "Asia/Shanghai", "harbin": "Asia/Shanghai", "shenzhen": "Asia/Shanghai",
    "guangzhou": "Asia/Shanghai",
    "bombay": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "calcutta": "Asia/Kolkata", "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata", "madras": "Asia/Kolkata", "chennai": "Asia/Kolkata",
    "bangalore": "Asia/Kolkata", "bengaluru": "Asia/Kolkata",
    "saigon": "Asia/Ho_Chi_Minh", "ho chi minh city": "Asia/Ho_Chi_Minh",
    "rangoon": "Asia/Yangon", "katmandu": "Asia/Kathmandu", "dacca": "Asia/Dhaka",
    "ulan bator": "Asia/Ulaanbaatar", "thimbu": "Asia/Thimphu", "macao": "Asia/Macau",
    "kiev": "Europe/Kyiv", "uzhgorod": "Europe/Kyiv", "zaporozhye": "Europe/Kyiv",
    "san francisco": "America/Los_Angeles", "seattle": "America/Los_Angeles",
    "boston": "America/New_York",
}


#: zone abbreviations people type for ``--tz`` that name no IANA zone (``EST``, ``MST``, ``CET``
#: do, and are taken as tzdata has them), with the zones that print them: one is offered; more
#: are listed (a guess on another continent is worse than none), unless this machine's zone prints it
_ABBREVIATIONS = {
    "PST": ("America/Los_Angeles", "Asia/Manila"), "PDT": ("America/Los_Angeles",), "PT": ("America/Los_Angeles",),
    "MDT": ("America/Denver",), "MT": ("America/Denver",),
    "CST": ("America/Chicago", "Asia/Shanghai", "Asia/Taipei", "America/Havana"),
    "CDT": ("America/Chicago", "America/Havana"), "CT": ("America/Chicago",),
    "EDT": ("America/New_York",), "ET": ("America/New_York",), "BST": ("Europe/London",),
    "CEST": ("Europe/Paris",), "EEST": ("Europe/Athens",), "JST": ("Asia/Tokyo",), "KST": ("Asia/Seoul",),
    # Queensland keeps AEST all year; New South Wales and Victoria change to AEDT
    "AEST": ("Australia/Sydney", "Australia/Brisbane"), "AEDT": ("Australia/Sydney",),
}


#: tzdata's fixed zones that people type meaning a place whose clocks change: ``EST`` is
#: UTC-5 all year, so New York's summer times would come out an hour off (``HST`` is
#: Hawaii's, which keeps it all year: nothing to say)
_FIXED_ABBREVIATIONS = {
    "EST": ("UTC-05:00", "America/New_York", "New York's clocks"),
    "MST": ("UTC-07:00", "America/Denver", "Denver's clocks (Arizona's keep MST all year)"),
    # ``GMT`` is tzdata's UTC, never London's summer time: a London user's --by day split at 01:00 BST
    "GMT": ("UTC", "Europe/London", "London's clocks (BST in summer)"),
}


def fixed_zone_note(name: str | None) -> str | None:
    """A note for a ``--tz`` that ``timeutil.zone`` takes but that is likely not what was meant: ``EST``,
    a fixed offset, for New York's time (``America/New_York``); ``None`` for any other."""
    if name is None or name.strip() not in _FIXED_ABBREVIATIONS:
        return None
    offset, meant, whose = _FIXED_ABBREVIATIONS[name.strip()]
    return (f"note: --tz {name.strip()} is {offset} all year, with no summer time; for {whose} "
            f"use --tz {meant}")


def offset_zone(name: str) -> tuple[str, str] | None:
    """``+02:00``, ``UTC+2``, ``GMT-5``: a fixed offset of whole hours, which ``--tz`` takes only
    as its IANA name, ``Etc/GMT-2`` (the sign inverted), with the offset as ``UTC+2``; ``None``
    for anything else (``+05:30`` has no such name, nor ``UTC-13``: ``Etc/GMT+13`` is none)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    found = _FIXED.fullmatch(name)
    if found is None or found["etc"] or not 0 < int(found[3]) <= 14:
        return None  # (``etc/gmt-2``, tzdata's own name mistyped, is no offset typed: its sign is inverted)
    hours = int(found[3])
    iana = f"Etc/GMT{'-' if found[2] == '+' else '+'}{hours}"
    try:
        ZoneInfo(iana)  # (one name tried, not every zone listed: ``Etc/GMT+13`` is none)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    return iana, f"UTC{found[2]}{hours}"
