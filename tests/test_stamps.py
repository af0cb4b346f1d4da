"""The censuses of several providers taken side by side (``scan.stamps``): the same stamps."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan.cli.state import State
from agentscan.scan import stamps, workers
from agentscan.scan.memo import stamp_of
from builders import cli_json, lay_out_real_claude
from codex_builders import lay_out_real_codex
from gemini_builders import lay_out_real_gemini


def build(home: Path) -> None:
    lay_out_real_claude(home)
    lay_out_real_codex(home)
    lay_out_real_gemini(home)


@pytest.fixture
def parallel(monkeypatch: pytest.MonkeyPatch) -> list[workers.Helper]:
    """Every census side by side, however small the home; the helpers started, to look at."""
    started: list[workers.Helper] = []
    real_helper = workers.Helper

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        helper = real_helper(*args, **kwargs)
        started.append(helper)
        return helper

    monkeypatch.setattr(stamps, "PARALLEL_MIN_SESSIONS", 0)
    monkeypatch.setattr(workers, "usable_workers", lambda limit=8: 2)
    monkeypatch.setattr(workers, "Helper", counting)
    return started


def test_the_stamps_are_those_taken_one_by_one(isolated_home: Path, parallel: list) -> None:
    build(isolated_home)
    cli_json("list")  # the index counts each provider's sessions
    with State().scanner(memo=True) as scanner:
        scanner._confine()
        side_by_side = stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
        one_by_one = {provider.name: stamp_of(provider, scanner.ctx) for provider in scanner.providers}
    assert parallel and parallel[0].pid is None  # a helper took some, and was stopped
    assert side_by_side == one_by_one
    assert all(stamp is not None for stamp in side_by_side.values())


def test_answers_are_a_fresh_runs(isolated_home: Path, parallel: list) -> None:
    build(isolated_home)
    fresh = [cli_json("--no-cache", *argv) for argv in (["list"], ["tokens"])]
    cli_json("list")
    parallel.clear()
    assert [cli_json(*argv) for argv in (["list"], ["tokens"])] == fresh
    assert parallel  # the warm runs took their censuses side by side


def test_a_helper_that_dies_leaves_the_censuses_to_this_process(isolated_home: Path, parallel: list,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    build(isolated_home)
    fresh = orjson.dumps(cli_json("--no-cache", "tokens"))
    cli_json("list")

    def dying(names: list[str]) -> dict:
        os._exit(3)  # in the helper: as if killed

    real_helper = workers.Helper
    monkeypatch.setattr(workers, "Helper", lambda setup, serve: real_helper(setup, dying))
    with State().scanner(memo=True) as scanner:
        scanner._confine()
        taken = stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache)
        assert set(taken) <= {"claude", "codex", "gemini", "cursor"} and len(taken) <= 1  # the heaviest at most
    assert orjson.dumps(cli_json("tokens")) == fresh


def test_no_helper_for_a_light_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(isolated_home)
    cli_json("list")
    monkeypatch.setattr(workers, "usable_workers", lambda limit=8: 2)

    def refused(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("a helper for a handful of sessions")

    monkeypatch.setattr(workers, "Helper", refused)
    with State().scanner(memo=True) as scanner:
        assert scanner.cache is not None and sum(scanner.cache.session_counts().values()) < stamps.PARALLEL_MIN_SESSIONS
        assert stamps.take_in_parallel(scanner.providers, scanner.ctx, scanner.cache) == {}
        assert scanner.refs()  # taken one by one
