"""A first ``list`` discovers the later providers in a helper (``scan/aside.py``): it prints,
warns and keeps exactly what discovering them one after the other does, and anything that
goes wrong with the helper leaves the discovery to the command itself."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentscan.providers.codex.provider import CodexProvider
from agentscan.scan import aside
from agentscan.toolkit import forking, helperproc, workers
from codex_builders import meta, rollout_path, write_rollout
from cursor_builders import copy_real_dot_cursor
from spies import record_calls
from test_codex_recovery import _paginated_home
from builders import forget_remembered_answers
from test_row_build import lay_out, run
from test_row_build_parity import _every_provider, _fresh_process_caches, _index, _output

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")

#: a step that prints nothing: the remembered pages and answers forgotten, so that the
#: next list is made again warm (from the discoveries kept), not printed again
FORGET = "forget the remembered answers"

#: a first list, the same list warm, then what reads on from the discoveries kept
STEPS = [["list"], ["list", "--json"], FORGET, ["list"], ["list", "--all", "--json"], ["tokens"]]


@pytest.fixture
def adopted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every home big enough for a helper; the providers whose discovery came from it."""
    monkeypatch.setattr(aside, "MIN_ENTRIES", 0)
    return record_calls(monkeypatch, aside, "_adopt", lambda scanner, provider, found: provider.name)


def _with_warnings(home: Path) -> None:
    """Every provider, and discovery warnings of Codex's: an empty rollout, one without its meta."""
    _every_provider(home)
    codex = home / ".codex"
    started = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    write_rollout(rollout_path(codex, "0199aaaa-0000-7000-8000-000000000001", started), [])
    other = meta("0199aaaa-0000-7000-8000-00000000ffff", started)
    write_rollout(rollout_path(codex, "0199aaaa-0000-7000-8000-000000000002", started), [other])


def _step(step: list[str] | str, home: Path) -> tuple | None:
    if step == FORGET:
        forget_remembered_answers()
        return None
    assert isinstance(step, list)
    return _output(step, home)


def _both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, steps: list[list[str] | str]) -> tuple[list, list]:
    """``steps`` with a helper allowed, then with every discovery made here, each with an
    index of its own: their outputs and indexes (which must be equal)."""
    home = tmp_path / "home"
    results = []
    for here in (False, True):
        if here:
            monkeypatch.setattr(aside, "MIN_ENTRIES", 10**12)
        cache = tmp_path / ("here-cache" if here else "aside-cache")
        monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(cache))
        _fresh_process_caches()
        outputs = [_step(step, home) for step in steps]
        results.append((outputs, _index(cache / "index.sqlite", home)))
    (aside_out, aside_index), (here_out, here_index) = results
    assert aside_out == here_out
    assert aside_index == here_index
    return aside_out, here_out


def test_a_first_list_is_the_same_with_the_later_providers_discovered_aside(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    _with_warnings(isolated_home)
    outputs, _ = _both_ways(tmp_path, monkeypatch, STEPS)
    assert adopted == ["codex", "gemini", "cursor"]  # in the first run only: the others found them stored
    assert "empty file" in outputs[0][1] and "no session_meta" in outputs[0][1]


def test_the_helper_discovers_and_this_process_does_not(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                        adopted: list[str]) -> None:
    """Not in a home whose passes need a discovery (a Gemini row asking every provider for its
    cwds, a Codex fork priced from its parent's calls): see test_aside_review.py."""
    lay_out(isolated_home)
    _paginated_home(isolated_home)
    copy_real_dot_cursor(isolated_home)
    parent = os.getpid()
    here: list[str] = []
    real = CodexProvider.discover

    def discover(self, ctx):  # noqa: ANN001, ANN202
        if os.getpid() == parent:
            here.append("codex")
        return real(self, ctx)

    monkeypatch.setattr(CodexProvider, "discover", discover)
    run("list")
    assert adopted == ["codex", "gemini", "cursor"]
    assert here == []


def test_a_discovery_that_raises_in_the_helper_is_made_here(isolated_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    _with_warnings(isolated_home)
    parent = os.getpid()
    real = CodexProvider.discover

    def discover(self, ctx):  # noqa: ANN001, ANN202
        if os.getpid() != parent:
            raise RuntimeError("only in the helper")
        return real(self, ctx)

    monkeypatch.setattr(CodexProvider, "discover", discover)
    _both_ways(tmp_path, monkeypatch, STEPS[:2])
    assert adopted == ["gemini", "cursor"]


def test_a_session_without_a_fingerprint_in_the_helper_is_discovered_here(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    _every_provider(isolated_home)
    parent = os.getpid()
    real = CodexProvider.fingerprint

    def fingerprint(self, ref, ctx):  # noqa: ANN001, ANN202
        return None if os.getpid() != parent else real(self, ref, ctx)

    monkeypatch.setattr(CodexProvider, "fingerprint", fingerprint)
    _both_ways(tmp_path, monkeypatch, STEPS[:2])
    assert adopted == ["gemini", "cursor"]


def test_a_helper_gone_leaves_every_discovery_here(isolated_home: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    _with_warnings(isolated_home)

    def gone(self):  # noqa: ANN001, ANN202
        self.stop()
        raise helperproc.HelperGone("killed")

    monkeypatch.setattr(helperproc.Helper, "receive", gone)
    _both_ways(tmp_path, monkeypatch, STEPS[:2])
    assert adopted == []


def test_a_fork_refused_leaves_every_discovery_here(isolated_home: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch, adopted: list[str]) -> None:
    _every_provider(isolated_home)

    def refused(*args: object) -> int:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(forking.os, "fork", refused)
    _both_ways(tmp_path, monkeypatch, STEPS[:2])
    assert adopted == []


@pytest.fixture
def helpers(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The helpers started for a discovery aside (the providers of each)."""
    return record_calls(monkeypatch, aside.Aside, "start", lambda self: self.names)


def test_a_small_home_has_no_helper(isolated_home: Path, helpers: list[list[str]]) -> None:
    _every_provider(isolated_home)
    run("list")
    assert helpers == []


@pytest.mark.parametrize("command", [["tokens"], ["list", "--all"], ["list", "--grep", "port"], ["list", "--since", "30d"],
                                     ["export", "--format", "jsonl", "--output", "-"], ["list", "--no-cache"]])
def test_only_a_page_without_filters_has_a_helper(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                  helpers: list[list[str]], command: list[str]) -> None:
    """A command that parses every session (or may read on) needs each provider's own refs,
    which a discovery made aside would make it discover again."""
    monkeypatch.setattr(aside, "MIN_ENTRIES", 0)
    _every_provider(isolated_home)
    run(*command)
    assert helpers == []
    run("list")
    assert helpers == ([] if "--no-cache" not in command else [["codex", "gemini", "cursor"]])


def test_a_provider_discovered_with_the_index_before_is_not_sent_aside(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, helpers: list[list[str]], adopted: list[str]) -> None:
    monkeypatch.setattr(aside, "MIN_ENTRIES", 0)
    _every_provider(isolated_home)
    run("list", "--provider", "codex")
    run("list")
    assert helpers == [["gemini", "cursor"]]
    assert adopted == ["gemini", "cursor"]
