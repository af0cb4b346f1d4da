"""A row pass keeps records' uuids only from its first compaction on (``seenuuids``).

Most transcripts never compact, and hashing and keeping every record's uuid cost a 1 GB
``show`` 8 MB.  At the first ``compact_boundary`` the uuids of the lines before it are
taken from their bytes (``SeenUuids.collect``); a copy claude-code issue 92089 re-appended
is skipped as before, read whole or by halves, whichever half its original is in.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.providers.claude import seenuuids
from agentscan.providers.claude.filesummary import FileSummary
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.seenuuids import SeenUuids
from claude_events import lines_of
from spies import record_calls
from test_claude_compact_copies_pass38 import FIRST, PROMPTS, SECOND, THIRD, _by_halves, _compaction, _home, _prompt

COUNTS = {"prompts": 3, "responses": 3, "tool_calls": 1}


def _summary_of(tmp_path: Path, records: list[dict]) -> FileSummary:
    path = _home(tmp_path, records)
    return summarize(path, ScanContext(tmp_path / "home", {}))


def test_a_pass_without_a_compaction_keeps_no_uuid(tmp_path: Path) -> None:
    summary = _summary_of(tmp_path, [*FIRST, *SECOND])
    assert summary.compacted is None
    assert len(summary.seen.hashes) == 0


def test_the_first_compaction_collects_every_uuid_before_it(tmp_path: Path) -> None:
    records = [*FIRST, *_compaction(1, "10:10"), *SECOND]
    summary = _summary_of(tmp_path, records)
    before = [record["uuid"] for record in records[: records.index(SECOND[0]) - 1]]  # the boundary's own too
    after = [record["uuid"] for record in SECOND]
    assert set(summary.seen.hashes) == {hash(uuid) for uuid in (*before, "cs1", *after)}


def test_copies_after_a_single_compaction_in_a_file_read_once_are_skipped(tmp_path: Path) -> None:
    records = [*FIRST, *SECOND, *_compaction(1, "10:20"), *FIRST, *THIRD]
    summary = _summary_of(tmp_path, records)
    assert summary.copies == len(FIRST)
    assert (summary.prompts, summary.responses, summary.tool_calls) == (3, 3, 1)


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_collect_reads_uuids_across_blocks_lines_and_escapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            block: int) -> None:
    monkeypatch.setattr(seenuuids, "_BLOCK", block)
    path = tmp_path / "t.jsonl"
    nested = {"type": "progress", "uuid": "top", "data": {"message": {"uuid": "nested", "text": "x" * 100}}}
    path.write_bytes(lines_of([
        {"uuid": "plain-1"},
        b'{"uuid":"esc\\u0061ped","text":"a \\"uuid\\":\\"in-a-string\\""}',
        nested,
        b'{"uuid":"bad-\xff-bytes"}',
        {"uuid": None},
        {"uuid": "after-the-stop"},
    ]))
    stop = len(lines_of([{"uuid": "plain-1"}])) + len(b'{"uuid":"esc\\u0061ped","text":"a \\"uuid\\":\\"in-a-string\\""}\n')
    stop += len(orjson.dumps(nested)) + 1 + len(b'{"uuid":"bad-\xff-bytes"}\n') + len(b'{"uuid":null}\n')
    seen = SeenUuids()
    seen.upto = 0
    seen.collect(path, stop)
    assert sorted(seen.hashes) == sorted(hash(text) for text in ("plain-1", "escaped", "top", "nested"))
    assert seen.upto == stop
    seen.collect(path, path.stat().st_size)  # goes on from where it stopped
    assert hash("after-the-stop") in seen.hashes and len(seen.hashes) == 5


def test_a_file_that_cannot_be_read_again_collects_nothing(tmp_path: Path) -> None:
    seen = SeenUuids()
    seen.upto = 0
    seen.collect(tmp_path / "gone.jsonl", 100)
    assert len(seen.hashes) == 0 and seen.upto == 100


def test_halves_whose_first_half_never_compacted_find_copies_of_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The first compaction comes after the seam, and re-appends a prompt of the first half
    # (no call: the calls' own checks would keep the halves apart): the join must know the
    # first half's uuids though its pass kept none.
    records = [*FIRST, *SECOND, *_compaction(1, "10:20"), FIRST[0], *THIRD]
    (row, detail), joined = _by_halves(tmp_path, monkeypatch, records, records.index(SECOND[0]))
    assert not joined  # a copy of the first half's: this process read the second
    assert row["counts"] == detail["counts"] == COUNTS
    assert [prompt["text"] for prompt in detail["prompts"]] == PROMPTS


def test_halves_whose_first_half_never_compacted_are_joined_without_copies(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    late = _prompt("u8", "cs1", "2026-09-01T10:05:00.000Z", "dated before the compaction, no copy")
    records = [*FIRST, *SECOND, *_compaction(1, "10:20"), late, *THIRD]
    (row, _), joined = _by_halves(tmp_path, monkeypatch, records, records.index(SECOND[0]))
    assert joined  # looked up, met in neither half
    assert row["counts"]["prompts"] == 4


def test_collect_skips_a_line_too_long_for_the_pass_and_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seenuuids, "_BLOCK", 16)
    monkeypatch.setattr(seenuuids, "LONG_LINE_LIMIT", 40)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"uuid":"before"}\n{"uuid":"in-a-long-line","pad":"' + b"x" * 200 + b'"}\n{"uuid":"after"}\n')
    seen = SeenUuids()
    seen.upto = 0
    seen.collect(path, path.stat().st_size)
    assert sorted(seen.hashes) == sorted([hash("before"), hash("after")])  # (its bytes held 40 at most)


def test_collect_reads_json_written_with_spaces(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type": "user", "uuid" : "spaced"}\n')
    seen = SeenUuids()
    seen.upto = 0
    seen.collect(path, path.stat().st_size)
    assert list(seen.hashes) == [hash("spaced")]


def test_halves_of_a_file_that_never_compacted_read_no_uuid_again(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # A record after the seam dated before the seam's: the helper looks it up (its pass
    # starts as if compacted at the seam's time); the one pass looks nothing up, so the
    # join has no first half's uuids to read from its bytes.
    seam_record = _prompt("u7", "a2", "2026-09-01T10:30:00.000Z", "late")
    early = _prompt("u8", "u7", "2026-09-01T10:20:00.000Z", "dated before the seam")
    records = [*FIRST, *SECOND, seam_record, early]
    collected = record_calls(monkeypatch, SeenUuids, "collect", lambda seen, path, stop: stop)
    (row, _), joined = _by_halves(tmp_path, monkeypatch, records, records.index(seam_record))
    assert joined and not collected
    assert row["counts"]["prompts"] == 4
