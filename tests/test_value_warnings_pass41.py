"""Bad usage values and out-of-range times are told, once a file, and count as they always did.

A usage value that is no token count (``-5``, ``1e30``, ``"100"``, ``true``, ``3.7``, a count
past ``bounds.MAX_TOKEN_COUNT``) counts 0 or its whole part, and a time that parses but lies
outside 1970-01-02 .. 9997 is unknown.  Both used to pass without a word; now each file says
its first one, at its line, with how many there were (``toolkit.valuewarnings``), on a cold
run, a warm one (from the index) and without the cache, and the totals do not move: a file
of bad values counts exactly what a file of the values it was taken as counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, tokens_every_way
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, write_rollout
from gemini_builders import gemini, tokens, user, write_chat
from gemini_builders import meta as gemini_meta

from agentscan.toolkit.valuewarnings import TIME_HEAD, USAGE_HEAD

BAD, GOOD = "a4100000-0000-4000-8000-0000000000b1", "a4100000-0000-4000-8000-0000000000a1"


def _said(report: dict, head: str) -> list[tuple[str, str, int | None]]:
    return [(Path(w["path"]).name, w["message"], w["line"]) for w in report["warnings"] if w["message"].startswith(head)]


def _rows(report: dict) -> dict[str, dict]:
    return {row["key"].split(":", 1)[1]: row["tokens"] for row in report["rows"]}


def _claude(home: Path, session: str, usages: list[dict], *, times: list[str] | None = None) -> Path:
    records: list[Any] = [claude_user(session, "2026-08-01T10:00:00.000Z", "count this", uuid=f"{session[-2:]}u")]
    for index, counts in enumerate(usages):
        ts = times[index] if times else f"2026-08-01T10:{index // 60:02d}:{index % 60:02d}.000Z"
        records.append(claude_assistant(session, ts, msg_id=f"msg_{session[-2:]}_{index}",
                                        request_id=f"req_{session[-2:]}_{index}", usage=counts,
                                        uuid=f"{session[-2:]}a{index}"))
    return claude_session_file(home, session, records)


@pytest.mark.parametrize(("bad", "counted"), [(-5, 0), (1e30, 0), ("100", 0), (True, 0), (3.7, 3), (10**13, 0), (7.0, 7)])
def test_a_claude_usage_value_that_is_no_count_is_told_and_counts_as_before(
        isolated_home: Path, bad: object, counted: int) -> None:
    _claude(isolated_home, BAD, [claude_usage(input=10, output=bad, cache_read=4)] * 3)  # type: ignore[arg-type]
    _claude(isolated_home, GOOD, [claude_usage(input=10, output=counted, cache_read=4)] * 3)
    for report in tokens_every_way():
        rows = _rows(report)
        assert rows[BAD] == rows[GOOD]  # (the value counts what it always did)
        assert _said(report, USAGE_HEAD) == [
            (f"{BAD}.jsonl", f"{USAGE_HEAD}: output_tokens is {bad!r}, counted as {counted} "
                             "(the first of 3 such values in this file)", 2)]
        assert len(report["warnings"]) == 1  # (the good file says nothing)


def test_a_file_of_ten_thousand_bad_values_says_one_warning(isolated_home: Path) -> None:
    _claude(isolated_home, BAD, [claude_usage(input=1, output=2)] * 3 + [claude_usage(input=1, output=-5)] * 10_000)
    for report in tokens_every_way():
        assert report["warnings"] == [{"path": str(isolated_home / ".claude/projects/-home-dev-project" / f"{BAD}.jsonl"),
                                       "message": f"{USAGE_HEAD}: output_tokens is -5, counted as 0 "
                                                  "(the first of 10,000 such values in this file)", "line": 5}]
        assert report["total"]["input"] == 10_003 and report["total"]["output"] == 6


def test_one_bad_value_says_no_count(isolated_home: Path) -> None:
    _claude(isolated_home, BAD, [claude_usage(input=1, output=2), claude_usage(input=1, output=2, cache_read=-1)])
    assert _said(cli_json("tokens"), USAGE_HEAD) == [
        (f"{BAD}.jsonl", f"{USAGE_HEAD}: cache_read_input_tokens is -1, counted as 0", 3)]


def test_valid_usage_says_nothing(isolated_home: Path) -> None:
    _claude(isolated_home, GOOD, [claude_usage(input=10, output=3, cache_read=4, cache_write=2)] * 5)
    for report in tokens_every_way():
        assert report["warnings"] == []


CODEX = "0199a000-0000-7000-8000-0000000041b1"
CODEX_GOOD = "0199a000-0000-7000-8000-0000000041a1"


def _codex(home: Path, thread: str, outputs: list[object], *, last_time: str | None = None, start: int = 0) -> None:
    """A rollout whose running totals hold ``outputs`` as their output counts (one call of
    100 input tokens each), the last event dated ``last_time`` when given; ``start``: its
    seconds after ``at(0)`` (two threads' calls at the same times would be one call's copies)."""
    records: list[Any] = [meta(thread, at(start)), turn_context(at(start + 1))]
    for index, output in enumerate(outputs):
        total = usage(100 * (index + 1), output=0)
        total["output_tokens"] = output  # type: ignore[assignment]
        moment: Any = last_time if last_time is not None and index == len(outputs) - 1 else at(start + 2 + index)
        records.append(token_count(moment, total, usage(100, output=1)))
    write_rollout(rollout_path(home / ".codex", thread, at(start)), records)


def test_codex_running_totals_of_fractions_are_told_and_count_as_before(isolated_home: Path) -> None:
    _codex(isolated_home, CODEX, [2.5, 5.5, 7.25, -3])
    _codex(isolated_home, CODEX_GOOD, [2, 5, 7, 0], start=100)
    for report in tokens_every_way():
        rows = _rows(report)
        assert rows[CODEX] == rows[CODEX_GOOD]
        assert [message for _, message, _ in _said(report, USAGE_HEAD)] == [
            f"{USAGE_HEAD}: output_tokens is 2.5, counted as 2 (the first of 4 such values in this file)"]
        assert _said(report, USAGE_HEAD)[0][2] == 3


def test_codex_digit_strings_some_builds_wrote_are_no_warning(isolated_home: Path) -> None:
    _codex(isolated_home, CODEX, ["2", "5"])
    _codex(isolated_home, CODEX_GOOD, [2, 5], start=100)
    report = cli_json("tokens")
    assert _rows(report)[CODEX] == _rows(report)[CODEX_GOOD]
    # (Both files' totals grow by more than their calls' one output token: each says so, since
    # pass 51 (``counters.jumped``); the digit strings add no warning of their own.)
    said = {}
    for warning in report["warnings"]:
        said.setdefault(CODEX if CODEX in warning["path"] else CODEX_GOOD, []).append(warning["message"])
    assert said.get(CODEX) == said.get(CODEX_GOOD)
    assert not [message for message in said.get(CODEX, []) if "running total" not in message]


def test_codex_time_past_the_range_is_told_and_unknown(isolated_home: Path) -> None:
    _codex(isolated_home, CODEX, [1, 2], last_time="9999-12-31T23:59:59+14:00")
    for report in tokens_every_way("--by", "day"):
        assert _said(report, TIME_HEAD) == [
            (Path(str(rollout_path(isolated_home / ".codex", CODEX, at(0)))).name,
             f"{TIME_HEAD}: '9999-12-31T23:59:59+14:00'", 4)]
        assert "unknown" in [row["key"] for row in report["rows"]]


def test_claude_times_outside_the_range_are_told_once(isolated_home: Path) -> None:
    times = ["0001-01-01T00:00:00.000Z", "2026-08-01T10:00:01.000Z", "9999-01-01T00:00:00.000Z"]
    _claude(isolated_home, BAD, [claude_usage(input=1, output=1)] * 3, times=times)
    for report in tokens_every_way("--by", "day"):
        assert _said(report, TIME_HEAD) == [
            (f"{BAD}.jsonl", f"{TIME_HEAD}: '0001-01-01T00:00:00.000Z' (the first of 2 such values in this file)", 2)]
        days = {row["key"]: row["tokens"]["total"] for row in report["rows"]}
        assert days == {"2026-08-01": 2, "unknown": 4}


def test_gemini_token_values_are_told_and_count_as_before(isolated_home: Path) -> None:
    def chat(session: str, output: object, name: str) -> None:
        counts: dict[str, Any] = tokens(100, 10, cached=20, thoughts=5)
        counts["output"] = output
        write_chat(isolated_home, "proj", name, [
            gemini_meta(session), user("u1", "2026-05-01T10:00:00.000Z", "hello"),
            gemini("g1", "2026-05-01T10:00:01.000Z", "hi", usage=counts),
            gemini("g2", "2026-05-01T10:00:02.000Z", "hi", usage=counts)])

    chat("9a410000-0000-4000-8000-0000000000b1", -5, "session-2026-05-01T10-00-9a4100b1.jsonl")
    chat("9a410000-0000-4000-8000-0000000000a1", 0, "session-2026-05-01T10-00-9a4100a1.jsonl")
    for report in tokens_every_way():
        rows = _rows(report)
        assert rows["9a410000-0000-4000-8000-0000000000b1"] == rows["9a410000-0000-4000-8000-0000000000a1"]
        assert _said(report, USAGE_HEAD) == [("session-2026-05-01T10-00-9a4100b1.jsonl",
                                              f"{USAGE_HEAD}: tokens.output is -5, counted as 0 "
                                              "(the first of 2 such values in this file)", 3)]


class _Said:
    """A context's ``warn`` alone: what a tally says."""

    def __init__(self) -> None:
        self.warnings: list[tuple[object, str, int | None]] = []

    def warn(self, path: object, message: str, line: int | None = None) -> None:
        self.warnings.append((path, message, line))


