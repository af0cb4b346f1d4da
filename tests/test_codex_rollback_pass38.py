"""Codex's ``thread_rolled_back`` event (Esc-Esc backtrack, ``thread/rollback``: openai/codex
#23000) takes back the last ``num_turns`` user turns; Codex always persists it (codex-rs
``rollout/src/policy.rs``) and its replay drops those turns (``user_message_positions_in_rollout``).
agentscan ignored it: ``show`` listed the taken-back prompts, replies and calls (review s38).
Now ``show`` lists only the live turns and says how many messages went (``rewound_messages``),
as for Claude's edited prompts and Gemini's rewinds; the row's counts, its title (the file's
first prompt) and every token sum still include them (they were billed).  Also: a review
(compact, memory) subagent thread names no parent in any build, so it is listed on its own,
its title saying what it is.  Cold, cached and ``--no-cache`` reads agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from codex_builders import (append_records, rows_three_ways, agent_message, at, function_call, function_output, line, meta, rollout_path, token_count,
                            turn_context, usage, user_item, user_message, write_rollout, assistant_item)

T = "019d0000-2222-7333-8444-555566667777"


def rollback(moment: float, turns: Any) -> dict[str, Any]:
    return line(at(moment), "event_msg", {"type": "thread_rolled_back", "num_turns": turns})


def turn(start: float, prompt: str, reply: str, total: int, *, call: str | None = None,
         before: int = 0) -> list[dict[str, Any]]:
    """A turn with events (and the items the model saw), maybe a tool call, and its call's tokens
    (``total``: the cumulative count after it, ``before``: before it)."""
    records = [turn_context(at(start)), user_item(at(start + 0.5), prompt), user_message(at(start + 0.6), prompt)]
    if call:
        records += [function_call(at(start + 1), "shell", {"command": ["bash", "-lc", call]}, f"c{start}"),
                    function_output(at(start + 1.1), f"c{start}", "Exit code: 0\nok")]
    records += [assistant_item(at(start + 2), reply), agent_message(at(start + 2.1), reply),
                token_count(at(start + 3), usage(total, output=total // 10),
                                usage(total - before, output=(total - before) // 10))]
    return records


def _write(home: Path, records: list[dict[str, Any]], source: Any = None) -> Path:
    head = [meta(T, at(0), source=source)] if source is not None else [meta(T, at(0))]
    return write_rollout(rollout_path(home / ".codex", T, at(0)), [*head, *records])








def _show() -> dict:
    """``show``'s session, the same with ``--no-cache``."""
    detail = cli_json("show", T)["session"]
    assert cli_json("--no-cache", "show", T)["session"] == detail
    return detail


def _prompts(detail: dict) -> list[str]:
    return [p["text"] for p in detail["prompts"]]


