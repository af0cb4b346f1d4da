"""A first discovery takes the directories its provider's census listed (``ScanContext.listed``):
each directory is listed once, not once by the census and again by discovery (at a heavy
user's scale 6,700 listings and 2,500 ``stat`` calls of a first run's), and discovery finds
what the census saw, which is what its stamp describes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.providers.base import Provider
from agentscan.scan.memo import stamp_of
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, write_jsonl
from cursor_builders import assistant, user, write_subagent, write_transcript
from test_row_build_parity import _every_provider

A = "a1a1a1a1-0000-4000-8000-000000000001"
B = "b2b2b2b2-0000-4000-8000-000000000002"


def _spy_listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The directories ``os.scandir`` is asked for from now on."""
    asked: list[str] = []
    real = os.scandir

    def scandir(path: str | os.PathLike[str] = ".") -> os.ScandirIterator[str]:
        asked.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    return asked


def _after_its_census(home: Path, name: str) -> tuple[Provider, ScanContext]:
    """``name``'s provider and a scan whose census of it was taken as a first discovery's."""
    scanner = Scanner(home=home, env={})
    scanner.confine()
    provider = scanner.provider(name)
    stamp_of(provider, scanner.ctx, share_stats=True)
    return provider, scanner.ctx


def _found(provider: Provider, ctx: ScanContext) -> list[tuple[str, tuple[str, ...], float]]:
    return sorted((ref.id, tuple(sorted(str(path) for path in ref.files)), ref.recency) for ref in provider.discover(ctx))


def _found_afresh(home: Path, name: str) -> list[tuple[str, tuple[str, ...], float]]:
    scanner = Scanner(home=home, env={})
    return _found(scanner.provider(name), scanner.ctx)


@pytest.mark.parametrize("name", ["claude", "codex", "gemini", "cursor"])
def test_a_first_discovery_lists_no_directory_its_census_listed(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                name: str) -> None:
    _every_provider(isolated_home)
    provider, ctx = _after_its_census(isolated_home, name)
    census_listed = set(ctx.listings())
    assert len(census_listed) > 2
    with monkeypatch.context() as patch:
        asked = _spy_listings(patch)
        found = _found(provider, ctx)
    assert found
    assert not census_listed & set(asked)
    assert found == _found_afresh(isolated_home, name)  # what a discovery of its own finds


@pytest.mark.parametrize("few", [None, 25])
def test_a_first_scan_lists_no_directory_any_census_listed(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                            few: int | None) -> None:
    """Every provider discovered in turn (``few=None``: a first ``tokens``), or the later ones
    by ``scan.aside``'s helper (a first ``list``): each discovery takes its own census's
    listings.  Dropping every listing after the first discovery, or when the helper was
    forked, made the others list their directories again (2,500 of Claude's at scale 10)."""
    from agentscan.scan import aside
    from agentscan.toolkit import cores

    monkeypatch.setattr(aside, "MIN_ENTRIES", 0)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    _every_provider(isolated_home)
    census_listed: set[str] = set()
    asked: list[str] = []
    real_census, real_scandir = Scanner.take_censuses, os.scandir

    def taking(self: Scanner, providers) -> None:  # noqa: ANN001
        real_census(self, providers)
        for provider in providers:
            self.census_stamp(provider)
        census_listed.update(self.ctx.listings())
        monkeypatch.setattr(os, "scandir", scandir)  # from here on: the discoveries

    def scandir(path: str | os.PathLike[str] = ".") -> os.ScandirIterator[str]:
        asked.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(Scanner, "take_censuses", taking)
    with Scanner(home=isolated_home, env={}, use_cache=True, memo_discovery=True) as first:
        found = sorted(ref.id for ref in first.refs(few=few))
        assert not first.ctx.memo.get("_listing")  # none kept past the discoveries
    assert len(census_listed) > 8 and {name.partition(":")[0] for name in found} == {"claude", "codex", "gemini", "cursor"}
    assert not census_listed & set(asked)


