"""Parallel waves: tool calls whose intervals overlap, grouped under one node.

Run once the turn is built, over each list of siblings, visiting completed
calls in the order their completions arrived (which is what running the rule
after every completion would do, docs/hooks.md, "The tree"):

* a call overlapping an existing wave (``start < wave end and end > wave
  start``) joins it;
* otherwise the completed sibling calls overlapping it, itself included, form
  a new wave if there are at least two, placed where the earliest one was.

Sequential calls never form a wave; waves are never merged.  A wave's
interval is its span (min start .. max end), not the sum of its calls.
Claude's ``PostToolBatch`` names its calls exactly, so it then re-parents
those calls under itself, taking them out of any wave, in the order it lists them.
"""

from __future__ import annotations

from bisect import bisect_right

from agentscan.hooks.draft import Draft, TurnDraft, aggregate_status, is_call
from agentscan.hooks.model import INFERRED, NATIVE, WAVE


def form_waves(siblings: list[Draft]) -> None:
    calls = sorted((d for d in siblings if is_call(d) and d.completed), key=_completion_order)
    waves: list[Draft] = []
    wave_ends = _LatestEnds()  # each wave's end, by creation: the first that ends after a start
    # Completed calls seen so far that are not in a wave, and their ends: taken in order of
    # completion, so the ends never go down, and only the loose calls that end after this
    # one starts (a suffix, found by bisection) can overlap it.  A turn of thousands of
    # sequential calls compared each with all before it.
    loose: list[Draft] = []
    loose_ends: list[int] = []
    # The list is laid out again once, at the end: a wave takes the place of its earliest
    # member when it formed, its members (and later joiners) leave theirs.  Removing and
    # inserting as waves formed cost a pass over the siblings each.
    place = {id(draft): index for index, draft in enumerate(siblings)}
    wave_at: dict[int, Draft] = {}  # place of the member a wave stands in for -> the wave
    in_waves: set[int] = set()
    for call in calls:
        start, end = call.interval()
        # The first wave (by creation) overlapping the call: ``start < wave end`` found
        # by the ends' tree, ``end > wave start`` checked here.
        at = wave_ends.first_above(start, 0)
        while at >= 0 and not end > waves[at].started_ns:  # type: ignore[operator]
            at = wave_ends.first_above(start, at + 1)
        if at >= 0:
            in_waves.add(id(call))
            _add_member(waves[at], call)
            wave_ends.set(at, waves[at].ended_ns)  # type: ignore[arg-type]
            continue
        first = bisect_right(loose_ends, start)
        overlapping = [c for c in loose[first:] if _overlaps(c, start, end)]
        if not overlapping:
            loose.append(call)
            loose_ends.append(end)
            continue
        members = overlapping + [call]
        wave = Draft(kind=WAVE, name="parallel", input={"calls": 0}, provenance=INFERRED, started_ns=start, ended_ns=end)
        for member in members:
            in_waves.add(id(member))
            _add_member(wave, member)
        wave_at[min(place[id(member)] for member in members)] = wave
        gone = {id(member) for member in overlapping}
        kept = [(c, e) for c, e in zip(loose[first:], loose_ends[first:]) if id(c) not in gone]
        loose[first:] = [c for c, _ in kept]
        loose_ends[first:] = [e for _, e in kept]
        wave_ends.set(len(waves), wave.ended_ns)  # type: ignore[arg-type]
        waves.append(wave)
    if waves:
        siblings[:] = [wave_at[index] if index in wave_at else draft for index, draft in enumerate(siblings)
                       if index in wave_at or id(draft) not in in_waves]
    for draft in siblings:
        for container in _child_lists(draft):
            form_waves(container)


