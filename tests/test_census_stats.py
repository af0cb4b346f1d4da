"""A first discovery takes the stats its provider's census took (``memo.stamp_of``'s
``share_stats``): each transcript is stat'ed once, not once by the census and again by
discovery; a warm run's census keeps none."""

from __future__ import annotations

import os
from pathlib import Path

from agentscan.scan.memo import stamp_of
from agentscan.scan.scanner import Scanner
from builders import claude_session_file, claude_user, lay_out_real_claude


def _transcripts(home: Path) -> list[str]:
    return sorted(str(path) for path in (home / ".claude" / "projects").rglob("*.jsonl"))


def test_the_census_keeps_every_file_stat_for_the_discovery(isolated_home: Path) -> None:
    lay_out_real_claude(isolated_home)
    scanner = Scanner(home=isolated_home, env={})
    scanner.confine()
    stamp_of(scanner.provider("claude"), scanner.ctx, share_stats=True)
    kept = scanner.ctx.stats()
    transcripts = _transcripts(isolated_home)
    assert transcripts
    for path in transcripts:
        assert kept[path] == os.stat(path)


def test_discovery_takes_the_census_stat_instead_of_its_own(isolated_home: Path) -> None:
    """Seen through a stat the census is made to have taken earlier (the file touched since):
    discovery's recency is the census's."""
    path = claude_session_file(isolated_home, "a1a1a1a1-0000-4000-8000-000000000001",
                               [claude_user("a1a1a1a1-0000-4000-8000-000000000001", "2026-11-01T09:00:00.000Z", "hi")],
                               mtime=1_700_000_000)
    scanner = Scanner(home=isolated_home, env={})
    scanner.confine()
    provider = scanner.provider("claude")
    stamp_of(provider, scanner.ctx, share_stats=True)
    os.utime(path, (1_800_000_000, 1_800_000_000))
    (ref,) = provider.discover(scanner.ctx)
    assert ref.recency == 1_700_000_000
    fresh = Scanner(home=isolated_home, env={})
    (ref,) = fresh.provider("claude").discover(fresh.ctx)
    assert ref.recency == 1_800_000_000


def test_only_a_first_discovery_keeps_the_census_stats(isolated_home: Path) -> None:
    lay_out_real_claude(isolated_home)
    with Scanner(home=isolated_home, env={}, use_cache=True, memo_discovery=True) as first:
        first.refs(["claude"])
        assert set(_transcripts(isolated_home)) <= set(first.ctx.stats())
    with Scanner(home=isolated_home, env={}, use_cache=True, memo_discovery=True) as warm:
        warm.refs(["claude"])
        assert not set(_transcripts(isolated_home)) & set(warm.ctx.stats())
