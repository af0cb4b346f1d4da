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
those calls under itself, taking them out of any wave.
"""

from __future__ import annotations

from agentscan.hooks.draft import Draft, TurnDraft, aggregate_status, is_call
from agentscan.hooks.model import INFERRED, NATIVE, WAVE


def form_waves(siblings: list[Draft]) -> None:
    calls = sorted((d for d in siblings if is_call(d) and d.completed), key=_completion_order)
    waves: list[Draft] = []
    loose: list[Draft] = []  # completed calls seen so far that are not in a wave
    for call in calls:
        start, end = call.interval()
        wave = next((w for w in waves if start < w.ended_ns and end > w.started_ns), None)  # type: ignore[operator]
        if wave is not None:
            siblings.remove(call)
            _add_member(wave, call)
            continue
        overlapping = [c for c in loose if _overlaps(c, start, end)]
        if not overlapping:
            loose.append(call)
            continue
        members = overlapping + [call]
        index = min(siblings.index(m) for m in members)
        wave = Draft(kind=WAVE, name="parallel", input={"calls": 0}, provenance=INFERRED, started_ns=start, ended_ns=end)
        for member in members:
            siblings.remove(member)
            _add_member(wave, member)
            if member in loose:
                loose.remove(member)
        siblings.insert(index, wave)
        waves.append(wave)
    for draft in siblings:
        for container in _child_lists(draft):
            form_waves(container)


def apply_batches(turn: TurnDraft) -> None:
    """Claude PostToolBatch: one call -> the batch nests under it; several -> it parents them."""
    for batch in turn.batches:
        listed = batch.input.get("tool_calls") if isinstance(batch.input, dict) else None
        ids = {c.get("tool_use_id") for c in listed or () if isinstance(c, dict)}
        # only calls at the turn's top level (or in one of its waves) are re-parented
        calls = [r for r in turn.requests if r.id is not None and r.id in ids and _at_top(turn.nodes, r)]
        if not calls or batch not in turn.nodes:
            continue
        _detach(turn.nodes, batch)
        if len(calls) == 1:
            calls[0].children.append(batch)
            continue
        index = _detach_all(turn.nodes, calls)
        batch.children.extend(sorted(calls, key=lambda c: c.interval()[0]))
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
    wave.detail["duration_ms"] = (wave.ended_ns - wave.started_ns) / 1e6  # type: ignore[operator]


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
