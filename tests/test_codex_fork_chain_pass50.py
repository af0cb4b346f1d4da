"""A fork of a fork whose middle thread alone is gone (C forked from B, forked from A; B's
rollout deleted, A's found).  C's copy is the only record of B's calls, which count in C,
but it holds A's calls too (B's copy of A's history), which A counts: they were counted
twice, in C's row and in a ``tokens`` of both (once only when their times were kept, by
rule 5).  C's copy names A (B's copied ``session_meta``): the calls it shares with A, the
nearest thread of the chain found, count in A alone (``providers/codex/ancestry``), in
``list``, ``tokens``, ``show`` and ``export`` alike; A gone too, they count in C again."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from codex_fork_builders import FORK_CALLS, PARENT_TURNS, Parent, total_of, write_fork, write_parent
from codex_builders import rollout_path
from test_codex_fork_gone_parent_pass49 import _agree, _figures

A = "019c4910-0000-7000-8000-0000000005aa"
B = "019c4910-0000-7000-8000-0000000005bb"
C = "019c4910-0000-7000-8000-0000000005cc"
START = datetime(2026, 7, 2, 15, 0, tzinfo=timezone.utc)
CALLS = [call for turn in PARENT_TURNS for call in turn]
OWN = total_of(FORK_CALLS)  # B's own turn, and C's: the same calls
COPIED_FROM_A = total_of(CALLS[:3])  # B forked after A's second turn


def _chain(codex: Path, markers: bool, rewrite: bool) -> None:
    """A; B, a fork of A after its second turn; C, a fork of B after B's own turn; B's rollout gone."""
    a = write_parent(codex, A, START, markers=markers)
    b_path = write_fork(codex, a, B, START + timedelta(hours=5), markers=markers, rewrite=rewrite)
    lines = [orjson.loads(line) for line in b_path.read_bytes().splitlines()]
    total = next(line["payload"]["info"]["total_token_usage"] for line in reversed(lines)
                 if line["type"] == "event_msg" and line["payload"]["type"] == "token_count")
    b = Parent(B, START + timedelta(hours=5), lines, [(len(lines), total)])
    write_fork(codex, b, C, START + timedelta(hours=6), markers=markers, rewrite=rewrite, turns=1)
    b_path.unlink()


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize(("markers", "rewrite"), [(True, False), (True, True), (False, True), (False, False)])
def test_a_fork_through_a_gone_thread_leaves_the_found_one_s_calls_to_it(
        isolated_home: Path, cache: tuple[str, ...], markers: bool, rewrite: bool) -> None:
    _chain(isolated_home / ".codex", markers, rewrite)
    for _ in range(2):  # cold, then the kept rows
        _agree(_figures(*cache), {A: total_of(CALLS), C: OWN + OWN})


def test_the_found_thread_gone_too_its_calls_count_in_the_fork(isolated_home: Path) -> None:
    """C's row is kept by A's files, or their absence: A deleted, C counts all it copied."""
    codex = isolated_home / ".codex"
    _chain(codex, True, False)
    assert _figures()["list"] == {A: total_of(CALLS), C: 2 * OWN}
    a_path = rollout_path(codex, A, START)
    kept = a_path.read_bytes()
    a_path.unlink()
    _agree(_figures(), {C: COPIED_FROM_A + 2 * OWN})
    a_path.write_bytes(kept)
    _agree(_figures(), {A: total_of(CALLS), C: 2 * OWN})


def test_the_card_says_where_the_found_thread_s_calls_count(isolated_home: Path) -> None:
    from builders import cli_json, invoke

    _chain(isolated_home / ".codex", True, False)
    shown = cli_json("show", C)["session"]
    assert shown["forked_from"] == f"codex:{B}" and shown["forked_through"] == f"codex:{A}"
    assert shown["forked_counted_there"] is False and shown["forked_copies_listed"] is True
    text = " ".join(invoke("show", C).stdout.split())
    assert f"count here, but those it copied from codex:{A} count there, as tokens" in text