def test_a_rolled_back_turn_is_not_shown_but_still_counted_and_its_tokens_count(isolated_home: Path) -> None:
    _write(isolated_home, [*turn(10, "prompt one kept", "reply one", 1000, call="ls"),
                           *turn(20, "prompt two rolled back", "reply two", 3000, call="rm -rf build", before=1000),
                           rollback(25, 1),
                           *turn(30, "prompt three after rollback", "reply three", 6000, before=3000)])
    for row in rows_three_ways():
        assert row["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 2}  # as list counted them before
        assert row["title"] == "prompt one kept"
        assert row["tokens"]["total"] == 6600  # the last cumulative count: every call, the rolled back too
    detail = _show()
    assert _prompts(detail) == ["prompt one kept", "prompt three after rollback"]
    assert [r["text"] for r in detail["responses"]] == ["reply one", "reply three"]
    assert [t["summary"] for t in detail["tools"]] == ["ls"]
    assert detail["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 2}  # the row's
    assert detail["rewound_messages"] == 2
    assert detail["tokens"]["total"] == 6600
    assert cli_json("tokens", T)["rows"][0]["tokens"]["total"] == 6600
    card = CliRunner().invoke(app, ["show", T]).output
    assert "  rewound  2 messages (their tokens still count)" in card  # as Claude's and Gemini's card


def test_a_session_with_no_rollback_rewinds_nothing(isolated_home: Path) -> None:
    _write(isolated_home, [*turn(10, "one", "r1", 1000), *turn(20, "two", "r2", 2000), rollback(25, 0),
                           rollback(26, True), rollback(27, "x")])
    detail = _show()
    assert _prompts(detail) == ["one", "two"] and detail["rewound_messages"] == 0
    assert "rewound" not in CliRunner().invoke(app, ["show", T]).output


def test_a_rolled_back_first_turn_still_titles_the_session(isolated_home: Path) -> None:
    """As Claude's edited first prompt: the title is the file's first prompt."""
    _write(isolated_home, [*turn(10, "a typo'd first prompt", "reply one", 1000),
                           rollback(15, 1),
                           *turn(20, "the prompt the user meant", "reply two", 2000, before=1000)])
    for row in rows_three_ways():
        assert row["title"] == "a typo'd first prompt"
        assert row["counts"]["prompts"] == 2
    detail = _show()
    assert detail["title"] == "a typo'd first prompt"
    assert _prompts(detail) == ["the prompt the user meant"] and detail["rewound_messages"] == 2
    assert "a typo'd first prompt" in CliRunner().invoke(app, ["tokens"]).output  # the row's title


def test_a_rollback_of_more_turns_than_there_are_keeps_what_came_before_them(isolated_home: Path) -> None:
    _write(isolated_home, [*turn(10, "one", "r1", 1000), *turn(20, "two", "r2", 2000), rollback(25, 5),
                           *turn(30, "three", "r3", 3000), *turn(40, "four", "r4", 4000), rollback(45, 1)])
    for row in rows_three_ways():
        assert row["counts"] == {"prompts": 4, "responses": 4, "tool_calls": 0}
        assert row["title"] == "one"
    detail = _show()
    assert _prompts(detail) == ["three"] and detail["rewound_messages"] == 6


def test_the_plan_of_a_rolled_back_turn_is_taken_back(isolated_home: Path) -> None:
    plan = {"plan": [{"step": "delete the cache", "status": "in_progress"}]}
    first = {"plan": [{"step": "read the code", "status": "completed"}]}
    _write(isolated_home, [turn_context(at(10)), user_message(at(10.5), "one"),
                           function_call(at(11), "update_plan", first, "p1"),
                           turn_context(at(20)), user_message(at(20.5), "two"),
                           function_call(at(21), "update_plan", plan, "p2"), rollback(25, 1)])
    detail = _show()
    assert [step["step"] for step in detail["plan"]] == ["read the code"]
    assert detail["counts"]["tool_calls"] == 2


def test_a_turn_of_items_only_is_rolled_back_too(isolated_home: Path) -> None:
    """A stretch with no events shows its items: their turns are the ones a rollback takes back."""
    _write(isolated_home, [turn_context(at(10)), user_item(at(10.5), "items one"), assistant_item(at(11), "ri1"),
                           turn_context(at(20)), user_item(at(20.5), "items two"), assistant_item(at(21), "ri2"),
                           rollback(25, 1), *turn(30, "events three", "r3", 3000)])
    for row in rows_three_ways():
        assert row["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 0}
    detail = _show()
    assert _prompts(detail) == ["items one", "events three"] and detail["rewound_messages"] == 2
    assert [r["text"] for r in detail["responses"]] == ["ri1", "r3"]


def test_a_rollback_appended_after_a_first_run_is_applied(isolated_home: Path) -> None:
    path = _write(isolated_home, [*turn(10, "one", "r1", 1000), *turn(20, "two", "r2", 2000, before=1000)])
    assert rows_three_ways()[0]["counts"]["prompts"] == 2
    assert _show()["rewound_messages"] == 0
    append_records(path, [rollback(25, 1), *turn(30, "three", "r3", 3000, before=2000)])
    for row in rows_three_ways():
        assert row["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 0}
        assert row["tokens"]["total"] == 3300
    detail = _show()
    assert _prompts(detail) == ["one", "three"] and detail["rewound_messages"] == 2


def test_a_large_rollout_rolled_back_counts_every_turn(isolated_home: Path) -> None:
    """A rollout over 1 MiB: its kept tally (read on over appended lines) counts every turn, a
    rolled-back one's too, as ``show``'s counts do; ``show`` lists the live ones."""
    filler = [function_output(at(12 + i * 0.01), f"x{i}", "y" * 14000) for i in range(80)]
    path = _write(isolated_home, [*turn(10, "first", "r1", 1000), *filler, *turn(20, "second", "r2", 2000),
                                  rollback(25, 1)])
    cli_json("tokens", T)  # a whole pass keeps the tally
    row = cli_json("list", "--all")["sessions"][0]
    assert row["counts_partial"] is False
    assert row["counts"] == _show()["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}
    append_records(path, [*turn(30, "third", "r3", 3000), rollback(35, 2), *turn(40, "fourth", "r4", 4000)])
    grown = cli_json("list", "--all")["sessions"][0]
    assert grown["counts_partial"] is False and grown["title"] == "first"
    detail = _show()
    assert grown["counts"] == detail["counts"] == {"prompts": 4, "responses": 4, "tool_calls": 0}
    assert _prompts(detail) == ["fourth"] and detail["rewound_messages"] == 6


def test_a_rollback_past_the_turns_kept_goes_back_to_the_oldest_kept(isolated_home: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.codex import detail

    monkeypatch.setattr(detail, "MAX_TURNS", 2)
    _write(isolated_home, [*turn(10, "one", "r1", 1000), *turn(20, "two", "r2", 2000),
                           *turn(30, "three", "r3", 3000), rollback(35, 9)])
    shown = _show()
    assert _prompts(shown) == ["one"] and shown["rewound_messages"] == 4


def test_a_review_thread_with_no_parent_says_what_it_is(isolated_home: Path) -> None:
    _write(isolated_home, turn(10, "Review the current code changes", "No issues found", 1000),
           source={"subagent": "review"})
    for row in rows_three_ways():
        assert row["title"] == "Review the current code changes (review subagent)"
    result = CliRunner().invoke(app, ["tokens"])
    assert "Review the current code changes (review subagent)" in result.output
