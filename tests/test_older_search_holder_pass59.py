"""The scan's older-parser searches of a provider in one holder (pass 59): ``older_search`` kept
a memo key for the provider's first search and one for each caller's (three a provider); now one
key a provider holds each caller's search, the versions found and answers given shared by all,
the sessions searched counted by each (``test_older_search_cap_pass58`` pins why)."""

from __future__ import annotations

from pathlib import Path

from agentscan.context import ScanContext
from agentscan.scan.upgraded import older_search


def test_one_memo_key_a_provider_holds_every_callers_search(tmp_path: Path) -> None:
    ctx = ScanContext.create(home=tmp_path, env={})
    before = set(ctx.memo)
    rows, sums = older_search(ctx, "claude"), older_search(ctx, "claude", "sums")
    other = older_search(ctx, "codex")
    assert older_search(ctx, "claude") is rows and older_search(ctx, "claude", "sums") is sums
    assert rows is not sums and rows.found is sums.found and rows.answers is sums.answers
    assert other.found is not rows.found
    rows.searched += 3
    assert sums.searched == 0  # (each caller's count its own)
    assert len(set(ctx.memo) - before) == 2, set(ctx.memo) - before  # (failed before: 5 keys)
