"""A CRC-32 in front of each value agentscan stores, so damage is seen on read.

The persistent index (``scan.cache``) keeps derived values that a warm run
trusts instead of parsing again; a damaged one must be a miss, not a
plausible wrong answer.  Checking a CRC is far cheaper than checking every
field of every value, and it catches what a check of the shape would not (a
digit changed inside a number).
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

_HEADER = struct.Struct("<I")


def seal(payload: bytes) -> bytes:
    return _HEADER.pack(zlib.crc32(payload)) + payload


def sealed_parts(parts: list[bytes]) -> list[bytes]:
    """``seal(b"".join(parts))`` as parts, joined by whoever writes them (``Cache.put_snapshot_parts``)."""
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    return [_HEADER.pack(crc), *parts]


def unseal(value: object) -> bytes | None:
    """The payload of a ``seal``ed value, or ``None`` when it is damaged."""
    if not isinstance(value, bytes) or len(value) < _HEADER.size:
        return None
    payload = value[_HEADER.size:]
    return payload if _HEADER.unpack_from(value)[0] == zlib.crc32(payload) else None


def unseal_view(value: object) -> memoryview | None:
    """``unseal``, as a view of ``value`` rather than a copy of its payload (20 MB)."""
    if not isinstance(value, bytes) or len(value) < _HEADER.size:
        return None
    payload = memoryview(value)[_HEADER.size:]
    return payload if _HEADER.unpack_from(value)[0] == zlib.crc32(payload) else None


def framed(head: bytes, rest: bytes) -> bytes:
    """``head`` and ``rest`` as one value: ``head``'s length on the first line, then both."""
    return b"".join(framed_parts(head, rest))


def framed_parts(head: bytes, rest: bytes) -> list[bytes]:
    """``framed`` as parts, joined by whoever writes them (a 10 MB ``rest`` is not copied)."""
    return [b"%d\n" % len(head), head, rest]


def unframed(value: bytes) -> tuple[bytes, bytes] | None:
    """``framed``'s ``(head, rest)``; ``None``: not of that shape (damaged, or another format)."""
    line_end = value.find(b"\n")
    length = value[:line_end]
    if line_end < 1 or not length.isdigit():
        return None
    start = line_end + 1
    split = start + int(length)
    if split > len(value):
        return None
    return value[start:split], value[split:]


def unseal_json(value: object) -> Any:
    """The JSON a ``seal``ed value holds, or ``None`` when it is damaged (or no JSON)."""
    payload = unseal(value)
    if payload is None:
        return None
    import orjson  # here: a remembered answer is printed without it (``scan.answers``)

    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
