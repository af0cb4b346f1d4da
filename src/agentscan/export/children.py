"""A written session's ``token_days`` and ``subagents`` rows: replaced by what its files hold
now, but for a run whose transcript left the disk, which keeps its rows (``gone_at``).

The index is the only place an export's history is kept.  A session can lose part of its
files while the rest stays: Claude Code's cleanup goes by each file's age, so a subagent's
transcript can go before its session's, or the session's own transcript before those of
its subagents.  Rewritten from what is on disk, that part's spend left ``token_days`` (and
its ``subagents`` row) at the next run, silently, though the session was not gone.

``token_days`` is keyed by session, day, model and run (``subagent_id``; ``''`` for the
session's own calls), so a run's rows can be kept whole beside the rows written anew for
the session's other runs: nothing is counted twice.  A run is kept only when its calls are
surely not counted anywhere else now:

* the session's own calls, when its main transcript (the ``path`` the index held) is not
  there any more;
* a subagent's, when the session now counts fewer subagents (``sessions.subagents``) by at
  least the number of its runs that vanished, and no session's calls this run name that run
  (a run whose calls another session now counts was moved, not deleted: a newer agentscan
  may credit a resumed session's copies elsewhere).

Kept rows are marked ``gone_at`` (as the ``subagents`` row is) and stay until their run
reappears (its file restored: written anew) or the session's rows are deleted (merged into
another).  Any other loss (part of a transcript, a call now counted elsewhere) replaces the
rows as before, and is said: ``Shrank``, a warning naming the session and how much.
"""

from __future__ import annotations

import os
from decimal import Decimal
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, NamedTuple

from agentscan.export.history import NO_HISTORY, History
from agentscan.export.rows import UsageDay
from agentscan.pricing.spend import sum_costs

if TYPE_CHECKING:
    from sqlite_utils import Database

#: the session's own calls (``token_days.subagent_id``)
OWN = ""
_TOKEN_COLUMNS = ("tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning",
                  "tokens_total")


class Before(NamedTuple):
    """What the index's ``sessions`` row said of a session before this run wrote it."""

    path: str | None
    subagents: int | None


class Shrank(NamedTuple):
    """A written session whose ``token_days`` lost spend this run (their runs' decreases)."""

    session_id: str
    tokens: int
    cost: float | None


def token_columns(values: tuple[int, ...], cost: Decimal | None) -> dict[str, int | float | None]:
    from agentscan.bounds import token_sum

    # Sums saturate (bounds.MAX_TOKEN_SUM) so that even the total fits SQLite's 64 bits.
    inp, cache_read, cache_write, output, reasoning = (token_sum(v) for v in values)
    columns: dict[str, int | float | None] = dict(
        zip(_TOKEN_COLUMNS, (inp, cache_read, cache_write, output, reasoning, inp + cache_read + cache_write + output))
    )
    columns["cost_usd"] = None if cost is None else float(cost)
    return columns


