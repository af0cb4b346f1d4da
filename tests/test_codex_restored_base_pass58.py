"""A restart with no ``last_token_usage`` counts only what was spent past the base it restores.

A rollout that writes running totals alone (no ``last_token_usage`` at all: a trimmed or
foreign writer; openai/codex always writes both) took a total that went down and repeats no
total for a call counted from zero: a resume from an older base counted that base again.  Now
the call is the total less the newest of the file's latest totals it is at or above in every
counter (``counters._base``); from zero when none is.  ``list`` (its window, ``runs``' read of a
larger file, the tally a whole pass kept), ``tokens`` and ``show`` agree, cold, warm and
without the index.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_codex_replayed_totals_pass57 import A1, A2, A3, C1, C2, _add, _agree, _expected, _running, _write


def _totals_only(events: list) -> list:
    return [(total, None) for total, _ in events]


def _scenarios() -> dict:
    run = _running([A1, A2, A3])
    t1 = run[0][0]
    return {
        # resumed from the base after the first call: before, A1 counted twice (t1 + C1 as a call)
        "resume from an older base": (_totals_only([*run, *_running([C1, C2], t1)]), [A1, A2, A3, C1, C2]),
        # a restart from zero (its first call below every earlier total) still counts whole
        "restart from zero": (_totals_only([*run, *_running([C1, C2])]), [A1, A2, A3, C1, C2]),
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


def test_the_base_is_the_newest_total_passed() -> None:
    from agentscan.providers.codex.counters import ZERO, recent_totals, step

    def counters(raw: dict) -> tuple:
        return (raw["input_tokens"], raw["cached_input_tokens"], 0, raw["output_tokens"], 0, raw["total_tokens"])

    seen = recent_totals()
    previous, carried = None, ZERO
    totals = [counters(total) for total, _ in _running([A1, A2, A3])]
    for total in totals:
        previous, carried, _ = step(previous, carried, total, None, seen)
    resumed = counters(_add(_running([A1])[0][0], C1))
    previous, carried, call = step(previous, carried, resumed, None, seen)
    assert call == counters(C1)
    # the run before counts less the base (t1) the new run starts from: A2 + A3
    assert carried == tuple(a - b for a, b in zip(totals[2], totals[0]))
