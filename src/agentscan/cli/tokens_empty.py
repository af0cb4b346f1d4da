"""What ``tokens`` says on stderr when its options left a session, or every row, out."""

from __future__ import annotations

from datetime import date, datetime, tzinfo
from typing import TYPE_CHECKING, Sequence

from agentscan.cli import render

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.model import SessionRef

#: the sessions (or rows) a note names at most, here and under the table (``tokens_notes``):
#: the ids a user typed are seldom more
NAMED = 5


def provider_drops(dropped: Sequence[tuple[str, str]], providers: Sequence[str], *, every: bool) -> str:
    """The note for sessions asked for by id (``dropped``: their ids and providers) that
    ``--provider`` leaves out; ``every``: no session asked for is left."""
    from agentscan.providers import label_of

    chosen = ", ".join(providers)
    if len(dropped) == 1:
        (session_id, provider), = dropped
        told = f"{session_id} is a {label_of(provider)} session: --provider {chosen} leaves it out"
    else:
        kinds = ", ".join(sorted({label_of(provider) for _, provider in dropped}))
        told = f"--provider {chosen} leaves out {len(dropped):,} of the sessions asked for ({kinds})"
    return told + ("; nothing is left to total" if every else "")


def cwd_drops(dropped: Sequence[tuple[str, str | None]], cwd_text: str, *, every: bool) -> str:
    """The note for sessions asked for by id that ``--cwd`` leaves out (``dropped``: their
    ids and working directories as shown, ``None``: none recorded), under ``cwd_text``;
    ``every``: no session asked for is left."""
    def where(cwd: str | None) -> str:
        return f"cwd {cwd}" if cwd else "no cwd recorded"

    if len(dropped) == 1:
        (session_id, cwd), = dropped
        told = f"{session_id} ({where(cwd)}) is not under {cwd_text}: --cwd leaves it out"
    else:
        from agentscan.toolkit.andmore import first_of

        named = first_of(dropped, NAMED, say=lambda drop: f"{drop[0]} ({where(drop[1])})")
        told = f"--cwd {cwd_text} leaves out {len(dropped):,} of the sessions asked for: {named}"
    return told + ("; nothing is left to total" if every else "")


def cwd_drops_note(dropped: Sequence[tuple[SessionRef, str | None]], cwd: str, term: Terminal, *, every: bool) -> str:
    """``cwd_drops`` of the sessions asked for by id that ``--cwd`` ``cwd`` leaves out (those
    ``--provider`` keeps: the others have a note of their own), their directories and
    ``cwd`` shown as on ``term``; ``every``: none is left."""
    shown = [(ref.id, render.path_text(where, term) if where else None) for ref, where in dropped]
    return cwd_drops(shown, render.path_text(cwd, term), every=every)


def explain_empty(count: int, *, asked_for: bool, providers: Sequence[str], since: datetime | None,
                  until: datetime | None, zone: tzinfo | None, unread: int = 0) -> str | None:
    """Why the report has no row, naming the filter that left none: ``count`` sessions
    were selected (``asked_for``: by id), and none had a call between ``since`` and
    ``until``; ``None``: no filter did it (every session recorded no usage, which the
    table says).  ``unread`` of them could not be read (named under the table): whether they
    made a call in the range is not known, so only the others are said to have made none."""
    if count == 0 and not asked_for:
        from agentscan.invocation import doctor_command
        from agentscan.invocation import program_word

        if providers:
            from agentscan.providers import label_of

            return (f"no {', '.join(label_of(name) for name in providers)} sessions found; `{doctor_command()}` shows where agentscan looked")
        return f"no sessions found; `{doctor_command()}` shows where agentscan looked (or try `{program_word()} --demo tokens`)"
    if since is None and until is None:
        return None
    if since is not None and until is not None:
        window = f"between {_time_in(since, zone)} and {_time_in(until, zone)}"
    elif since is not None:
        window = f"since {_time_in(since, zone)}"
    else:
        assert until is not None
        window = f"before {_time_in(until, zone)}"
    if unread:
        read = count - unread
        which = f"the {render.plural(read, 'session')} read of {count:,}"
        return f"no usage {window}: {'' if read == 1 else 'none of '}{which} made {'no call' if read == 1 else 'a call'} in that range"
    if count == 1:
        which = "the session asked for" if asked_for else "the only session"
        return f"no usage {window}: {which} made no call in that range"
    which = f"the {count:,} sessions" + (" asked for" if asked_for else "")
    return f"no usage {window}: none of {which} made a call in that range"


