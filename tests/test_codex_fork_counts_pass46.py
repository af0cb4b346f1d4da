"""A Codex fork's counts, title and ``show`` are of its own part, after the copy of its
parent's history its rollout begins with, as its tokens are (``providers/codex/forkpart``):
``list`` gave it the parent's 18 tool calls and the parent's title.  Two forks: one whose
own turn a ``task_started`` marks, one without markers whose copy (timestamps rewritten to
the fork instant) is told by its calls, as ``tokens`` tells it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from codex_builders import (Calls, agent_message, assistant_item, at, function_call, function_output, iso, meta,
                            rollout_path, task_started, turn_context, user_item, user_message, write_rollout)

P = "019c4600-0000-7000-8000-00000000000a"
F = "019c4600-0000-7000-8000-00000000000f"  # a fork of P, with turn markers
G = "019c4600-0000-7000-8000-00000000001f"  # a fork of P, without


def _parent_lines(calls: Calls, markers: bool) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for turn in range(2):
        t = at(10 * (turn + 1))
        lines += [task_started(t)] if markers else []
        lines += [turn_context(t), user_item(t, f"parent step {turn}"), user_message(t, f"parent step {turn}"),
                  calls.call(t, 1000, 0, 100), function_call(t, "shell", {"command": ["ls"]}, f"c{turn}"),
                  function_output(t, f"c{turn}", "ok"), calls.call(t, 1000, 0, 100),
                  agent_message(t, "parent done"), assistant_item(t, "parent done")]
    return lines


def _lay_out(codex: Path) -> None:
    calls = Calls()
    parent = _parent_lines(calls, True)
    write_rollout(rollout_path(codex, P, at(0)), [meta(P, at(0)), *parent])
    for fork, markers, start in ((F, True, 1000), (G, False, 2000)):
        forked = Calls(total=dict(calls.total))
        copy = [dict(record, timestamp=iso(at(start + 0.001 * (n + 1))))
                for n, record in enumerate([meta(P, at(0)), *_parent_lines(Calls(), markers)])]
        t = at(start + 30)
        own = [task_started(t)] if markers else []
        own += [turn_context(t), user_item(t, "now the fork"), user_message(t, "now the fork"),
                forked.call(t, 500, 0, 50), agent_message(t, "fork done"), assistant_item(t, "fork done")]
        write_rollout(rollout_path(codex, fork, at(start)), [meta(fork, at(start), forked_from=P), *copy, *own])


def _rows(*args: str) -> dict[str, dict[str, Any]]:
    return {row["native_id"]: row for row in cli_json("list", "--all", *args)["sessions"]}


PARENT = {"prompts": 2, "responses": 2, "tool_calls": 2}
OWN = {"prompts": 1, "responses": 1, "tool_calls": 0}


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_list_counts_and_titles_a_fork_by_its_own_part(isolated_home: Path, cache: tuple[str, ...]) -> None:
    _lay_out(isolated_home / ".codex")
    for _ in range(2):  # cold, then the kept rows
        rows = _rows(*cache)
        assert rows[P]["counts"] == PARENT and rows[P]["title"] == "parent step 0"
        for fork in (F, G):
            assert rows[fork]["counts"] == OWN, fork
            assert rows[fork]["title"] == "now the fork"
            assert rows[fork]["counts_partial"] is False


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_show_gives_a_fork_its_own_part(isolated_home: Path, cache: tuple[str, ...]) -> None:
    _lay_out(isolated_home / ".codex")
    for fork in (F, G):
        doc = cli_json(*cache, "show", fork)["session"]
        assert doc["counts"] == OWN and doc["title"] == "now the fork"
        assert [p["text"] for p in doc["prompts"]] == ["now the fork"]
        assert doc["tools"] == []
        assert doc["forked_from"] == f"codex:{P}" and doc["forked_after_prompts"] == 2
        text = CliRunner().invoke(app, [*cache, "show", fork]).output
        assert "1 prompt, 1 response, 0 tool calls" in text
        assert f"forked   from codex:{P} after its 2 prompts: agentscan show codex:{P}" in text
    doc = cli_json(*cache, "show", P)["session"]
    assert doc["counts"] == PARENT and "forked_from" not in doc


def test_tokens_table_titles_a_fork_as_its_row(isolated_home: Path) -> None:
    """``tokens``' table facts (``tablefacts``) title a fork by its own first prompt, as its row."""
    from agentscan.scan.scanner import Scanner

    _lay_out(isolated_home / ".codex")
    with Scanner(use_cache=False) as scanner:
        provider = scanner.provider("codex")
        titles = {}
        for ref in provider.discover(scanner.ctx):
            facts = provider.table_facts(ref, scanner.ctx)
            assert facts is not None
            titles[ref.native_id] = facts.title
    assert titles == {P: "parent step 0", F: "now the fork", G: "now the fork"}


H = "019c4600-0000-7000-8000-00000000002f"  # a fork whose turn writes its prompt before its marker


def _fork_of_p(codex: Path, fork: str, start: float, own_order: str, pad: int = 0) -> None:
    """A fork of P (as ``_lay_out`` writes it, P too), its own turn in ``own_order``: "marker
    first" (0.135: ``task_started``, then the turn and prompt) or "prompt first" (0.146:
    ``turn_context`` and the prompt, then ``task_started``); ``pad``: bytes of a copied reply."""
    calls = Calls()
    parent = _parent_lines(calls, True)
    if pad:
        parent.append(agent_message(at(25), "x" * pad))
    write_rollout(rollout_path(codex, P, at(0)), [meta(P, at(0)), *parent])
    forked = Calls(total=dict(calls.total))
    copy = [dict(record, timestamp=iso(at(start + 0.001 * (n + 1)))) for n, record in enumerate([meta(P, at(0)), *parent])]
    t = at(start + 30)
    prompt = [turn_context(t), user_item(t, "now the fork"), user_message(t, "now the fork")]
    own = [task_started(t), *prompt] if own_order == "marker first" else [*prompt, task_started(t)]
    own += [forked.call(t, 500, 0, 50), agent_message(t, "fork done"), assistant_item(t, "fork done")]
    write_rollout(rollout_path(codex, fork, at(start)), [meta(fork, at(start), forked_from=P), *copy, *own])


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_a_prompt_written_before_its_marker_is_the_fork_s_own(isolated_home: Path, cache: tuple[str, ...]) -> None:
    # (review of pass 46: the own part began at the marker, and the prompt before it was lost)
    _fork_of_p(isolated_home / ".codex", H, 3000, "prompt first")
    for _ in range(2):
        row = _rows(*cache)[H]
        assert row["counts"] == OWN and row["title"] == "now the fork"
        doc = cli_json(*cache, "show", H)["session"]
        assert [p["text"] for p in doc["prompts"]] == ["now the fork"] and doc["forked_after_prompts"] == 2


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_a_large_fork_s_own_counts_are_not_partial(isolated_home: Path, cache: tuple[str, ...]) -> None:
    # (review of pass 46: read whole, the counts are exact; said partial, the row was built
    # again on the next run)
    _fork_of_p(isolated_home / ".codex", H, 3000, "marker first", pad=1_500_000)
    for _ in range(2):
        row = _rows(*cache)[H]
        assert row["counts"] == OWN and row["counts_partial"] is False
