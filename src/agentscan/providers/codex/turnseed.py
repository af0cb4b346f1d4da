"""The model a rollout's last 1 MiB begins on: that of the last ``turn_context`` before it.

``list`` reads only the last 1 MiB of a larger rollout (``headtail``), and a call
runs on the model of the latest ``turn_context`` (``callscan``).  One long turn (a
``turn_context``, then hundreds of tool calls) fills the window with calls whose turn
began before it: those calls had no model, and the row said MODEL ``-`` (or the model
of a short turn after them) until a whole pass (``tokens``, ``show``) had read the
file.  A window with calls before its first ``turn_context`` is read again
from the model of the last ``turn_context`` before it, found by searching the bytes
backwards (at most ``MAX_BACK_BYTES``) and decoding only the lines found: the model
each of those calls ran on, as a whole pass gives it.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from agentscan.providers.codex.records import as_str, enveloped, payload_of
from agentscan.toolkit import jsonl
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonl import line_record

#: how far before the window a ``turn_context`` is looked for (a longer turn keeps ``-``
#: until a whole pass: a first ``list`` of a heavy user's newest sessions reads no gigabytes)
MAX_BACK_BYTES = 32 * 1024 * 1024
#: read backwards this much at a time
_BLOCK = 1024 * 1024
#: a record's type, spelled as Codex writes it (an escaped spelling is no record's own type)
_MARKER = b'"turn_context"'


def model_before(path: Path, end: int) -> str | None:
    """The model of the last ``turn_context`` record that names one, before byte ``end`` of
    ``path`` (a line's start) and within ``MAX_BACK_BYTES`` of it; ``None``: none found."""
    try:
        with open_regular(path) as handle:
            floor = max(0, end - MAX_BACK_BYTES)
            position, after = end, b""
            while position > floor:
                start = max(floor, position - _BLOCK)
                handle.seek(start)
                block = handle.read(position - start)
                if len(block) < position - start:
                    return None  # cut meanwhile
                # A marker may run across the blocks' seam: the next block's first bytes join.
                searched = block + after
                at = searched.rfind(_MARKER)
                while at >= 0:
                    found = _model_at(handle, start + at)
                    if found is not None:
                        return found
                    at = searched.rfind(_MARKER, 0, at)
                after = block[:len(_MARKER) - 1]
                position = start
    except OSError:
        return None
    return None


def _model_at(handle: BinaryIO, offset: int) -> str | None:
    """The model of the ``turn_context`` record whose line holds byte ``offset``, if the line
    is one (and not a mention nested in another record)."""
    line_start = _line_start(handle, offset)
    if line_start is None:
        return None
    handle.seek(line_start)
    line = handle.readline(jsonl.MAX_LINE_BYTES + 2)
    decoded = line_record(line.rstrip(b"\r\n"), first=line_start == 0)
    if decoded is None:
        return None
    record = enveloped(decoded)
    if record.get("type") != "turn_context":
        return None
    return as_str(payload_of(record).get("model"))


def _line_start(handle: BinaryIO, offset: int) -> int | None:
    """Where the line holding byte ``offset`` starts; ``None`` past a line the pass would skip."""
    position = offset
    while position > 0:
        start = max(0, position - 64 * 1024)
        handle.seek(start)
        block = handle.read(position - start)
        newline = block.rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        if offset - start > jsonl.MAX_LINE_BYTES:
            return None
        position = start
    return 0
