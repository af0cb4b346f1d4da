"""A Claude row's pass, made quicker (the seventeenth pass, docs/performance.md), reads
what it read before:

* ``jsonl.iter_json_records`` gives ``iter_json_lines``' records and warnings, and a
  line is decoded as read, stripped only when that fails (``strip`` takes more than
  JSON's whitespace: a form feed around a record still reads);
* ``row.summarize`` notes each record's time, cwd and branch inline: its first and
  last times and its branch are what the rule over every record gives;
* its calls take their time from the record's time it already read: the epoch
  ``epoch_of_iso`` gives, for every form of time.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.usage import C_TS
from agentscan.timeutil import epoch_of_iso, parse_iso
from agentscan.toolkit.jsonerrors import line_json_error
from agentscan.toolkit.jsonl import iter_json_lines, iter_json_records
from agentscan.toolkit.jsonkinds import json_kind
from builders import claude_assistant, claude_usage, claude_user, raw_lines_file, write_jsonl
from conftest_hypothesis import FUZZ
from zones import in_each_zone

LINES = st.one_of(
    st.just(b'{"type":"user","n":1}'),
    st.just(b'\x0c{"type":"user","n":2}\x0b'),  # bytes.strip()'s whitespace, not JSON's
    st.just(b' \t{"n":3}\r'),
    st.just(b"\x0c"),
    st.just(b""),
    st.just(b"   "),
    st.just(b'["not", "an object"]'),
    st.just(b'{"broken": '),
    st.just(b'\x0c{"broken": '),
    st.builds(lambda n: b'{"pad":"' + b"y" * n + b'"}', st.integers(0, 120)),
)


def _warnings(ctx: ScanContext) -> list[tuple[str, int | None]]:
    return [(w.message, w.line) for w in ctx.warnings.items]


def _read_as_before(path: Path) -> tuple[list[dict], list[tuple[str, int | None]]]:
    """The line reader's rule before this pass, written out: each line stripped, a blank one
    skipped, the rest decoded; what does not decode, or is not an object, is a warning."""
    data = path.read_bytes()
    if not data:
        return [], [("empty file", None)]
    records, warnings = [], []
    lines = data.split(b"\n")
    ended = [True] * (len(lines) - 1) + [False]
    if lines[-1] == b"":
        lines, ended = lines[:-1], ended[:-1]
    for number, (line, has_newline) in enumerate(zip(lines, ended), start=1):
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        stripped = line.strip()
        if not stripped:
            continue
        try:
            record = orjson.loads(stripped)
        except orjson.JSONDecodeError as exc:
            # what is wrong with the line, in the words of every line reader, at its own column (``jsonerrors``)
            warnings.append(("invalid JSON skipped: " + line_json_error(exc, line, stripped) if has_newline
                             else "truncated last line skipped (file still being written?)", number))
            continue
        if not isinstance(record, dict):
            warnings.append((f"JSON line is {json_kind(record)}, not an object; skipped", number))
            continue
        records.append(record)
    return records, warnings


@FUZZ
@given(lines=st.lists(LINES, max_size=25), final_newline=st.booleans(), bom=st.booleans())
def test_both_readers_read_what_the_rule_before_read(tmp_path: Path, lines, final_newline, bom) -> None:
    path = raw_lines_file(tmp_path, lines, final_newline, bom)
    want, want_warnings = _read_as_before(path)
    lines_ctx, records_ctx = ScanContext.create(home=tmp_path, env={}), ScanContext.create(home=tmp_path, env={})
    assert [line.record for line in iter_json_lines(path, lines_ctx)] == want
    assert list(iter_json_records(path, records_ctx)) == want
    assert _warnings(lines_ctx) == want_warnings
    assert _warnings(records_ctx) == want_warnings


def test_whitespace_that_json_does_not_allow_around_a_record_still_reads(tmp_path: Path) -> None:
    path = raw_lines_file(tmp_path, [b'\x0c{"a":1}\x0b', b"\x0c \x0b", b' {"a":2}\r'], True, False)
    ctx = ScanContext.create(home=tmp_path, env={})
    assert list(iter_json_records(path, ctx)) == [{"a": 1}, {"a": 2}]
    assert _warnings(ctx) == []


TIMES = st.one_of(
    st.just("2026-11-01T09:00:00.000Z"),
    st.just("2026-11-01T09:00:00.123Z"),
    st.just("2026-11-01T10:30:00+02:00"),
    st.just("2026-11-01 08:59:59"),
    st.just("2026-W44-7T09:00:00.000Z"),
    st.just("0001-01-01T00:00:00.000Z"),
    st.just("yesterday"),
    st.just(""),
    st.just(1_700_000_000),
    st.none(),
    st.datetimes(min_value=datetime(1969, 12, 30), max_value=datetime(2100, 1, 1)).map(lambda moment: moment.isoformat(timespec="milliseconds") + "Z"),
)
BRANCHES = st.one_of(st.none(), st.just(""), st.just("main"), st.just("feature/x"), st.just(7))


def _record(index: int, ts: object, branch: object, cwd: object) -> dict:
    record = claude_assistant("s", "2026-11-01T09:00:00.000Z", msg_id=f"m{index}", request_id=f"r{index}",
                              usage=claude_usage(input=index + 1, output=1))
    for key, value in (("timestamp", ts), ("gitBranch", branch), ("cwd", cwd)):
        if value is None:
            del record[key]
        else:
            record[key] = value
    return record


class _Calls:
    """A ``WindowedTotals`` stand-in: the calls a pass hands it."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def add(self, call: tuple) -> None:
        self.calls.append(call)


