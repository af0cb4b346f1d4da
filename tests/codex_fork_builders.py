"""Builders for Codex forks (a thread whose rollout begins with a copy of its parent's
history): a parent and forks of it, written by builds that write turn markers
(``task_started``) or not, their copies' times kept or rewritten to the fork instant, as
Codex writes them (docs/providers/codex.md, rule 4).  Each builder returns the calls it
wrote as the hand's truth: the tests never take a count from agentscan to check it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from codex_builders import (Calls, agent_message, assistant_item, iso, meta, rollout_path, task_started, turn_context,
                            user_item, user_message, write_rollout)

#: (input, cached, output) of each call of the parent's turns
PARENT_TURNS = (((12_000, 8_000, 500), (44_000, 32_000, 250)), ((11_000, 8_500, 2_100),), ((32_000, 21_000, 1_000),))
#: (input, cached, output) of a fork's own calls, one turn
FORK_CALLS = ((29_000, 24_000, 1_100), (48_000, 37_000, 2_700))


def total_of(calls: tuple[tuple[int, int, int], ...] | list[tuple[int, int, int]]) -> int:
    """What agentscan's ``total`` is of ``calls``: input (cached included) plus output."""
    return sum(input + output for input, _, output in calls)


def _turn(calls: Calls, moment: datetime, prompt: str, spent: tuple[tuple[int, int, int], ...],
          marker: bool) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [task_started(moment)] if marker else []
    lines += [turn_context(moment, "gpt-5.5"), user_item(moment, prompt), user_message(moment, prompt)]
    for n, (input, cached, output) in enumerate(spent):
        lines.append(calls.call(moment + timedelta(seconds=2 + 3 * n), input, cached, output))
    done = moment + timedelta(seconds=3 * len(spent) + 3)
    return lines + [agent_message(done, "done"), assistant_item(done, "done")]


@dataclass
class Parent:
    """A parent thread as written: its id, start, every line, and after each turn how many
    lines it had written and its running total (what a fork after that turn copies)."""

    thread_id: str
    started: datetime
    lines: list[dict[str, Any]]
    ends: list[tuple[int, dict[str, int]]]

    @property
    def calls(self) -> list[tuple[int, int, int]]:
        return [call for turn in PARENT_TURNS for call in turn]


def write_parent(codex: Path, thread_id: str, started: datetime, *, markers: bool, write: bool = True) -> Parent:
    """A parent of three turns (``PARENT_TURNS``), a minute apart; ``markers``: its build writes
    ``task_started``; ``write``: its rollout is written (``False``: a parent whose rollout is gone)."""
    calls = Calls()
    lines = [meta(thread_id, started)]
    ends = []
    for n, spent in enumerate(PARENT_TURNS):
        lines += _turn(calls, started + timedelta(minutes=n + 1), f"parent step {n}", spent, markers)
        ends.append((len(lines), dict(calls.total)))
    if write:
        write_rollout(rollout_path(codex, thread_id, started), lines)
    return Parent(thread_id, started, lines, ends)


def write_fork(codex: Path, parent: Parent, thread_id: str, started: datetime, *, markers: bool,
               rewrite: bool, turns: int = 2) -> Path:
    """A fork of ``parent`` (its first ``turns`` turns copied) with one turn of its own
    (``FORK_CALLS``), 30 s after the fork; ``markers``: its build writes ``task_started``;
    ``rewrite``: the copy's times are rewritten to the fork instant, a millisecond apart (older
    builds), else kept."""
    copied, total = parent.ends[turns - 1]
    copy = [dict(record, timestamp=iso(started + timedelta(milliseconds=n))) if rewrite else dict(record)
            for n, record in enumerate(parent.lines[:copied])]
    own = _turn(Calls(total=dict(total)), started + timedelta(seconds=30), "now the fork", FORK_CALLS, markers)
    path = rollout_path(codex, thread_id, started)
    return write_rollout(path, [meta(thread_id, started, forked_from=parent.thread_id), *copy, *own])
