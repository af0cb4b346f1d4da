"""Whether a ``.zst`` file's frames end where the file does.

zstandard's ``stream_reader`` ends quietly when its input ends mid-frame: a rollout cut
short (a copy stopped part way, a disk that filled while Codex compressed it) read as
the lines before the cut, or as nothing, with no error to tell it from a whole file.
The reader (``boundedstreams.CappedStream``) asks here once it reaches the end: the frames'
headers are walked (a few bytes a block, read with ``os.pread``, the block bodies never
read), so the check costs a seek a 128 KiB block of the decompressed text.  Frame format:
RFC 8878 section 3.1.
"""

from __future__ import annotations

import os
from pathlib import Path
from agentscan.context import CANNOT_READ, ScanContext

_FRAME_MAGIC = 0xFD2FB528
#: skippable frames' magic numbers: 0x184D2A50 to 0x184D2A5F
_SKIPPABLE_LOW, _SKIPPABLE_HIGH = 0x184D2A50, 0x184D2A5F
#: the length of a Frame_Content_Size field by its flag (flag 0: 1 byte when single-segment)
_CONTENT_SIZE_BYTES = (0, 2, 4, 8)
_DICTIONARY_ID_BYTES = (0, 1, 2, 4)
_RLE_BLOCK = 1


#: what a ``.zst`` file whose compressed data stop part way through a frame is (``cut_short``)
CUT_SHORT = "the file is cut short (its zstd data end part way through a frame)"


class CutShort(Exception):
    """A reader of a file's head met the cut (``boundedstreams.cut_short``) before what it looks for."""


def say_cut_short(path: Path, ctx: ScanContext, line: int) -> None:
    """Say that ``path``, read to its end, was cut short (``boundedstreams.cut_short``): as unreadable when
    nothing came before the cut (``line`` 1: ``unreadrows`` names the session apart), else
    as a read that failed there, the lines before kept (``codex/headtail``: the counts are
    partial).  Not ``passing``: the bytes stay as they are until the file changes."""
    if line <= 1:
        ctx.warn(path, f"{CANNOT_READ}{CUT_SHORT}")
    else:
        ctx.warn(path, f"read failed: {CUT_SHORT}; the lines before the cut are kept", line)


def ends_mid_frame(fd: int, end: int) -> bool:
    """Whether the zstd frames in the first ``end`` bytes of the file ``fd`` stop part way
    (the file was cut short).  ``False`` when they end at ``end``, or when the bytes are no
    zstd frame at all: the decompressor has said what is wrong with those."""
    at = 0
    while at < end:
        head = _read(fd, at, end, 18)  # the magic number and the longest frame header
        if len(head) < 4:
            return True
        magic = int.from_bytes(head[:4], "little")
        if _SKIPPABLE_LOW <= magic <= _SKIPPABLE_HIGH:
            if len(head) < 8:
                return True
            at += 8 + int.from_bytes(head[4:8], "little")
            continue
        if magic != _FRAME_MAGIC:
            return False
        if len(head) < 5:
            return True
        descriptor = head[4]
        single_segment = bool(descriptor & 0x20)
        content_size = _CONTENT_SIZE_BYTES[descriptor >> 6] or (1 if single_segment else 0)
        at += 5 + (0 if single_segment else 1) + _DICTIONARY_ID_BYTES[descriptor & 3] + content_size
        while True:  # its blocks: a 3-byte header each, the last one flagged
            block = _read(fd, at, end, 3)
            if len(block) < 3:
                return True
            value = int.from_bytes(block, "little")
            at += 3 + (1 if (value >> 1) & 3 == _RLE_BLOCK else value >> 3)
            if value & 1:
                break
        if descriptor & 0x04:  # a content checksum follows the last block
            at += 4
    return at > end


def _read(fd: int, at: int, end: int, size: int) -> bytes:
    """At most ``size`` bytes at ``at``, none past ``end`` (where the read being checked stopped:
    a file that grew since is judged as it was read)."""
    size = min(size, end - at)
    return os.pread(fd, size, at) if size > 0 else b""
