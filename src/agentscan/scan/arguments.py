"""What a library caller passes, checked and taken as the CLI takes it.

The CLI parses its options into these values itself; a library caller hands
them over directly, so a plain ``str`` where names are expected, a naive
``datetime`` or a zone's name must mean one thing here, said once, or be a
``UsageProblem`` naming the parameter, never a raw ``TypeError`` from deep in a
scan or a list of one-letter provider names.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Iterable

from agentscan.errors import UsageProblem
from agentscan.timeutil import EARLIEST, LATEST

if TYPE_CHECKING:
    from agentscan.bounds import Bounds
    from agentscan.pricing import PriceBook
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner


def names(value: str | Iterable[str] | None, parameter: str | None = None) -> list[str]:
    """Provider names or session ids: one ``str`` is one of them, not its letters.
    ``parameter``: the one they were given by (``ids``, ``providers``), for the error."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        listed = list(value)
    except TypeError:
        raise UsageProblem(f"names and ids must be a str or several, not {type(value).__name__}",
                           parameter=parameter) from None
    for item in listed:
        if not isinstance(item, str):
            raise UsageProblem(f"names and ids must be str, not {type(item).__name__}", parameter=parameter)
    return listed


def project(cwd: object) -> str | None:
    """A project folder asked for by a library caller: a str, or a path (a notebook's
    ``Path.cwd()``) as the str it names; else ``UsageProblem``, not a ``TypeError`` once the
    sessions are read."""
    from os import PathLike, fspath

    if isinstance(cwd, PathLike):
        cwd = fspath(cwd)
    if cwd is not None and not isinstance(cwd, str):
        raise UsageProblem(f"cwd must be a str, a path or None, not {type(cwd).__name__}", parameter="cwd")
    return cwd


def list_filter_fields(filters: ListFilter) -> dict[str, object]:
    """The fields of ``filters`` a library caller gave otherwise than the CLI does, as the CLI
    gives them (``providers="claude"``: one provider; a naive ``since``: local time; ``"7d"``:
    a week back; a path: the str it names); a value of the wrong type, or an empty window, a
    ``UsageProblem`` naming it, not a ``TypeError`` deep in a match."""
    taken: dict[str, object] = {}
    since, until = filters.since, filters.until
    if not isinstance(filters.providers, tuple) or not all(
            when is None or (isinstance(when, datetime) and when.utcoffset() is not None) for when in (since, until)):
        # What was given as text or a naive time, kept for ``read_in`` to read again in an
        # export's ``tz`` (the CLI reads ``--since`` in ``--tz``; here it was read locally).
        taken["_given"] = tuple(when if isinstance(when, str) or (isinstance(when, datetime) and when.utcoffset() is None)
                                else None for when in (since, until))
        taken["providers"] = tuple(names(filters.providers, "providers"))
        taken["since"] = since = moment(since, "since")
        taken["until"] = until = moment(until, "until")
    if filters.cwd is not None:
        taken["cwd"] = project(filters.cwd)
    if filters.grep is not None and not isinstance(filters.grep, str):
        raise UsageProblem(f"grep must be a str or None, not {type(filters.grep).__name__}", parameter="grep")
    if not isinstance(filters.running, bool) or (filters.pid is not None and (
            isinstance(filters.pid, bool) or not isinstance(filters.pid, int))):
        # ``running="no"`` kept only the running sessions: a str is true.
        name, kind = ("running", "True or False") if not isinstance(filters.running, bool) else ("pid", "an int or None")
        raise UsageProblem(f"{name} must be {kind}, not {type(getattr(filters, name)).__name__}", parameter=name)
    if filters.archived is not None and not isinstance(filters.archived, bool):
        raise UsageProblem(f"archived must be True, False or None, not {type(filters.archived).__name__}",
                           parameter="archived")
    if since is not None and until is not None:  # a window: ``tokens``' rule for one
        check_window(since, until)
    return taken


def session_query(query: object) -> str:
    """A session id, a ``str`` (``show(None)`` raised ``AttributeError`` from deep in the lookup)."""
    if not isinstance(query, str):
        raise UsageProblem(f"a session id must be a str, not {type(query).__name__}", parameter="query")
    return query


def show_options(bounds: Bounds, prices: PriceBook | None) -> None:
    """``show``'s ``bounds`` and ``prices`` of the types they must be: ``bounds=5`` was a
    ``SessionUnreadable`` asking for a bug report, ``prices=5`` an ``AttributeError``."""
    from agentscan.bounds import Bounds

    if not isinstance(bounds, Bounds):
        raise UsageProblem(f"bounds must be a Bounds, not {type(bounds).__name__}", parameter="bounds")
    if prices is not None:
        from agentscan.pricing import PriceBook

        if not isinstance(prices, PriceBook):
            raise UsageProblem(f"prices must be a PriceBook or None, not {type(prices).__name__}", parameter="prices")


#: the shortest prefix an id may be given by
MIN_PREFIX = 6

#: ccusage's id of a Codex session: its rollout's path under ``sessions/`` without ``.jsonl``
#: (``2026/09/07/rollout-2026-09-07T16-41-00-<uuid>``), or its ``sessionFile``, the name alone
_CCUSAGE_CODEX_ID = r"(?:\d{4}/\d{2}/\d{2}/)?rollout-\d{4}-\d{2}-\d{2}T[\d-]+?-([0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})"


