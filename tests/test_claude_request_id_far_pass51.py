"""Rule 3 across the row pass's window (pass 51): copies of one call with and without
``requestId`` further apart than ``windowed.WINDOW`` calls count once in ``list``, ``show``
and ``export`` as in ``tokens``.

A session of more calls than the window settles its oldest calls into sums and keeps only
hashes of them.  A pair was joined only while both copies were in the window: a progress
copy settled long before its subagent's transcript (read after the whole parent) copied it
under the other key, and the call counted twice in every view but ``tokens``.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.providers.claude import windowed
from builders import (claude_assistant, claude_progress, claude_session_file, claude_subagent_file, claude_usage,
                      claude_user, cli_json, invoke)

S = "cccccccc-1111-4000-8000-0000000005a2"
AGENT = "a1b2c3d"


def _session(home: Path, progress_request: bool, speed_on_progress: bool, main_calls: int) -> int:
    """Five subagent calls copied into progress records at the start, ``main_calls`` calls of
    the session's own after them, then the subagent's transcript: only one side of each copy
    carries ``requestId``.  The better copy (``dedupe.call_rank``, same tokens) is the
    transcript's, or the progress copy's when it has ``usage.speed``.  Returns the total."""
    records = [claude_user(S, "2026-11-02T10:00:00Z", "far copies")]
    transcript = []
    for i in range(5):
        usage = claude_usage(7, 3 + i)
        copy = claude_assistant(S, f"2026-11-02T10:00:{i + 1:02d}Z", msg_id=f"sub{i}", request_id=None,
                                usage=usage, sidechain=True, uuid=f"su{i}")
        progress = dict(copy, message={**copy["message"], "usage": {**usage, "speed": "fast"}}) if speed_on_progress \
            else dict(copy)
        if progress_request:
            progress["requestId"] = f"rs{i}"
        records.append(claude_progress(S, f"2026-11-02T10:00:{i + 1:02d}Z", AGENT, progress, uuid=f"p{i}"))
        own = dict(copy)
        if not progress_request:
            own["requestId"] = f"rs{i}"
        transcript.append(own)
    for i in range(main_calls):
        records.append(claude_assistant(S, f"2026-11-02T11:00:{i:02d}Z", msg_id=f"m{i}", request_id=f"r{i}",
                                        usage=claude_usage(1, 1), uuid=f"a{i}"))
    claude_session_file(home, S, records)
    claude_subagent_file(home, S, AGENT, transcript, meta={"agentType": "Explore"})
    return 2 * main_calls + sum(10 + i for i in range(5))


@pytest.mark.parametrize("speed_on_progress", [False, True], ids=["later-copy-better", "earlier-copy-better"])
@pytest.mark.parametrize("progress_request", [True, False], ids=["progress-has-request", "transcript-has-request"])
def test_copies_further_apart_than_the_window_count_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                         progress_request: bool, speed_on_progress: bool) -> None:
    monkeypatch.setattr(windowed, "WINDOW", 3)  # the subagent's copies settle long before its transcript is read
    total = _session(isolated_home, progress_request, speed_on_progress, main_calls=8)
    for _ in range(2):  # cold, then warm
        assert cli_json("tokens", "--all")["total"]["total"] == total
        (listed,) = cli_json("list", "--all")["sessions"]
        assert listed["tokens"]["total"] == total
        shown = cli_json("show", S)["session"]
        assert shown["tokens"]["total"] == total
        assert [agent["tokens"]["total"] for agent in shown["subagents"]] == [total - 16]
        exported = invoke("export", "--format", "jsonl")
        assert exported.exit_code == 0, exported.output
        assert [orjson.loads(line)["tokens"]["total"] for line in exported.stdout.splitlines()] == [total]


def _calls(records: list[dict]) -> list[tuple]:
    from agentscan.providers.claude.usage import call_of

    return [call for order, record in enumerate(records) if (call := call_of(record, None, order)) is not None]


def _exact_total(calls: list[tuple]) -> int:
    from agentscan.providers.claude.dedupe import CallDeduper
    from agentscan.providers.claude.usage import C_CACHE_READ, C_CACHE_WRITE, C_INPUT, C_OUTPUT

    deduper = CallDeduper()
    deduper.add_all(calls)
    return sum(c[C_INPUT] + c[C_CACHE_READ] + c[C_CACHE_WRITE] + c[C_OUTPUT] for c in deduper.winners())


@pytest.mark.parametrize("first_request, later_request", [("r", None), (None, "r")])
@pytest.mark.parametrize("sidechain", [False, True])
@pytest.mark.parametrize("stable", [False, True])
def test_a_settled_call_joins_its_much_later_copy_under_the_other_key(first_request: str | None,
                                                                      later_request: str | None, sidechain: bool,
                                                                      stable: bool) -> None:
    """``WindowedTotals`` alone: the first copy settles alone, the other comes ten calls later
    (window 3), the same tokens (the kept copy is ``tokens``' either way); the totals go on
    from a resume state between the two (``stable``) as a row's pass does."""
    records = [claude_assistant(S, "2026-11-01T10:00:00Z", msg_id="far", request_id=first_request,
                                usage=claude_usage(100, 10), sidechain=sidechain)]
    records += [claude_assistant(S, f"2026-11-01T10:01:{i:02d}Z", msg_id=f"m{i}", request_id=f"r{i}",
                                 usage=claude_usage(1, 1)) for i in range(10)]
    later = [claude_assistant(S, "2026-11-01T11:00:00Z", msg_id="far", request_id=later_request,
                              usage=claude_usage(100, 10), sidechain=sidechain)]
    calls = _calls(records + later)
    totals = windowed.WindowedTotals(window=3, stable=stable)
    for call in calls[:-1]:
        totals.add(call)
    if stable:
        doc, hashes = totals.to_state()
        totals = windowed.WindowedTotals.from_state(orjson.loads(orjson.dumps(doc)), hashes)
    totals.add(calls[-1])
    total = totals.total()
    assert total is not None and total.total == _exact_total(calls) == 110 + 20


def test_another_request_of_a_message_settled_under_one_still_counts() -> None:
    """Only a copy without ``requestId`` joins a settled call of another key: a second request
    of the same message (a ``/btw`` replay, unsidechained) is a call of its own."""
    records = [claude_assistant(S, "2026-11-01T10:00:00Z", msg_id="far", request_id="r1", usage=claude_usage(100, 10))]
    records += [claude_assistant(S, f"2026-11-01T10:01:{i:02d}Z", msg_id=f"m{i}", request_id=f"r{i}",
                                 usage=claude_usage(1, 1)) for i in range(10)]
    records.append(claude_assistant(S, "2026-11-01T11:00:00Z", msg_id="far", request_id="r2", usage=claude_usage(200, 20)))
    calls = _calls(records)
    totals = windowed.WindowedTotals(window=3)
    for call in calls:
        totals.add(call)
    total = totals.total()
    assert total is not None and total.total == _exact_total(calls) == 110 + 20 + 220


@pytest.mark.parametrize("first_has_request", [True, False])
def test_the_halves_of_a_huge_transcript_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               first_has_request: bool) -> None:
    """A huge transcript read by halves (``halves``, ``halfjoin``) gives the one pass's totals
    wherever the seam falls, and those are ``tokens``': a call's copies under the two keys of
    rule 3 at its two ends, a window of three calls apart."""
    from claude_events import SESSION, lower_row_limits, qa_turns, ts_of
    from test_halves import _by_halves, _ctx, _one_pass, _seam_before, _write

    from agentscan.providers.claude import rowresume

    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)  # no resume state: the halves' case
    records = qa_turns(8)
    first, late = ("r0", None) if first_has_request else (None, "r0")
    records[1]["requestId"] = first
    records.append(claude_assistant(SESSION, ts_of(40), msg_id="m0", request_id=late, uuid="late",
                                    usage=claude_usage(input=1, output=2)))
    path = _write(tmp_path, records)
    whole = _one_pass(path, _ctx(tmp_path))
    assert whole[2].total == _exact_total(_calls(records)) == sum(n + 3 for n in range(8))
    for index in (2, 6, 10, 14):
        halved, _ = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, index), monkeypatch)
        assert halved == whole, index
