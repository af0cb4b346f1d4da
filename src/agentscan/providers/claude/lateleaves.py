"""The leaves of ``summary`` records written after them, found in a transcript's bytes.

A ``summary`` record titles its session when its ``leafUuid`` is a record of the same file
(``titles``), wherever that record is.  A pass meets a leaf written after its summary as it
reads on (``titles.note_leaf``); one written before it was read before the summary named
it, and a pass does not keep every uuid it meets (a 1 GB transcript holds a million).  So
a summary whose leaf a pass did not meet after it stays pending (its leaf and where the
summary's line ends: at most ``titles.MAX_SUMMARIES`` of them), and at the title
(``titles.title_of``) the bytes before the last pending summary are scanned once for
those leaves' ``"uuid"`` values, each line found decoded as the pass decodes it
(``jsonl.line_record``) to tell a record's own uuid from a nested one.  A file that starts
with other sessions' summaries (claude-code issue 2597) has next to nothing before them:
the scan is only long for a file whose summary follows its conversation.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import orjson

from agentscan.toolkit.jsonl import line_record, open_binary
from agentscan.toolkit.shrinkline import LONG_LINE_LIMIT

if TYPE_CHECKING:
    from pathlib import Path

#: a ``"uuid"`` key's string value in a line's bytes, its escapes kept (as ``seenuuids``')
_UUID = re.compile(rb'"uuid"\s*:\s*"((?:[^"\\\n]+|\\.)*)"')
_BLOCK = 8 << 20


def late_leaves(path: Path, pending: dict[str, int]) -> dict[str, int]:
    """``leaf -> where its record's line ends`` (the last such line) for each leaf in
    ``pending`` (``leaf -> where its summary's line ends``) that is a record's own uuid in a
    line before its summary's.  A file that cannot be read again finds none."""
    stop = max(pending.values(), default=0)
    found: dict[str, int] = {}
    base, carry, skipping = 0, b"", False  # ``base``: where ``carry`` (a line's start) begins
    try:
        with open_binary(path) as handle:
            read = 0
            while read < stop:
                block = handle.read(min(_BLOCK, stop - read))
                if not block:
                    break
                read += len(block)
                if skipping:  # the rest of a line too long for the pass to read at all, which skipped it
                    ends = block.find(b"\n")
                    if ends < 0:
                        base += len(block)
                        continue
                    base += ends + 1
                    block, skipping = block[ends + 1:], False
                data = carry + block if carry else block
                cut = data.rfind(b"\n") + 1 if read < stop else len(data)
                _scan(data, cut, base, pending, found)
                carry, base = data[cut:], base + cut
                if len(carry) > LONG_LINE_LIMIT:  # (a line over the cap is read shrunk: ``shrinkline``)
                    base, carry, skipping = base + len(carry), b"", True
    except (OSError, ValueError):
        return {}
    return found


def _scan(data: bytes, cut: int, base: int, pending: dict[str, int], found: dict[str, int]) -> None:
    decoded_to = -1  # where the last line told ends: a line is looked at once, however many
    # pending uuids it nests (a crafted record nesting one N times cost N decodes of its N bytes)
    last = max(pending.values(), default=0)
    for match in _UUID.finditer(data, 0, cut):
        if match.start() < decoded_to:
            continue
        raw = match.group(1)
        try:
            leaf = orjson.loads(b'"' + raw + b'"') if b"\\" in raw else raw.decode()
        except (orjson.JSONDecodeError, UnicodeDecodeError):
            continue
        if leaf not in pending:
            continue
        start = data.rfind(b"\n", 0, match.start()) + 1
        end = data.find(b"\n", match.start(), cut)
        end = cut if end < 0 else end
        decoded_to = end  # (told once, whatever it is: a line after one summary may nest its leaf)
        if base + end + 1 >= last:
            continue  # a summary's own line, or one after every summary
        record = line_record(data[start:end], first=base + start == 0)
        uuid = record.get("uuid") if record is not None else None
        if uuid.__class__ is str and uuid in pending and base + end + 1 < pending[uuid]:
            found[uuid] = base + end + 1  # (the record's own uuid, whichever nested one led here)
