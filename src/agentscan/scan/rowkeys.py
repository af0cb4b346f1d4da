"""Which row of a token report a call lands in: its session, provider, model, directory,
kind of agent, or the day, week or month of its time (``tokens --by``)."""

from __future__ import annotations

from datetime import date, datetime, timezone, tzinfo
from typing import Callable

from agentscan.scan import tokenagents, tokencwd
from agentscan.scan.groupby import GroupBy
from agentscan.timeutil import local_date


#: the row a call (or a cached group starting at its time) adds to, and its part in that row
#: (``None``: the session's own), from the call's session id, provider, model, time and run
RowOf = Callable[[str, str, "str | None", "float | None", "str | None"], "tuple[str, str | None]"]


def row_of(by: GroupBy, tz: tzinfo | None, cwds: dict[str, str | None] | None,
           agents: dict[str, dict[str, str]] | None) -> RowOf:
    """The report's ``RowOf``, chosen once, not asked of every call (one call a call: the
    calls of a cold run are a million at the bench's scale 10).  By session a run's part is
    named alone; in every other grouping a row adds up many sessions' runs, so a part is
    ``<session id>/<run id>``.  ``cwds``: each session's directory (``--by cwd``);
    ``agents``: its runs' kinds (``--by agent``)."""
    known_cwds, kinds = cwds or {}, agents or {}
    day_keys: dict[float, str] = {}

    def by_session(session_id: str, provider: str, model: str | None, ts: float | None,
                   run: str | None) -> tuple[str, str | None]:
        return session_id, run

    def by_provider(session_id: str, provider: str, model: str | None, ts: float | None,
                    run: str | None) -> tuple[str, str | None]:
        return provider, None if run is None else f"{session_id}/{run}"

    def by_model(session_id: str, provider: str, model: str | None, ts: float | None,
                 run: str | None) -> tuple[str, str | None]:
        return model or NO_MODEL, None if run is None else f"{session_id}/{run}"

    def by_cwd(session_id: str, provider: str, model: str | None, ts: float | None,
               run: str | None) -> tuple[str, str | None]:
        return known_cwds.get(session_id) or tokencwd.NO_CWD, None if run is None else f"{session_id}/{run}"

    def by_agent(session_id: str, provider: str, model: str | None, ts: float | None,
                 run: str | None) -> tuple[str, str | None]:
        return tokenagents.row_of(kinds, session_id, run), None if run is None else f"{session_id}/{run}"

    def by_period(session_id: str, provider: str, model: str | None, ts: float | None,
                  run: str | None) -> tuple[str, str | None]:
        return period_key(ts, by, tz, day_keys), None if run is None else f"{session_id}/{run}"

    chosen = {"session": by_session, "provider": by_provider, "model": by_model, "cwd": by_cwd, "agent": by_agent}
    return chosen.get(by, by_period)


#: the period row of the calls with no time
UNTIMED = "unknown"
#: the ``--by model`` row of the calls of no model (``--breakdown``'s model lines alike: ``tokenmodels``)
NO_MODEL = "unknown"


def period_key(ts: float | None, by: str, tz: tzinfo | None, memo: dict[float, str]) -> str:
    """The key of the day, week or month (``by``) the call at ``ts`` falls in, in ``tz``
    (``None``: the local zone); ``memo``: keys by minute, kept by the caller."""
    if ts is None:
        return UNTIMED
    # Calls cluster in time: memoise per minute to avoid a datetime per call.
    minute = ts // 60
    key = memo.get(minute)
    if key is None:
        if tz is None:
            year, month, day = local_date(minute * 60)  # the local zone's, without a datetime
        else:
            moment = datetime.fromtimestamp(minute * 60, timezone.utc).astimezone(tz)
            year, month, day = moment.year, moment.month, moment.day
        if by == "week":
            iso_year, week, _ = date(year, month, day).isocalendar()
            key = f"{iso_year}-W{week:02d}"
        else:
            key = f"{year:04d}-{month:02d}" if by == "month" else f"{year:04d}-{month:02d}-{day:02d}"
        memo[minute] = key
    return key