@FUZZ
@given(items=st.lists(st.tuples(TIMES, BRANCHES, st.one_of(st.none(), st.just(""), st.just("/a"), st.just("/b"))),
                      min_size=1, max_size=12))
def test_times_branch_cwd_and_call_times_follow_the_rule_over_every_record(tmp_path: Path, items) -> None:
    records = [_record(index, ts, branch, cwd) for index, (ts, branch, cwd) in enumerate(items)]
    path = write_jsonl(tmp_path / "s.jsonl", records)
    calls = _Calls()
    # West of UTC: a time taken as local somewhere would show.
    for _ in in_each_zone(["America/Los_Angeles"]):
        summary = summarize(path, ScanContext.create(home=tmp_path, env={}), totals=calls)  # type: ignore[arg-type]

    times = [parse_iso(ts) for ts, _, _ in items]
    known = [moment for moment in times if moment is not None]
    assert summary.first_ts == (min(known) if known else None)
    assert summary.last_ts == (max(known) if known else None)
    branches = [branch for _, branch, _ in items if isinstance(branch, str) and branch]
    assert summary.git_branch == (branches[-1] if branches else None)
    cwds = [cwd for _, _, cwd in items if isinstance(cwd, str) and cwd]
    assert summary.cwd == (cwds[0] if cwds else None)
    assert [call[C_TS] for call in calls.calls] == [epoch_of_iso(ts) for ts, _, _ in items]


BLOCKS = st.sampled_from([
    {"type": "text", "text": "fix the build"},
    {"type": "text", "text": "   "},
    {"type": "text", "text": "<command-name>/model</command-name>"},
    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
    {"type": "tool_use", "id": "toolu_2", "name": "Task", "input": {"subagent_type": "explore"}},
    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "done"},
    {"type": "thinking", "thinking": "hm"},
])
JUNK = st.sampled_from(["text", 7, None, ["nested"], True])


@FUZZ
@given(turns=st.lists(st.tuples(st.booleans(), st.lists(BLOCKS, max_size=4), st.integers(0, 3)), min_size=1, max_size=8),
       junk=st.lists(st.tuples(st.integers(0, 40), JUNK), max_size=6))
def test_what_is_no_block_in_a_content_list_counts_for_nothing(tmp_path: Path, turns, junk) -> None:
    """Content lists are read where they are: an item that is no block is skipped, as it
    was when every list was copied without them first."""
    records = []
    for index, (assistant, blocks, message) in enumerate(turns):
        ts = f"2026-11-01T09:00:{index:02d}.000Z"
        if assistant:
            records.append(claude_assistant("s", ts, msg_id=f"m{message}", request_id="r", usage=None, blocks=list(blocks)))
        else:
            records.append(claude_user("s", ts, list(blocks)))
    clean = write_jsonl(tmp_path / "clean.jsonl", records)
    for position, item in junk:
        content = records[position % len(records)]["message"]["content"]
        content.insert(position % (len(content) + 1), item)
    dirty = write_jsonl(tmp_path / "dirty.jsonl", records)

    def facts(path: Path) -> tuple:
        summary = summarize(path, ScanContext.create(home=tmp_path, env={}))
        return summary.prompts, summary.responses, summary.tool_calls, summary.first_prompt, summary.pending_tasks

    assert facts(dirty) == facts(clean)
