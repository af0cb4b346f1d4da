"""``show`` of a fork of a gone fork (C forked from gone B, itself a fork of A): C's copy is the
only record of B's conversation, listed with C's own, but the part of it B copied of A is A's
(listed by ``show`` of A when A is found, and counted there).  And the card says exactly where
the copied calls count that do not count in C: in A found (``forked_through``), or, A gone
too, in E, an earlier fork of A on disk (``forked_counted_in``, named in ``show --json``)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import orjson

from builders import cli_json, invoke
from codex_fork_builders import Parent, write_fork, write_parent
from test_codex_fork_chain_pass50 import A, B, C, START, _chain

E = "019c4910-0000-7000-8000-0000000005ee"


def _prompts(thread: str) -> list[str]:
    return [prompt["text"] for prompt in cli_json("show", thread)["session"]["prompts"]]


def test_the_found_ancestor_s_part_is_not_listed_again(isolated_home: Path) -> None:
    _chain(isolated_home / ".codex", True, False)
    assert _prompts(C) == ["now the fork", "now the fork"]  # B's own turn, then C's: not A's two
    shown = cli_json("show", C)["session"]
    assert shown["forked_through"] == f"codex:{A}" and shown["forked_through_listed"] is False
    assert shown["forked_counted_in"] == []
    text = " ".join(invoke("show", C).stdout.split())
    assert f"its history past codex:{A}'s part, copied at the start of this rollout, is listed below" in text


def test_without_markers_the_whole_copy_is_listed(isolated_home: Path) -> None:
    """No turn marker tells where B's part begins: the copy is listed whole, and said so."""
    _chain(isolated_home / ".codex", False, False)
    assert _prompts(C) == ["parent step 0", "parent step 1", "now the fork", "now the fork"]
    assert cli_json("show", C)["session"]["forked_through_listed"] is True


def test_the_card_names_the_grandparent_s_earlier_fork(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    a = write_parent(codex, A, START, markers=True, write=False)  # A gone
    write_fork(codex, a, E, START + timedelta(hours=4), markers=True, rewrite=False)
    b_path = write_fork(codex, a, B, START + timedelta(hours=5), markers=True, rewrite=False)
    lines = [orjson.loads(line) for line in b_path.read_bytes().splitlines()]
    total = next(line["payload"]["info"]["total_token_usage"] for line in reversed(lines)
                 if line["type"] == "event_msg" and line["payload"]["type"] == "token_count")
    write_fork(codex, Parent(B, START + timedelta(hours=5), lines, [(len(lines), total)]), C,
               START + timedelta(hours=6), markers=True, rewrite=False, turns=1)
    b_path.unlink()
    shown = cli_json("show", C)["session"]
    assert shown["forked_counted_in"] == [{"session": f"codex:{E}", "forked_from": f"codex:{A}"}]
    assert "forked_through" not in shown or shown["forked_through"] is None
    text = " ".join(invoke("show", C).stdout.split())
    assert (f"its calls count here, but those codex:{E} (an earlier fork of codex:{A}) copied too count there,"
            " as tokens counts them") in text
    assert "or in an earlier fork of it" not in text
