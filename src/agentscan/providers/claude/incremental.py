"""Usage candidates of one transcript, parsed once and then only as it grows.

Claude Code transcripts are append-only.  For ``tokens`` we keep, per file,
the usage candidates found so far and the offset where the last complete
line ended.  When the file has only grown (larger, same first bytes), just
the new tail is parsed; anything else means a full re-parse.  Lines are
pre-filtered on the bytes ``"usage"`` before JSON decoding: most records
(progress, tool results, snapshots) carry no usage and are skipped unread.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import orjson

from agentscan.context import ScanContext
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines
from agentscan.model import TokenUsage
from agentscan.providers.claude.usage import UsageCandidate, candidate_from
from agentscan.timeutil import from_epoch

KIND = "claude.usage"
VERSION = "3"  # 2: the one-hour cache write split; 3: progress copies of subagent calls
_HEAD_BYTES = 4096
_PREFILTER = b'"usage"'


def _head_digest(path: Path, size: int) -> str | None:
    """A digest of the first bytes; ``None`` when the file went away or became unreadable."""
    try:
        with open(path, "rb") as handle:
            return hashlib.blake2b(handle.read(min(size, _HEAD_BYTES)), digest_size=12).hexdigest()
    except OSError:
        return None


def _pack(c: UsageCandidate, order_base: int) -> list:
    t = c.tokens
    packed = [c.message_id, c.request_id, c.sidechain, c.has_speed, t.input, t.cache_read, t.cache_write, t.output,
              c.timestamp.timestamp() if c.timestamp else None, c.model, c.order - order_base, c.cache_write_1h]
    if c.from_progress:  # a progress copy names its own subagent
        packed.append(c.subagent)
    return packed


def _unpack(row: list, session: str, subagent: str | None, order_base: int) -> UsageCandidate:
    from_progress = len(row) > 12
    return UsageCandidate(
        session=session, subagent=row[12] if from_progress else subagent, message_id=row[0], request_id=row[1],
        sidechain=row[2], has_speed=row[3], tokens=TokenUsage(row[4], row[5], row[6], row[7]),
        timestamp=from_epoch(row[8]) if row[8] is not None else None, model=row[9], order=order_base + row[10],
        cache_write_1h=row[11], from_progress=from_progress,
    )


def _parse(
    path: Path, ctx: ScanContext, start: int, first_line: int, session: str, subagent: str | None, order_base: int
) -> tuple[list[UsageCandidate], ReadProgress]:
    progress = ReadProgress(start, first_line - 1)
    found = []
    for line in iter_json_lines(path, ctx, start=start, first_line=first_line, prefilter=_PREFILTER, progress=progress):
        candidate = candidate_from(line.record, session=session, subagent=subagent, order=order_base + line.number)
        if candidate is not None:
            found.append(candidate)
    return found, progress


def file_usage(path: Path, ctx: ScanContext, *, session: str, subagent: str | None, order_base: int) -> list[UsageCandidate]:
    """Every usage candidate of ``path``, from the per-file cache when it can."""
    cache = ctx.file_cache
    try:
        stat = os.stat(path)
    except OSError as exc:
        ctx.warn(path, f"cannot read: {exc.strerror or exc}")
        return []
    if stat.st_size == 0:
        ctx.warn(path, "empty file")
        return []
    if cache is None:
        found, _ = _parse(path, ctx, 0, 1, session, subagent, order_base)
        return found
    key = str(path)
    state = cache.get_file(key, KIND)
    previous: list[list] = []
    warnings: list[dict] = []
    start, first_line = 0, 1
    if state is not None:
        size, mtime_ns, version, old_head, offset, blob = state
        stored = orjson.loads(blob)
        if version == VERSION and size == stat.st_size and mtime_ns == stat.st_mtime_ns:
            _replay(ctx, stored["warnings"])
            return [_unpack(row, session, subagent, order_base) for row in stored["candidates"]]
        if version == VERSION and stat.st_size > size and _head_digest(path, size) == old_head:
            # Only grown (same first bytes): parse just the new tail.
            previous, warnings = stored["candidates"], stored["warnings"]
            start, first_line = offset, stored["lines"] + 1
            _replay(ctx, warnings)
    cache.parses += 1
    with ctx.warnings.capture() as captured:
        found, progress = _parse(path, ctx, start, first_line, session, subagent, order_base)
    packed = previous + [_pack(c, order_base) for c in found]
    document = {"candidates": packed, "warnings": warnings + [w.to_json() for w in captured], "lines": progress.lines}
    head = _head_digest(path, progress.complete_offset)
    if head is None:  # gone or unreadable since the parse began (that parse warned): cache nothing
        return [_unpack(row, session, subagent, order_base) for row in previous] + found
    cache.put_file(key, KIND, progress.complete_offset, stat.st_mtime_ns, VERSION, head, progress.complete_offset, orjson.dumps(document))
    return [_unpack(row, session, subagent, order_base) for row in previous] + found


def _replay(ctx: ScanContext, warnings: list[dict]) -> None:
    for warning in warnings:
        ctx.warn(warning["path"], warning["message"], warning.get("line"))
