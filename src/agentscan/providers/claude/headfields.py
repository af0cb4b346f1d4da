"""A field of a Claude transcript's first records (its ``sessionId``, its ``cwd``), read
from its head and remembered per file until its stat changes: discovery names a legacy
subagent's parent by it, a resumed session the one it was resumed from, and a project's
directory its cwd.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Iterator

import orjson

from agentscan.context import ScanContext
from agentscan.toolkit import laxjson
from agentscan.toolkit.jsonl import BOM, read_head

HEADER_BYTES = 64 * 1024
#: at most this much is read for a header field of a transcript whose first line is longer
#: than ``HEADER_BYTES`` (``header_field``)
LONG_HEADER_BYTES = 4 * 1024 * 1024


def header_field(path: Path, ctx: ScanContext, key: str, stat: os.stat_result | None = None) -> str | None:
    """The first non-empty string ``key`` of a transcript's first records: those of its first
    64 KiB, or, when a line goes on past them, of the lines that begin within its first
    ``LONG_HEADER_BYTES``, each read whole (shrunk past the readers' cap).

    Remembered per file until its stat changes, so a warm run reads no header.
    """
    # /2: read by laxjson (a lone surrogate); /3: a first line longer than the head read whole;
    # /4: a line longer than the readers' cap read shrunk (a pasted image of 6 MB)
    facts = ctx.remembered(f"claude.header.{key}/4")
    text = str(path)
    stat = stat if stat is not None else ctx.stat(text)
    if stat is not None:
        known = facts.get(text, stat)
        if isinstance(known, dict) and "value" in known:
            return known["value"] if isinstance(known["value"], str) else None
    try:
        head = read_head(path, HEADER_BYTES)
        found = _named_in(head.removeprefix(BOM).splitlines(), key)
        if found is None and len(head) == HEADER_BYTES and not head.endswith((b"\n", b"\r")):
            # A line the head cuts (a pasted file as a prompt) may be the first to name the
            # session: read on line by line, rather than say none.
            found = _named_in(_long_head_lines(path), key)
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return None
    if stat is not None:
        facts.put(text, stat, {"value": found})
    return found


def _named_in(lines: Iterable[bytes], key: str) -> str | None:
    """The first non-empty string ``key`` of the records ``lines`` hold."""
    for line in lines:
        try:
            record = laxjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get(key), str) and record[key]:
            return record[key]
    return None


def _long_head_lines(path: Path) -> Iterator[bytes]:
    """The lines that begin within the first ``LONG_HEADER_BYTES`` of ``path``, each whole, and
    shrunk past the readers' cap as every reader shrinks it (``shrinkline``): a first line of
    a 6 MB pasted image still names its session."""
    from agentscan.toolkit.jsonl import MAX_LINE_BYTES, open_binary
    from agentscan.toolkit.shrinkline import read_long_line

    with open_binary(path) as handle:
        at = 0  # (counted: a compressed stream tells no position)
        while at < LONG_HEADER_BYTES:
            line = handle.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            first, at = at == 0, at + len(line)
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                shrunk, more, _ = read_long_line(handle, line, MAX_LINE_BYTES)
                at += more
                line = shrunk or b""  # (one that cannot be shrunk is passed over, as readers do)
            yield line.removeprefix(BOM) if first else line


def header_cwd(path: Path, ctx: ScanContext) -> str | None:
    return header_field(path, ctx, "cwd")
