"""What a provider's ``tokens`` pass packs beside what ``usage()`` packs (``show``'s path), and
whether that pass makes any ``UsageEntry``: the checks of Codex's and Gemini's packed calls."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentscan.context import ScanContext


def packed_beside_entries(provider: Any, home: Path) -> list[tuple[list[list], list[list]]]:
    """Each session of ``home``: (``session_usage``'s packed calls, ``usage``'s entries packed)."""
    ctx = ScanContext.create(home=home, env={})
    refs = provider.discover(ctx)
    assert refs
    out = []
    for ref in refs:
        packed, state = provider.session_usage(ref, ctx)
        assert state is None
        out.append((list(packed), [entry.pack() for entry in provider.usage([ref], ctx)]))
    return out


def entries_made_by_tokens_pass(provider: Any, module: ModuleType, home: Path,
                                monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The ``UsageEntry``s ``module`` makes while ``provider``'s sessions of ``home`` are packed
    (after asserting some call was packed)."""
    made: list[object] = []
    entry = module.UsageEntry

    def counted(*args: object, **kwargs: object) -> object:
        made.append(args)
        return entry(*args, **kwargs)

    monkeypatch.setattr(module, "UsageEntry", counted)
    ctx = ScanContext.create(home=home, env={})
    assert any(list(provider.session_usage(ref, ctx)[0]) for ref in provider.discover(ctx))
    return made
