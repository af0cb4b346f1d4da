"""A restart with no ``last_token_usage`` counts past a base only when the file shows that base.

A rollout that writes running totals alone (no ``last_token_usage`` at all: a trimmed or
foreign writer; openai/codex always writes both) took a total that went down and repeats no
total for a call counted from zero.  Pass 58 took the newest latest total the drop was at or
above for the base it restored: a real restart from zero whose first call is at least an
earlier total in every counter lost that total (a review: 875,600 for 976,600), and a resume
from an older base whose first call passes a later total lost that one too.  Now the base is
the total written again right before the drop (a rollback re-emits the count it goes back to:
``counters._base``), else the drop counts from zero.  ``list`` (its window, ``runs``' read of
a larger file, the tally a whole pass kept), ``tokens`` and ``show`` agree, cold, warm and
without the index.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_codex_replayed_totals_pass57 import A1, A2, A3, C1, C2, _add, _agree, _expected, _running, _write
from codex_builders import usage

#: a restart's first calls that carry a long history: at or above A1's total in every counter
BIG1, BIG2 = usage(300000, 200000, 1200), usage(310000, 290000, 900)
#: a first call after a resume from A1's total that takes it past A1 + A2's in every counter
PAST = usage(130000, 110000, 1600)


def _totals_only(events: list) -> list:
    return [(total, None) for total, _ in events]


def _scenarios() -> dict:
    run = _running([A1, A2, A3])
    t1 = run[0][0]
    return {
        # a rollback re-emits its base, then counts on from it: before 58, A1 counted twice
        "resume from a replayed base": (_totals_only([*run, (t1, None), *_running([C1, C2], t1)]),
                                        [A1, A2, A3, C1, C2]),
        # a restart from zero (its first call below every earlier total) counts whole
        "restart from zero": (_totals_only([*run, *_running([C1, C2])]), [A1, A2, A3, C1, C2]),
        # ... and so does one whose first call is at or above t1 in every counter (58 took t1 off)
        "restart from zero at or above t1": (_totals_only([*run, *_running([BIG1, BIG2])]),
                                             [A1, A2, A3, BIG1, BIG2]),
        # a resume from t1 whose first call passes t2: its base is t1, the one replayed, not t2
        "resume passing t2": (_totals_only([*run, (t1, None), *_running([PAST, C2], t1)]),
                              [A1, A2, A3, PAST, C2]),
    }


@pytest.mark.parametrize("name", list(_scenarios()))
def test_a_drop_with_no_last_counts_what_was_spent(isolated_home: Path, name: str) -> None:
    events, calls = _scenarios()[name]
    _write(isolated_home, events)
    _agree(_expected(calls))


@pytest.mark.parametrize("name", list(_scenarios()))
def test_past_the_window_of_list_too(isolated_home: Path, name: str) -> None:
    events, calls = _scenarios()[name]
    _write(isolated_home, events, padding=80)
    _agree(_expected(calls), (), (), ())


def test_the_base_is_the_total_replayed_right_before() -> None:
    from agentscan.providers.codex.counters import ZERO, recent_totals, step

    def counters(raw: dict) -> tuple:
        return (raw["input_tokens"], raw["cached_input_tokens"], 0, raw["output_tokens"], 0, raw["total_tokens"])

    seen = recent_totals()
    previous, carried = None, ZERO
    totals = [counters(total) for total, _ in _running([A1, A2, A3])]
    for total in totals:
        previous, carried, _ = step(previous, carried, total, None, seen)
    resumed = counters(_add(_running([A1])[0][0], C1))
    # no evidence of a base: from zero, the run before counted whole
    assert step(previous, carried, resumed, None, recent_totals(tuple(seen), previous)) == (resumed, totals[2], resumed)
    previous, carried, call = step(previous, carried, totals[0], None, seen)  # the rollback's replay
    assert (previous, call) == (totals[2], None)
    previous, carried, call = step(previous, carried, resumed, None, seen)
    assert call == counters(C1)
    # the run before counts less the base (t1) the new run starts from: A2 + A3
    assert carried == tuple(a - b for a, b in zip(totals[2], totals[0]))
