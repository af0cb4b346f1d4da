"""The fast ``tokens`` reader finds what the line reader finds, and says what it says.

``toolkit.linescan.matching_records`` reads files in blocks and decodes only
the lines holding a marker; it must yield the same records, with the same
warnings and line numbers, as ``iter_json_lines(..., prefilter=marker)``,
wherever the block edges fall (the tests shrink the blocks to a few bytes).
"""

from __future__ import annotations

import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.toolkit import linescan
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines
from agentscan.toolkit.linescan import ScanProgress, matching_records
from builders import raw_lines_file

MARKER = b'"usage"'
MAX_LINE = 64

LINES = st.one_of(
    st.just(b'{"type":"assistant","usage":{"input_tokens":1}}'),
    st.just(b'{"type":"user","text":"no marker here"}'),
    st.just(b'["usage", "not an object"]'),
    st.just(b'{"usage": broken'),
    st.just(b""),
    st.just(b"   "),
    st.just(b'{"usage":1}\r'),
    st.just(b'\x0c{"usage":2}\x0b'),  # bytes.strip()'s whitespace, not JSON's: both readers strip it
    st.just(b'\x0c {"usage": broken'),
    st.builds(lambda n: b'{"usage":"' + b"x" * n + b'"}', st.integers(0, 120)),
    st.builds(lambda n: b'{"pad":"' + b"y" * n + b'"}', st.integers(0, 120)),
)


def _reference(path: Path, start: int = 0, first_line: int = 1):
    ctx = ScanContext.create(home=path.parent, env={})
    progress = ReadProgress(start)
    found = [(line.offset, line.record) for line in iter_json_lines(
        path, ctx, start=start, first_line=first_line, prefilter=MARKER, max_line=MAX_LINE, progress=progress)]
    return found, [(w.message, w.line) for w in ctx.warnings.items], progress


def _fast(path: Path, start: int = 0, lines_before: int = 0, count: bool = True, crc: int = 0):
    ctx = ScanContext.create(home=path.parent, env={})
    progress = ScanProgress(start, lines_before, crc)
    found = list(matching_records(path, ctx, MARKER, progress, start=start, lines_before=lines_before,
                                  count_lines=count, crc=True, max_line=MAX_LINE))
    return found, [(w.message, w.line) for w in ctx.warnings.items], progress


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=30), final_newline=st.booleans(), bom=st.booleans(),
       block=st.sampled_from([7, 16, 33, 100, 4096]), count=st.booleans())
def test_same_records_and_warnings_as_the_line_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines, final_newline,
                                                      bom, block, count) -> None:
    monkeypatch.setattr(linescan, "BLOCK", block)
    path = raw_lines_file(tmp_path, lines, final_newline, bom)
    want, want_warnings, want_progress = _reference(path)
    got, got_warnings, progress = _fast(path, count=count)
    # The line reader reports a record's offset before a BOM is stripped, as we do.
    assert got == want
    assert sorted(got_warnings, key=repr) == sorted(want_warnings, key=repr)
    data = path.read_bytes()
    last = data[data.rfind(b"\n") + 1:]
    if len(last) > MAX_LINE:
        # An over-long last line still being written is not complete: resuming from
        # after it would start mid-line (the line reader counts it as read).
        assert progress.complete_offset == data.rfind(b"\n") + 1
    else:
        assert progress.complete_offset == want_progress.complete_offset
        if count:
            assert progress.lines == want_progress.lines
    assert progress.crc == zlib.crc32(path.read_bytes()[: progress.complete_offset])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, min_size=1, max_size=20), more=st.lists(LINES, max_size=10),
       block=st.sampled_from([9, 40, 4096]))
def test_resuming_after_a_complete_line_equals_reading_it_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines, more,
                                                              block) -> None:
    monkeypatch.setattr(linescan, "BLOCK", block)
    path = raw_lines_file(tmp_path, lines, True, False)
    _, _, first = _fast(path)
    with path.open("ab") as handle:
        handle.write(b"\n".join(more) + (b"\n" if more else b""))
    whole, whole_warnings, whole_progress = _fast(path)
    tail, tail_warnings, progress = _fast(path, first.complete_offset, first.lines, crc=first.crc)
    assert tail == [item for item in whole if item[0] >= first.complete_offset]
    assert set(tail_warnings) <= set(whole_warnings)
    assert (progress.complete_offset, progress.lines, progress.crc) == (
        whole_progress.complete_offset, whole_progress.lines, whole_progress.crc)


def test_several_markers_are_found_in_file_order(tmp_path: Path) -> None:
    records = [{"type": "token_count", "n": 1}, {"type": "other"}, {"type": "turn_context", "n": 2},
               {"type": "token_count", "n": 3}, {"type": "task_started", "n": 4}]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    ctx = ScanContext.create(home=tmp_path, env={})
    found = [record["n"] for _, record in matching_records(
        path, ctx, (b'"token_count"', b'"turn_context"', b'"task_started"'), ScanProgress())]
    assert found == [1, 2, 3, 4]


def test_a_line_far_longer_than_a_block_is_skipped_in_bounded_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(linescan, "BLOCK", 1000)
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"usage":1}\n' + b'{"usage":"' + b"z" * 50_000 + b'"}\n' + b'{"usage":2}\n')
    found, warnings, progress = _fast(path)
    assert [record["usage"] for _, record in found] == [1, 2]
    assert warnings == [(f"line longer than {MAX_LINE // (1024 * 1024)} MiB skipped", 2)]
    assert progress.lines == 3 and progress.complete_offset == path.stat().st_size


def test_codex_usage_from_marked_lines_equals_a_full_pass(tmp_path: Path) -> None:
    """``USAGE_MARKERS`` keep every record ``FileUsageScanner.feed`` reacts to (real rollouts)."""
    from contextlib import closing

    from agentscan.providers.codex.usage import FileUsageScanner, scan_file
    from agentscan.toolkit.jsonl import iter_json_lines
    from builders import REAL

    samples = sorted((REAL / "codex").glob("*.jsonl")) + sorted(Path(__file__).parent.parent.glob("fixtures/bad/codex*/**/*.jsonl"))
    assert len(samples) >= 3
    ctx = ScanContext.create(home=tmp_path, env={})
    for sample in samples:
        for replay in (False, True):
            fast = scan_file(sample, ctx, replay=replay, started=None)
            full = FileUsageScanner(replay=replay, started=None)
            with closing(iter_json_lines(sample, ctx)) as lines:
                for line in lines:
                    full.feed(line.record)
            assert fast.events == full.events, sample.name
            assert (fast.boundary, fast.copied_floor) == (full.boundary, full.copied_floor), sample.name


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=30), cap=st.integers(1, 12), block=st.sampled_from([7, 33, 4096]),
       final_newline=st.booleans())
def test_the_line_cap_stops_where_the_line_reader_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines, cap, block,
                                                        final_newline) -> None:
    from agentscan import bounds

    monkeypatch.setattr(linescan, "BLOCK", block)
    monkeypatch.setattr(bounds, "MAX_FILE_LINES", cap)
    path = raw_lines_file(tmp_path, lines, final_newline, False)
    want, want_warnings, _ = _reference(path)
    got, got_warnings, _ = _fast(path)
    assert got == want
    assert sorted(got_warnings, key=repr) == sorted(want_warnings, key=repr)
