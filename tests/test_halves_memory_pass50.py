"""A huge transcript's halves joined without holding their sums twice (fiftieth pass, issue 16).

A cold ``show`` of 1 GB peaked at the join: the first half's window and settled hashes
were held until the row's pass ended, the helper's answer was held beside the join's
copy of it (its sums as a dict of new lists, its hashes copied into arrays), the whole
file's sums were copied again for every question a row asked (``_all_sums``), and the
helper copied its own sums twice to answer.  The outcome must stay the one pass's
(``test_halves``); these check that the copies are gone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentscan.providers.claude import halfjoin, halfpass, halves, rowresume
from agentscan.providers.claude.halfpass import HalfTotals
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.windowed import SettledTotals
from claude_events import lower_row_limits, qa_turns
from test_halves import _ctx, _one_pass, _outcome, _reply, _seam_before, _write


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)  # no resume state: the halves' case


def _records() -> list:
    # Sidechain calls between the turns: replays and window calls the second half pushes out.
    return [*qa_turns(5), *[_reply(20 + n, f"x{n}", [{"type": "text", "text": "more"}], sidechain=n % 2 == 0)
                            for n in range(4)], *qa_turns(5, start=40)]


def test_the_join_lets_go_of_the_first_halfs_window(tmp_path: Path, small_limits: None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records()
    path = _write(tmp_path, records)
    ctx = _ctx(tmp_path)
    parts = halves.Halves(path, ctx, os.stat(path), _seam_before(path, records, 14))
    facts = ShowFacts()
    try:
        summary, first, progress = parts.first_half(facts)
        assert first._recent and first._settled_keys is not None  # (three calls a window: some left it)
        summary, whole = parts.join(summary, first, facts, progress)
    finally:
        parts.stop()
    facts.finish()
    assert isinstance(whole, SettledTotals)  # joined, not read here
    assert not first._recent and not first._requests and not first._order
    assert first._settled_keys is None and first._settled_parents is None and not first._sums
    assert _outcome(summary, facts, whole, progress, ctx) == _one_pass(path, _ctx(tmp_path))


def test_the_join_keeps_the_helpers_answer_as_it_came(tmp_path: Path, small_limits: None) -> None:
    records = _records()
    path = _write(tmp_path, records)
    answer = halfpass.second_half(path, _ctx(tmp_path), _seam_before(path, records, 8), True, {})
    sums, window_sums = answer["sums"], answer["window_sums"]
    assert sums and window_sums
    join = halfjoin.Join(answer, path)
    # Taken out of the answer (nothing holds them twice), the sums' items themselves.
    assert not {"sums", "window_sums", "messages", "looked_up", "facts"} & set(answer)
    assert join.sums is sums and join.window_sums is window_sums
    assert all(len(item) == 12 for item in sums)
    broken = halfpass.second_half(path, _ctx(tmp_path), _seam_before(path, records, 8), True, {})
    broken["sums"] = [["x"]]
    with pytest.raises(ValueError):
        halfjoin.Join(broken, path)


def test_the_helpers_window_sums_are_what_its_window_adds(tmp_path: Path, small_limits: None) -> None:
    """Added up apart from the settled sums, they are ``_all_sums`` less the settled sums,
    key by key and in ``_all_sums``' order (the join's order, and so the groups')."""
    records = _records()
    path = _write(tmp_path, records)
    from agentscan.providers.claude.row import summarize
    from agentscan.toolkit.jsonl import ReadProgress

    for end in (4, 8, 12, len(records)):
        totals = HalfTotals()
        summarize(path, _ctx(tmp_path), totals=totals, progress=ReadProgress(),
                  end=([0, *_line_starts(path)])[end])
        everything = totals._all_sums()
        expected = {}
        for key, parts in everything.items():
            before = totals._sums.get(key)
            difference = list(parts) if before is None else [v - b for v, b in zip(parts, before)]
            if any(difference) or before is None:
                expected[key] = difference
        got = totals.window_sums()
        assert list(got.items()) == list(expected.items()), end
        settled = [[*key, *parts] for key, parts in totals._sums.items()]
        assert totals.sums_items() == settled and not totals._sums


def test_settled_totals_answer_from_their_sums_without_a_copy() -> None:
    sums = {(None, "claude-sonnet-4-5", 900, 0, False): [1, 2, 3, 4, 1, 0, 0],
            ("agent", "claude-sonnet-4-5", 1800, 1, True): [5, 6, 7, 8, 2, 1, 1]}
    totals = SettledTotals(sums, True, stable=False)
    assert totals._all_sums() is sums
    assert totals.total() is not None and totals.total().input == 6
    assert [group[5:] for group in totals.groups(())] == [[1, 2, 3, 4, 0, 1, 0, 0], [5, 6, 7, 8, 0, 2, 1, 1]]
    assert sums[(None, "claude-sonnet-4-5", 900, 0, False)] == [1, 2, 3, 4, 1, 0, 0]  # (left as it was)


def _line_starts(path: Path) -> list[int]:
    data = path.read_bytes()
    return [index + 1 for index, byte in enumerate(data) if byte == 0x0A]


def test_a_first_half_that_let_calls_go_is_joined_inexact() -> None:
    """``spent`` lets go of the settled hashes, which makes ``exact`` true: it answers
    ``exact`` with the sums, read before, so no order of reading them can say an inexact
    first half was exact."""
    from agentscan.toolkit.hashes64 import Hashes64

    first = HalfTotals()
    first._settled_keys = Hashes64()  # a call left its window: its sums are not exact
    assert first.exact is False
    joined = halfjoin._join_totals(first, 0, [], [], True)
    assert joined.exact is False
    again = HalfTotals()
    again._settled_keys = Hashes64()
    sums, exact = again.spent()
    assert (sums, exact) == ({}, False) and again.exact  # (what reading it after would have said)
