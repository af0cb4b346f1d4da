"""A short marker (Claude's ``"usage"``) is searched by a regular expression, not ``bytes.find``.

``bytes.find``'s skip table rarely skips for a short marker ending in the ``"`` a JSON line is
full of; ``re``'s scan finds the same hits sooner (``linescan._SHORT_MARKER``).  The records
found must stay those ``find`` finds: the leftmost whole marker at or after the last line read,
and none that runs past the block's last complete line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.toolkit import linescan
from agentscan.toolkit.linescan import ScanProgress, matching_records

SHORT = b'"usage"'
LONG = b'"token_count"'


def _found(path: Path, marker: bytes) -> list[tuple[int, dict]]:
    ctx = ScanContext.create(home=path.parent, env={})
    return list(matching_records(path, ctx, marker, ScanProgress()))


def _naive(data: bytes, marker: bytes) -> list[tuple[int, dict]]:
    """Every complete line holding ``marker`` whose JSON is an object, with its offset."""
    import orjson

    found, at = [], 0
    for line in data.split(b"\n")[:-1]:  # (the last, unended, is no complete line)
        if marker in line:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                record = None
            if type(record) is dict:
                found.append((at, record))
        at += len(line) + 1
    return found


def test_a_short_marker_goes_through_a_regular_expression(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[bytes] = []
    pattern = linescan._pattern

    def counted(marker: bytes):  # type: ignore[no-untyped-def]
        asked.append(marker)
        return pattern(marker)

    monkeypatch.setattr(linescan, "_pattern", counted)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"user"}\n{"usage":1}\n{"type":"x","usage":2}\n{"token_count":3}\n')
    assert [record.get("usage") for _, record in _found(path, SHORT)] == [1, 2]
    assert asked == [SHORT]
    assert [record["token_count"] for _, record in _found(path, LONG)] == [3]
    assert asked == [SHORT]  # a long marker is found by ``bytes.find``, as before


def test_no_hit_past_the_last_complete_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A block read holds the start of a line still being written, its marker whole or cut: the
    # search stops at the end of the complete lines, as ``find(marker, start, end)`` does, and the
    # line is read whole with the next block (or, unended, as the last line).
    monkeypatch.setattr(linescan, "BLOCK", 16)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"usage":1}\n{"a":"usa')
    assert [record["usage"] for _, record in _found(path, SHORT)] == [1]
    path.write_bytes(b'{"usage":1}\n{"usage":2,"b":"x"}\n{"usage"')
    assert [record["usage"] for _, record in _found(path, SHORT)] == [1, 2]


PIECES = st.sampled_from([b'{"usage":1}', b'{"x":"\\"usage\\""}', b'{"a":"usag"}', b'"usage"', b'{"u":"e"}',
                          b'{"usage":{"usage":2}}', b'{"k":"usageusage\\"usage"}', b'{"token_count":4}',
                          b'{"t":"x\\"token_count\\"y","n":5}'])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(PIECES, max_size=25), tail=st.sampled_from([b"", b'{"usa', b'{"usage":9}']),
       block=st.sampled_from([5, 11, 32, 4096]))
def test_short_and_long_markers_find_every_line_holding_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              lines, tail, block) -> None:
    monkeypatch.setattr(linescan, "BLOCK", block)
    path = tmp_path / "t.jsonl"
    data = b"".join(line + b"\n" for line in lines) + tail
    path.write_bytes(data)
    for marker in (SHORT, LONG):
        got = _found(path, marker)
        want = _naive(data, marker)
        if tail and marker in tail:  # the last line, unended, is read when it decodes
            want.append((len(data) - len(tail), {"usage": 9}))
        assert got == want
