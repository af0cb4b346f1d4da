"""A Codex ``token_count`` whose counters are no number at all (``null``, ``"x"``, a list: no build
of Codex wrote one, its ``TokenUsage`` holds integers, and Codex cannot read such a line back)
read as zeros: its running total dropped, a restart, and the totals after it counted on from
it, so a rollout of totals alone counted its whole next total as one call (1,000 tokens more
than its calls).  Such counters are none: the running total stays where it was (the next
total's growth counts what the event skipped), a call of them is none, and the file says
one warning; every read agrees (cold, warm, without the index).  Digit strings (``"100"``)
stay counts, as some builds wrote them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscan.toolkit.valuewarnings import USAGE_HEAD
from builders import cli_json as _json
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, write_rollout

S = "019c4242-0000-7000-8000-0000000000d1"
#: counters of no number (with a digit string among them, a count)
GARBAGE: dict[str, Any] = {"input_tokens": "100", "cached_input_tokens": None, "output_tokens": None,
                           "reasoning_output_tokens": None, "total_tokens": "100"}


def _write(home: Path, *, logged: bool) -> None:
    """Four calls of 1,000 input and 100 output tokens; a garbage ``token_count`` after the
    second; ``logged``: each with its ``last_token_usage`` (else totals alone, as older builds)."""
    def call(index: int) -> dict:
        return token_count(at(10 + index), usage(1000 * index, output=100 * index),
                           usage(1000, output=100) if logged else None)

    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), call(1), call(2),
               token_count(at(13), GARBAGE, GARBAGE if logged else None), call(3), call(4)]
    write_rollout(rollout_path(home / ".codex", S, at(0)), records)


def _read_every_way() -> list[tuple[dict, dict]]:
    """``tokens`` and ``list`` cold, warm and without the index."""
    return [(_json("tokens", S, *args), _json("list", "--all", *args)) for args in [(), (), ("--no-cache",)]]


def _usage_said(report: dict) -> list[str]:
    return [warning["message"] for warning in report["warnings"]]


def test_a_garbage_total_among_totals_alone_keeps_the_running_base(isolated_home: Path) -> None:
    _write(isolated_home, logged=False)
    where = "total_token_usage"
    for report, listed in _read_every_way():
        assert report["total"]["total"] == 4 * 1100
        (row,) = listed["sessions"]
        assert row["tokens"] == report["total"]
        assert _usage_said(report) == _usage_said(listed) == [
            f"{USAGE_HEAD}: cached_input_tokens is null: this {where} is not read"]


def test_a_garbage_call_counts_nothing_and_moves_no_total(isolated_home: Path) -> None:
    """With ``last_token_usage`` too: the garbage call (100 input tokens read of ``"100"``) is
    none, and the totals after it move by their calls (no warning that they do not)."""
    _write(isolated_home, logged=True)
    for report, listed in _read_every_way():
        assert report["total"]["total"] == 4 * 1100
        (row,) = listed["sessions"]
        assert row["tokens"] == report["total"]
        # (the call's counts are read first, then the total's: two unread, one line)
        assert _usage_said(report) == _usage_said(listed) == [
            f"{USAGE_HEAD}: cached_input_tokens is null: this last_token_usage is not read"
            " (the first of 2 such values in this file)"]


def test_digit_strings_alone_stay_a_count(isolated_home: Path) -> None:
    """A total of digit strings is a count: here one that went down, a restart (the rule as ever).
    It guards existing behaviour (it passes on the commit before the unread counters)."""
    digits = {key: str(value) for key, value in usage(100, output=10).items()}
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"),
               token_count(at(10), usage(1000, output=100), usage(1000, output=100)),
               token_count(at(11), digits, digits)]
    write_rollout(rollout_path(isolated_home / ".codex", S, at(0)), records)
    for report, listed in _read_every_way():
        assert report["total"]["total"] == 1100 + 110
        assert listed["sessions"][0]["tokens"] == report["total"]
        assert not [m for m in _usage_said(report) if m.startswith(USAGE_HEAD)]


def test_a_call_written_again_without_a_total_counts_once_in_a_row(isolated_home: Path) -> None:
    """A call with no running total, its line written twice (time and count alike): ``tokens``
    counts it once (``usage.UsageDeduper``), and a row, which counts such a file's calls, did
    twice (3,300 where ``tokens`` said 2,200)."""
    again = token_count(at(10), None, usage(1000, output=100))
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), again, again,
               token_count(at(11), None, usage(1000, output=100))]
    write_rollout(rollout_path(isolated_home / ".codex", S, at(0)), records)
    for report, listed in _read_every_way():
        assert report["total"]["total"] == 2 * 1100
        assert listed["sessions"][0]["tokens"] == report["total"]
