"""``show``'s hook hint (``hooks.tailread._payload_stamps``): how deep each ``"timestamp"`` key
stands is counted on from the hit before, not from the line's start for every hit.  A 1 MB
store whose lines hold 3,000 nested numeric timestamps each took 18.6 CPU-s (0.11 before the
nested ones were read in place): each hit's whole head was scanned again.
"""

from __future__ import annotations

from pathlib import Path

from agentscan.hooks import tailread
from test_hooks_unlisted_tail_pass56 import BASE, SECOND, _iso, _line, _session, _tree_says

import pytest


def _scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes ``_depth`` is handed, call by call."""
    sizes: list[int] = []
    depth = tailread._depth

    def counting(stretch: bytes) -> int:
        sizes.append(len(stretch))
        return depth(stretch)

    monkeypatch.setattr(tailread, "_depth", counting)
    return sizes


def test_thousands_of_nested_timestamps_a_line_are_scanned_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: each line's 3,000 hits scanned its head again, 3,000 × 100 KB / 2 a line."""
    rows = [{"timestamp": 1_700_000_000 + i, "v": "x"} for i in range(3000)]
    lines = [_line(BASE + n * 60 * SECOND, "AfterTool", transcript_path=f"/t/{n}.jsonl", tool_response={"rows": rows})
             for n in range(4)]
    session = _session(tmp_path, lines)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == "/t/3.jsonl"
    sizes = _scanned(monkeypatch)
    assert tailread.latest_transcript_path(session) == "/t/3.jsonl"
    # (every line but the last is searched: its hits are all looked at, each byte of it at most once)
    assert len(sizes) >= 3 * 3000
    assert sum(sizes) <= sum(len(line) for line in lines), sum(sizes)


@pytest.mark.parametrize("nested", [
    {"{{\"timestamp": 5},  # (a key whose hit's first quote is escaped, brackets before it in the same string)
    {"a\"timestamp": "2000-01-01T00:00:00Z", "b": ["\"timestamp", "[{\"timestamp"]},
    ["\\", {"\\\"timestamp": 1}, "]]\\\\"],
])
def test_a_hit_inside_a_string_moves_no_depth(tmp_path: Path, nested: object) -> None:
    """The payload's own later timestamp after a hit that ends a string: still at depth 2."""
    lines = [_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n}.jsonl", tool_response=nested,
                   **({"timestamp": _iso(BASE + 5000 * SECOND)} if n == 2 else {})) for n in range(300)]
    session = _session(tmp_path, lines)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == "/t/2.jsonl"
    later = tailread._payload_stamps(lines[2], tailread._suspects(0))
    assert later == [_iso(BASE + 5000 * SECOND).encode()]