def test_a_discovery_drops_its_own_listings_and_refs_the_rest(isolated_home: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Each discovery drops the listings under its provider's roots as it ends (memory only:
    a heavy user's 6,700 directories), the others' stay for their discoveries; and those
    of providers not discovered in the scan (a first ``list --provider claude`` took every
    census for its answer's key) go when ``refs`` ends."""
    _every_provider(isolated_home)
    with Scanner(home=isolated_home, env={}, use_cache=True, memo_discovery=True) as first:
        for provider in first.providers:
            first.census_stamp(provider)
        claude = first.provider("claude")
        roots = claude.census_paths(first.ctx) or []
        before = set(first.ctx.listings())
        assert any(path.startswith(tuple(roots)) for path in before) and any("gemini" in path for path in before)
        left_at_codex: list[str] = []
        codex = first.provider("codex")
        real_discover = codex.discover

        def discover(ctx):  # noqa: ANN001, ANN202
            left_at_codex.extend(ctx.memo.get("_listing") or {})
            return real_discover(ctx)

        monkeypatch.setattr(codex, "discover", discover)
        first.refs(["claude", "codex"])
        assert left_at_codex and not any(path.startswith(tuple(roots)) for path in left_at_codex)
        assert any("gemini" in path for path in left_at_codex)  # still there for their discovery
        assert not first.ctx.memo.get("_listing")  # Gemini's and Cursor's too, though never discovered


def test_a_warm_census_keeps_no_listing(isolated_home: Path) -> None:
    _every_provider(isolated_home)
    with Scanner(home=isolated_home, env={}, use_cache=True, memo_discovery=True) as first:
        first.refs()
    with Scanner(home=isolated_home, env={}, use_cache=True, memo_discovery=True) as warm:
        warm.refs()
        assert not warm.ctx.listings()


def test_discovery_finds_what_its_census_saw(isolated_home: Path) -> None:
    """A session and a subagents directory made after the census are the next run's: the
    discovery stored under this census's stamp is of what it describes."""
    claude_session_file(isolated_home, A, [claude_user(A, "2026-11-01T09:00:00.000Z", "hi")])
    provider, ctx = _after_its_census(isolated_home, "claude")
    claude_session_file(isolated_home, B, [claude_user(B, "2026-11-01T09:00:00.000Z", "later")])
    claude_subagent_file(isolated_home, A, "a1", [claude_assistant(
        A, "2026-11-01T09:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(5, 1), sidechain=True)])
    (ref,) = provider.discover(ctx)
    assert ref.native_id == A and len(ref.files) == 1
    found = {ref.native_id: len(ref.files) for ref in Scanner(home=isolated_home, env={}).provider("claude").discover(
        ScanContext.create(home=isolated_home, env={}))}
    assert found == {A: 2, B: 1}


def test_claude_subagents_found_through_the_census_are_those_found_without(isolated_home: Path, tmp_path: Path) -> None:
    """A subagents directory, one linked inside the roots, one linked out of them (skipped,
    with a warning), a file named ``subagents`` and a dangling link: the session directories'
    listings answer as ``os.path.isdir`` and ``os.path.islink`` do."""
    sessions = [f"c{number}c{number}c{number}c{number}-0000-4000-8000-00000000000{number}" for number in range(6)]
    for session in sessions:
        claude_session_file(isolated_home, session, [claude_user(session, "2026-11-01T09:00:00.000Z", "hi")])
    agent = [claude_assistant(sessions[0], "2026-11-01T09:00:05.000Z", msg_id="m1", request_id="r1",
                              usage=claude_usage(5, 1), sidechain=True)]
    claude_subagent_file(isolated_home, sessions[0], "a0", agent)
    project = isolated_home / ".claude" / "projects" / "-home-dev-project"
    (project / sessions[1]).mkdir()
    os.symlink(project / sessions[0] / "subagents", project / sessions[1] / "subagents")
    outside = tmp_path / "outside"
    write_jsonl(outside / "agent-a2.jsonl", agent)
    (project / sessions[2]).mkdir()
    os.symlink(outside, project / sessions[2] / "subagents")
    (project / sessions[3]).mkdir()
    (project / sessions[3] / "subagents").write_text("not a directory")
    (project / sessions[4]).mkdir()
    os.symlink(tmp_path / "nowhere", project / sessions[4] / "subagents")
    provider, ctx = _after_its_census(isolated_home, "claude")
    with ctx.warnings.capture() as said:
        through_census = _found(provider, ctx)
    afresh = Scanner(home=isolated_home, env={})
    with afresh.ctx.warnings.capture() as said_afresh:
        assert through_census == _found(afresh.provider("claude"), afresh.ctx)
    files = {ref_id.split(":")[1]: len(paths) for ref_id, paths, _ in through_census}
    assert files == {sessions[0]: 2, sessions[1]: 2, sessions[2]: 1, sessions[3]: 1, sessions[4]: 1, sessions[5]: 1}
    assert [warning.message for warning in said] == [warning.message for warning in said_afresh]
    assert any("points outside" in warning.message for warning in said)


def test_cursor_subagents_found_through_the_census_are_those_found_without(isolated_home: Path) -> None:
    parent, lone, child = "p1p1p1p1-0000-4000-8000-000000000001", "l2l2l2l2-0000-4000-8000-000000000002", "k3k3k3k3"
    write_transcript(isolated_home, "home-dev-app", parent, [user("plan it"), assistant("on it")])
    write_subagent(isolated_home, "home-dev-app", parent, child, [user("sub task"), assistant("done")])
    write_transcript(isolated_home, "home-dev-app", lone, [user("alone"), assistant("yes")])
    write_transcript(isolated_home, "home-dev-app", "f4f4f4f4-0000-4000-8000-000000000004", [user("flat")], flat=True)
    provider, ctx = _after_its_census(isolated_home, "cursor")
    through_census = _found(provider, ctx)
    assert through_census == _found_afresh(isolated_home, "cursor")
    assert sorted(len(paths) for _, paths, _ in through_census) == [1, 1, 2]