def replace_children(db: Database, ids: list[str], usage_days: list[UsageDay], *, now: str,
                     before: Mapping[str, Before], after: Mapping[str, int | None],
                     history: History = NO_HISTORY, advance: Callable[[int], None] | None = None) -> list[Shrank]:
    """Replace the ``token_days`` and ``subagents`` rows of the sessions ``ids`` by ``usage_days``,
    keeping (``gone_at``) the runs that left the disk (module docstring).  ``before``: their
    rows as the index held them; ``after``: each written session's subagents count now (none
    for a session whose days alone are written); ``history``: which share history with another
    (``export.history``); ``advance``: told how many more of ``ids`` are compared with what the
    index holds of them (the slow part: 0.4 s of an unchanged export at scale 10).  Returns the
    sessions whose spend shrank."""
    days: dict[tuple[str, str, str, str], _Sums] = {}
    subagents: dict[tuple[str, str], _Sums] = {}
    new_runs: dict[str, dict[str, _Sums]] = {}
    for day in usage_days:
        run = day.subagent or OWN
        days.setdefault((day.session_id, day.day, day.model, run), _Sums()).add(day)
        if day.subagent is not None:
            subagents.setdefault((day.session_id, day.subagent), _Sums()).add(day)
        new_runs.setdefault(day.session_id, {}).setdefault(run, _Sums()).add(day)
    named = {run for runs in new_runs.values() for run in runs if run != OWN}
    day_rows = {key: sums.columns() for key, sums in days.items()}
    run_rows = {key: sums.columns() for key, sums in subagents.items()}
    # A session whose every row is as it would be written, none kept as gone, is left as it
    # is (deleting and inserting the same rows was most of an unchanged export's write): it
    # lost no run, and no spend.
    same = _as_stored(db, ids, day_rows, run_rows, advance)
    kept: dict[str, list[str]] = {}
    newly: list[tuple[str, str]] = []
    shrank: list[Shrank] = []
    changed = [session_id for session_id in ids if session_id not in same]
    old = _old_runs(db, changed)
    for session_id in changed:
        runs = old.get(session_id)
        if not runs:
            continue
        now_runs = new_runs.get(session_id, {})
        vanished = [run for run in runs if run not in now_runs]
        fresh = [run for run in vanished if not runs[run].gone]
        keep = [run for run in vanished if runs[run].gone]
        keep += _to_keep(fresh, before.get(session_id), after.get(session_id), named,
                         partial(history.copied_elsewhere, session_id))
        newly += [(session_id, run) for run in keep if not runs[run].gone]
        if keep:
            kept[session_id] = keep
        loss = _loss(runs, now_runs, keep)
        # A session that copies another's history, or whose history another copies, has its calls
        # move to or from that one as either is deleted or restored: counted there, not lost.
        held = before.get(session_id)
        path = held.path if held is not None else None
        if loss is not None and not (history.copies_another(session_id, path)
                                     or history.copied_elsewhere(session_id, path)):
            shrank.append(Shrank(session_id, *loss))
    _delete_unkept(db, changed, kept)
    for session_id, run in newly:
        db.execute("UPDATE token_days SET gone_at = ? WHERE session_id = ? AND subagent_id = ?", (now, session_id, run))
        db.execute("UPDATE subagents SET gone_at = ? WHERE session_id = ? AND subagent_id = ?", (now, session_id, run))
    db.table("token_days").insert_all(
        ({"session_id": s, "day": d, "model": m, "subagent_id": sub, **v} for (s, d, m, sub), v in day_rows.items()
         if s not in same),
        pk=("session_id", "day", "model", "subagent_id"), replace=True,
    )
    db.table("subagents").insert_all(
        ({"session_id": s, "subagent_id": sub, **v} for (s, sub), v in run_rows.items() if s not in same),
        pk=("session_id", "subagent_id"), replace=True,
    )
    return shrank


#: a ``token_days`` or ``subagents`` row's values after its key, as ``token_columns`` makes them
_VALUES = (*_TOKEN_COLUMNS, "cost_usd")


def _as_stored(db: Database, ids: list[str], day_rows: Mapping[tuple[str, str, str, str], Mapping[str, object]],
               run_rows: Mapping[tuple[str, str], Mapping[str, object]],
               advance: Callable[[int], None] | None = None) -> set[str]:
    """Those of ``ids`` whose ``token_days`` and ``subagents`` rows are, every one, what
    ``day_rows`` and ``run_rows`` would write (of the same types too, as ``sqlite._as_stored``
    compares a session's row), none of them kept as gone, and no other."""
    # Each row as its key, its values, then their types (a value's type counts, as it does
    # for a session's row), made in C: a pair of both a value was 7 % of an unchanged export.
    wanted: dict[str, set[tuple[object, ...]]] = {}
    values_of = itemgetter(*_VALUES)
    for table, rows in (("token_days", day_rows), ("subagents", run_rows)):
        for (session_id, *key), values in rows.items():
            found = values_of(values)
            wanted.setdefault(session_id, set()).add((table, *key, *found, *map(type, found)))
    stored: dict[str, set[tuple[object, ...]]] = {}
    gone: set[str] = set()
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for table, key_columns in (("token_days", "day, model, subagent_id"), ("subagents", "subagent_id")):
            for session_id, *found, gone_at in db.execute(
                    f"SELECT session_id, {key_columns}, {', '.join(_VALUES)}, gone_at FROM {table} "
                    f"WHERE session_id IN ({marks})", chunk).fetchall():
                if gone_at is not None:
                    gone.add(session_id)
                stored.setdefault(session_id, set()).add((table, *found, *map(type, found[len(found) - len(_VALUES):])))
        if advance is not None:
            advance(len(chunk))
    return {session_id for session_id in ids
            if session_id not in gone and session_id in stored and stored[session_id] == wanted.get(session_id)}