def recorded_none(count: int, *, asked_for: bool = True, agents: Sequence[str] = (), newest: str | None = None,
                  unread: Sequence[str] = ()) -> str:
    """Why a report of ``count`` sessions (``asked_for``: by id) has no figure: none recorded
    any usage (a Cursor transcript's, its DB gone), as ``show``'s card says "not recorded".
    ``agents``: whose sessions they are (``Cursor``), named when the report is not by id;
    ``newest``: the newest one's id as shown, the ``show`` command named whole (the line
    that listed them under no table said the same fact again: it is this line alone).
    ``unread``: the agents whose database that may hold more sessions could not be read (a
    corrupt Cursor state DB): "the only session" was not known to be, only the one read."""
    kind = "" if asked_for or not agents else " and ".join(agents) + " "
    read = " read" if unread and not asked_for else ""
    more = (f"; {'a ' + unread[0] + ' database' if len(unread) == 1 else 'databases (' + ', '.join(unread) + ')'} "
            "that may hold more could not be read (see the warning)") if read else ""
    if newest is None:
        shown = "`show`"
    else:
        from agentscan.invocation import running_command

        # a command to copy, on one line, with the home this run read (``--demo``, ``--home DIR``)
        shown = render.unbroken(f"`{running_command(f'show {newest}')}`")
    if count == 1:
        which = "the session asked for" if asked_for else f"the {'one' if read else 'only'} {kind}session{read}"
        return f"no usage: {which} recorded none (its tokens are not recorded, as {shown} says){more}"
    which = f"{count:,} {kind}sessions" + (" asked for" if asked_for else read)
    said = f"{shown} says of the newest" if newest is not None else f"{shown} says"
    return f"no usage: none of the {which} recorded any (their tokens are not recorded, as {said}){more}"


def nearest_usage(last_active: Sequence[datetime], *, since: datetime | None, until: datetime | None,
                  zone: tzinfo | None) -> str:
    """The next step after an empty window (``explain_empty``): when the selected sessions
    were last active (``last_active``: each one's last record, its DATE column, known without
    reading its calls again) and a ``--since`` (or ``--until``) date that takes it in, in
    ``zone`` (``--tz``, named in the option as ``fewer_sessions`` names it); ``""``: none
    tells.  A date, not ``90d``: the option is read tomorrow too.  ``--since`` a week
    before the newest session's last day (its calls are on or before it); when every session
    was active after the window only, ``--until`` the oldest's day (the whole of it)."""
    def day_of(value: datetime) -> date:
        # A naive time is local already, as ``astimezone`` takes it; ``None``: the local zone.
        return value.astimezone(zone).date()

    before = [value for value in last_active if since is not None and value < since]
    if before:
        newest = max(before)
        start = week_up_to(day_of(newest))
        return (f"; the newest session before that range was last active on {day_of(newest).isoformat()}: "
                f"{dated_option('--since', start, zone)} takes in its last week")
    oldest = min(last_active, default=None)
    if until is not None and oldest is not None and oldest >= until:
        end = day_of(oldest).isoformat()  # ``--until DATE`` takes in the whole of that day
        return (f"; the oldest session was last active on {day_of(oldest).isoformat()}: "
                f"{dated_option('--until', end, zone)} takes it in")
    return ""


def _time_in(value: datetime, zone: tzinfo | None) -> str:
    """``value`` to the minute in ``zone`` (``None``: local), as a person gave it: ``2026-12-01 09:49``."""
    return render.short_time(value, zone)


def dated_option(option: str, day: str, zone: tzinfo | None) -> str:
    """``--since 2026-11-23``, with ``--tz`` ``zone`` when one was given: a bare date is read
    in the local zone, which would keep another day than the one named in ``zone``."""
    if zone is None:
        return f"{option} {day}"
    from shlex import quote

    return f"{option} {day} --tz {quote(str(zone))}"


def week_up_to(day: date) -> str:
    """The first day of the week that ends on ``day`` (``--since`` it keeps that week)."""
    from datetime import timedelta

    return (day - timedelta(days=6)).isoformat()

