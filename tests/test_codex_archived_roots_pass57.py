"""A warm windowed ``tokens`` asks Codex's index whether each remembered thread is archived
(``index.archived_at``): it listed the state folder (``codex_roots``) once per thread, ≈ 3 % of
``tokens --since 7d`` at scale 10.  The index is read once a scan, and so are its roots now (pass 57)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_archived_marks_mendL1_pass53 import ACTIVE, _codex_home


def test_archived_at_lists_the_roots_once_a_scan(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.codex import index

    codex = _codex_home(isolated_home)
    listed: list[int] = []
    real = index.codex_roots

    def counted(ctx: ScanContext) -> list:
        listed.append(1)
        return real(ctx)

    monkeypatch.setattr(index, "codex_roots", counted)
    ctx = ScanContext(home=isolated_home, env={})
    active = next(path for path in codex.rglob("rollout-*.jsonl") if ACTIVE in path.name)
    assert [index.archived_at(active, ACTIVE, ctx) for _ in range(3)] == [False] * 3
    assert len(listed) == 1  # was 3: once per thread asked about
