"""A Claude transcript read in parts says the one bad-value warning a read of it whole says.

``tokens`` reads only a grown transcript's new tail (``incremental``), a row's pass only a
large one's (``rowresume``), and a huge transcript is read by halves on two cores
(``usagehalves`` for ``tokens``, ``halves`` for a row).  Each part used to say its own
"usage value is not a token count" warning with its own count, so a warm run said two where
``--no-cache`` said one.  Now the counts go on from a kept state and are joined across the
halves (``valuewarnings.ValueCounts``): one warning, the file's first bad value at its line
in the file and the whole file's count, however the file was read.  Claude's bad
``iterations`` entries and web search counts are told the same way, in the same warning.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.providers.claude import halfjoin, halves, incremental, rowresume, sidepass, usagehalves
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.windowed import WindowedTotals
from agentscan.scan import usageparse
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import helperproc
from agentscan.toolkit.jsonl import ReadProgress
from agentscan.toolkit.valuewarnings import TIME_HEAD, USAGE_HEAD
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json
from claude_events import (SESSION, calls_whole_and_by_halves, lines_of, lower_row_limits, no_halves,
                           split_huge_passes, ts_of)
from spies import record_calls, record_results

MODEL = "claude-sonnet-4-5-20250929"


def _turn(n: int, usage: dict, ts: str | None = None) -> list[dict]:
    """A prompt and its answer (lines ``2n+1`` and ``2n+2`` of a file of turns from 0)."""
    return [claude_user(SESSION, ts_of(2 * n), f"question {n}", uuid=f"u{n}"),
            claude_assistant(SESSION, ts or ts_of(2 * n + 1), msg_id=f"m{n}", request_id=f"r{n}", uuid=f"a{n}",
                             blocks=[{"type": "text", "text": f"answer {n}"}], usage=usage)]


def _turns(usages: list[dict], start: int = 0, times: dict[int, str] | None = None) -> list[dict]:
    return [record for n, usage in enumerate(usages, start) for record in _turn(n, usage, (times or {}).get(n))]


GOOD = claude_usage(input=10, output=2)


def _bad(**counts: Any) -> dict:
    return {**GOOD, **counts}


def _told(report: dict) -> list[tuple[str, int | None]]:
    """The bad-value warnings a report says (message, line)."""
    return [(w["message"], w["line"]) for w in report["warnings"] if w["message"].startswith((USAGE_HEAD, TIME_HEAD))]


def _append(path: Path, records: list) -> None:
    with path.open("ab") as handle:
        handle.write(lines_of(records))


def _tokens(*args: str) -> tuple[Any, list]:
    report = cli_json("tokens", "--by", "session", *args)
    return [(row["key"], row["tokens"]) for row in report["rows"]], _told(report)


# -- tokens: a grown transcript's tail read on from the kept state (``incremental``) ----------


def test_a_resumed_tokens_read_says_what_a_read_of_the_whole_says(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usageparse, "RESUME_MIN_BYTES", 0)  # a resume state kept from the first parse
    starts = record_calls(monkeypatch, incremental, "scan_file", lambda *args, **kwargs: kwargs.get("start", 0))
    # Lines 4 and 8 bad, line 6 dated in the year 9999.
    path = claude_session_file(isolated_home, SESSION, _turns(
        [GOOD, _bad(output_tokens=-5), GOOD, _bad(input_tokens="100")], times={2: "9999-06-01T00:00:00.000Z"}))
    cold = _tokens()
    assert cold[1] == [(f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 2 such values in this file)", 4),
                       (f"{TIME_HEAD}: '9999-06-01T00:00:00.000Z'", 6)]
    # Lines 10, 12 and 14 bad, line 16 dated in the year 1.
    _append(path, _turns([_bad(cache_read_input_tokens=1e30), _bad(output_tokens=True), _bad(output_tokens=3.7), GOOD],
                         start=4, times={7: "0001-01-01T00:00:00.000Z"}))
    starts.clear()
    warm = _tokens()
    assert starts and all(start > 0 for start in starts)  # (only the tail was read)
    assert warm == _tokens("--no-cache") == _tokens()
    assert warm[1] == [(f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 5 such values in this file)", 4),
                       (f"{TIME_HEAD}: '9999-06-01T00:00:00.000Z' (the first of 2 such values in this file)", 6)]
    # And once more: the state kept by the resumed read goes on too.
    _append(path, _turns([_bad(output_tokens=-1)], start=8))
    again = _tokens()
    assert again == _tokens("--no-cache")
    assert again[1][0] == (f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 6 such values in this file)", 4)


def test_a_bad_value_on_a_last_line_still_being_written_counts_once(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The last line, without its newline yet, is read again when the file grows: its value
    is not kept with the state, or it would count twice."""
    monkeypatch.setattr(usageparse, "RESUME_MIN_BYTES", 0)
    path = claude_session_file(isolated_home, SESSION, _turns([_bad(output_tokens=-5), GOOD]))
    path.write_bytes(path.read_bytes() + orjson.dumps(_turn(2, _bad(output_tokens=-6))[1]))  # (no newline)
    first = _tokens()
    assert first[1] == [(f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 2 such values in this file)", 2)]
    _append(path, [b"", *_turns([_bad(output_tokens=-7)], start=3)])  # (its newline, then a turn)
    grown = _tokens()
    assert grown == _tokens("--no-cache")
    assert grown[1] == [(f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 3 such values in this file)", 2)]


def test_a_first_bad_value_in_the_tail_is_said_at_its_line_in_the_file(isolated_home: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usageparse, "RESUME_MIN_BYTES", 0)
    path = claude_session_file(isolated_home, SESSION, _turns([GOOD, GOOD]))
    assert _tokens()[1] == []
    _append(path, _turns([GOOD, _bad(output_tokens=-2), _bad(output_tokens=-3)], start=2))
    grown = _tokens()
    assert grown == _tokens("--no-cache")
    assert grown[1] == [(f"{USAGE_HEAD}: output_tokens is -2, counted as 0 (the first of 2 such values in this file)", 8)]


# -- list: a large transcript's row pass read on from its kept state (``rowresume``) ----------


def _list(*args: str) -> tuple[Any, list]:
    report = cli_json("list", *args)
    return [(row["id"], row["tokens"]) for row in report["sessions"]], _told(report)


def test_a_resumed_row_pass_says_what_a_read_of_the_whole_says(isolated_home: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)  # (a state kept for a transcript of any size)
    loaded = record_results(monkeypatch, rowresume, "load", lambda resumed: resumed is not None)
    path = claude_session_file(isolated_home, SESSION, _turns([_bad(output_tokens=-5), GOOD, _bad(output_tokens=-6)]))
    cold = _list()
    assert cold[1] == [(f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 2 such values in this file)", 2)]
    assert not any(loaded)  # (the cold pass read the file whole: no state yet)
    _append(path, _turns([GOOD, _bad(input_tokens=-1)], start=3))
    read_before = len(loaded)
    warm = _list()
    assert loaded[read_before:] == [True]  # the warm row's pass went on from the cold one's state
    assert warm == _list("--no-cache") == _list()
    assert warm[1] == [(f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 3 such values in this file)", 2)]


# -- a huge transcript read by halves -------------------------------------------------------


def _halves_file(home: Path, *, bad_time: bool = False) -> Path:
    """Twenty turns, bad values on either side of the middle (the first at line 6);
    ``bad_time``: and the prompt of line 9 dated in the year 9999."""
    usages = [GOOD] * 20
    for n, bad in ((2, _bad(output_tokens=-5)), (5, _bad(input_tokens="9")), (14, _bad(output_tokens=2.5)),
                   (17, _bad(cache_creation_input_tokens=-1))):
        usages[n] = bad
    records = _turns(usages)
    if bad_time:
        records[8]["timestamp"] = "9999-06-01T00:00:00.000Z"
    return claude_session_file(home, SESSION, records)


HALVES_SAID = [(f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 4 such values in this file)", 6)]


def test_tokens_by_halves_says_what_the_one_pass_says(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _halves_file(isolated_home)
    taken = record_results(monkeypatch, usagehalves, "_helper_half", lambda half: half is not None)
    whole, halved = calls_whole_and_by_halves(isolated_home, monkeypatch)
    assert taken == [True]  # (the helper's half joined)
    assert halved == whole
    assert whole[2] == HALVES_SAID
    # The resume state keeps the whole file's counts: a read of what is appended goes on from them.
    assert orjson.loads(halved[1])["files"][0]["values"] == {"usage": [HALVES_SAID[0][0].split(" (")[0], 6, 4]}


def test_tokens_by_halves_with_the_second_half_read_here_says_the_same(isolated_home: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _halves_file(isolated_home)
    monkeypatch.setattr(usagehalves, "second_half", lambda *args: os._exit(3))  # (the helper gone)
    taken = record_results(monkeypatch, usagehalves, "_helper_half", lambda half: half is not None)
    whole, halved = calls_whole_and_by_halves(isolated_home, monkeypatch)
    assert taken == [False]
    assert halved == whole and whole[2] == HALVES_SAID


def _row_one_pass(path: Path) -> tuple:
    ctx = ScanContext(path.parent, {})
    totals, progress = WindowedTotals(), ReadProgress()
    summarize(path, ctx, totals=totals, progress=progress)
    return totals.total(), _listed(ctx)


def _row_by_halves(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, bool]:
    joined = record_calls(monkeypatch, halfjoin.Join, "apply", lambda *args: "joined")
    ctx = ScanContext(path.parent, {})
    data = path.read_bytes()
    seam = data.index(b'"question 10"')
    seam = data.rindex(b"\n", 0, seam) + 1  # (the start of the prompt of turn 10)
    parts = halves.Halves(path, ctx, os.stat(path), seam)
    try:
        summary, totals, progress = parts.first_half(None)
        summary, whole = parts.join(summary, totals, None, progress)
    finally:
        parts.stop()
    return (whole.total(), _listed(ctx)), bool(joined)


def _listed(ctx: ScanContext) -> list[tuple[str, int | None]]:
    return [(warning.message, warning.line) for warning in ctx.warnings.listed()]


@pytest.mark.parametrize("helper", ["joined", "gone"])
def test_a_row_pass_by_halves_says_what_the_one_pass_says(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          helper: str) -> None:
    lower_row_limits(monkeypatch, helper=True)
    if helper == "gone":
        monkeypatch.setattr(halves, "second_half", lambda *args: os._exit(3))
    path = _halves_file(isolated_home)
    halved, joined = _row_by_halves(path, monkeypatch)
    assert joined == (helper == "joined")
    assert halved == _row_one_pass(path)
    assert halved[1] == HALVES_SAID


def test_a_first_bad_value_past_the_seam_is_said_at_its_line_in_the_file(isolated_home: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch, helper=True)
    path = claude_session_file(isolated_home, SESSION, _turns([GOOD] * 12 + [_bad(output_tokens=-3), GOOD,
                                                               _bad(output_tokens=-4)]))
    halved, joined = _row_by_halves(path, monkeypatch)
    assert joined and halved == _row_one_pass(path)
    assert halved[1] == [(f"{USAGE_HEAD}: output_tokens is -3, counted as 0 (the first of 2 such values in this file)", 26)]
    whole, by_halves = calls_whole_and_by_halves(isolated_home, monkeypatch)
    assert by_halves == whole and whole[2] == halved[1]


def _row_warnings(home: Path, cache: str) -> tuple:
    env = {"HOME": str(home), "AGENTSCAN_CACHE_DIR": str(home.parent / cache)}
    with Scanner(env=env, use_cache=False) as scanner:
        row = scanner.all_rows()[0]
        return row.tokens, [(warning.message, warning.line) for warning in scanner.ctx.warnings.items]


@pytest.mark.parametrize("helper", ["answers", "gone"])
def test_a_row_pass_beside_a_side_pass_says_what_the_one_pass_says(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch, helper: str) -> None:
    """This process's pass reads a call's usage only until the row has some, the side pass
    every call's: the usage values are the side pass's, the times this pass's, said as one."""
    lower_row_limits(monkeypatch, helper=True)
    no_halves(monkeypatch)
    if helper == "gone":
        def gone(self: helperproc.Helper) -> None:
            self.stop()
            raise helperproc.HelperGone("killed")

        monkeypatch.setattr(helperproc.Helper, "receive", gone)
    _halves_file(isolated_home, bad_time=True)
    taken = record_calls(monkeypatch, sidepass.SidePass, "take", lambda *args: "taken")
    split_huge_passes(monkeypatch, True)
    split = _row_warnings(isolated_home, "split")
    assert taken
    split_huge_passes(monkeypatch, False)
    assert split == _row_warnings(isolated_home, "one")
    assert split[1] == [*HALVES_SAID, (f"{TIME_HEAD}: '9999-06-01T00:00:00.000Z'", 9)]


# -- Claude's advisor and web search counts: told in the same warning -------------------------


def test_bad_iterations_and_web_search_counts_are_one_warning_of_the_file(isolated_home: Path) -> None:
    advisor = {"type": "advisor_message", "model": "claude-opus-4-1", "input_tokens": 100, "output_tokens": -4}
    records = _turns([
        _bad(output_tokens=-5),
        {**GOOD, "iterations": [{"type": "message"}, advisor]},
        {**GOOD, "server_tool_use": {"web_search_requests": "2"}},
        {**GOOD, "iterations": [{"type": "message"}, "no entry"]},
        {**GOOD, "server_tool_use": [1]},
    ])
    claude_session_file(isolated_home, SESSION, records)
    report = cli_json("tokens", "--by", "model")
    assert [(w["message"], w["line"]) for w in report["warnings"]] == [
        (f"{USAGE_HEAD}: output_tokens is -5, counted as 0 (the first of 5 such values in this file)", 2)]
    # The totals are those of the values as they were taken (the advisor's output 0, no searches).
    by_model = {row["key"]: row["tokens"] for row in report["rows"]}
    assert by_model[MODEL]["output"] == 4 * 2 and by_model["claude-opus-4-1"]["input"] == 100
    assert by_model["claude-opus-4-1"]["output"] == 0
