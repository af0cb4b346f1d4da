"""``show`` of a Codex session says how Codex was run (``source``: ``codex exec``, the
interactive CLI, …, from the thread's own ``session_meta``) and, on a fork's parent, the
sessions forked from it (``forked_as``, the reverse of a fork's ``forked from`` line).
Before, nothing told a ``codex exec`` session, and only the fork named its parent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from codex_builders import (Calls, agent_message, at, index_row, iso, meta, rollout_path, task_started, turn_context,
                            user_message, write_rollout, write_state_db)

P = "019c4800-0000-7000-8000-00000000000a"  # a codex exec session, forked twice
F = "019c4800-0000-7000-8000-00000000000f"  # a fork of P (interactive)
G = "019c4800-0000-7000-8000-00000000001f"  # another fork of P
S = "019c4800-0000-7000-8000-00000000005a"  # a subagent P spawned with its context: no fork
L = "019c4800-0000-7000-8000-0000000000aa"  # a lone session, no fork


def _exec_meta(thread_id: str, seconds: float) -> dict[str, Any]:
    line = meta(thread_id, at(seconds), source="exec")
    line["payload"]["originator"] = "codex_exec"
    return line


def _turn(seconds: float, text: str, calls: Calls) -> list[dict[str, Any]]:
    t = at(seconds)
    return [task_started(t), turn_context(t), user_message(t, text), calls.call(t, 1000, 0, 100),
            agent_message(t, f"{text}: done")]


def _lay_out(codex: Path, *, forks: tuple[str, ...] = (F, G), index: bool = False) -> dict[str, Path]:
    calls = Calls()
    parent = [_exec_meta(P, 0), *_turn(10, "parent step", calls)]
    paths = {P: write_rollout(rollout_path(codex, P, at(0)), parent)}
    for number, fork in enumerate(forks):
        start = 1000 * (number + 1)
        # A fork begins with a copy of its parent's history, the parent's (exec) meta included.
        copy = [dict(record, timestamp=iso(at(start + 0.001 * (n + 1)))) for n, record in enumerate(parent)]
        own = _turn(start + 30, "now the fork", Calls(total=dict(calls.total)))
        paths[fork] = write_rollout(rollout_path(codex, fork, at(start)),
                                    [meta(fork, at(start), forked_from=P), *copy, *own])
    spawned = meta(S, at(90_000), spawn_parent=P, forked_from=P, agent_role="worker")
    paths[S] = write_rollout(rollout_path(codex, S, at(90_000)), [spawned, *parent, *_turn(90_030, "sub task", Calls())])
    paths[L] = write_rollout(rollout_path(codex, L, at(95_000)), [meta(L, at(95_000)), *_turn(95_010, "lone", Calls())])
    if index:
        subagent = orjson.dumps({"subagent": {"thread_spawn": {"parent_thread_id": P, "depth": 1}}}).decode()
        write_state_db(codex / "state_5.sqlite", [
            index_row(thread_id, path, created=at(0), updated=at(10),
                      source=subagent if thread_id == S else "exec" if thread_id == P else "cli")
            for thread_id, path in paths.items()
        ], edges=[(P, S)])
    return paths


def _show(*args: str) -> str:
    result = CliRunner().invoke(app, ["show", *args])
    assert result.exit_code == 0, result.output
    return result.output


def _card_line(text: str, label: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"  {label:<8} ")]


CACHES = [(), ("--no-cache",)]


@pytest.mark.parametrize("cache", CACHES)
@pytest.mark.parametrize("index", [False, True])
def test_show_says_how_codex_was_run(isolated_home: Path, cache: tuple[str, ...], index: bool) -> None:
    _lay_out(isolated_home / ".codex", index=index)
    for _ in range(2):  # cold, then warm
        assert cli_json(*cache, "show", P)["session"]["source"] == "exec"
        assert _card_line(_show(*cache, P), "source") == ["  source   codex exec (non-interactive)"]
        # A fork's copy of its parent's (exec) meta is not its own: it was run interactively.
        assert cli_json(*cache, "show", F)["session"]["source"] == "cli"
        assert _card_line(_show(*cache, F), "source") == ["  source   codex (interactive terminal)"]


@pytest.mark.parametrize(("payload", "expected", "said"), [
    ({"source": "vscode"}, "vscode", "codex in an IDE extension (vscode)"),
    ({"source": "mcp"}, "mcp", "codex mcp-server (driven by an MCP client)"),
    ({"source": None, "originator": "codex_vscode"}, "vscode", "codex in an IDE extension (vscode)"),  # 0.39
    ({"source": None, "originator": "codex_exec"}, "exec", "codex exec (non-interactive)"),
    ({"source": "unknown", "originator": "some_client"}, None, None),
    ({"source": None, "originator": None}, None, None),
])
def test_each_source_and_the_unknown_one(isolated_home: Path, payload: dict[str, Any], expected: str | None,
                                         said: str | None) -> None:
    line = meta(L, at(0))
    line["payload"].update(payload)
    write_rollout(rollout_path(isolated_home / ".codex", L, at(0)), [line, *_turn(10, "hello", Calls())])
    assert cli_json("show", L)["session"]["source"] == expected
    assert _card_line(_show(L), "source") == ([f"  source   {said}"] if said else [])


@pytest.mark.parametrize("cache", CACHES)
@pytest.mark.parametrize("index", [False, True])
def test_a_parent_names_its_forks(isolated_home: Path, cache: tuple[str, ...], index: bool) -> None:
    _lay_out(isolated_home / ".codex", index=index)
    cli_json(*cache, "list", "--all")  # the headers read (and kept) by list, as usual
    for _ in range(2):  # cold show, then warm
        doc = cli_json(*cache, "show", P)["session"]
        # Its subagent, spawned with its context, is no fork.
        assert doc["forked_as"] == [f"codex:{F}", f"codex:{G}"] and "forked_as_total" not in doc
        assert _card_line(_show(*cache, P), "forked") == [
            f"  forked   as codex:{F}, codex:{G}: their rollouts begin with a copy of this one's history"]
        for other in (F, L):
            doc = cli_json(*cache, "show", other)["session"]
            assert "forked_as" not in doc, other
        assert _card_line(_show(*cache, F), "forked") == [
            f"  forked   from codex:{P} after its 1 prompt: agentscan show codex:{P}"]
        assert _card_line(_show(*cache, L), "forked") == []


def test_one_fork_is_said_in_the_singular(isolated_home: Path) -> None:
    _lay_out(isolated_home / ".codex", forks=(F,))
    assert cli_json("show", P)["session"]["forked_as"] == [f"codex:{F}"]
    assert _card_line(_show(P), "forked") == [
        f"  forked   as codex:{F}: its rollout begins with a copy of this one's history"]


def test_a_fork_seen_later_is_named(isolated_home: Path) -> None:
    """The parent's files do not change when it is forked: its card must still learn of the fork."""
    codex = isolated_home / ".codex"
    _lay_out(codex, forks=())
    assert "forked_as" not in cli_json("show", P)["session"]
    _lay_out(codex, forks=(F,))
    assert cli_json("show", P)["session"]["forked_as"] == [f"codex:{F}"]


def test_many_forks_keep_the_newest(isolated_home: Path) -> None:
    forks = tuple(f"019c4800-0000-7000-8000-{number:012x}" for number in range(0x100, 0x100 + 23))
    _lay_out(isolated_home / ".codex", forks=forks)
    doc = cli_json("show", P)["session"]
    assert doc["forked_as"] == [f"codex:{fork}" for fork in forks[-20:]]  # by start, oldest first
    assert doc["forked_as_total"] == 23
    (line,) = _card_line(_show(P), "forked")
    assert line.startswith(f"  forked   as codex:{forks[3]}, ")
    assert line.endswith(f"codex:{forks[-1]} (newest 20 of 23): their rollouts begin with a copy of this one's history")
