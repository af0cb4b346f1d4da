"""Pass 59: a file of thousands of bad lines cost ≈5 KB a line to the end of a ``--no-cache``
run (55 MB for one file of 10,050): each line orjson refused was asked of ``laxjson.reparse``,
which raised the error again, and that error's traceback kept ``reparse``'s frame, which kept
the error (and the line, and the sink's partial): a cycle, never freed with the collector off
(the CLI turns it off: ``entry``).  Read through each line reader, with the collector off, what
is left after the read is bounded, whatever the number of bad lines."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path
from typing import Callable, Iterator

import pytest

from agentscan.context import ScanContext
from agentscan.toolkit.jsonl import iter_json_lines
from agentscan.toolkit.linescan import ScanProgress, matching_records

BAD_LINES = 3_000
#: what the reads may leave (the sink's 20 warnings a file, and its count): far below the
#: ≈7 MB 3,000 bad lines left before
LEFT_LIMIT = 1024 * 1024


def _linescan(path: Path, ctx: ScanContext) -> Iterator[object]:
    return matching_records(path, ctx, b'"usage"', ScanProgress())


def _jsonl(path: Path, ctx: ScanContext) -> Iterator[object]:
    return iter_json_lines(path, ctx)


@pytest.mark.parametrize("read", [_linescan, _jsonl])
def test_bad_lines_leave_nothing_behind_with_the_collector_off(
        tmp_path: Path, read: Callable[[Path, ScanContext], Iterator[object]]) -> None:
    path = tmp_path / "bad.jsonl"
    good = b'{"type": "assistant", "message": {"usage": {"input_tokens": 1}}}\n'
    path.write_bytes(good + b"".join(b'{"type": "assistant", "message": {"usage": {not json %d\n' % n
                                     for n in range(BAD_LINES)) + good)
    ctx = ScanContext.create(home=tmp_path)
    ctx.warn(path, "warmed", None)  # (the sink's per-file dicts made before the count starts)
    was_on = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        assert len(list(read(path, ctx))) == 2
        left = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        if was_on:
            gc.enable()
    assert left < LEFT_LIMIT, f"{left / 1e6:.1f} MB left by {BAD_LINES:,} bad lines"
    said = ctx.warnings.listed()
    assert said[-1].message == f"{BAD_LINES + 1 - 20:,} more warnings for this file were not listed"
