"""A ``.jsonl.zst`` rollout cut short (a copy stopped part way, a disk that filled).

zstandard's stream reader ends quietly where its input ends mid-frame, so such a file read
as a whole one: cut before its first block it was "1 empty file (an agent leaves one after
an aborted start)" and a session that "recorded no usage".  Now the reader checks, at the
end, that the frames end where the file does (``toolkit.zstdframes``): cut before any line,
the session could not be read (named apart, as an unreadable one is); cut later, the lines
before the cut are counted and a warning names the file.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
import zstandard

from builders import cli_json
from codex_builders import Calls, at, meta, rollout_path, turn_context, user_message
from agentscan.toolkit.zstdframes import ends_mid_frame

THREAD = "019c5353-0000-7000-8000-000000000001"


def _records() -> list[dict]:
    calls = Calls()
    return [meta(THREAD, at(0)), turn_context(at(1)), user_message(at(1), "cut short work"),
            calls.call(at(10), 100, 0, 10), calls.call(at(20), 200, 0, 20), calls.call(at(30), 300, 0, 30)]


def _blocked(records: list[dict]) -> bytes:
    """One frame, a block a line (a streaming writer's flush after each): a cut keeps lines."""
    writer = zstandard.ZstdCompressor(write_checksum=True).compressobj()
    data = b"".join(writer.compress(orjson.dumps(record) + b"\n") + writer.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
                    for record in records)
    return data + writer.flush()


def _write(home: Path, data: bytes) -> Path:
    path = rollout_path(home / ".codex", THREAD, at(0), compressed=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _frame_check(data: bytes) -> bool:
    with tempfile.TemporaryFile() as handle:
        handle.write(data)
        handle.flush()
        return ends_mid_frame(handle.fileno(), len(data))


def test_frames_that_end_where_the_file_does() -> None:
    whole = _blocked(_records())
    assert not _frame_check(whole)
    assert not _frame_check(b"")
    assert not _frame_check(whole + zstandard.ZstdCompressor().compress(b"{}\n"))  # two frames
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"abc"
    assert not _frame_check(skippable + whole)
    assert not _frame_check(b"not zstd at all")  # the decompressor says what is wrong there


def test_frames_cut_anywhere_are_cut_short() -> None:
    whole = _blocked(_records())
    for cut in (2, 5, 9, 60, len(whole) // 2, len(whole) - 1):
        assert _frame_check(whole[:cut]), cut
    skippable = (0x184D2A50).to_bytes(4, "little") + (30).to_bytes(4, "little") + b"abc"
    assert _frame_check(skippable)


def test_a_file_cut_before_any_line_could_not_be_read(isolated_home: Path) -> None:
    path = _write(isolated_home, zstandard.ZstdCompressor().compress(
        b"".join(orjson.dumps(record) + b"\n" for record in _records()))[:60])
    for _ in range(2):  # cold, then from the index
        doc = cli_json("tokens")
        messages = [warning["message"] for warning in doc["warnings"] if warning.get("path") == str(path)]
        assert any("cut short" in message and message.startswith("cannot read: ") for message in messages), doc
        assert not any("empty file" in warning["message"] for warning in doc["warnings"])
        assert doc["rows"] == []


def test_a_file_cut_part_way_counts_the_calls_before_the_cut(isolated_home: Path) -> None:
    records = _records()
    whole, before = _blocked(records), _blocked(records[:-1])
    # 5 bytes into the last call's block (``before`` ends with an empty last block and a checksum: 7 bytes)
    path = _write(isolated_home, whole[:len(before) - 7 + 5])
    doc = cli_json("tokens")
    [row] = doc["rows"]
    assert row["tokens"]["input"] == 300  # the first two calls
    said = [warning for warning in doc["warnings"] if warning.get("path") == str(path)]
    assert any("cut short" in warning["message"] for warning in said), doc["warnings"]
    listed = cli_json("list", "--all")
    assert any("cut short" in warning["message"] for warning in listed["warnings"])


def test_a_file_cut_mid_line_is_said_once_at_that_line(isolated_home: Path) -> None:
    # A real compressor's frame cut anywhere: its blocks (128 KiB of text each) end mid-line.
    # ``list`` said it three times (the line "truncated … (file still being written?)", then
    # "cut short" at the next line and at that one); each command now says it once, at the
    # line the cut falls in, and not as a file being written: an archive is not.
    from builders import invoke

    calls = Calls()
    records = [meta(THREAD, at(0)), turn_context(at(1)), user_message(at(1), "cut mid line")]
    records += [{**calls.call(at(2 + n), 100, 0, 10), "pad": f"{n:08d}" * 200} for n in range(600)]
    data = zstandard.ZstdCompressor().compress(b"".join(orjson.dumps(record) + b"\n" for record in records))
    cut = data[: len(data) * 3 // 4]
    kept = zstandard.ZstdDecompressor().stream_reader(cut).read()
    assert kept and not kept.endswith(b"\n") and b"token_count" in kept[kept.rindex(b"\n"):]  # cut inside a call
    path = _write(isolated_home, cut)
    line = kept.count(b"\n") + 1
    expected = [f"warning: {path}:{line}: read failed: the file is cut short (its zstd data end part way through a "
                "frame); the lines before the cut are kept"]
    for args in (("list",), ("tokens",), ("show", f"codex:{THREAD}"), ("list",)):  # (the last from the index)
        result = invoke(*args)
        assert result.exit_code == 0, result.stderr
        said = [" ".join(text.split()) for text in result.stderr.split("\nwarning: ")]
        said = [text if text.startswith("warning: ") else f"warning: {text}" for text in said if str(path) in text]
        assert said == expected, (args, result.stderr)
