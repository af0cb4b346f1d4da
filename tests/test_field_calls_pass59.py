"""Claude's usage lines decoded fields-only (``providers/claude/fieldcalls``, pass 59): the
same calls, warnings and values told as the ``orjson`` way, line by line and file by file,
on every real fixture and on lines written to tell the two decoders apart."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.providers.claude import fieldcalls
from agentscan.providers.claude.filescan import MARKER, scan_file
from agentscan.providers.claude.usage import UNREAD, Advisors, call_of

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
LINES = [line for path in sorted(REAL.rglob("*")) if path.is_file() and path.suffix in (".jsonl", ".json")
         for line in path.read_bytes().splitlines() if MARKER in line]
CLAUDE_FILES = sorted(path for path in (REAL / "claude").rglob("*.jsonl"))

_USAGE = b'"usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":20,"output_tokens":5}'


def _line(usage: bytes = _USAGE, head: bytes = b"", tail: bytes = b"") -> bytes:
    return (b'{' + head + b'"type":"assistant","requestId":"req_1","sessionId":"s1","timestamp":"2026-01-02T03:04:05.678Z",'
            b'"message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],'
            + usage + b'}' + tail + b'}')


#: lines msgspec and orjson may read differently, each where the difference would fall
ADVERSARIAL = [
    _line(),
    _line(tail=b',"x":"\xff\xfe bytes that are not UTF-8"'),  # skipped by msgspec unchecked
    _line(tail=b',"x":"\xed\xa0\x80 a surrogate in UTF-8"'),
    _line(tail=b',"x":"\xc0\xaf an overlong form"'),
    _line(tail=b',"\xff":1'),  # a key that is not UTF-8
    _line(tail=b',"x":"caf\xc3\xa9 \xe2\x80\x94 UTF-8 text"'),  # fine: both read it
    _line(tail=b',"x":"\\ud83d a lone surrogate escape"'),  # orjson refuses, laxjson reads
    _line(tail=b',"x":123456789012345678901234567890'),  # an int past 64 bits (orjson: a float)
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":123456789012345678901234567890')),
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":18446744073709551616')),
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":1e400')),
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":NaN')),
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":5.0')),
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":-5')),
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":"5"')),
    _line(usage=_USAGE.replace(b'"output_tokens":5', b'"output_tokens":5,"output_tokens":7')),  # last wins
    _line(head=b'"type":"progress",'),  # a duplicate key: the last (assistant) wins in both
    _line(tail=b',"type":"user"'),
    _line(tail=b',"message":"text"'),  # another shape where a Struct is
    _line(usage=b'"usage":[1,2]'),
    _line(usage=b'"usage":null'),
    _line(usage=_USAGE[:-1] + b',"service_tier":"priority"}'),
    _line(usage=_USAGE[:-1] + b',"service_tier":"batch","speed":"fast","inference_geo":"us"}'),
    _line(usage=_USAGE[:-1] + b',"cache_creation":{"ephemeral_1h_input_tokens":4}}'),
    _line(usage=_USAGE[:-1] + b',"cache_creation":{"ephemeral_1h_input_tokens":40}}'),
    _line(usage=_USAGE[:-1] + b',"cache_creation":{"ephemeral_1h_input_tokens":"4"}}'),
    _line(usage=_USAGE[:-1] + b',"cache_creation":7}'),
    _line(usage=_USAGE[:-1] + b',"server_tool_use":{"web_search_requests":2}}'),
    _line(usage=_USAGE[:-1] + b',"server_tool_use":{"web_search_requests":-2}}'),
    _line(usage=_USAGE[:-1] + b',"server_tool_use":[]}'),
    _line(usage=_USAGE[:-1] + b',"iterations":[]}'),
    _line(usage=_USAGE[:-1] + b',"iterations":[{"type":"message","input_tokens":3}]}'),
    _line(usage=_USAGE[:-1] + b',"iterations":[{"type":"compaction","input_tokens":9,"output_tokens":2}]}'),
    _line(usage=_USAGE[:-1] + b',"iterations":[{"type":"message"},{"type":"advisor_message","model":"m","input_tokens":4}]}'),
    _line(usage=_USAGE[:-1] + b',"iterations":{"type":"message"}}'),
    _line(tail=b',"isSidechain":true,"sessionId":"other"'),
    _line(tail=b',"timestamp":1767323045'),
    _line(tail=b',"timestamp":"3026-01-02T03:04:05.678Z"'),
    _line(tail=b',"requestId":7,"sessionId":12'),
    _line(tail=b',"x":' + b'[' * 1100 + b']' * 1100),  # deeper than orjson reads
    _line(tail=b',"x":' + b'[' * 500 + b']' * 500),
    b'\x0c' + _line(),  # a form feed before it: JSON for neither, read once stripped
    _line() + b' \t\r',
    _line(tail=b',"x":[1,2,]'),
    _line().replace(b'"type"', b'"ty\\u0070e"'),  # an escaped key
    b'[' + _line() + b']',
    b'{"type":"progress","data":{"agentId":"a1","message":' + _line() + b'}}',
    _line()[:-20],  # cut short
]


def _scanned(path: Path, tmp_path: Path, fields: bool, monkeypatch: pytest.MonkeyPatch) -> tuple:
    if not fields:
        monkeypatch.setattr(fieldcalls, "fast_record", lambda line: None)
    scanned = scan_file(path, ScanContext.create(home=tmp_path), subagent=None, base=0, own="s1", exact=True)
    monkeypatch.setattr(fieldcalls, "fast_record", _FAST_RECORD)
    return (scanned.calls, [(w.message, w.line) for w in scanned.warnings], scanned.progress.complete_offset,
            scanned.progress.lines, scanned.progress.crc, scanned.inline)


_FAST_RECORD = fieldcalls.fast_record


def test_every_real_fixture_line_is_the_same_call_either_way() -> None:
    taken = 0
    for line in LINES:
        record = fieldcalls.fast_record(line)
        if record is None:
            continue
        taken += 1
        for own in (None, "s1"):
            assert fieldcalls.fast_call(record, "agent", 7, own) == call_of(
                orjson.loads(line), "agent", 7, UNREAD, own, Advisors()), line[:200]
    assert taken >= 100  # (most of the fixtures' calls take the fields-only way)


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda path: path.name[:40])
def test_every_real_claude_file_scans_the_same_either_way(path: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert _scanned(path, tmp_path, True, monkeypatch) == _scanned(path, tmp_path, False, monkeypatch)


@pytest.mark.parametrize("index", range(len(ADVERSARIAL)))
def test_a_line_that_tells_the_decoders_apart_scans_the_same(index: int, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    line = ADVERSARIAL[index]
    path = tmp_path / "s1.jsonl"
    # alone, first (where a BOM is read) and amid others, the last line without its newline
    path.write_bytes(b"\xef\xbb\xbf" + line + b"\n" + _line() + b"\n" + line + b"\n" + line)
    assert _scanned(path, tmp_path, True, monkeypatch) == _scanned(path, tmp_path, False, monkeypatch)


def test_the_guards_are_what_keeps_them_equal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the UTF-8 check, msgspec reads a line orjson refuses, and the note is lost.
    path = tmp_path / "s1.jsonl"
    path.write_bytes(ADVERSARIAL[1] + b"\n")
    scanned = _scanned(path, tmp_path, False, monkeypatch)
    assert "not UTF-8" in str(scanned[1])
    assert fieldcalls.fast_record(ADVERSARIAL[1]) is None
    assert fieldcalls._decode(ADVERSARIAL[1]).type == "assistant"  # (what the check is for)


def test_the_one_difference_left_a_number_past_a_float_in_a_field_no_count_reads(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # orjson refuses the line ("invalid JSON skipped"); msgspec skips the number unread and the
    # call counts, as JSON.parse (ccusage) counts it.  A guard cost more than the decoder saves.
    line = _line(tail=b',"x":1e400')
    path = tmp_path / "s1.jsonl"
    path.write_bytes(line + b"\n")
    fast, slow = _scanned(path, tmp_path, True, monkeypatch), _scanned(path, tmp_path, False, monkeypatch)
    assert len(fast[0]) == 1 and fast[1] == []
    assert slow[0] == [] and "invalid JSON" in str(slow[1])
