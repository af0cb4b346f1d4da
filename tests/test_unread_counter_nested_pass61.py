"""A Codex counter of no number nested past orjson's depth (a hostile or damaged rollout) is said
by its kind: its JSON spelling raised ``TypeError: Recursion limit reached`` out of the scan
(found by ``tests/test_fuzz_parsers.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.providers.codex.counters import counters_of
from agentscan.toolkit import valuewarnings
from agentscan.toolkit.valuewarnings import tallied


def test_a_counter_nested_too_deep_is_said_by_its_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nested: object = []
    for _ in range(300):
        nested = [nested]
    said: list[str] = []
    real = valuewarnings.FileTally.note
    monkeypatch.setattr(valuewarnings.FileTally, "note",
                        lambda self, kind, message: (said.append(message), real(self, kind, message))[1])
    ctx = ScanContext.create(home=tmp_path)
    with tallied(tmp_path / "rollout.jsonl", ctx):
        assert counters_of({"input_tokens": nested, "output_tokens": 5}) is None
    assert any("input_tokens is an array" in message for message in said), said
