"""Mends to the Cursor sub-composers ``show`` shows (``providers/cursor/subcomposers.py``,
``ide.stream_composer``): a child whose bubbles carry no ``createdAt`` is merged with an
IDE-only parent's bubbles at its composer's ``createdAt`` (before, at the start of time:
its calls went before the parent's first prompt), or, with none, after the parent."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import bubble, composer_data, make_state_db, state_db_path

PARENT = "7c0a1e55-0000-4000-8000-0000000000a5"
CHILD = "9d2e4f60-0000-4000-8000-0000000000a5"
T0 = 1_795_946_400_000  # 2026-11-29T10:00:00Z
TASK = "List every caller of fetch_forecast."


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _call(name: str) -> dict:
    return {"name": name, "status": "completed", "params": {"target_file": "/home/me/app/a.py"}}


def _ide_parent_and_untimed_child(home: Path, child_created: int | None) -> dict:
    parent = composer_data(PARENT, name="IDE chat", created=T0, updated=T0 + 360_000, fs_path="/home/me/app",
                           bubbles=["u1", "a1", "a2"], sub_ids=[CHILD])
    child = composer_data(CHILD, created=child_created, fs_path="/home/me/app", bubbles=["c-u1", "c-a1", "c-a2"])
    make_state_db(state_db_path(home), composers=[parent, child], bubbles={
        PARENT: [bubble("u1", 1, "speed it up", created="2026-11-29T10:00:00Z"),
                 bubble("a1", 2, "", created="2026-11-29T10:00:10Z", toolFormerData=_call("read_file"), tokens=(10, 1)),
                 bubble("a2", 2, "done", created="2026-11-29T10:02:00Z", toolFormerData=_call("edit_file"),
                        tokens=(20, 2))],
        # No createdAt on any of the child's bubbles.
        CHILD: [bubble("c-u1", 1, TASK),
                bubble("c-a1", 2, "", toolFormerData=_call("grep_search") | {"toolCallId": "tc-c1"}, tokens=(5, 1)),
                bubble("c-a2", 2, "Two callers.", tokens=(5, 1))],
    })
    result = invoke("show", PARENT, "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)["session"]


def test_an_untimed_child_s_calls_stand_at_its_composer_s_creation(isolated_home: Path) -> None:
    """Created at 10:00:40: between the parent's read (10:00:10) and its edit (10:02)."""
    session = _ide_parent_and_untimed_child(isolated_home, T0 + 40_000)
    assert [(t["name"], t["subagent"]) for t in session["tools"]] == [
        ("read_file", None), ("grep_search", CHILD), ("edit_file", None)]
    assert [p["text"] for p in session["prompts"]] == ["speed it up"]
    (sub,) = session["subagents"]
    assert [p["text"] for p in sub["prompts"]] == [TASK]
    assert [r["text"] for r in sub["responses"]] == ["Two callers."]


def test_a_child_with_no_time_at_all_comes_after_the_parent(isolated_home: Path) -> None:
    session = _ide_parent_and_untimed_child(isolated_home, None)
    assert [(t["name"], t["subagent"]) for t in session["tools"]] == [
        ("read_file", None), ("edit_file", None), ("grep_search", CHILD)]
    (sub,) = session["subagents"]
    assert [p["text"] for p in sub["prompts"]] == [TASK]


def test_same_prompt_is_one_holding_the_other() -> None:
    from agentscan.providers.cursor.prompt_text import same_prompt

    assert same_prompt("fix  the\nbuild", "please fix the build now")
    assert same_prompt("please fix the build now", "fix the build")
    assert not same_prompt("fix the build", "fix the tests")
    assert not same_prompt("", "fix the build") and not same_prompt("fix", "  \n ")


def test_add_prompt_and_response_for_a_subagent_go_to_its_pool() -> None:
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SubagentInfo
    from agentscan.model import SessionRow
    from agentscan.toolkit.detail import DetailCollector

    collector = DetailCollector(Bounds())
    collector.add_prompt("mine")
    collector.add_prompt("its task", subagent="run-1")
    collector.add_response("its reply", None, "m-1", subagent="run-1")
    collector.add_response("my reply")
    detail = collector.build(SessionRow("cursor", PARENT, None),
                             subagents=(SubagentInfo("run-1", None, None, None),))
    assert [p.text for p in detail.prompts] == ["mine"]
    assert [r.text for r in detail.responses] == ["my reply"]
    (sub,) = detail.subagents
    assert [p.text for p in sub.prompts] == ["its task"]
    assert [(r.text, r.model) for r in sub.responses] == [("its reply", "m-1")]


def test_a_child_whose_composer_has_no_time_is_placed_by_its_bubbles_times(isolated_home: Path) -> None:
    """Its composer has no ``createdAt`` but its bubbles do: its call stands where it ran, between
    the parent's two calls, not after the parent's whole conversation."""
    parent = composer_data(PARENT, name="IDE chat", created=T0, updated=T0 + 360_000, fs_path="/home/me/app",
                           bubbles=["u1", "a1", "a2"], sub_ids=[CHILD])
    child = composer_data(CHILD, created=None, fs_path="/home/me/app", bubbles=["c-u0", "c-u1", "c-a1", "c-a2"])
    make_state_db(state_db_path(isolated_home), composers=[parent, child], bubbles={
        PARENT: [bubble("u1", 1, "speed it up", created="2026-11-29T10:00:00Z"),
                 bubble("a1", 2, "", created="2026-11-29T10:00:10Z", toolFormerData=_call("read_file"), tokens=(10, 1)),
                 bubble("a2", 2, "done", created="2026-11-29T10:02:00Z", toolFormerData=_call("edit_file"),
                        tokens=(20, 2))],
        # Its first bubble has no time: it goes with the first that has one, not first of all.
        CHILD: [bubble("c-u0", 1, "Context first"),
                bubble("c-u1", 1, "List every caller", created="2026-11-29T10:00:40Z"),
                bubble("c-a1", 2, "", created="2026-11-29T10:00:41Z",
                       toolFormerData=_call("grep_search") | {"toolCallId": "tc-c1"}, tokens=(5, 1)),
                bubble("c-a2", 2, "Two callers.", created="2026-11-29T10:00:50Z", tokens=(5, 1))],
    })
    session = orjson.loads(invoke("show", PARENT, "--json").stdout)["session"]
    assert [(tool["name"], tool["subagent"]) for tool in session["tools"]] == [
        ("read_file", None), ("grep_search", CHILD), ("edit_file", None)]
