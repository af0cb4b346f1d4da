"""The compact set of settled call hashes (``toolkit.hashes64``), the windowed sums kept with
it, and a forked helper's large answer: what the eleventh pass changed to cut a huge
transcript's first ``show`` from ≈ 110 MB to ≈ 70 MB."""

from __future__ import annotations

import os
import pickle
import sys

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.toolkit.hashes64 import Hashes64, from_digest
from builders import claude_assistant, claude_usage

S = "11111111-2222-4333-8444-555555555555"

_INT64 = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=300, deadline=None)
@given(st.lists(_INT64 | st.sampled_from([0, 1, -1, 1024, -1024, 2**63 - 1, -(2**63)]), max_size=3000),
       st.lists(_INT64, max_size=50))
def test_membership_is_a_sets(members: list[int], others: list[int]) -> None:
    """Every member found, nothing else (zero too, and values that share low bits)."""
    hashes = Hashes64()
    for member in members:
        hashes.add(member)
    expected = set(members)
    assert len(hashes) == len(expected)
    assert all(member in hashes for member in expected)
    assert all((other in hashes) == (other in expected) for other in others)


@settings(max_examples=100, deadline=None)
@given(st.lists(_INT64, max_size=2000), st.lists(_INT64, max_size=30))
def test_packed_and_pickled_forms_hold_the_same_members(members: list[int], later: list[int]) -> None:
    hashes = Hashes64(members)
    packed = hashes.to_bytes()
    assert len(packed) == 8 * len(set(members))
    for copy in (Hashes64.from_bytes(packed), pickle.loads(pickle.dumps(hashes))):
        assert copy.to_bytes() == packed  # passed on as it came: never unpacked
        for member in later:
            copy.add(member)
        assert len(copy) == len(set(members) | set(later))
        assert all(member in copy for member in [*members, *later])


def test_growing_and_unpacking_keep_exactly_the_members() -> None:
    """Tables grown many times over, and a packed set built at once: an old table's empty
    slots are not the member zero, a packed zero is."""
    members = [index * 7919 - 20_000 for index in range(5000) if index * 7919 != 20_000]
    hashes = Hashes64(members)
    assert len(hashes) == 5000 and 0 not in hashes and all(member in hashes for member in members)
    assert 0 not in Hashes64.from_bytes(hashes.to_bytes())
    with_zero = Hashes64.from_bytes(Hashes64([*members, 0]).to_bytes())
    assert 0 in with_zero and len(with_zero) == 5001


def test_a_far_member_is_found_past_a_full_run_of_neighbours() -> None:
    """Members whose low bits all agree probe past each other (``_probe``, tables grown)."""
    crowd = [index << 40 for index in range(1, 5000)]
    hashes = Hashes64(crowd)
    assert all(member in hashes for member in crowd)
    assert (5000 << 40) not in hashes and 1 not in hashes


def test_digests_come_back_as_their_bytes() -> None:
    """A resume state's blob is each 8-byte digest as it was (the format before this set)."""
    digests = [bytes([index] * 8) for index in range(1, 40)] + [b"\x00" * 8, b"\xff" * 8]
    hashes = Hashes64(from_digest(digest) for digest in digests)
    packed = hashes.to_bytes()
    assert {packed[i:i + 8] for i in range(0, len(packed), 8)} == set(digests)


def test_bad_packed_bytes_are_refused() -> None:
    with pytest.raises(ValueError):
        Hashes64.from_bytes(b"\x01" * 12)


def _calls(count: int, *, sidechain_every: int = 7) -> list:
    from agentscan.providers.claude.usage import call_of

    return [call_of(claude_assistant(S, f"2026-11-01T10:{index % 60:02d}:00Z", msg_id=f"m{index // 2}",
                                     request_id=f"r{index % 97}", usage=claude_usage(index, 3 * index + 1),
                                     sidechain=index % sidechain_every == 0), None, index)
            for index in range(count)]


@pytest.mark.parametrize("stable", [True, False])
def test_windowed_sums_packed_for_a_helper_go_on_as_the_ones_kept(stable: bool) -> None:
    """A helper's packed totals, unpacked, are the totals: the same sums, and the same
    sums again after more calls (a subagent's file read after the main transcript)."""
    from agentscan.providers.claude.windowed import WindowedTotals

    calls = _calls(900)
    whole, first = WindowedTotals(window=50, stable=stable), WindowedTotals(window=50, stable=stable)
    for call in calls:
        whole.add(call)
    for call in calls[:600]:
        first.add(call)
    copy = WindowedTotals.unpacked(pickle.loads(pickle.dumps(first.packed())), stable=stable)
    assert (copy.total(), copy.by_subagent(), copy.exact) == (first.total(), first.by_subagent(), False)
    for call in calls[600:] + calls[:40]:  # and copies of settled calls, which count nothing
        copy.add(call)
    for call in calls[:40]:
        whole.add(call)
    assert copy.total() == whole.total() and copy.groups(()) == whole.groups(())


def test_a_resume_state_keeps_its_format() -> None:
    """The state's blob is the settled keys' digests then the parents', ``keys`` of them
    first: states kept by the pass before (sets of digests) load, and are written alike."""
    from agentscan.providers.claude.windowed import WindowedTotals, _stable_hash

    totals = WindowedTotals(window=10, stable=True)
    calls = _calls(60, sidechain_every=1000)
    for call in calls:
        totals.add(call)
    doc, blob = totals.to_state()
    settled = calls[:50]
    keys = {_stable_hash((call[0], call[1])).to_bytes(8, sys.byteorder, signed=True) for call in settled}
    parents = {_stable_hash(call[0]).to_bytes(8, sys.byteorder, signed=True) for call in settled}
    cut = doc["keys"] * 8
    assert {blob[i:i + 8] for i in range(0, cut, 8)} == keys
    assert {blob[i:i + 8] for i in range(cut, len(blob), 8)} == parents
    # A state is read from the index (a document parsed for it), whose sums' lists the totals
    # take over (``windowstate.sums_of_state``): given one of its own, as the index gives it.
    again = WindowedTotals.from_state(orjson.loads(orjson.dumps(doc)), blob)
    assert again.to_state() == (doc, blob)
    for call in calls[:5]:
        again.add(call)  # settled long ago: counted once
    assert again.total() == totals.total()


def test_a_large_answer_comes_back_whole_from_a_helper() -> None:
    """Answers far larger than a pipe holds, read into one buffer."""
    from agentscan.toolkit.helperproc import Helper

    helper = Helper(lambda: None, lambda size: os.urandom(8) * (size // 8))
    try:
        for size in (8, 3 * 1024 * 1024 + 8, 64):
            helper.send(size)
            answer = helper.receive()
            assert len(answer) == size // 8 * 8 and answer == answer[:8] * (size // 8)
    finally:
        helper.stop()
