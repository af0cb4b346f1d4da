"""The backwards reader yields what the line reader yields, newest first, and says what it says.

``toolkit.reverse.records_newest_first`` must give the records of
``iter_json_lines`` in reverse order, with the same warnings and line
numbers, wherever its block edges fall (the tests shrink blocks to a few
bytes), and must read nothing before the point where its caller stops.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.toolkit import reverse
from agentscan.toolkit.jsonl import iter_json_lines
from agentscan.toolkit.reverse import records_newest_first
from conftest_hypothesis import FUZZ
from builders import backward_reads, raw_lines_file

MAX_LINE = 64

LINES = st.one_of(
    st.just(b'{"type":"assistant","n":1}'),
    st.just(b'{"type":"user","text":"hello \\u00e9"}'),
    st.just(b'["not", "an object"]'),
    st.just(b'{"broken": '),
    st.just(b'   {"broken": nope}'),  # indented: its column counts the indent, both ways
    st.just(b""),
    st.just(b"   "),
    st.just(b'{"crlf":1}\r'),
    st.just(b"\xef\xbb\xbf{}"),  # a BOM anywhere but the first line is not dropped: invalid JSON
    st.builds(lambda n: b'{"pad":"' + b"y" * n + b'"}', st.integers(0, 130)),
)


def _forward(path: Path) -> tuple[list, set]:
    ctx = ScanContext.create(home=path.parent, env={})
    found = [(line.offset, line.record) for line in iter_json_lines(path, ctx, max_line=MAX_LINE)]
    return found, {(w.message, w.line) for w in ctx.warnings.items}


def _backward(path: Path, end: int | None = None) -> tuple[list, set]:
    ctx = ScanContext.create(home=path.parent, env={})
    found = list(records_newest_first(path, ctx, end=end, max_line=MAX_LINE))
    return found, {(w.message, w.line) for w in ctx.warnings.items}


@FUZZ
@given(lines=st.lists(LINES, max_size=30), final_newline=st.booleans(), bom=st.booleans(),
       block=st.sampled_from([1, 2, 7, 16, 33, 100, 4096]))
def test_same_records_and_warnings_as_the_line_reader_reversed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines,
                                                               final_newline, bom, block) -> None:
    monkeypatch.setattr(reverse, "BLOCK", block)
    path = raw_lines_file(tmp_path, lines, final_newline, bom)
    want, want_warnings = _forward(path)
    got, got_warnings = _backward(path)
    # The line reader reports the first line's offset before a BOM is stripped, as we do.
    assert got == want[::-1]
    assert got_warnings == want_warnings


@FUZZ
@given(lines=st.lists(LINES, min_size=1, max_size=20), more=st.lists(LINES, min_size=1, max_size=10),
       block=st.sampled_from([3, 40, 4096]))
def test_an_end_taken_earlier_hides_what_was_appended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines, more,
                                                     block) -> None:
    monkeypatch.setattr(reverse, "BLOCK", block)
    path = raw_lines_file(tmp_path, lines, True, False)
    before = _forward(path)
    size = path.stat().st_size
    with path.open("ab") as handle:
        handle.write(b"\n".join(more) + b"\n")
    got, got_warnings = _backward(path, end=size)
    assert got == before[0][::-1]
    assert got_warnings == before[1]


def test_lines_longer_than_a_block_and_than_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reverse, "BLOCK", 10)
    records = [{"n": 1}, {"text": "x" * 50}, {"text": "y" * 200}, {"n": 4}]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    got, warnings = _backward(path)
    assert [record for _, record in got] == [{"n": 4}, {"text": "x" * 50}, {"n": 1}]
    assert warnings == {("line longer than 0 MiB skipped", 3)}


def test_a_last_line_without_newline(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"n":1}\n{"n":2}')
    assert [record for _, record in _backward(path)[0]] == [{"n": 2}, {"n": 1}]
    path.write_bytes(b'{"n":1}\n{"n":')
    got, warnings = _backward(path)
    assert [record for _, record in got] == [{"n": 1}]
    assert warnings == {("truncated last line skipped (file still being written?)", 2)}


def test_an_empty_file_is_said_to_be(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    assert _backward(path) == ([], {("empty file", None)})


def test_stopping_early_reads_only_the_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reverse, "BLOCK", 4096)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"n": n, "pad": "z" * 100}) + b"\n" for n in range(10_000)))
    reads = backward_reads(monkeypatch)
    ctx = ScanContext.create(home=tmp_path, env={})
    newest = []
    for _, record in records_newest_first(path, ctx):
        newest.append(record["n"])
        if len(newest) == 50:
            break
    assert newest == list(range(9_999, 9_949, -1))
    assert sum(reads) <= 3 * 4096 < path.stat().st_size / 50


def test_a_bad_line_deep_in_a_big_file_gets_its_line_number(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reverse, "BLOCK", 256)
    lines = [orjson.dumps({"n": n}) for n in range(1000)]
    lines[400] = b"{oops"
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    got, warnings = _backward(path)
    assert len(got) == 999
    assert [(message.split(":")[0], line) for message, line in warnings] == [("invalid JSON skipped", 401)]
