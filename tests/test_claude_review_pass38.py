"""Three problems a review of pass 38's Claude work found.

* A call whose ``usage.iterations`` (or ``server_tool_use``) is malformed is warned about
  at its line; the token scan (``filescan``) counted that line by reading the file again
  from the pass's start, for every such call: 8,000 of them in a 39 MB transcript took
  ``tokens`` 64 s instead of 0.3 s.  The lines are now counted on from the last one
  (since pass 42 by the reader's own tally, ``valuewarnings``: one warning a file).
* A ``compact_boundary`` dated far ahead (a clock set to 2100) made every later record one
  to look up as a copy (``seenuuids``): a resumed row cannot tell, so every later run read
  the transcript whole.  A copy keeps the time of a record read before the boundary, so
  the records looked up are those dated no later than the newest such one.
* ``show`` named a subagent that consulted an advisor on every call by the advisor's
  model: its advisor's calls tied with its own, and had the more tokens.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any

import pytest

from agentscan.bounds import Bounds
from agentscan.context import ScanContext
from agentscan.providers.claude import rowpass
from agentscan.providers.claude.filescan import scan_file
from agentscan.providers.claude.seenuuids import copies_before
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import jsonl
from agentscan.toolkit.valuewarnings import USAGE_HEAD
from builders import claude_assistant, claude_base, claude_session_file, claude_subagent_file, claude_usage, claude_user
from claude_events import cli_json_at, forward_and_from_end, lines_of, lower_row_limits
from spies import record_calls

# -- the line of a malformed call, found in linear time -----------------------------

BAD = "b3800000-0000-4000-8000-000000000001"
PAD = "x" * 500


def _bad_calls(home: Path, count: int) -> Path:
    """``count`` turns, every reply's ``usage.iterations`` an object, not a list."""
    records = []
    for n in range(count):
        ts = f"2026-08-01T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        records.append(claude_user(BAD, ts, f"prompt {n} {PAD}", uuid=f"u{n}"))
        records.append(claude_assistant(BAD, ts, msg_id=f"msg_{n}", request_id=f"req_{n}", uuid=f"a{n}",
                                        usage=claude_usage(input=1, output=2, iterations={"type": "advisor_message"}),
                                        blocks=[{"type": "text", "text": f"ok {PAD}"}]))
    return claude_session_file(home, BAD, records)


class _Counted:
    """A file opened by ``open_binary``, the bytes read from it noted."""

    def __init__(self, handle: IO[bytes], read: list[int]) -> None:
        self._handle, self._read = handle, read

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size)
        self._read.append(len(data))
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> _Counted:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


def _bytes_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    read: list[int] = []
    real = jsonl.open_binary
    monkeypatch.setattr(jsonl, "open_binary", lambda path, *args: _Counted(real(path, *args), read))
    return read


