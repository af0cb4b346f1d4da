"""Several markers (Codex's seven): whether each occurs in a block is asked of ``memmem``.

Most of Codex's markers are in no line of a rollout, and proving a marker absent reads the
whole block: glibc's ``memmem`` does it in less than half ``bytes.find``'s time
(``toolkit.bytesearch``).  Its answer must be ``find``'s, for any block, marker and end, and
the records the scan finds with it those a plain search of each line finds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.toolkit import bytesearch, linescan
from agentscan.toolkit.linescan import ScanProgress, matching_records

MARKERS = (b'"token_count"', b'"turn_context"', b'"task_started"', b'token_usage_record"', b'"compacted"')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's memmem is what this pins")
def test_memmem_answers_on_linux() -> None:
    assert bytesearch._memmem() is not None


@pytest.fixture
def memmem_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """``memmem`` asked of any block, however short (it is left to ``find`` under ``SHORT``)."""
    monkeypatch.setattr(bytesearch, "SHORT", 0)


@pytest.mark.usefixtures("memmem_always")
@given(st.binary(max_size=300), st.binary(min_size=1, max_size=6), st.integers(-5, 320))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_occurs_is_finds_answer(data: bytes, needle: bytes, end: int) -> None:
    # Small alphabets too, so that the needle is often there, across the end or not.
    assert bytesearch.occurs(data, needle, end) is (data.find(needle, 0, end) >= 0)
    small = bytes(b % 3 for b in data)
    short = bytes(b % 3 for b in needle)
    assert bytesearch.occurs(small, short, end) is (small.find(short, 0, end) >= 0)


def test_a_short_block_is_left_to_find(monkeypatch: pytest.MonkeyPatch) -> None:
    # A call through ctypes costs what ``find`` takes over ≈ 4 KB: under that ``find`` answers.
    asked: list[int] = []

    def fake(data: bytes, end: int, needle: bytes, size: int) -> None:
        asked.append(end)
        return None  # (absent, whatever the block: so that its answer shows)

    monkeypatch.setattr(bytesearch, "_memmem", lambda: fake)
    short = b"a" * (bytesearch.SHORT + 10)
    assert bytesearch.occurs(short, b"a", bytesearch.SHORT - 1)
    assert asked == []
    assert not bytesearch.occurs(short, b"a", bytesearch.SHORT)
    assert asked == [bytesearch.SHORT]
    assert bytesearch.SHORT == 4096


def test_a_failed_lookup_leaves_find_to_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    tried: list[object] = []

    def broken(*args: object, **kwargs: object) -> None:
        tried.append(args)
        raise RuntimeError("no C library")

    bytesearch._memmem.cache_clear()
    monkeypatch.setattr(ctypes, "CDLL", broken)
    try:
        data = b"x" * 5000 + b"needle"
        assert bytesearch.occurs(data, b"needle", len(data))
        assert not bytesearch.occurs(data, b"zz", len(data))
        assert not bytesearch.occurs(data, b"needle", len(data) - 1)
        assert bytesearch.occurs(b"needle" + data, b"needle", len(data))  # (at the very start)
        assert bytesearch._memmem() is None
        assert len(tried) == (0 if sys.platform == "win32" else 1)  # (looked up once)
    finally:
        bytesearch._memmem.cache_clear()  # (the real lookup again, once ctypes is restored)


@pytest.mark.usefixtures("memmem_always")
def test_a_marker_across_the_end_does_not_occur() -> None:
    data = b'xx"token_count"yy'
    assert bytesearch.occurs(data, b'"token_count"', len(data))
    assert not bytesearch.occurs(data, b'"token_count"', 14)  # its last byte past the end
    assert bytesearch.occurs(data, b'"token_count"', 15)
    assert not bytesearch.occurs(bytearray(data), b"zz", len(data))  # (not bytes: ``find`` answers)
    assert bytesearch.occurs(bytearray(data), b"yy", len(data))


def _searched_by(search: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``memmem`` for every block, however short, or none at all (no C library's: ``find`` alone)."""
    monkeypatch.setattr(bytesearch, "SHORT", 0)
    if search == "find alone":
        monkeypatch.setattr(bytesearch, "_memmem", lambda: None)


@pytest.mark.parametrize("search", ["memmem", "find alone"])
def test_the_block_scan_asks_each_marker_once_a_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      search: str) -> None:
    _searched_by(search, monkeypatch)
    asked: list[bytes] = []
    occurs = linescan.occurs

    def counted(data: bytes, needle: bytes, end: int) -> bool:
        asked.append(needle)
        return occurs(data, needle, end)

    monkeypatch.setattr(linescan, "occurs", counted)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"type":"event_msg","payload":{"type":"token_count"}}\n{"type":"turn_context"}\n{"a":1}\n')
    ctx = ScanContext.create(home=tmp_path, env={})
    found = [record.get("type") for _, record in matching_records(path, ctx, MARKERS, ScanProgress())]
    assert found == ["event_msg", "turn_context"]
    assert sorted(asked) == sorted(MARKERS)


_LINE = st.sampled_from([
    b'{"type":"event_msg","payload":{"type":"token_count","n":1}}',
    b'{"type":"turn_context","m":"x"}',
    b'{"type":"response_item","payload":{"type":"message","text":"\\"compacted\\""}}',
    b'{"type":"compacted","payload":{}}',
    b'{"type":"x","p":"token_usage_record\\""}',
    b'{"type":"other"}',
    b'not json "task_started"',
    b'["token_count"]',
])


@pytest.mark.parametrize("search", ["memmem", "find alone"])
@given(st.lists(_LINE, max_size=40), st.booleans(), st.sampled_from([64, 97, 4096]))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_records_are_those_a_line_search_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, search: str,
                                                   lines: list[bytes], ended: bool, block: int) -> None:
    _searched_by(search, monkeypatch)
    monkeypatch.setattr(linescan, "BLOCK", block)
    data = b"\n".join(lines) + (b"\n" if ended and lines else b"")
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    ctx = ScanContext.create(home=tmp_path, env={})
    found = list(matching_records(path, ctx, MARKERS, ScanProgress()))
    expected, at = [], 0
    for line in data.split(b"\n"):
        if any(marker in line for marker in MARKERS):
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                record = None
            if type(record) is dict:
                expected.append((at, record))
        at += len(line) + 1
    assert found == expected
