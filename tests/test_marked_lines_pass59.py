"""One backward search for marked lines (pass 59): ``toolkit.markedlines``.

Codex's ``turnseed.model_before`` and ``totalseed.totals_before`` each walked back from ``list``'s
window in 1 MiB blocks with their own seam join and line-start search, and a window with both a
call of no model and a drop walked up to 32 MiB twice; ``hooks.tailread`` had a third reader of
pieces.  They share ``MarkedLines`` now, and the window's two searches take one walk
(``totalseed.seeds_before``).  Pinned: a marked line longer than a block across the seam, a line
past ``longest`` passed over, a file cut since, the 32 MiB bound, and the one walk.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agentscan.providers.codex import seedwalk, totalseed
from agentscan.providers.codex.turnseed import MAX_BACK_BYTES, Seed
from agentscan.toolkit.markedlines import MarkedLines, literal_finder

MIB = 1024 * 1024


def _walk(data: bytes, markers: tuple[bytes, ...], **kwargs: Any) -> tuple[list[tuple[int, bytes]], MarkedLines]:
    walk = MarkedLines(io.BytesIO(data), kwargs.pop("end", len(data)), literal_finder(markers),
                       seam=max(map(len, markers)) - 1, **kwargs)
    return list(walk), walk


def test_a_marked_line_longer_than_a_block_is_found_at_its_start_across_the_seam() -> None:
    long = b'{"pad": "' + b"x" * 300 + b'", "k": "MARK"}\n'
    last = b'{"MARK": "' + b"z" * 55 + b'"}\n'
    data = b'{"a": 1}\n' + long + b'{"b": 2}\n' + last
    at = len(data) - len(last) + 2
    assert at < len(data) - 64 < at + 4  # the last line's marker runs across the last block's seam
    found, walk = _walk(data, (b"MARK",), block=64)
    # Found once; the long line's start is found blocks back from its marker.
    assert found == [(len(data) - len(last), b"MARK"), (9, b"MARK")]
    assert not walk.cut and walk.none_below(b"MARK")


def test_a_line_longer_than_longest_is_passed_over_and_a_short_one_still_found() -> None:
    data = b'{"x": "MARK"}\n' + b'{"pad": "' + b"y" * 200_000 + b'MARK"}\n' + b'{"z": 0}\n'
    found, _ = _walk(data, (b"MARK",), block=4096, longest=100_000)
    assert found == [(0, b"MARK")]
    found, _ = _walk(data, (b"MARK",), block=256)
    assert found == [(14, b"MARK"), (0, b"MARK")]


def test_a_file_shorter_than_its_end_is_cut_and_nothing_is_given() -> None:
    data = b'{"MARK": 1}\n' * 10
    found, walk = _walk(data, (b"MARK",), end=len(data) + 12, block=32)
    assert found == [] and walk.cut


def test_the_search_stops_at_its_floor_but_places_a_line_that_straddles_it() -> None:
    data = b'{"MARK": 1}\n' + b'{"pad": "' + b"p" * 100 + b'", "MARK": 2}\n' + b'{"q": 3}\n'
    found, walk = _walk(data, (b"MARK",), floor=20, block=32)
    assert found == [(12, b"MARK")] and not walk.none_below(b"MARK")


def _codex_line(record: dict) -> bytes:
    return json.dumps(record).encode() + b"\n"


def _turn_context(model: str, pad: int = 0) -> bytes:
    """Its type last: the marker at the line's end, the line's start ``pad`` bytes before it."""
    return _codex_line({"timestamp": "2026-01-01T00:00:00Z", "payload": {"note": "n" * pad, "model": model},
                        "type": "turn_context"})


def model_before(path: Path, end: int) -> Seed | None:
    """The model the walk back from ``end`` finds, asked as ``headtail`` asks (``seeds_before``)."""
    return totalseed.seeds_before(path, end, model=True, totals=False)[0]


def _filler(size: int) -> bytes:
    line = _codex_line({"timestamp": "2026-01-01T00:00:01Z", "type": "response_item",
                        "payload": {"type": "message", "role": "assistant", "content": [{"text": "f" * 4000}]}})
    return line * (size // len(line) + 1)


def test_a_turn_context_line_across_the_1_mib_seam_names_the_model(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    # A turn_context of 1.5 MiB whose marker stands in the last block read, its start in the one before.
    data = _turn_context("gpt-long", pad=MIB + MIB // 2) + _filler(MIB // 2)
    path.write_bytes(data)
    assert model_before(path, len(data)) == Seed("gpt-long", None, None)
    assert model_before(path, len(data) + 100) == Seed()  # (cut since: none taken)
    search = totalseed.TotalsSearch()  # (the totals search asked alone: nothing taken past the cut)
    seedwalk.walk_back(path, len(data) + 100, [search])
    assert search.found is None


def test_the_turn_is_looked_for_32_mib_back_and_no_further(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    filler = _filler(MAX_BACK_BYTES)
    data = _turn_context("gpt-far") + filler[:MAX_BACK_BYTES - 64]
    path.write_bytes(data)
    assert len(data) - MAX_BACK_BYTES < len(_turn_context("gpt-far"))  # its marker within reach
    assert model_before(path, len(data)) == Seed("gpt-far", None, None)
    data = _turn_context("gpt-far") + filler
    path.write_bytes(data)
    assert model_before(path, len(data)) == Seed()


def test_a_window_with_a_call_of_no_model_and_a_drop_walks_back_once(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the two searches read 32 MiB each (and 64 KiB around every hit)."""
    path = tmp_path / "rollout.jsonl"
    data = _turn_context("gpt-far") + _filler(MAX_BACK_BYTES + MIB)
    path.write_bytes(data)
    read: list[int] = []

    class Counted(io.FileIO):
        def read(self, size: int = -1) -> bytes:  # type: ignore[override]
            chunk = super().read(size)
            read.append(len(chunk))
            return chunk

    monkeypatch.setattr(seedwalk, "open_regular", lambda p: Counted(str(p), "r"))
    from agentscan.providers.codex.headtail import _read_tail
    from agentscan.context import ScanContext

    window = b"".join(_codex_line({"timestamp": "2026-01-01T00:00:02Z", "type": "event_msg", "payload": {
        "type": "token_count", "info": {"total_token_usage": {"input_tokens": total, "output_tokens": 1},
                                        "last_token_usage": {"input_tokens": 5, "output_tokens": 1}}}})
        for total in (900, 400))
    with path.open("ab") as handle:
        handle.write(window)
    summary = _read_tail(path, ScanContext.create(home=tmp_path, env={}))
    assert summary is not None
    assert sum(read) < MAX_BACK_BYTES + MIB, sum(read) / MIB