def test_the_lines_of_many_malformed_calls_cost_one_more_read_of_the_file(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    count = 300
    path = _bad_calls(tmp_path, count)
    size = path.stat().st_size
    read = _bytes_read(monkeypatch)
    scanned = scan_file(path, ScanContext.create(home=tmp_path), subagent=None, base=0)
    assert len(scanned.calls) == count
    # The pass's own read, and at most one more to number the lines: not a read from the
    # start for each call (150 times the file here).
    assert sum(read) <= 2 * size + 1024
    # Told once for the file (``valuewarnings``): the first at its reply's line, and how many.
    assert [(warning.message, warning.line) for warning in scanned.warnings] == [
        (f"{USAGE_HEAD}: iterations is {{'type': 'advisor_message'}}, counted as 0 "
         f"(the first of {count} such values in this file)", 2)]


def test_a_resumed_scan_numbers_the_lines_from_where_it_resumes(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = _bad_calls(tmp_path, 200)
    data = path.read_bytes()
    start = sum(len(line) for line in data.splitlines(keepends=True)[:300])  # 150 turns read before
    read = _bytes_read(monkeypatch)
    scanned = scan_file(path, ScanContext.create(home=tmp_path), subagent=None, base=0, start=start, lines_before=300)
    assert len(scanned.calls) == 50
    assert sum(read) <= 2 * (len(data) - start) + 1024
    assert [(warning.message, warning.line) for warning in scanned.warnings] == [
        (f"{USAGE_HEAD}: iterations is {{'type': 'advisor_message'}}, counted as 0 "
         "(the first of 50 such values in this file)", 302)]


def test_tokens_says_the_same_warnings_of_malformed_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _bad_calls(tmp_path / "home", 30)
    report = cli_json_at(tmp_path, monkeypatch, "tokens", "--no-cache")
    said = [(warning.get("line"), warning["message"]) for warning in report["warnings"]]
    assert said == [(2, f"{USAGE_HEAD}: iterations is {{'type': 'advisor_message'}}, counted as 0 "
                        "(the first of 30 such values in this file)")]


# -- a compaction dated far ahead ---------------------------------------------------

FUTURE = "d3800000-0000-4000-8000-000000000001"


def _turn(n: int) -> list[dict]:
    ts = f"2026-09-01T11:{n:02d}:00.000Z"
    return [claude_user(FUTURE, ts, f"q{n}", uuid=f"u{n}"),
            claude_assistant(FUTURE, ts, msg_id=f"m{n}", request_id=f"r{n}", uuid=f"a{n}",
                             usage=claude_usage(input=1, output=1))]


def _boundary(at: str) -> dict:
    return {**claude_base(FUTURE, at, uuid="cb"), "type": "system", "subtype": "compact_boundary",
            "content": "Conversation compacted"}


@pytest.mark.parametrize("at", ["2100-01-01T00:00:00.000Z", "2026-09-01T11:00:30.000Z"])
def test_resumed_rows_stay_resumed_after_a_compaction_dated_far_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      at: str) -> None:
    lower_row_limits(monkeypatch)
    passes = record_calls(monkeypatch, rowpass, "_one_row_pass",
                          lambda path, ctx, facts, before, keeping, resumed, more: "whole" if resumed is None else "resumed")
    path = claude_session_file(tmp_path / "home", FUTURE, [*_turn(0), _boundary(at)])
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    for n in range(1, 5):
        with path.open("ab") as handle:
            handle.write(lines_of(_turn(n)))
        with Scanner(env=env, use_cache=True) as scanner:
            assert scanner.all_rows()[0].to_json()["counts"]["prompts"] == n + 1
    assert passes == ["whole", "resumed", "resumed", "resumed"]


def test_a_copy_after_a_compaction_dated_far_ahead_is_still_skipped(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)
    copy = _turn(0)[0]  # the first prompt again, its uuid and time its own
    records = [*_turn(0), *_turn(1), _boundary("2100-01-01T00:00:00.000Z"), *_turn(2), copy, *_turn(3)]
    claude_session_file(tmp_path / "home", FUTURE, records)
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    with Scanner(env=env, use_cache=False) as scanner:
        assert scanner.all_rows()[0].to_json()["counts"]["prompts"] == 4


def test_copies_are_looked_for_no_later_than_the_newest_record_before_the_compaction() -> None:
    utc = timezone.utc
    newest, boundary = datetime(2026, 9, 1, 11, tzinfo=utc), datetime(2100, 1, 1, tzinfo=utc)
    cutoff = copies_before(boundary, newest)
    assert newest < cutoff <= newest + timedelta(microseconds=1)  # ``timestamp < cutoff``: no later than it
    assert copies_before(newest, boundary) == newest  # never past the boundary's own time
    assert copies_before(boundary, None) == boundary  # nothing timed read before it (or a second half's)


# -- a subagent's model, not its advisor's ------------------------------------------

SESSION = "c3800000-0000-4000-8000-000000000001"
MAIN, ADVISOR = "claude-sonnet-4-6", "claude-opus-4-7"


def _advised(ts: str, msg_id: str, *, agent: str | None = None) -> dict:
    usage = claude_usage(input=3, output=40, cache_read=1000, iterations=[
        {"type": "message", "input_tokens": 1, "output_tokens": 5},
        {"type": "advisor_message", "model": ADVISOR, "input_tokens": 5000, "output_tokens": 700},
        {"type": "message", "input_tokens": 2, "output_tokens": 35}])
    extra: dict[str, Any] = {"sidechain": True, "agentId": agent} if agent else {}
    return claude_assistant(SESSION, ts, msg_id=msg_id, request_id=f"req_{msg_id}", model=MAIN, usage=usage,
                            blocks=[{"type": "text", "text": f"reply {msg_id}"}], uuid=f"uuid_{msg_id}",
                            advisorModel=ADVISOR, **extra)


def _advised_session(home: Path) -> None:
    at = "2026-09-01T10:00:{:02d}.000Z".format
    claude_session_file(home, SESSION, [claude_user(SESSION, at(0), "first prompt", uuid="u1"),
                                        _advised(at(1), "msg_1"), _advised(at(2), "msg_2")])
    claude_subagent_file(home, SESSION, "agent0001", [
        claude_user(SESSION, at(3), "look", uuid="su1", sidechain=True, agentId="agent0001"),
        _advised(at(4), "msg_s1", agent="agent0001"), _advised(at(5), "msg_s2", agent="agent0001")])


def test_show_names_a_subagent_that_consulted_an_advisor_on_every_call_by_its_own_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _advised_session(tmp_path / "home")
    session = cli_json_at(tmp_path, monkeypatch, "show", SESSION[:8])["session"]
    assert session["model"] == MAIN
    assert [(sub["id"], sub["model"]) for sub in session["subagents"]] == [("agent0001", MAIN)]
    # The advisor's calls are still counted, on its model.
    models = {row["key"] for row in cli_json_at(tmp_path, monkeypatch, "tokens", "--by", "model")["rows"]}
    assert ADVISOR in models and MAIN in models
    [row] = cli_json_at(tmp_path, monkeypatch, "list")["sessions"]
    assert row["model"] == MAIN


def test_show_from_a_huge_transcript_s_end_names_the_subagent_s_own_model(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider as claude_provider

    home = tmp_path / "home"
    _advised_session(home)
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    forward, tail, _ = forward_and_from_end(home, Bounds())
    assert tail is not None and [(sub.id, sub.model) for sub in tail.subagents] == [("agent0001", MAIN)]
    assert tail.subagents == forward.subagents

