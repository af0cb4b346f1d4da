"""The serial end of a huge transcript's ``show`` by halves (pass 59): the join's check that
no message id was met in both halves asks each set once, in one loop (``Hashes64.any_in``),
and must answer as ``member in`` asked of every hash does."""

from __future__ import annotations

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.providers.claude.halfpass import HalfTotals
from agentscan.toolkit.hashes64 import Hashes64

_INT64 = st.integers(-(2**63), 2**63 - 1)
# values alike in their low bits (one probe run), zero (kept apart), the extremes
_CORNERS = st.sampled_from([0, 1, -1, 1024, -1024, 1 << 32, 2 << 32, 3 << 32, 2**63 - 1, -(2**63)])


@settings(max_examples=300, deadline=None)
@given(st.lists(_INT64 | _CORNERS, max_size=3000), st.lists(_INT64 | _CORNERS, max_size=60), st.booleans())
def test_any_in_answers_as_membership_does(members: list[int], asked: list[int], packed: bool) -> None:
    hashes = Hashes64(members)
    if packed:  # (a set read back from a helper's answer: its table built on the first lookup)
        hashes = Hashes64.from_bytes(hashes.to_bytes())
    expected = set(members)
    assert hashes.any_in(asked) == any(member in expected for member in asked)
    # every member found, one at a time (the first probe and the later ones)
    assert all(hashes.any_in([member]) for member in expected)
    assert hashes.any_in(memoryview(array("q", asked)).cast("B").cast("q")) == any(m in expected for m in asked)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), max_size=40), st.lists(_INT64 | _CORNERS, max_size=40),
       st.lists(_INT64 | _CORNERS, max_size=40), st.lists(st.text(min_size=1, max_size=6), max_size=20))
def test_met_any_is_any_member_of_the_window_sidechains_or_parents(
        window: list[str], sidechains: list[int], parents: list[int], asked_ids: list[str]) -> None:
    totals = HalfTotals()
    totals._requests = {message_id: ("r",) for message_id in window}
    totals._sidechains = Hashes64(sidechains)
    totals._settled_parents = Hashes64(parents) if parents else None
    asked = [hash(message_id) for message_id in asked_ids] + sidechains[:3] + parents[-3:]
    met = {hash(message_id) for message_id in window} | set(sidechains) | set(parents)
    assert totals.met_any(memoryview(array("q", asked))) == any(h in met for h in asked)
    assert totals.met_any(memoryview(array("q", [h for h in asked if h not in met]))) is False


def test_settled_totals_read_their_groups_once_for_a_rows_sums() -> None:
    """``total``, ``by_subagent`` and ``own`` of settled sums (the joined halves') go over the
    groups once between them, and answer as fresh totals of the same sums do."""
    from agentscan.providers.claude.windowed import SettledTotals

    def sums() -> dict[tuple, list[int]]:
        return {(agent, model, bucket, 0, False): [bucket + 1, 2, 3, 4, 1, 0, 0]
                for agent in (None, "a1", "a2") for model in ("m1", "m2") for bucket in range(50)}

    class Counting(SettledTotals):
        reads = 0

        def _all_sums(self) -> dict[tuple, list[int]]:
            self.reads += 1
            return super()._all_sums()

    totals = Counting(sums(), True, stable=False)
    answers = (totals.total(), totals.by_subagent(), totals.own(), totals.total())
    assert totals.reads == 1
    assert answers[0] == answers[3]
    assert (SettledTotals(sums(), True, stable=False).total(), SettledTotals(sums(), True, stable=False).by_subagent(),
            SettledTotals(sums(), True, stable=False).own()) == answers[:3]
