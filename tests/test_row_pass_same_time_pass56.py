"""A row pass parses a time string once for a run of records written in the same millisecond.

``row.summarize`` keeps the last time string it parsed and its time (a tool's result, its
progress records and a reply's next part share their time: two records in five of the bench's
1 GB transcript).  The shortcut must answer exactly what parsing each record's string does:
a compaction dated as the record before it still takes that time as the newest read before it
(``copies_before``: the record did not raise ``last_ts``, though it holds the very time the
record before raised it to), an implausible time is told for each record as before (only a
time taken is remembered), and a record of another time is parsed.
"""

from __future__ import annotations

from pathlib import Path

from agentscan.context import ScanContext
from agentscan.providers.claude import row as row_module
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.seenuuids import copies_before
from agentscan.timeutil import parse_iso
from agentscan.toolkit.valuewarnings import TIME_HEAD
from claude_events import lines_of
from test_claude_compact_copies_pass38 import _home, _prompt, _rec, _reply


def _summary(tmp_path: Path, records: list[dict]):
    path = _home(tmp_path, records)
    ctx = ScanContext(tmp_path / "home", {})
    return summarize(path, ctx), ctx


def test_a_compaction_dated_as_the_record_before_it_takes_that_time_as_the_newest_before(tmp_path: Path) -> None:
    # The prompt raises the newest time to 10:00:05; the boundary after it holds the same
    # string: the newest time read before the boundary is 10:00:05 (not the 10:00:00 before
    # the prompt), so its copies are those dated before 10:00:05 itself.
    records = [
        _prompt("u1", None, "2026-09-01T10:00:00.000Z", "first"),
        _prompt("u2", "u1", "2026-09-01T10:00:05.000Z", "second"),
        _rec(type="system", subtype="compact_boundary", uuid="cb1", parentUuid=None,
             timestamp="2026-09-01T10:00:05.000Z", content="Conversation compacted",
             compactMetadata={"trigger": "manual", "preTokens": 5000}),
    ]
    summary, _ = _summary(tmp_path, records)
    assert summary.compacted == parse_iso("2026-09-01T10:00:05.000Z")


def test_a_compaction_that_raises_the_newest_time_takes_the_one_before(tmp_path: Path) -> None:
    # (The flag that replaced ``last_ts is timestamp``: the boundary itself raised it.)
    records = [
        _prompt("u1", None, "2026-09-01T10:00:00.000Z", "first"),
        _rec(type="system", subtype="compact_boundary", uuid="cb1", parentUuid=None,
             timestamp="2026-09-01T10:00:05.000Z", content="Conversation compacted",
             compactMetadata={"trigger": "manual", "preTokens": 5000}),
    ]
    summary, _ = _summary(tmp_path, records)
    assert summary.compacted == copies_before(parse_iso("2026-09-01T10:00:05.000Z"), parse_iso("2026-09-01T10:00:00.000Z"))
    assert summary.compacted < parse_iso("2026-09-01T10:00:05.000Z")


def test_an_implausible_time_is_told_for_every_record_that_holds_it(tmp_path: Path) -> None:
    odd = "0001-01-01T00:00:00.000Z"
    records = [_prompt("u1", None, odd, "first"), _prompt("u2", "u1", odd, "second"),
               _prompt("u3", "u2", "2026-09-01T10:00:05.000Z", "third")]
    summary, ctx = _summary(tmp_path, records)
    told = [w.message for w in ctx.warnings.items if w.message.startswith(TIME_HEAD)]
    assert told == [f"{TIME_HEAD}: '{odd}' (the first of 2 such values in this file)"]  # both records' counted
    assert summary.first_ts == summary.last_ts == parse_iso("2026-09-01T10:00:05.000Z")


def test_each_time_string_is_parsed_once_a_run_and_every_record_gets_its_own(tmp_path: Path, monkeypatch) -> None:
    parsed: list[object] = []

    def counting(value: object):
        parsed.append(value)
        return parse_iso(value)

    monkeypatch.setattr(row_module, "parse_iso", counting)
    times = ["2026-09-01T10:00:00.000Z", "2026-09-01T10:00:00.000Z", "2026-09-01T09:00:00.000Z",
             "2026-09-01T09:00:00.000Z", "2026-09-01T11:00:00.000Z"]
    records = [_prompt("u0", None, times[0], "first"),
               _reply("a0", "u0", times[1], 0, [{"type": "text", "text": "one"}]),
               _prompt("u1", "a0", times[2], "second"),
               _reply("a1", "u1", times[3], 1, [{"type": "text", "text": "two"}]),
               _prompt("u2", "a1", times[4], "third")]
    path = _home(tmp_path, records)
    path.write_bytes(lines_of(records))
    summary = summarize(path, ScanContext(tmp_path / "home", {}))
    assert parsed == [times[0], times[2], times[4]]
    assert (summary.first_ts, summary.last_ts) == (parse_iso(times[2]), parse_iso(times[4]))
