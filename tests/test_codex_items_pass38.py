"""Codex 0.145 and later write no ``user_message``/``agent_message`` events: a turn's prompt and
replies are ``item_completed`` events carrying a ``UserMessage``/``AgentMessage`` item (codex-rs
``protocol/src/items.rs``, ``TurnItem``).  agentscan read none of them, so it fell back to the
``response_item`` messages, where Codex also injects a skill's body (``<skill>…``) as a user
message: it counted that as a prompt and showed it.  And the choice between events and items was
made per file, so a thread resumed after an upgrade (events for its old turns, none for its new
ones) lost its new turns (review s38).  Now the items count as the events do, the choice is made
per stretch of lines between two ``turn_context`` lines, and the new injected fragments are
not prompts.  Cold, cached and ``--no-cache`` reads agree."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.codex.messages import add_kind, counts_of, line_kind, turn_prompt, turn_response
from agentscan.providers.codex.records import clean_prompt
from codex_builders import (agent_message, assistant_item, at, function_output, line, meta, rollout_path, token_count,
                            turn_context, usage, user_item, user_message, write_rollout)

T = "019d0000-1111-7222-8333-444455556666"
SKILL = ("<skill>\n<name>release-notes</name>\n<path>/home/u/.codex/skills/release-notes/SKILL.md</path>\n"
         "Draft release notes...\n</skill>")
ENV = "<environment_context>\n  <cwd>/tmp/proj</cwd>\n</environment_context>"


def user_done(moment: datetime, text: str) -> dict[str, Any]:
    """An ``item_completed`` ``UserMessage`` as 0.145+ writes it (its text in ``text`` inputs)."""
    item = {"type": "UserMessage", "id": "u", "content": [{"type": "text", "text": text, "text_elements": []}]}
    return line(moment, "event_msg", {"type": "item_completed", "thread_id": T, "turn_id": "t", "item": item})


def agent_done(moment: datetime, text: str) -> dict[str, Any]:
    item = {"type": "AgentMessage", "id": "a", "content": [{"type": "Text", "text": text}], "phase": "final_answer"}
    return line(moment, "event_msg", {"type": "item_completed", "thread_id": T, "turn_id": "t", "item": item})


def new_turn(start: float, prompt: str, reply: str) -> list[dict[str, Any]]:
    """A turn by a 0.145+ build: the typed prompt as an item and an ``item_completed``, then the
    skill it named injected as another user item, the reply as an item and an ``item_completed``."""
    return [turn_context(at(start), "gpt-5.5"), user_item(at(start + 1), prompt), user_done(at(start + 1.001), prompt),
            user_item(at(start + 1.002), SKILL), assistant_item(at(start + 8), reply), agent_done(at(start + 8.001), reply),
            token_count(at(start + 8.002), usage(1000 * int(start + 9)), usage(1000))]


def old_turn(start: float, prompt: str, reply: str) -> list[dict[str, Any]]:
    """A turn by a build of 0.144 or earlier: items and ``user_message``/``agent_message`` events."""
    return [turn_context(at(start), "gpt-5.5"), user_item(at(start + 1), prompt), user_message(at(start + 1.001), prompt),
            assistant_item(at(start + 4), reply), agent_message(at(start + 4.001), reply)]


def items_only_turn(start: float, prompt: str, reply: str) -> list[dict[str, Any]]:
    """A turn by a build that wrote no message events at all (only the items)."""
    return [turn_context(at(start), "gpt-5.5"), user_item(at(start + 1), prompt), assistant_item(at(start + 4), reply)]


def _write(home: Path, turns: list[dict[str, Any]]) -> Path:
    records = [meta(T, at(0)), line(at(0.5), "response_item", {"type": "message", "role": "user",
                                                               "content": [{"type": "input_text", "text": ENV}]})]
    return write_rollout(rollout_path(home / ".codex", T, at(0)), [*records, *turns])


def _json(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout_bytes)


def _rows(*args: str) -> list[dict]:
    """The row as a cold read, a cached read and a ``--no-cache`` read give it: all the same."""
    rows = [_json(*pre, "list", "--all")["sessions"] for pre in ((), (), ("--no-cache",))]
    assert [len(found) for found in rows] == [1, 1, 1]
    return [found[0] for found in rows]


def _show() -> dict:
    return _json("show", T)["session"]


def _conversation(detail: dict) -> tuple[list[str], list[str]]:
    return [p["text"] for p in detail["prompts"]], [r["text"] for r in detail["responses"]]


def test_a_new_build_turn_is_its_typed_prompt_and_reply_not_the_skill_it_injected(isolated_home: Path) -> None:
    _write(isolated_home, new_turn(100, "Use $release-notes to draft the changelog", "Drafted CHANGELOG.md"))
    for row in _rows():
        assert row["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 0}
        assert row["title"] == "Use $release-notes to draft the changelog"
    detail = _show()
    assert _conversation(detail) == (["Use $release-notes to draft the changelog"], ["Drafted CHANGELOG.md"])
    assert detail["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 0}


def test_a_thread_resumed_after_an_upgrade_keeps_its_new_turns(isolated_home: Path) -> None:
    _write(isolated_home, [*old_turn(100, "Old-build prompt one", "Old reply"),
                           *new_turn(90000, "Use $release-notes to draft the changelog", "Drafted CHANGELOG.md")])
    for row in _rows():
        assert row["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}
        assert row["title"] == "Old-build prompt one"
    assert _conversation(_show()) == (["Old-build prompt one", "Use $release-notes to draft the changelog"],
                                      ["Old reply", "Drafted CHANGELOG.md"])


def test_turns_without_events_and_turns_with_them_in_one_file_each_count_once(isolated_home: Path) -> None:
    """The choice between events and items is made per stretch: a turn whose build wrote no events
    counts its items, a turn with events counts those (not its items too), in file order."""
    _write(isolated_home, [*items_only_turn(100, "first, items only", "reply one"),
                           *old_turn(200, "second, with events", "reply two"),
                           *items_only_turn(300, "third, items only", "reply three")])
    for row in _rows():
        assert row["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 0}
    detail = _show()
    assert _conversation(detail) == (["first, items only", "second, with events", "third, items only"],
                                     ["reply one", "reply two", "reply three"])
    # In order: each reply after its prompt (``show --full`` interleaves them by that order).
    order = sorted([*detail["prompts"], *detail["responses"]], key=lambda message: message["timestamp"])
    assert [message["text"] for message in order] == ["first, items only", "reply one", "second, with events",
                                                      "reply two", "third, items only", "reply three"]


def test_the_tally_of_a_large_rollout_counts_the_new_turns_and_reads_on_over_appended_ones(
        isolated_home: Path) -> None:
    """A rollout over 1 MiB: ``list`` takes its counts from the tally a whole pass kept, read on
    over appended lines; they are ``show``'s."""
    filler = [function_output(at(150 + i * 0.01), f"c{i}", "y" * 14000) for i in range(80)]
    turns = [*old_turn(100, "before the upgrade", "old reply"), *filler, *new_turn(90000, "after it", "new reply")]
    path = _write(isolated_home, turns)
    assert path.stat().st_size > 1024 * 1024 + 14000
    cold = _json("list", "--all")["sessions"][0]
    assert cold["counts_partial"] is True  # no whole pass yet: the window's
    _json("tokens", T)  # a whole pass keeps the tally
    row = _json("list", "--all")["sessions"][0]
    assert row["counts_partial"] is False
    assert row["counts"] == _show()["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}
    # Appended: another new-build turn, read on from where the tally stopped.
    with path.open("ab") as handle:
        for record in new_turn(180000, "and later", "later reply"):
            handle.write(orjson.dumps(record) + b"\n")
    grown = _json("list", "--all")["sessions"][0]
    assert grown["counts_partial"] is False
    assert grown["counts"] == _show()["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 0}


def test_an_older_tally_is_not_taken_for_a_file_a_new_build_wrote(isolated_home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A tally an older agentscan kept missed the ``item_completed`` messages: when the row's
    window shows the file has them, the row says its counts are the window's until a whole pass
    keeps a tally again (one of a file without them is still taken: ``test_codex_restarts_pass35``)."""
    from agentscan.providers.codex import fullcounts

    filler = [function_output(at(150 + i * 0.01), f"c{i}", "y" * 14000) for i in range(80)]
    _write(isolated_home, [*old_turn(100, "before the upgrade", "old reply"), *filler,
                           *new_turn(90000, "after it", "new reply")])
    current = fullcounts.VERSION
    monkeypatch.setattr(fullcounts, "VERSION", "3")
    _json("tokens", T)  # as the older agentscan kept it
    monkeypatch.setattr(fullcounts, "VERSION", current)
    assert _json("list", "--all")["sessions"][0]["counts_partial"] is True
    _json("show", T)  # a whole pass of this agentscan keeps a tally of its own
    row = _json("list", "--all")["sessions"][0]
    assert row["counts_partial"] is False and row["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}


def test_tokens_table_title_is_the_rows_for_a_new_build(isolated_home: Path) -> None:
    """``tokens``' table finds the title without the row's pass (``tablefacts``): the same one."""
    _write(isolated_home, new_turn(100, "Use $release-notes to draft the changelog", "Drafted CHANGELOG.md"))
    result = CliRunner().invoke(app, ["tokens"])
    assert result.exit_code == 0, result.output
    assert "Use $release-notes to draft the changelog" in result.output
    assert "<skill>" not in result.output


@pytest.mark.parametrize("text", [
    SKILL,
    "<skills_section>\n- release-notes: drafts notes\n</skills_section>",
    "<plugins>\n- github\n</plugins>",
    "<subagents>\n  - 019d…: explorer\n</subagents>",
    "<child_agents_instructions>\nNested AGENTS.md files apply.\n</child_agents_instructions>",
    "<js_repl_instructions>\nUse the js_repl tool.\n</js_repl_instructions>",
    '<hook_prompt hook_run_id="r1">Run the linter first</hook_prompt>',
])
def test_codex_injected_fragments_are_not_prompts(text: str) -> None:
    """The contextual user fragments of codex-rs ``model_visible_context`` (and a hook's prompt)."""
    assert clean_prompt(text) is None
    assert clean_prompt("  " + text) is None
    assert clean_prompt("Explain <skill> tags to me") == "Explain <skill> tags to me"


def test_item_completed_texts_are_read_as_codex_joins_them() -> None:
    prompt = {"type": "item_completed", "item": {"type": "UserMessage", "id": "u", "content": [
        {"type": "text", "text": "Look at "}, {"type": "local_image", "path": "/tmp/a.png"},
        {"type": "text", "text": "this screenshot"}]}}
    reply = {"type": "item_completed", "item": {"type": "AgentMessage", "id": "a", "content": [
        {"type": "Text", "text": "It shows"}, {"type": "Text", "text": "a stack trace."}]}}
    assert turn_prompt(prompt) == "Look at this screenshot"  # as ``UserMessageItem::message``
    assert turn_response(reply) == "It shows\na stack trace."
    plan = {"type": "item_completed", "item": {"type": "Plan", "id": "p", "text": "1. do it"}}
    assert turn_prompt(plan) is None and turn_response(plan) is None
    assert turn_prompt({"type": "item_completed", "item": ["UserMessage"]}) is None
    assert line_kind({"type": "event_msg", "payload": prompt}) == "turn_prompt"
    assert line_kind({"type": "event_msg", "payload": reply}) == "turn_response"
    assert line_kind({"type": "event_msg", "payload": plan}) is None


def test_a_tally_counts_each_stretch_once_and_reads_on() -> None:
    """``add_kind``'s flat tally: a stretch with events counts them, one without counts its items;
    a tally counted in two goes (kept, then read on over appended lines) is the same."""
    kinds_of = ["item_prompt", "event_prompt", "item_response", "event_response", "tool_call", "turn",
                "item_prompt", "item_response", "turn", "turn_prompt", "item_prompt", "turn_response", "item_response"]
    whole: dict[str, int] = {}
    for kind in kinds_of:
        add_kind(whole, kind)
    assert counts_of(whole) == counts_of(_in_two(kinds_of))
    assert (counts_of(whole).prompts, counts_of(whole).responses, counts_of(whole).tool_calls) == (3, 3, 1)
    assert counts_of({"event_prompt": 2, "item_prompt": 3}).prompts == 2  # an older agentscan's tally


def _in_two(kinds_of: list[str]) -> dict[str, int]:
    kept: dict[str, int] = {}
    for kind in kinds_of[:7]:
        add_kind(kept, kind)
    kept = orjson.loads(orjson.dumps(kept))  # as the persistent cache keeps it
    for kind in kinds_of[7:]:
        add_kind(kept, kind)
    return kept
