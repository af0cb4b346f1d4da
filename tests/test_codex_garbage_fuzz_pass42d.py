"""Rollouts of random running totals, some garbage (``-5``, ``2.5``, ``true``, ``"x"``, …), some
counts that restart or repeat, read every way ``list`` reads a rollout: cold (its window, or
``runs``' read of a larger file's ``token_count`` lines), warm, after ``tokens`` (the tally of
its whole pass), grown (the tally and ``runs`` going on), and without the index.  On a file
whose totals are garbage each says what ``tokens`` says (code review s42: they said 5,500,
6,284 and 8,800 of one file); on any file, cold and after ``tokens`` agree.  A counter of no
number at all (``"x"``, ``null``, ``true``, a list) makes no total of garbage: its total is
none, and the totals go on from the one before (pass 61, ``counters._unreadable``).  A fixed seed:
the same files every run.  Windows of a few hundred bytes make small files large."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.providers.codex import fullcounts, headtail
from agentscan.providers.codex.records import as_count, no_count, no_number
from builders import cli_json as _json, only_row as _row
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage, usage_record

#: 24 generated rollouts, each read five ways (about 10 s): with the other fuzz tests (``.ci/run``)
pytestmark = pytest.mark.slow

SEED = 4242
FILES = 24
BAD: list[Any] = [-5, 2.5, "12", "x", True, None, [1], {"a": 1}, 10**16, -0.0, 1e30]
KEYS = ["input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"]


class _Calls:
    """A thread's ``token_count`` lines: running totals (garbage now and then when ``garbage``)."""

    def __init__(self, rnd: random.Random, thread: str, garbage: bool) -> None:
        self.rnd, self.thread, self.garbage = rnd, thread, garbage
        self.totals = [0] * 5
        self.moment = 10
        #: a total held a number that is no count (``-5``, ``2.5``): the row counts the calls
        self.garbled = False

    def lines(self, count: int) -> list[dict]:
        rnd, out = self.rnd, []
        for _ in range(count):
            self.moment += 1
            last = usage(rnd.randint(0, 3000), cached=rnd.randint(0, 400), output=rnd.randint(0, 500))
            self.totals = [sum(pair) for pair in zip(self.totals, (last[key] for key in KEYS))]
            total: dict[str, Any] = dict(zip(KEYS, self.totals))
            if rnd.random() < 0.1:  # a count that restarted (an older build resuming)
                total, self.totals = {key: 0 for key in KEYS}, [0] * 5
            if self.garbage and rnd.random() < 0.35:
                total[rnd.choice(KEYS)] = bad = rnd.choice(BAD)
                self.garbled |= no_count(bad, as_count(bad)) and not no_number(bad)
            logged = rnd.random() >= 0.15  # (else no ``last_token_usage``: the call is the totals' growth)
            line = token_count(at(self.moment), total, last if logged else None)
            out.append(line)
            if rnd.random() < 0.2:
                out.append(line)  # emitted again
            if logged and rnd.random() < 0.15:  # the same call's record (newer builds)
                out.append(usage_record(at(self.moment), f"r{self.moment}", last, thread_id=self.thread))
            if rnd.random() < 0.5:
                out.append(function_output(at(self.moment), f"c{self.moment}", "y" * rnd.randint(50, 400)))
        return out


def _write(path: Path, records: list[dict], mode: str = "wb") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode) as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in records))


def _tokens(thread: str) -> dict:
    return _json("tokens", thread)["total"]


@pytest.mark.parametrize("case", range(FILES))
def test_a_rollout_of_random_totals_lists_one_count_every_way(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                              case: int) -> None:
    monkeypatch.setattr(headtail, "TAIL_BYTES", 700)  # (most files are larger)
    monkeypatch.setattr(fullcounts, "WHOLE_BYTES", 500)  # (a whole pass keeps their tally)
    rnd = random.Random(SEED * 1000 + case)
    thread = "019c4242-0000-7000-8000-%012d" % case
    calls = _Calls(rnd, thread, garbage=rnd.random() < 0.75)
    path = rollout_path(isolated_home / ".codex", thread, at(0))
    _write(path, [meta(thread, at(0)), turn_context(at(1), "gpt-5"), *calls.lines(rnd.randint(1, 10))])

    cold, warm = _row(), _row()
    plain = _row("--no-cache")
    total, garbled = _tokens(thread), calls.garbled
    told = _row()  # (from the tally ``tokens`` kept, or the window of a small file)
    assert cold["tokens"] == warm["tokens"] == told["tokens"]
    if garbled:
        assert cold["tokens"] == (total if total["total"] else None)
        # Without the index a larger file's row is its window's, and says so.
        assert plain["tokens"] == cold["tokens"] or plain["counts_partial"] is True

    _write(path, calls.lines(rnd.randint(1, 6)), "ab")
    grown = _row()  # (the tally, or ``runs``' state, going on with the appended lines)
    total, garbled = _tokens(thread), calls.garbled
    assert _row()["tokens"] == grown["tokens"]
    if garbled:
        assert grown["tokens"] == (total if total["total"] else None)
