"""Parallel waves and pairing over long turns: the same tree as the rule's plain reading
(docs/hooks.md, "The tree"), in time that grows with the turn, not with its square.

``_reference_form_waves`` is the rule as first written (every call compared with every
loose call and every wave, the siblings edited in place); the tree builder must lay out
exactly what it does, on generated turns with equal ends, zero-length and inverted
intervals, calls still open, other nodes between the calls, and nested children.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agentscan.hooks.draft import Draft
from agentscan.hooks.model import EVENT, INFERRED, NATIVE, OK, TOOL, WAVE, HookEvent
from agentscan.hooks.waves import _add_member, _child_lists, _completion_order, _overlaps, form_waves
from conftest_hypothesis import FUZZ
from hooks_builders import CONVERSATION, Replay, post, pre, prompt, stop


def _reference_form_waves(siblings: list[Draft]) -> None:
    calls = sorted((d for d in siblings if d.kind == TOOL and d.completed), key=_completion_order)
    waves: list[Draft] = []
    loose: list[Draft] = []
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
            _reference_form_waves(container)


_node = st.tuples(
    st.sampled_from(["call", "call", "call", "open", "event"]),
    st.integers(0, 40),  # start
    st.integers(-5, 30),  # length (negative: an end before the start)
    st.integers(0, 3),  # completion seq, among equal ends
)


def _build(specs: list[tuple[str, int, int, int]], nested: list[tuple[str, int, int, int]]) -> list[Draft]:
    siblings = []
    for number, (kind, start, length, seq) in enumerate(specs):
        if kind == "event":
            siblings.append(Draft(kind=EVENT, name=f"e{number}", input={}, provenance=NATIVE, started_ns=start))
            continue
        call = Draft(kind=TOOL, name=f"c{number}", input={}, provenance=NATIVE, started_ns=start, request=True)
        if kind == "call":
            event = HookEvent(seq=seq, received_at_ns=start + length, agent="cursor", name="postToolUse",
                              session_id=None, turn_id=None, payload={})
            call.close(event, OK, start + length)
        siblings.append(call)
    if nested and siblings:
        siblings[0].children.extend(_build(nested, []))
    return siblings


def _shape(siblings: list[Draft]) -> list:
    return [(d.kind, d.name, d.started_ns, d.ended_ns, d.status, d.input, _shape(d.children)) for d in siblings]


@FUZZ
@given(st.lists(_node, max_size=14), st.lists(_node, max_size=6))
def test_waves_are_the_rule_s_plain_reading(specs: list, nested: list) -> None:
    ours, reference = _build(specs, nested), _build(specs, nested)
    form_waves(ours)
    _reference_form_waves(reference)
    assert _shape(ours) == _shape(reference)


def _comparisons(root: Path, lines: int, monkeypatch) -> int:  # noqa: ANN001
    """How many calls the tree builder compared while building the stored session's trace:
    the loose calls tested for overlap and the requests a completion was paired among."""
    from agentscan.hooks import store, waves
    from agentscan.hooks.draft import TurnDraft
    from agentscan.hooks.tree import build_trace

    count = [0]
    overlaps, in_flight = waves._overlaps, TurnDraft.in_flight

    def counted_overlaps(*args):  # noqa: ANN002, ANN202
        count[0] += 1
        return overlaps(*args)

    def counted_in_flight(self):  # noqa: ANN001, ANN202
        found = in_flight(self)
        count[0] += len(found)
        return found

    with monkeypatch.context() as patch:
        patch.setattr(waves, "_overlaps", counted_overlaps)
        patch.setattr(TurnDraft, "in_flight", counted_in_flight)
        sessions = [s for s in store.stored_sessions(str(root)) if s.session_id == CONVERSATION]
        events, _ = store.read_events(sessions[0])
        assert len(events) == lines
        trace = build_trace("cursor", CONVERSATION, events)
    assert trace is not None
    return count[0]


def test_a_long_turn_is_built_in_work_that_grows_with_it(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    # Pairs of parallel calls, one after another: every completion was paired among every
    # request of the turn, and every call compared with every loose call (and every wave)
    # before it: 8,000 calls took 0.9 s, 16,000 about 4 s.  Now the work per call is flat.
    work = []
    for pairs in (200, 800):
        root = tmp_path / str(pairs)
        replay = Replay(root)
        replay.send(prompt("go"))
        for index in range(pairs):
            for name in (f"a{index}", f"b{index}"):
                replay.send(pre("Read", {"path": name}, name))
            for name in (f"a{index}", f"b{index}"):
                replay.send(post("Read", {"path": name}, name))
        replay.send(stop())
        work.append(_comparisons(root, 4 * pairs + 2, monkeypatch))
    assert work[1] <= 4 * work[0] + 8, work  # four times the calls, at most four times the work
