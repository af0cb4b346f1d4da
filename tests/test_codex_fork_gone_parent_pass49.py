"""A Codex fork whose parent thread is not found (its rollout deleted, or in a home not
read): its copied history is the only record of the parent's calls up to the fork.  They
were counted nowhere; now they count in the fork (``providers/codex/goneparent``), as a
resumed Claude session counts its copies when the session copied from is gone: ``tokens``,
``list``, ``show`` and ``export`` agree, and the card says the parent is not found rather
than suggest an ``agentscan show`` of it that fails.  Of several forks of one gone parent,
each copied call counts once: in the first fork that copied it (by start, a fork whose start
is unknown first), whether or not each fork copied more than the one before it (newer Codex
forks at a chosen turn).  With the parent found, nothing changes (nothing is counted twice)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from codex_builders import rollout_path, write_rollout
from codex_fork_builders import FORK_CALLS, PARENT_TURNS, Parent, total_of, write_fork, write_parent

P = "019c4910-0000-7000-8000-00000000000a"  # the parent (its rollout gone, or not)
F = "019c4910-0000-7000-8000-00000000000f"  # a fork after its second turn
G = "019c4910-0000-7000-8000-00000000001f"  # a later fork, after its third turn
H = "019c4910-0000-7000-8000-00000000002f"  # a third fork
START = datetime(2026, 7, 2, 15, 0, tzinfo=timezone.utc)
CALLS = [call for turn in PARENT_TURNS for call in turn]
OWN = total_of(FORK_CALLS)
TWO_TURNS = total_of(CALLS[:3])  # the calls a fork after the second turn copies
THIRD_TURN = total_of(CALLS[3:])


def _figures(*args: str) -> dict[str, Any]:
    """Each session's total as ``list``, ``tokens``, ``show`` and ``export`` give it."""
    runner = CliRunner()
    rows = {row["native_id"]: row["tokens"]["total"] for row in cli_json(*args, "list", "--all")["sessions"]}
    tokens = {row["key"].split(":", 1)[1]: row["tokens"]["total"]
              for row in cli_json(*args, "tokens", "--by", "session")["rows"]}
    shown = {native: cli_json(*args, "show", native)["session"]["tokens"]["total"] for native in rows}
    result = runner.invoke(app, [*args, "export", "-f", "jsonl", "-o", "-"])
    assert result.exit_code == 0, result.output
    exported = {record["native_id"]: record["tokens"]["total"]
                for record in map(orjson.loads, result.stdout.splitlines())}
    alone = {native: cli_json(*args, "tokens", native)["rows"][0]["tokens"]["total"] for native in rows}
    return {"list": rows, "tokens": tokens, "show": shown, "export": exported, "alone": alone}


def _agree(seen: dict[str, Any], expected: dict[str, int]) -> None:
    for where, totals in seen.items():
        assert totals == expected, where


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize(("markers", "rewrite"), [(True, False), (True, True), (False, True), (False, False)])
def test_a_fork_of_a_gone_parent_counts_its_copies(isolated_home: Path, cache: tuple[str, ...], markers: bool,
                                                   rewrite: bool) -> None:
    codex = isolated_home / ".codex"
    parent = write_parent(codex, P, START, markers=markers, write=False)
    write_fork(codex, parent, F, START + timedelta(hours=5), markers=markers, rewrite=rewrite)
    for _ in range(2):  # cold, then the kept rows
        _agree(_figures(*cache), {F: TWO_TURNS + OWN})
    doc = cli_json(*cache, "show", F)["session"]
    assert doc["forked_from"] == f"codex:{P}" and doc["forked_counted_there"] is False
    assert doc["counts"]["prompts"] == 1 and doc["title"] == "now the fork"  # its own part's, as before
    text = CliRunner().invoke(app, [*cache, "show", F]).output
    assert f"agentscan show codex:{P}" not in text
    assert (f"forked   from codex:{P} after its 2 prompts, which is not found: its history, copied at the start "
            "of this rollout, is listed below with this fork's (the counts are this fork's own); its calls count "
            "here, as tokens counts them") in text


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize("rewrite", [False, True])
def test_the_parent_found_keeps_its_calls(isolated_home: Path, cache: tuple[str, ...], rewrite: bool) -> None:
    codex = isolated_home / ".codex"
    parent = write_parent(codex, P, START, markers=True)
    write_fork(codex, parent, F, START + timedelta(hours=5), markers=True, rewrite=rewrite)
    _agree(_figures(*cache), {P: total_of(CALLS), F: OWN})
    doc = cli_json(*cache, "show", F)["session"]
    assert doc["forked_counted_there"] is True
    assert f"after its 2 prompts: agentscan show codex:{P}" in CliRunner().invoke(app, [*cache, "show", F]).output


def _two_forks(codex: Path, markers: bool, rewrite: bool) -> Parent:
    """F after the parent's second turn, G after its third: the parent's rollout gone."""
    parent = write_parent(codex, P, START, markers=markers, write=False)
    write_fork(codex, parent, F, START + timedelta(hours=5), markers=markers, rewrite=rewrite)
    write_fork(codex, parent, G, START + timedelta(hours=6), markers=markers, rewrite=rewrite, turns=3)
    return parent


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize(("markers", "rewrite"), [(True, False), (True, True), (False, True), (False, False)])
def test_forks_of_one_gone_parent_count_each_copied_call_once(isolated_home: Path, cache: tuple[str, ...],
                                                              markers: bool, rewrite: bool) -> None:
    _two_forks(isolated_home / ".codex", markers, rewrite)
    # F, the first fork, counts the two turns it copied; G only the third, which F did not.
    _agree(_figures(*cache), {F: TWO_TURNS + OWN, G: THIRD_TURN + OWN})
    doc = cli_json(*cache, "tokens")
    assert doc["total"]["total"] == total_of(CALLS) + 2 * OWN