def _loss(runs: Mapping[str, _Run], now_runs: Mapping[str, _Sums], keep: list[str]) -> tuple[int, float | None] | None:
    """The tokens (and their cost, when every part of it is known) that a session's runs lost
    this run, each run's decrease added up; ``None`` when none lost any."""
    tokens = 0
    cost: float | None = 0.0
    for run, was in runs.items():
        if run in keep or was.gone:
            continue
        now = now_runs.get(run)
        now_tokens, now_cost = (0, 0.0) if now is None else now.total()
        if was.tokens - now_tokens <= 0:
            continue
        tokens += was.tokens - now_tokens
        cost = None if cost is None or was.cost is None or now_cost is None else cost + max(0.0, was.cost - now_cost)
    return (tokens, cost) if tokens else None


def _to_keep(fresh: list[str], before: Before | None, subagents_now: int | None, named: set[str],
             copied: Callable[[str | None], bool] = lambda path: False) -> list[str]:
    """Which of a session's runs that vanished this run (``fresh``) left the disk (module docstring).
    ``copied``: whether another session's files copy the session's history (a session resumed
    from it, a fork of it), which then counts its own calls: none of them is kept as gone."""
    keep = []
    if OWN in fresh and before is not None and surely_gone(before.path) and not copied(before.path):
        keep.append(OWN)
    delegated = [run for run in fresh if run != OWN]
    if (delegated and before is not None and before.subagents is not None and subagents_now is not None
            and before.subagents - subagents_now >= len(delegated) and not named.intersection(delegated)):
        keep += delegated
    return keep


def surely_gone(path: str | None) -> bool:
    """Whether ``path`` is not there, as ``lstat`` answers it: a file under a folder that
    cannot be searched is refused (``EACCES``), not missing."""
    if not path:
        return False  # known by no file (a Cursor composer in the state DB): nothing says it went
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


class _Run(NamedTuple):
    tokens: int
    cost: float | None
    gone: bool


def _old_runs(db: Database, ids: list[str]) -> dict[str, dict[str, _Run]]:
    """Each of ``ids``' runs in ``token_days`` as the index holds them: tokens, cost, kept."""
    found: dict[str, dict[str, _Run]] = {}
    for chunk in _chunks(ids):
        rows = db.execute(
            "SELECT session_id, subagent_id, sum(tokens_total), "
            "CASE WHEN count(cost_usd) = count(*) THEN sum(cost_usd) END, max(gone_at IS NOT NULL) "
            f"FROM token_days WHERE session_id IN ({','.join('?' * len(chunk))}) GROUP BY session_id, subagent_id",
            chunk).fetchall()
        for session_id, run, tokens, cost, gone in rows:
            found.setdefault(session_id, {})[run or OWN] = _Run(int(tokens or 0), cost, bool(gone))
    return found


def _delete_unkept(db: Database, ids: list[str], kept: Mapping[str, list[str]]) -> None:
    """Delete the ``subagents`` and ``token_days`` rows of ``ids`` but those of ``kept`` runs."""
    plain = [session_id for session_id in ids if session_id not in kept]
    delete_rows(db, plain)
    for session_id, runs in kept.items():
        marks = ",".join("?" * len(runs))
        for table in ("subagents", "token_days"):
            db.execute(f"DELETE FROM {table} WHERE session_id = ? AND subagent_id NOT IN ({marks})", [session_id, *runs])


def delete_rows(db: Database, ids: list[str], *, sessions_too: bool = False) -> None:
    """Delete the ``subagents`` and ``token_days`` rows of the sessions ``ids`` (and, with
    ``sessions_too``, the sessions), 500 at a time: SQLite's bound on a statement's parameters."""
    tables = [("subagents", "session_id"), ("token_days", "session_id")] + ([("sessions", "id")] if sessions_too else [])
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for table, column in tables:
            db.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)


def _chunks(ids: list[str]) -> Iterable[list[str]]:
    for start in range(0, len(ids), 500):
        yield ids[start:start + 500]


class _Sums:
    """Tokens and cost added up, by the rule of every cost total (``pricing.spend.combined``)."""

    def __init__(self) -> None:
        self.tokens = [0, 0, 0, 0, 0]
        self.costs: list[tuple[Decimal | None, bool]] = []

    def add(self, day: UsageDay) -> None:
        for index, value in enumerate(day.tokens):
            self.tokens[index] += value
        self.costs.append((day.cost, any(day.tokens)))

    def total(self) -> tuple[int, float | None]:
        """The tokens (``tokens_total``) and cost these add up to."""
        columns = self.columns()
        cost = columns["cost_usd"]
        return int(columns["tokens_total"] or 0), None if cost is None else float(cost)

    def columns(self) -> dict[str, int | float | None]:
        cost = sum_costs(self.costs)
        return token_columns((self.tokens[0], self.tokens[1], self.tokens[2], self.tokens[3], self.tokens[4]), cost)
