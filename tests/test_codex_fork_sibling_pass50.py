"""A fork of a gone fork of a gone thread, that thread having another fork on disk: A's
rollout gone; E a fork of A; B a later fork of A, and C a fork of B; B's rollout gone.  C's
copy holds B's copy of A's history, as E's does: A's copied calls counted in both E and C
(in ``list``, ``show``, ``export`` and ``tokens C``; in ``tokens`` too when the copies'
times were rewritten).  They count once, in E, the first fork of A (``goneparent``'s rule
among forks of one gone parent, applied to each gone thread C's copy came through:
``counted_elsewhere``), in every command; deleting E, they count in C, and E restored, in E
again (C's row is keyed by E's files: ``CodexProvider._parents_files``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from codex_builders import rollout_path
from codex_fork_builders import FORK_CALLS, PARENT_TURNS, Parent, total_of, write_fork, write_parent
from test_codex_fork_gone_parent_pass49 import _agree, _figures

A = "019c4910-0000-7000-8000-0000000005aa"
B = "019c4910-0000-7000-8000-0000000005bb"
C = "019c4910-0000-7000-8000-0000000005cc"
E = "019c4910-0000-7000-8000-0000000005ee"
START = datetime(2026, 7, 2, 15, 0, tzinfo=timezone.utc)
CALLS = [call for turn in PARENT_TURNS for call in turn]
OWN = total_of(FORK_CALLS)  # each fork's own turn: the same calls
TWO_TURNS = total_of(CALLS[:3])  # what E and B copied of A (its first two turns)


def _tree(codex: Path, markers: bool, rewrite: bool, b_first: bool = False) -> None:
    """A gone; E (at 4 h) and B (at 5 h) forks of A after its second turn (``b_first``: B at
    4 h, E at 5 h); C a fork of B after B's own turn (at 6 h); B's rollout gone."""
    a = write_parent(codex, A, START, markers=markers, write=False)
    write_fork(codex, a, E, START + timedelta(hours=5 if b_first else 4), markers=markers, rewrite=rewrite)
    b_start = START + timedelta(hours=4 if b_first else 5)
    b_path = write_fork(codex, a, B, b_start, markers=markers, rewrite=rewrite)
    lines = [orjson.loads(line) for line in b_path.read_bytes().splitlines()]
    total = next(line["payload"]["info"]["total_token_usage"] for line in reversed(lines)
                 if line["type"] == "event_msg" and line["payload"]["type"] == "token_count")
    write_fork(codex, Parent(B, b_start, lines, [(len(lines), total)]), C, START + timedelta(hours=6),
               markers=markers, rewrite=rewrite, turns=1)
    b_path.unlink()


def _everywhere(*cache: str) -> dict[str, dict[str, int]]:
    """``_figures``, with ``list --json``'s and ``tokens --json``'s totals beside them."""
    seen = _figures(*cache)
    rows = cli_json(*cache, "list", "--all")["sessions"]
    seen["list total"] = {"all": sum(row["tokens"]["total"] for row in rows)}
    seen["tokens total"] = {"all": cli_json(*cache, "tokens")["total"]["total"]}
    return seen


def _agree_all(seen: dict[str, dict[str, int]], expected: dict[str, int]) -> None:
    total = {"all": sum(expected.values())}
    _agree({where: figures for where, figures in seen.items() if "total" not in where}, expected)
    _agree({where: figures for where, figures in seen.items() if "total" in where}, total)


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize(("markers", "rewrite"), [(True, False), (True, True), (False, True), (False, False)])
def test_a_gone_grandparent_s_calls_count_in_its_first_fork(isolated_home: Path, cache: tuple[str, ...],
                                                             markers: bool, rewrite: bool) -> None:
    _tree(isolated_home / ".codex", markers, rewrite)
    for _ in range(2):  # cold, then the kept rows
        _agree_all(_everywhere(*cache), {E: TWO_TURNS + OWN, C: OWN + OWN})


@pytest.mark.parametrize("rewrite", [False, True])
def test_deleting_and_restoring_the_first_fork_recounts_the_grandchild(isolated_home: Path, rewrite: bool) -> None:
    codex = isolated_home / ".codex"
    _tree(codex, True, rewrite)
    _agree_all(_everywhere(), {E: TWO_TURNS + OWN, C: OWN + OWN})
    e_path = rollout_path(codex, E, START + timedelta(hours=4))
    kept = e_path.read_bytes()
    e_path.unlink()
    _agree_all(_everywhere(), {C: TWO_TURNS + OWN + OWN})  # C's copy, the only record of A's calls
    e_path.write_bytes(kept)
    _agree_all(_everywhere(), {E: TWO_TURNS + OWN, C: OWN + OWN})


def test_export_counts_the_copied_calls_once(isolated_home: Path) -> None:
    _tree(isolated_home / ".codex", True, True)
    result = CliRunner().invoke(app, ["export", "-f", "jsonl", "-o", "-"])
    assert result.exit_code == 0, result.output
    exported = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert sum(record["tokens"]["total"] for record in exported) == TWO_TURNS + 3 * OWN


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize(("markers", "rewrite"), [(True, False), (True, True), (False, True), (False, False)])
def test_a_gone_first_fork_s_copy_held_by_its_fork_counts_there(isolated_home: Path, cache: tuple[str, ...],
                                                                 markers: bool, rewrite: bool) -> None:
    """B made before E: B's copy of A's history, held by C alone, counts A's calls (in C),
    and E, a later fork of A, leaves them out, as it would with B found; C deleted, E counts
    them again (E's row is keyed by C's files)."""
    codex = isolated_home / ".codex"
    _tree(codex, markers, rewrite, b_first=True)
    for _ in range(2):  # cold, then the kept rows
        _agree_all(_everywhere(*cache), {E: OWN, C: TWO_TURNS + OWN + OWN})
    c_path = rollout_path(codex, C, START + timedelta(hours=6))
    kept = c_path.read_bytes()
    c_path.unlink()
    _agree_all(_everywhere(*cache), {E: TWO_TURNS + OWN})
    c_path.write_bytes(kept)
    _agree_all(_everywhere(*cache), {E: OWN, C: TWO_TURNS + OWN + OWN})
