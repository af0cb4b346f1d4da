"""Mends of a review of the unread Codex counters (pass 61).

- A call written twice across an append (time and count alike) in a rollout counted by its
  calls: ``tokens`` counts it once; a ``list`` row brought up to date from where a read stopped
  (``runs``, or the tally a whole pass kept: ``fullcounts``) counted it again, for the calls it
  had seen were not kept (2,750 where ``tokens`` said 1,650).
- A running total of no number (``null``, ``true``, ``"x"``) beside a readable
  ``last_token_usage``: the call counts, but the running total stayed where it was, so the
  next total was said to move "by other than last_token_usage" and the file was counted by its
  calls; now the total is taken to move by the call, by a whole read and by the totals a
  ``list`` window resumes from (``totalseed``) alike.
- The warning of an unread counter spells the value as the file holds it (JSON) and says what
  is not read; it said ``None, counted as 0``.
- ``"-5"`` and a string of 16 digits are numbers (values of garbage, counted as 0, as ``-5``
  and ``10**16`` are); they made the counts unread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.providers.codex import fullcounts, headtail
from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.providers.codex.counters import counters_of, total_counters
from agentscan.toolkit.valuewarnings import USAGE_HEAD
from builders import cli_json as _json, only_row as _row
from codex_builders import append_records, at, meta, rollout_path, token_count, turn_context, usage, write_rollout

S = "019c4242-0000-7000-8000-0000000000e7"


@pytest.mark.parametrize("tokens_first", [True, False], ids=["tally", "runs"])
def test_a_call_written_again_across_an_append_counts_once_in_the_row(isolated_home: Path, monkeypatch: Any,
                                                                    tokens_first: bool) -> None:
    """A rollout of garbage totals (counted by its calls) larger than ``list``'s window; its
    last call written again after the row's read (``tally``: after ``tokens`` kept its tally)."""
    monkeypatch.setattr(headtail, "TAIL_BYTES", 300)
    monkeypatch.setattr(fullcounts, "WHOLE_BYTES", 200)
    garbage = dict(usage(500, output=50), reasoning_output_tokens=-5)
    again = token_count(at(20), None, usage(1000, output=100))
    path = rollout_path(isolated_home / ".codex", S, at(0))
    write_rollout(path, [meta(S, at(0)), turn_context(at(1), "gpt-5"),
                         token_count(at(10), garbage, usage(500, output=50)), again])
    if tokens_first:
        assert _json("tokens", S)["total"]["total"] == 1650
    assert _row()["tokens"]["total"] == 1650
    append_records(path, [again])
    grown = _row()["tokens"]
    assert grown["total"] == 1650
    assert grown == _json("tokens", S)["total"] == _row()["tokens"]


def _write(home: Path, unread: dict) -> None:
    """Four calls of 1,000 input and 100 output tokens, the third's total ``unread``."""
    def call(index: int, total: dict | None = None) -> dict:
        return token_count(at(10 + index), total or usage(1000 * index, output=100 * index), usage(1000, output=100))

    write_rollout(rollout_path(home / ".codex", S, at(0)),
                  [meta(S, at(0)), turn_context(at(1), "gpt-5"), call(1), call(2), call(3, unread), call(4)])


@pytest.mark.parametrize(("field", "value", "spelled"), [
    ("output_tokens", None, "null"), ("output_tokens", True, "true"), ("total_tokens", "x", '"x"')])
def test_an_unread_total_beside_its_call_moves_the_running_total(isolated_home: Path, field: str, value: object,
                                                                 spelled: str) -> None:
    _write(isolated_home, dict(usage(3000, output=300), **{field: value}))
    said = [f"{USAGE_HEAD}: {field} is {spelled}: this total_token_usage is not read"]
    for args in [(), (), ("--no-cache",)]:
        report, listed = _json("tokens", S, *args), _json("list", "--all", *args)
        assert report["total"]["total"] == 4 * 1100
        assert listed["sessions"][0]["tokens"] == report["total"]
        assert [w["message"] for w in report["warnings"]] == [w["message"] for w in listed["warnings"]] == said


def test_an_unread_total_leaves_the_totals_a_running_count() -> None:
    """The scanner's own view: no jump, not counted by its calls (``garbled``), and the total
    reached is the one the next event continues."""
    scanner = FileUsageScanner(timed=False)
    unread = dict(usage(3000, output=300), output_tokens=None)
    for index, total in [(1, usage(1000, output=100)), (2, usage(2000, output=200)), (3, unread),
                         (4, usage(4000, output=400))]:
        scanner.feed(token_count(at(10 + index), total, usage(1000, output=100)))
    assert (scanner.garbled, scanner.jumps, len(scanner.events)) == (False, 0, 4)
    assert scanner.cumulative == counters_of(usage(4000, output=400))
    # no total before: none to move (the call is one with no total)
    assert total_counters(unread, None, counters_of(usage(1000, output=100))) == (None, False)
    assert total_counters(unread, counters_of(usage(2000, output=200)), None) == (None, False)


@pytest.mark.parametrize(("text", "number"), [("-5", -5), ("1" * 16, int("1" * 16))])
def test_a_number_written_as_a_string_is_garbage_as_the_number_is(text: str, number: int) -> None:
    """Both spellings are read alike: a count of 0 in a total of garbage (not an unread one)."""
    as_text, as_number = dict(usage(100, output=10), output_tokens=text), dict(usage(100, output=10),
                                                                               output_tokens=number)
    assert counters_of(as_text) == counters_of(as_number) == (100, 0, 0, 0, 0, 110)
    assert total_counters(as_text) == total_counters(as_number) == ((100, 0, 0, 0, 0, 110), True)


def test_the_totals_before_a_window_stand_where_a_whole_read_does(tmp_path: Path) -> None:
    """``list``'s window of a larger rollout, read again from the totals before it
    (``totalseed.seeds_before``), resumes where a whole read stands: an unread total beside its
    call moved the running total there too (else the window's next total moved by two calls)."""
    from agentscan.providers.codex.totalseed import seeds_before

    unread = dict(usage(3000, output=300), output_tokens=None)
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5")] + [
        token_count(at(10 + index), total, usage(1000, output=100))
        for index, total in [(1, usage(1000, output=100)), (2, usage(2000, output=200)), (3, unread)]]
    path = write_rollout(rollout_path(tmp_path, S, at(0)), records)
    whole = FileUsageScanner(timed=False)
    for record in records:
        whole.feed(record)
    reached = seeds_before(path, path.stat().st_size, model=False, totals=True)[1]
    assert reached is not None and reached.previous == whole.position[1] == counters_of(usage(3000, output=300))
    assert reached.seen == whole.position[5]