class _LatestEnds:
    """Values by index (the waves' ends) in a max tree: the first index at or after ``lo``
    whose value is above a bound, in log time.  A long turn of parallel calls makes
    thousands of waves, and every call was compared with each of them."""

    def __init__(self) -> None:
        self._leaves = 1
        self._max: list[float] = [float("-inf")] * 2

    def set(self, index: int, value: int) -> None:
        while index >= self._leaves:
            self._grow()
        node = self._leaves + index
        self._max[node] = value
        node //= 2
        while node:
            self._max[node] = max(self._max[2 * node], self._max[2 * node + 1])
            node //= 2

    def _grow(self) -> None:
        leaves = self._max[self._leaves:]
        self._leaves *= 2
        self._max = [float("-inf")] * (2 * self._leaves)
        self._max[self._leaves:self._leaves + len(leaves)] = leaves
        for node in range(self._leaves - 1, 0, -1):
            self._max[node] = max(self._max[2 * node], self._max[2 * node + 1])

    def first_above(self, bound: int, lo: int) -> int:
        """The least index ``>= lo`` whose value is ``> bound``; -1 when there is none."""
        return self._descend(1, 0, self._leaves, bound, lo)

    def _descend(self, node: int, left: int, right: int, bound: int, lo: int) -> int:
        if right <= lo or self._max[node] <= bound:
            return -1
        if right - left == 1:
            return left
        middle = (left + right) // 2
        found = self._descend(2 * node, left, middle, bound, lo)
        return found if found >= 0 else self._descend(2 * node + 1, middle, right, bound, lo)


def apply_batches(turn: TurnDraft) -> None:
    """Claude PostToolBatch: one call -> the batch nests under it; several -> it parents them."""
    for batch in turn.batches:
        listed = batch.input.get("tool_calls") if isinstance(batch.input, dict) else None
        # the batch's own order (the model's), not the capture order of the requests: Claude
        # Code runs its hooks asynchronously, so parallel PreToolUse come in any order
        order: dict[str, int] = {}
        for c in listed or ():
            if isinstance(c, dict) and isinstance(c.get("tool_use_id"), str):
                order.setdefault(c["tool_use_id"], len(order))
        ids = set(order)
        # only calls at the turn's top level (or in one of its waves) are re-parented
        calls = [r for r in turn.requests if r.id is not None and r.id in ids and _at_top(turn.nodes, r)]
        if not calls or batch not in turn.nodes:
            continue
        _detach(turn.nodes, batch)
        if len(calls) == 1:
            calls[0].children.append(batch)
            continue
        index = _detach_all(turn.nodes, calls)
        batch.children.extend(sorted(calls, key=lambda c: (order[c.id], c.interval()[0])))  # type: ignore[index]
        batch.provenance = NATIVE
        turn.nodes.insert(index, batch)


def _add_member(wave: Draft, call: Draft) -> None:
    start, end = call.interval()
    wave.children.append(call)
    wave.children.sort(key=lambda c: c.interval()[0])
    wave.started_ns = min(wave.started_ns, start)  # type: ignore[type-var]
    wave.ended_ns = max(wave.ended_ns, end)  # type: ignore[type-var]
    wave.input = {"calls": len(wave.children)}
    wave.status = aggregate_status(wave.children)
    # whole milliseconds, as wall_time_ms: nanosecond digits of capture times are no measure
    wave.detail["duration_ms"] = (wave.ended_ns - wave.started_ns) // 1_000_000  # type: ignore[operator]


def _overlaps(call: Draft, start: int, end: int) -> bool:
    other_start, other_end = call.interval()
    return start < other_end and end > other_start


def _completion_order(call: Draft) -> tuple[int, int]:
    event = call.closed_by
    return (call.ended_ns or 0, event.seq if event is not None else 0)


def _child_lists(draft: Draft) -> list[list[Draft]]:
    """Calls can also sit under a subagent (Claude) or a Task call: waves form there too."""
    if draft.kind == WAVE:
        return [c.children for c in draft.children if c.children]
    return [draft.children] if draft.children else []


def _at_top(siblings: list[Draft], node: Draft) -> bool:
    return any(d is node or (d.kind == WAVE and node in d.children) for d in siblings)


def _detach(siblings: list[Draft], node: Draft) -> int:
    """Remove ``node`` wherever it sits below ``siblings``; unwrap a wave left with one call."""
    for index, draft in enumerate(siblings):
        if draft is node:
            del siblings[index]
            return index
        if node in draft.children:
            draft.children.remove(node)
            if draft.kind == WAVE:
                _reshape_wave(siblings, index, draft)
            return index
    return len(siblings)


def _detach_all(siblings: list[Draft], nodes: list[Draft]) -> int:
    return min(_detach(siblings, node) for node in nodes)


def _reshape_wave(siblings: list[Draft], index: int, wave: Draft) -> None:
    if len(wave.children) == 1:
        siblings[index] = wave.children[0]
    elif not wave.children:
        del siblings[index]
    else:
        members, wave.children = wave.children, []
        wave.started_ns, wave.ended_ns = members[0].interval()
        for member in members:
            _add_member(wave, member)
