"""``show``'s hook hint (``hooks.tailread``) past its early stop: only a line whose payload has a
top-level ``"timestamp"`` later than the best found can come after it.

Before, once any line before the stop held the word ``"timestamp"`` (a nested key too), every
earlier line was split and walked in Python, and every line holding the word decoded: a 255 MB
Gemini store took 1.3 CPU-s for a hint.  Now the file is searched backward for the word, from
one hit to the next, and a hit is decoded only when its timestamps' values may put it later.
"""

from __future__ import annotations

import mmap
import random
from pathlib import Path
from typing import Any

import pytest

from agentscan.hooks import tailread
from test_hooks_unlisted_tail_pass56 import BASE, SECOND, _iso, _line, _session, _tree_says


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """(the lines decoded, the lines walked backward) as the tail reads."""
    decoded: list[int] = []
    walked: list[int] = []
    real_decoder, real_backward = tailread.line_decoder, tailread.lines_backward

    def decoder(session: Any) -> Any:
        decode = real_decoder(session)

        def counted(line: bytes, number: int, warnings: list[Any]) -> Any:
            decoded.append(1)
            return decode(line, number, warnings)
        return counted

    def backward(handle: Any) -> Any:
        for item in real_backward(handle):
            walked.append(1)
            yield item

    monkeypatch.setattr(tailread, "line_decoder", decoder)
    monkeypatch.setattr(tailread, "lines_backward", backward)
    return decoded, walked


def test_a_nested_timestamp_does_not_walk_the_lines_before_the_stop(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the nested key in line 3 made it walk all 2,000 lines."""
    lines = [_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n % 7}.jsonl",
                   **({"tool_response": {"timestamp": "2020-01-01T00:00:00.000Z"}} if n == 3 else {}))
             for n in range(2000)]
    session = _session(tmp_path, lines)
    decoded, walked = _counting(monkeypatch)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == f"/t/{1999 % 7}.jsonl"
    assert len(walked) <= 40 and len(decoded) <= 40, (len(walked), len(decoded))


def test_lines_stamped_at_their_capture_are_not_decoded_past_the_stop(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: every one of the 2,000 lines (each with a payload timestamp) was decoded."""
    lines = [_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n % 7}.jsonl",
                   timestamp=_iso(BASE + n * SECOND)) for n in range(2000)]
    session = _session(tmp_path, lines)
    decoded, walked = _counting(monkeypatch)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == f"/t/{1999 % 7}.jsonl"
    assert len(walked) <= 40 and len(decoded) <= 40, (len(walked), len(decoded))


def test_an_early_line_stamped_later_is_still_found(tmp_path: Path) -> None:
    lines = [_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n}.jsonl",
                   **({"timestamp": _iso(BASE + 5000 * SECOND)} if n == 2 else {})) for n in range(500)]
    session = _session(tmp_path, lines)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == "/t/2.jsonl"


@pytest.mark.parametrize("mapped", [True, False])
def test_ties_and_nested_keys_agree_with_the_tree_in_300_random_sessions(tmp_path: Path, mapped: bool,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Coarse clocks, so that orders tie often, nested ``timestamp`` keys, stamps written as
    numbers or with escapes (decoded, not read in place); without ``mmap`` too."""
    if not mapped:
        def unmappable(*args: Any, **kwargs: Any) -> Any:
            raise OSError("no mmap here")
        monkeypatch.setattr(mmap, "mmap", unmappable)
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
            shape = rng.random()
            if shape < 0.3:
                fields["timestamp"] = _iso(stamp)
            elif shape < 0.4:
                fields["tool_response"] = {"timestamp": _iso(stamp)}
            elif shape < 0.45:
                fields["timestamp"] = stamp // 1_000_000  # epoch ms
            elif shape < 0.5:
                fields["timestamp"] = _iso(stamp).replace("T", "\\T")  # (a backslash: decoded, a time no more)
            lines.append(_line(at, "Stop", **fields))
        session = _session(tmp_path / str(trial), lines)
        if tailread.latest_transcript_path(session) != _tree_says(session):
            disagree.append(trial)
    assert disagree == []
