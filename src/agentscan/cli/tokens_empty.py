"""What ``tokens`` says on stderr when its options left a session, or every row, out."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Sequence

from agentscan.cli import render


def provider_drops(dropped: Sequence[tuple[str, str]], providers: Sequence[str], *, every: bool) -> str:
    """The note for sessions asked for by id (``dropped``: their ids and providers) that
    ``--provider`` leaves out; ``every``: no session asked for is left."""
    chosen = ", ".join(providers)
    if len(dropped) == 1:
        (session_id, provider), = dropped
        told = f"{session_id} is a {provider} session: --provider {chosen} leaves it out"
    else:
        kinds = ", ".join(sorted({provider for _, provider in dropped}))
        told = f"--provider {chosen} leaves out {len(dropped):,} of the sessions asked for ({kinds})"
    return told + ("; nothing is left to total" if every else "")


def explain_empty(count: int, *, asked_for: bool, providers: Sequence[str], since: datetime | None,
                  until: datetime | None, zone: tzinfo | None) -> str | None:
    """Why the report has no row, naming the filter that left none: ``count`` sessions
    were selected (``asked_for``: by id), and none had a call between ``since`` and
    ``until``; ``None``: no filter did it (every session recorded no usage, which the
    table says)."""
    if count == 0 and not asked_for:
        if providers:
            return (f"no {', '.join(providers)} sessions found; `agentscan doctor` shows where agentscan looked")
        return "no sessions found; `agentscan doctor` shows where agentscan looked (or try `agentscan --demo tokens`)"
    if since is None and until is None:
        return None
    if since is not None and until is not None:
        window = f"between {_time_in(since, zone)} and {_time_in(until, zone)}"
    elif since is not None:
        window = f"since {_time_in(since, zone)}"
    else:
        assert until is not None
        window = f"before {_time_in(until, zone)}"
    if count == 1:
        which = "the session asked for" if asked_for else "the only session"
        return f"no usage {window}: {which} made no call in that range"
    which = f"the {count:,} sessions" + (" asked for" if asked_for else "")
    return f"no usage {window}: none of {which} made a call in that range"


def _time_in(value: datetime, zone: tzinfo | None) -> str:
    """``value`` to the minute in ``zone`` (``None``: local), as a person gave it: ``2026-12-01 09:49``."""
    return render.short_time(value, zone)
