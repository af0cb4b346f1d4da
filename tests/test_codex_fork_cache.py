"""A Codex fork's row depends on its parent's rollout (``CodexProvider.session_usage``: a fork
without turn markers is told from its copied history by the parent's calls), but its
fingerprint once covered only its own files: when the parent came or went, the index's
sums and kept rows of the fork were stale (reported by the review of 444b83e).  Now
``CodexProvider.fingerprint`` covers the parent's files too, reading a fork's head when
discovery did not (a thread index names no fork's parent), without a word about it."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from codex_builders import at, index_row, iso, meta, rollout_path, write_rollout, write_state_db
from test_codex_counting import F, P, _fork, _parent

runner = CliRunner()


def run(*args: str) -> bytes:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


def tokens(*args: str) -> bytes:
    return run("tokens", *args)


def _index(codex: Path, *threads: str, started: dict[str, float] | None = None) -> None:
    """A thread index naming each thread's rollout (with a source: discovery reads no head)."""
    started = {P: 0, F: 100, **(started or {})}
    rows = [index_row(thread, rollout_path(codex, thread, at(started[thread])),
                      created=at(started[thread]), updated=at(started[thread] + 100)) for thread in threads]
    write_state_db(codex / "state_5.sqlite", rows)


@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("parent_first", [True, False])
def test_a_forks_row_follows_its_parent_coming_or_going(isolated_home: Path, parent_first: bool, indexed: bool) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    _fork(codex, lines, calls, markers=False, copy_time=lambda i, r: iso(at(100 + 3 * (i + 1))))
    if indexed:
        _index(codex, P, F)
    parent = rollout_path(codex, P, at(0))
    data = parent.read_bytes()
    if not parent_first:
        parent.unlink()
    assert tokens() == tokens("--no-cache")
    if parent_first:
        parent.unlink()
    else:
        parent.write_bytes(data)
    assert tokens() == tokens("--no-cache")


def test_reading_a_forks_head_for_its_key_says_nothing(isolated_home: Path) -> None:
    """An indexed rollout whose head is not its own is warned of by what parses it, not by
    the cache key: a ``list`` that does not show it says what it said before."""
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    _fork(codex, lines, calls, markers=False, copy_time=lambda i, r: iso(at(100 + 3 * (i + 1))))
    stray = "019a0000-0000-7000-8000-00000000beef"
    write_rollout(rollout_path(codex, stray, at(-50)), [meta(P, at(-50))], mtime=at(-50).timestamp())
    _index(codex, P, F, stray, started={stray: -50})
    fresh = orjson.loads(run("list", "-n", "1", "--no-cache"))
    assert [row["native_id"] for row in fresh["sessions"]] == [F] and fresh["warnings"] == []
    assert orjson.loads(run("list", "-n", "1")) == fresh
    assert orjson.loads(run("list", "-n", "1")) == fresh
    # What parses it says so, cached or not.
    assert [w["path"] for w in orjson.loads(tokens())["warnings"]] == [str(rollout_path(codex, stray, at(-50)))]


def test_a_forks_row_follows_its_parent_rewritten_in_place(isolated_home: Path) -> None:
    """The parent rewritten in place, its size and mtime kept (a restore, a ``touch -r``):
    only its ctime says so, as it does for a session's own files."""
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    _fork(codex, lines, calls, markers=False, copy_time=lambda i, r: iso(at(100 + 3 * (i + 1))))
    parent = rollout_path(codex, P, at(0))
    assert tokens() == tokens("--no-cache")
    before = parent.stat()
    data = parent.read_bytes()
    # The parent's first call no longer matches the fork's copy of it: the copy is the fork's own now.
    changed = data.replace(b'"input_tokens":1000,', b'"input_tokens":1001,')
    assert changed != data and len(changed) == len(data)
    parent.write_bytes(changed)
    os.utime(parent, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert tokens() == tokens("--no-cache")
