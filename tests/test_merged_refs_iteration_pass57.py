"""Iterating ``MergedRefs`` (a windowed ``tokens`` makes all 15,000 refs of a heavy user's) asks
each part's own maker of a ref, not each part's ``__getitem__`` (a bounds check, ``TopRefs``'
question whether it was read whole): the same refs, in the same order, half the cost (pass 57)."""

from __future__ import annotations

import pytest

from agentscan.model import SessionRef
from agentscan.scan.memorefs import LazyRefs, MemoRefs
from agentscan.scan.mergedrefs import MergedRefs
from spies import record_calls
from test_memo_top import _top_of


def _rows(prefix: str, recencies: list[float]) -> list[list]:
    return [[f"{prefix}{index}", None, recency, [], [], f"f{index}"] for index, recency in enumerate(recencies)]


def test_iteration_asks_no_parts_getitem(monkeypatch: pytest.MonkeyPatch) -> None:
    claude = _top_of("claude", _rows("c", [5.0, 1.0, 3.0, 3.0, 9.0]), 2)
    codex = MemoRefs.checked("codex", _rows("x", [3.0, 7.0, 0.0]))
    assert codex is not None
    fresh = [SessionRef("gemini", "g0", None, 4.0), SessionRef("gemini", "g1", None, 3.0)]
    merged = MergedRefs([claude, codex, fresh])
    asked = record_calls(monkeypatch, LazyRefs, "__getitem__", lambda self, index: index)
    made = list(merged)
    assert asked == []  # was one a ref past the head (the head's are the top rows')
    assert [ref.id for ref in made] == ["claude:c4", "codex:x1", "claude:c0", "gemini:g0", "claude:c2", "claude:c3",
                                        "codex:x0", "gemini:g1", "claude:c1", "codex:x2"]
    assert all(ref is merged[at] for at, ref in enumerate(made))  # the refs handed out are the ones kept