def test_a_parent_that_comes_back_takes_its_calls_back(isolated_home: Path) -> None:
    """The rows are kept by their parent's files, or their absence (and an earlier fork's)."""
    codex = isolated_home / ".codex"
    parent = _two_forks(codex, True, False)
    assert _figures()["list"] == {F: TWO_TURNS + OWN, G: THIRD_TURN + OWN}
    write_parent(codex, P, START, markers=True)
    assert parent.lines[0]["payload"]["id"] == P
    _agree(_figures(), {P: total_of(CALLS), F: OWN, G: OWN})
    rollout_path(codex, F, START + timedelta(hours=5)).unlink()
    rollout_path(codex, P, START).unlink()
    # F gone too: G is the first fork of P found, and counts all it copied.
    _agree(_figures(), {G: total_of(CALLS) + OWN})


def test_a_fork_s_row_is_read_where_discovery_is_at_hand(isolated_home: Path) -> None:
    """A fork's row asks discovery whether its parent is found: it is not read in a worker
    process, which would walk the home again (``CodexProvider.row_travels``)."""
    from agentscan.scan.scanner import Scanner

    codex = isolated_home / ".codex"
    parent = write_parent(codex, P, START, markers=True)
    write_fork(codex, parent, F, START + timedelta(hours=5), markers=True, rewrite=False)
    with Scanner(use_cache=False) as scanner:
        provider = scanner.provider("codex")
        travels = {ref.native_id: provider.row_travels(ref, scanner.ctx) for ref in provider.discover(scanner.ctx)}
    assert travels == {P: True, F: False}


def _out_of_order(codex: Path, markers: bool, rewrite: bool) -> None:
    """F after the parent's third turn, G later after its first (a fork made at an earlier
    turn), H later still after its third: the parent's rollout gone."""
    parent = write_parent(codex, P, START, markers=markers, write=False)
    write_fork(codex, parent, F, START + timedelta(hours=5), markers=markers, rewrite=rewrite, turns=3)
    write_fork(codex, parent, G, START + timedelta(hours=6), markers=markers, rewrite=rewrite, turns=1)
    write_fork(codex, parent, H, START + timedelta(hours=7), markers=markers, rewrite=rewrite, turns=3)


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize(("markers", "rewrite"), [(True, False), (True, True), (False, True), (False, False)])
def test_a_fork_at_an_earlier_turn_leaves_no_copy_counted_twice(isolated_home: Path, cache: tuple[str, ...],
                                                                markers: bool, rewrite: bool) -> None:
    """H's copy is matched against every earlier fork's, not only G's (the fork just before
    it, which copied one turn): F counted H's copied turns already.  Each fork's own calls,
    the same figures in all three, still count in each."""
    _out_of_order(isolated_home / ".codex", markers, rewrite)
    for _ in range(2):  # cold, then the kept rows
        _agree(_figures(*cache), {F: total_of(CALLS) + OWN, G: OWN, H: OWN})
    assert cli_json(*cache, "tokens")["total"]["total"] == total_of(CALLS) + 3 * OWN


def test_a_row_is_kept_by_every_earlier_fork(isolated_home: Path) -> None:
    """H's row depends on F, not only on G (the fork just before it): F deleted, the kept row
    of H counts the copied calls only F had counted."""
    _out_of_order(isolated_home / ".codex", True, False)
    assert _figures()["list"] == {F: total_of(CALLS) + OWN, G: OWN, H: OWN}
    rollout_path(isolated_home / ".codex", F, START + timedelta(hours=5)).unlink()
    _agree(_figures(), {G: total_of(CALLS[:2]) + OWN, H: total_of(CALLS[2:]) + OWN})


def _no_start(path: Path) -> None:
    """A rollout whose header gives no start (neither its meta's time nor its line's)."""
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    del lines[0]["timestamp"], lines[0]["payload"]["timestamp"]
    write_rollout(path, lines)


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize("markers", [True, False])
def test_a_fork_of_unknown_start_is_an_earlier_fork(isolated_home: Path, cache: tuple[str, ...],
                                                    markers: bool) -> None:
    """A fork whose header gives no start (G) comes first among its parent's forks: it counts
    every call it copied, and F, which copied the first two turns, counts none again."""
    codex = isolated_home / ".codex"
    _two_forks(codex, markers, True)
    _no_start(rollout_path(codex, G, START + timedelta(hours=6)))
    for _ in range(2):
        _agree(_figures(*cache), {G: total_of(CALLS) + OWN, F: OWN})
    assert cli_json(*cache, "tokens")["total"]["total"] == total_of(CALLS) + 2 * OWN


@pytest.mark.parametrize("markers", [True, False])
def test_forks_of_unknown_start_are_taken_by_id(isolated_home: Path, markers: bool) -> None:
    """Neither fork's start known: F (the lower id) first, and G's copy matched against F's,
    though no marker of G tells where its copy ends (none is of a known start's turn)."""
    codex = isolated_home / ".codex"
    _two_forks(codex, markers, True)
    for fork, hours in ((F, 5), (G, 6)):
        _no_start(rollout_path(codex, fork, START + timedelta(hours=hours)))
    _agree(_figures(), {F: TWO_TURNS + OWN, G: THIRD_TURN + OWN})
