"""``show``'s hook hint (``hooks.tailread``): only the payload's own ``"timestamp"`` is read in
place.  A nested numeric one (a tool's response holding ``"timestamp": 1700000000`` on every
line) is no plain string, so every line holding it was decoded, though ``tree.effective_ns``
reads the payload's top-level key alone and a nested one cannot move a line in the tree's order.
"""

from __future__ import annotations

from pathlib import Path

from agentscan.hooks import tailread
from test_hooks_tail_search import _counting
from test_hooks_unlisted_tail_pass56 import BASE, SECOND, _iso, _line, _session, _tree_says

import pytest


def test_a_nested_numeric_timestamp_on_every_line_is_not_decoded(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: each of the 2,000 lines was decoded."""
    lines = [_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n % 7}.jsonl",
                   tool_response={"timestamp": 1_700_000_000 + n, "rows": [{"timestamp": n}]})
             for n in range(2000)]
    session = _session(tmp_path, lines)
    decoded, walked = _counting(monkeypatch)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == f"/t/{1999 % 7}.jsonl"
    assert len(walked) <= 40 and len(decoded) <= 40, (len(walked), len(decoded))


@pytest.mark.parametrize("nested", [{"timestamp": 5}, [{"timestamp": "9999-01-01T00:00:00.000Z"}],
                                    {"a": {"timestamp": "x"}, "b": "\"timestamp\": 1, {"}])
def test_the_payloads_own_later_timestamp_is_still_found_beside_a_nested_one(tmp_path: Path, nested: object) -> None:
    lines = [_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n}.jsonl", tool_response=nested,
                   **({"timestamp": _iso(BASE + 5000 * SECOND)} if n == 2 else {})) for n in range(500)]
    session = _session(tmp_path, lines)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == "/t/2.jsonl"


@pytest.mark.parametrize("line, expected", [
    (_line(BASE, "Stop", timestamp="2020-01-01T00:00:00Z", tool_response={"timestamp": 1}), [b"2020-01-01T00:00:00Z"]),
    (_line(BASE, "Stop", tool_response={"timestamp": 1}, note="timestamp"), []),
    (_line(BASE, "Stop", timestamp=1), None),  # (the payload's own, a number: decoded)
    (b'{"payload":{"timestamp":"2020-01-01T00:00:00Z"}}\n', None),  # (not as the hook writes a line)
])
def test_the_payloads_own_stamps_are_read_in_place(line: bytes, expected: list[bytes] | None) -> None:
    assert tailread._payload_stamps(line, tailread._suspects(0)) == expected  # (every value a suspect)
    # (a plain time earlier than the best is passed over, as ``_suspect_lines`` passes it over)
    assert tailread._payload_stamps(line, tailread._suspects(BASE)) == (None if expected is None else [])


def test_nested_and_own_timestamps_agree_with_the_tree_in_300_random_sessions(tmp_path: Path) -> None:
    import random
    from typing import Any

    disagree = []
    for trial in range(300):
        rng = random.Random(trial)
        lines, at = [], BASE
        for n in range(rng.randint(1, 30)):
            at += rng.choice((0, 0, 10, 40)) * SECOND
            fields: dict[str, Any] = {}
            if rng.random() < 0.6:
                fields["transcript_path"] = f"/t/{n}.jsonl"
            stamp = at + rng.choice((-100, 0, 0, 40, 100)) * SECOND
            for _ in range(rng.randint(0, 2)):
                nested = rng.choice(({"timestamp": stamp // 1_000_000}, [{"timestamp": _iso(stamp + 500 * SECOND)}],
                                     {"a": {"timestamp": _iso(stamp)}}, {"note": "timestamp", "s": '"timestamp": {'}))
                fields[rng.choice(("tool_response", "tool_input", "extra"))] = nested
            shape = rng.random()
            if shape < 0.4:
                fields["timestamp"] = _iso(stamp)
            elif shape < 0.5:
                fields["timestamp"] = stamp // 1_000_000
            lines.append(_line(at, "Stop", **fields))
        session = _session(tmp_path / str(trial), lines)
        if tailread.latest_transcript_path(session) != _tree_says(session):
            disagree.append(trial)
    assert disagree == []