def ccusage_codex_id(query: str) -> str:
    """``codex:<uuid>`` for ccusage's id of a Codex session (a ``session --json`` row's, pasted
    into ``tokens ID`` or ``show ID``), which no file here is named; any other query as given."""
    import os
    import re

    named = re.fullmatch(_CCUSAGE_CODEX_ID, query)
    if named is None or os.path.exists(query):
        return query
    return f"codex:{named[1].lower()}"


def split_query(scanner: Scanner, query: str) -> tuple[str, str]:
    """``(provider, bare id)``; ``provider`` is empty unless ``query`` starts with the name
    of a provider this scanner scans (in any case: ``CLAUDE:…`` pasted from a shout)."""
    name, colon, bare = query.partition(":")
    if colon and scanner.scans_provider(name.lower()):
        return name.lower(), bare
    return "", query  # no provider, or a colon inside a native id


#: the characters of an id that may be typed in any case: a UUID's (``scan.resolve``)
HEX_ID = frozenset("0123456789abcdefABCDEF-")


def case_free(text: str) -> str:
    """``text`` lower-cased when it is hex digits and dashes: a UUID pasted in upper case
    names the same session (``show``'s ids and ``trace``'s alike); any other id as typed."""
    return text.lower() if HEX_ID.issuperset(text) else text


def moment(value: datetime | str | None, parameter: str, tz: tzinfo | None = None) -> datetime | None:
    """``value`` as an aware datetime.  A naive one is wall-clock time in ``tz`` when given,
    else in the local zone, as the CLI reads ``--since 2026-01-01`` (``whentext.parse_when``);
    comparing it with a recorded time, which is aware, would raise ``TypeError``.  A ``str``
    is read as ``--since``/``--until`` read it (``"7d"``, ``"2026-11"``, ``"yesterday"``; an
    ``until`` date counts whole): a cron script's window, written as on the command line."""
    if value is None:
        return None
    if isinstance(value, str):
        from agentscan.whentext import read_when

        try:
            return read_when(parameter, value, tz)
        except UsageProblem as problem:  # named, as every refused value is (the CLI's names its option)
            raise UsageProblem(f"{parameter}: {problem}", parameter=parameter) from None
    if not isinstance(value, datetime):
        raise UsageProblem(f"{parameter} must be a datetime or a str (as --{parameter} takes it: 7d, 2026-11-01), "
                           f"not {type(value).__name__}", parameter=parameter)
    if value.utcoffset() is not None:
        return value
    if not EARLIEST.replace(tzinfo=None) <= value < LATEST.replace(tzinfo=None):
        # ``datetime.min`` ("from the start") or ``max``: the nearest year a record can hold,
        # as ``--since`` takes it (``whentext.parse_when``); the local zone has no offset there.
        return EARLIEST if value < EARLIEST.replace(tzinfo=None) else LATEST
    from agentscan.timeutil import wall_time  # one rule for a clock change's gap and fold (``fold=0``)

    return wall_time(value, tz)


def check_window(since: datetime | None, until: datetime | None, words: tuple[str, str] = ("since", "until")) -> None:
    """A ``since``/``until`` window that holds nothing is a usage error (``list`` and
    ``tokens`` alike).  ``words``: their names in the error, the library's parameters unless
    the CLI says its options (``cli.optionvalues.parse_window``: ``--since``, ``--until``)."""
    from agentscan.farbounds import instant_of

    # Compared as asked: two times before 1970 both stand at its nearest instant (``farbounds``).
    if since is not None and until is not None and instant_of(since) >= instant_of(until):
        raise UsageProblem(f"{words[0]} must be before {words[1]} (the range is empty)", parameter="since")


def time_zone(tz: tzinfo | str | None) -> tzinfo | None:
    """``tz`` as a zone: an IANA name (``"Europe/Paris"``) is looked up as ``--tz`` is."""
    if tz is None or isinstance(tz, tzinfo):
        return tz
    if isinstance(tz, str):
        from agentscan.timeutil import zone

        try:
            return zone(tz)
        except UsageProblem as problem:  # ``timeutil`` words it for ``--tz`` and the library alike
            problem.parameter = "tz"
            raise
    raise UsageProblem(f"tz must be a tzinfo or an IANA zone name, not {type(tz).__name__}", parameter="tz")


def read_in(filters: ListFilter, tz: tzinfo | None) -> ListFilter:
    """``filters`` with the wall times it was given (``since="2026-11-01"``, a naive datetime)
    read in ``tz`` (``None``: local) rather than the local zone: ``export_sessions(tz=…)``
    reads them as ``export --tz`` reads ``--since``.  An aware datetime stays as it is."""
    given = filters._given  # noqa: SLF001 - kept by ListFilter for this
    if given == (None, None):
        return filters
    from dataclasses import replace

    since = moment(given[0], "since", tz) if given[0] is not None else filters.since
    until = moment(given[1], "until", tz) if given[1] is not None else filters.until
    return replace(filters, since=since, until=until)
