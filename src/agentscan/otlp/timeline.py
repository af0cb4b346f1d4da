"""A transcript's recorded instants, cut into turns, with the span times inferred from them.

A transcript records one instant per step: when a prompt was sent, when a
response or an API call's usage was written, when a tool call was made.
Spans need a start *and* an end, so (docs/otel.md, "Timing"):

* a turn runs from its prompt to its last recorded instant (prompts split the
  timeline: a turn owns everything from its prompt to the next prompt);
* a tool call runs from its own instant to the next instant of the same
  agent that is not another tool call: the calls of one response share that
  end, so a parallel batch keeps its overlap;
* an LLM call ends at its own instant and starts at the previous instant of
  the same agent (the prompt, a tool call, the previous LLM call); a
  response's text is that call's output, so it does not start the next one.
  A call written in several records (Claude: one per content block) is placed
  at its first record, so it starts before the tool calls it asked for, and
  ends at its last; the next step of its agent starts no sooner.

So a tool call and the LLM call that read its result share the gap between
them: the transcript does not say how that time was split.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, Sequence

from agentscan.model import TS
from agentscan.providers.claude.usage import E_FIRST_TS, E_LAST_TS

PROMPT, CHAT, TOOL, RESPONSE = 0, 1, 2, 3  # the order of instants recorded at the same time


def ns(value: datetime | float | None) -> int | None:
    if value is None:
        return None
    seconds = value.timestamp() if isinstance(value, datetime) else value
    return int(round(seconds * 1_000_000)) * 1000  # microsecond precision: what the sources carry


class Window(NamedTuple):
    """``otlp --since``/``--until`` in ns: a turn is exported when it ended at or after ``since``
    and before ``until`` (``None``: no bound), so that windows laid end to end send it once."""

    since: int | None = None
    until: int | None = None

    def holds(self, end_ns: int) -> bool:
        return (self.since is None or end_ns >= self.since) and (self.until is None or end_ns < self.until)


def call_times(entry: Sequence[Any]) -> tuple[int | None, int | None]:
    """(first, last) record times of a packed usage entry, in ns: a Claude call written in
    several records carries both; any other entry has one time."""
    if len(entry) > E_LAST_TS:
        return ns(entry[E_FIRST_TS]), ns(entry[E_LAST_TS])
    at = ns(entry[TS])
    return at, at


@dataclass(eq=False)
class Instant:
    at_ns: int
    kind: int
    agent: str | None  # None: the session's own agent; else a subagent id
    item: Any  # the ToolEvent, packed usage entry, Prompt or Response
    index: int = 0  # position among the session's items of this kind (delegation, ordering)
    key: str = ""  # what the span id hashes: a native id, else agent|time|name|occurrence
    start_ns: int = 0
    end_ns: int = 0
    #: an LLM call's last record (``at_ns`` is its first); 0: the same as ``at_ns``
    last_ns: int = 0

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.at_ns, self.kind, self.index)


@dataclass(eq=False)
class TurnSlice:
    key: str
    start_ns: int
    prompt: Any = None  # agentscan.detailmodel.Prompt | None
    instants: list[Instant] = field(default_factory=list)

    @property
    def end_ns(self) -> int:
        return max([self.start_ns, *(i.end_ns for i in self.instants), *(i.at_ns for i in self.instants)])

    def of(self, agent: str | None) -> list[Instant]:
        return [i for i in self.instants if i.agent == agent]


def split_turns(prompts: list[Instant], others: list[Instant]) -> list[TurnSlice]:
    """One slice per timed prompt; instants before the first prompt join the first turn."""
    if not prompts and not others:
        return []
    prompts = sorted(prompts, key=lambda i: i.sort_key)
    if not prompts:
        first = min(i.at_ns for i in others)
        turns = [TurnSlice(key="session", start_ns=first)]
    else:
        turns = []
        seen: dict[str, int] = {}
        for prompt in prompts:
            key = f"prompt@{prompt.at_ns}"
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 1:  # two prompts stamped alike: keep the keys apart, in order
                key = f"{key}#{seen[key]}"
            turns.append(TurnSlice(key=key, start_ns=prompt.at_ns, prompt=prompt.item))
    starts = [t.start_ns for t in turns]
    for instant in sorted(others, key=lambda i: i.sort_key):
        position = max(0, bisect.bisect_right(starts, instant.at_ns) - 1)
        turns[position].instants.append(instant)
    turns[0].start_ns = min([turns[0].start_ns, *(i.at_ns for i in turns[0].instants)])
    return turns


def infer_times(turn: TurnSlice, agent: str | None, *, first_start_ns: int | None = None) -> None:
    """Set ``start_ns``/``end_ns`` of one agent's instants in one turn (the module's rules)."""
    steps = sorted(turn.of(agent), key=lambda i: i.sort_key)
    previous = turn.start_ns if agent is None else first_start_ns
    last = steps[-1].at_ns if steps else turn.start_ns
    floor = 0  # the last record of the agent's latest LLM call
    for position, step in enumerate(steps):
        if step.kind == TOOL:
            after = next((s.at_ns for s in steps[position + 1:] if s.kind != TOOL and s.at_ns > step.at_ns), None)
            step.start_ns, step.end_ns = step.at_ns, after if after is not None else max(last, step.at_ns)
        elif step.kind == CHAT:
            start = previous if previous is not None else step.at_ns
            step.start_ns, step.end_ns = min(start, step.at_ns), max(step.at_ns, step.last_ns)
            floor = max(floor, step.end_ns)  # what follows read the whole response: it starts no sooner
        else:
            step.start_ns = step.end_ns = step.at_ns
        if step.kind != RESPONSE:  # a response is the output of an LLM call, not the start of the next one
            previous = max(step.at_ns, floor)