def test_epoch_numbers_and_times_past_the_range_are_noted_and_stay_unknown() -> None:
    from agentscan.timeutil import epoch_of_iso, from_epoch, parse_iso
    from agentscan.toolkit.valuewarnings import close_tally, open_tally

    said = _Said()
    tally = open_tally("f.jsonl", said)  # type: ignore[arg-type]
    tally.line = 7
    assert from_epoch(10**20) is None and from_epoch(4e15) is None  # (past any date; ms past 9997)
    tally.line = 9
    assert parse_iso("0001-01-01T00:00:00Z") is None and epoch_of_iso("9999-06-01T00:00:00.000Z") is None
    assert from_epoch(0) is None and parse_iso("not a time") is None  # (no time at all: nothing to tell)
    assert from_epoch(1_780_000_000) is not None  # (2026: a time)
    close_tally(tally, finished=True)
    assert said.warnings == [("f.jsonl", f"{TIME_HEAD}: 100000000000000000000 (the first of 4 such values in this file)", 7)]


def test_a_read_stopped_early_says_nothing_and_no_read_open_takes_nothing(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.toolkit.jsonl import iter_json_lines
    from agentscan.toolkit.valuewarnings import note_usage

    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n')
    ctx = ScanContext(tmp_path, {})
    note_usage("input_tokens", -1, 0)  # (no read open: nowhere to tell it, and no error)
    for _ in iter_json_lines(path, ctx):
        note_usage("input_tokens", -1, 0)
        break
    assert ctx.warnings.items == []
    for _ in iter_json_lines(path, ctx):
        note_usage("input_tokens", -1, 0)
    assert [(w.message, w.line) for w in ctx.warnings.items] == [
        (f"{USAGE_HEAD}: input_tokens is -1, counted as 0 (the first of 2 such values in this file)", 1)]


def test_show_tells_one_bad_time_once(isolated_home: Path) -> None:
    """``show`` reads a record's time twice (its row's pass and its detail): one value, one count."""
    import orjson as _orjson

    from builders import claude_session_file as _file, claude_user as _user, invoke as _invoke

    session = "b0d00000-0000-4000-8000-000000000041"
    _file(isolated_home, session, [_user(session, "2026-08-01T10:00:00.000Z", "go"),
                                   _user(session, "9998-06-01T00:00:00Z", "later")])
    result = _invoke("show", f"claude:{session}", "--json")
    warnings = [w["message"] for w in _orjson.loads(result.stdout)["warnings"] if "outside the supported range" in w["message"]]
    assert len(warnings) == 1 and "such values" not in warnings[0], warnings
