"""Which of Codex's records of a prompt or reply count, per stretch of a rollout (review s38, 2).

A build may write a message both as a legacy event (``user_message``/``agent_message``) and as an
``item_completed`` item (codex-rs ``rollout/policy.rs`` keeps an ``AgentMessage`` item beside its
``agent_message`` events in a legacy-mode rollout): agentscan added the two, so each prompt and
reply counted twice and ``show`` listed each twice.  Now a stretch counts and shows the larger of
the two kinds of event, not their sum (the ``response_item`` messages where it has neither).

And a stretch no ``turn_context`` ended could hold two user turns: a build that wrote only items
resumed by one that writes its prompt before its ``turn_context`` (0.39), whose events hid the
older turn's items, so its prompt was lost.  Now a prompt item after a reply ends a stretch.

Cold, cached and ``--no-cache`` reads agree; a tally kept by a first run and read on over
appended lines is a fresh read's.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.codex.messages import add_kind, counts_of, ends_stretch, line_kind, source
from builders import cli_json
from codex_builders import (append_records, rows_three_ways, agent_message, assistant_item, at, function_output, line, meta, rollout_path, token_count,
                            turn_context, usage, user_item, user_message, write_rollout)

T = "019d0000-3333-7444-8555-666677778888"


def user_done(moment: datetime, text: str) -> dict[str, Any]:
    item = {"type": "UserMessage", "id": "u", "content": [{"type": "text", "text": text, "text_elements": []}]}
    return line(moment, "event_msg", {"type": "item_completed", "thread_id": T, "turn_id": "t", "item": item})


def agent_done(moment: datetime, *texts: str) -> dict[str, Any]:
    item = {"type": "AgentMessage", "id": "a", "content": [{"type": "Text", "text": text} for text in texts]}
    return line(moment, "event_msg", {"type": "item_completed", "thread_id": T, "turn_id": "t", "item": item})


def both_kinds_turn(start: float, prompt: str, reply: str) -> list[dict[str, Any]]:
    """A turn whose prompt and reply are each an item, a legacy event and an ``item_completed``."""
    return [turn_context(at(start), "gpt-5.5"), user_item(at(start + 1), prompt), user_message(at(start + 1.001), prompt),
            user_done(at(start + 1.002), prompt), assistant_item(at(start + 4), reply),
            agent_message(at(start + 4.001), reply), agent_done(at(start + 4.002), reply),
            token_count(at(start + 4.003), usage(1000 * int(start + 5)), usage(1000))]


def items_only_turn(start: float, prompt: str, reply: str) -> list[dict[str, Any]]:
    """A turn by a build that wrote no message events (its ``turn_context`` first)."""
    return [turn_context(at(start), "gpt-5"), user_item(at(start + 1), prompt), assistant_item(at(start + 2), reply)]


def prompt_first_turn(start: float, prompt: str, reply: str) -> list[dict[str, Any]]:
    """A turn by 0.39: its prompt (item, then event) before its ``turn_context``."""
    return [user_item(at(start), prompt), user_message(at(start + 0.001), prompt), turn_context(at(start + 0.002), "gpt-5"),
            agent_message(at(start + 1), reply), assistant_item(at(start + 1.001), reply),
            token_count(at(start + 1.002), usage(1000 * int(start + 2)), usage(1000))]


def _write(home: Path, records: list[dict[str, Any]]) -> Path:
    return write_rollout(rollout_path(home / ".codex", T, at(0)), [meta(T, at(0)), *records])








def _show() -> tuple[dict, list[str], list[str]]:
    detail = cli_json("show", T)["session"]
    return detail, [p["text"] for p in detail["prompts"]], [r["text"] for r in detail["responses"]]


def test_a_message_written_as_both_kinds_of_event_counts_and_shows_once(isolated_home: Path) -> None:
    _write(isolated_home, [*both_kinds_turn(100, "list the files", "a b c"),
                           *both_kinds_turn(200, "and the tests", "t1 t2")])
    for row in rows_three_ways():
        assert row["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}
        assert row["title"] == "list the files"
    detail, prompts, replies = _show()
    assert (prompts, replies) == (["list the files", "and the tests"], ["a b c", "t1 t2"])
    assert detail["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}


@pytest.mark.parametrize(("records", "shown"), [
    # a reply of two text blocks: two legacy events (one a block), one item: the events
    ([agent_message(at(4), "first block"), agent_message(at(4.001), "second block"),
      agent_done(at(4.002), "first block", "second block")], ["first block", "second block"]),
    # more items than events (a build that kept some of its events only): the items
    ([agent_done(at(4), "one"), agent_message(at(4.001), "one"), agent_done(at(5), "two")], ["one", "two"]),
])
def test_a_stretch_counts_and_shows_the_larger_kind_of_event(isolated_home: Path, records: list[dict[str, Any]],
                                                             shown: list[str]) -> None:
    _write(isolated_home, [turn_context(at(1), "gpt-5.5"), user_item(at(2), "go"), user_message(at(2.001), "go"),
                           assistant_item(at(3.9), "ignored: events were written"), *records])
    for row in rows_three_ways():
        assert row["counts"] == {"prompts": 1, "responses": 2, "tool_calls": 0}
    detail, prompts, replies = _show()
    assert (prompts, replies) == (["go"], shown)
    assert detail["counts"]["responses"] == len(shown)


def test_a_prompt_before_its_turn_context_after_an_items_only_turn_is_kept(isolated_home: Path) -> None:
    _write(isolated_home, [*items_only_turn(1, "first prompt", "first reply"),
                           *prompt_first_turn(10, "second prompt", "second reply"),
                           *prompt_first_turn(20, "third prompt", "third reply")])
    for row in rows_three_ways():
        assert row["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 0}
        assert row["title"] == "first prompt"
    detail, prompts, replies = _show()
    assert prompts == ["first prompt", "second prompt", "third prompt"]
    assert replies == ["first reply", "second reply", "third reply"]
    assert detail["counts"] == {"prompts": 3, "responses": 3, "tool_calls": 0}


def test_a_rollback_takes_back_a_turn_written_as_both_kinds(isolated_home: Path) -> None:
    rollback = line(at(300), "event_msg", {"type": "thread_rolled_back", "num_turns": 1})
    _write(isolated_home, [*both_kinds_turn(100, "kept prompt", "kept reply"),
                           *both_kinds_turn(200, "taken back", "gone reply"), rollback])
    detail, prompts, replies = _show()
    assert (prompts, replies) == (["kept prompt"], ["kept reply"])
    assert detail["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}  # still counted: billed
    assert detail["rewound_messages"] == 2


def test_a_kept_tally_read_on_over_appended_lines_is_a_fresh_read(isolated_home: Path) -> None:
    """A rollout over 1 MiB: ``list`` counts it from the tally a whole pass kept, read on over
    appended lines; the first run stopped inside an items-only stretch the appended 0.39 turn
    ends, and the appended turns write their messages as both kinds of event."""
    filler = [function_output(at(3 + i * 0.01), f"c{i}", "y" * 14000) for i in range(80)]
    path = _write(isolated_home, [*both_kinds_turn(1, "before", "r0")[:-1], *items_only_turn(2, "items only", "r1"),
                                  *filler])
    assert path.stat().st_size > 1024 * 1024 + 14000
    cli_json("tokens", T)  # a whole pass keeps the tally
    kept = cli_json("list", "--all")["sessions"][0]
    assert kept["counts_partial"] is False
    assert kept["counts"] == _show()[0]["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}
    append_records(path, [*prompt_first_turn(10, "0.39 prompt", "r2"), *both_kinds_turn(20, "both kinds", "r3")])
    grown = cli_json("list", "--all")["sessions"][0]
    detail, prompts, _ = _show()
    assert grown["counts_partial"] is False
    assert grown["counts"] == detail["counts"] == {"prompts": 4, "responses": 4, "tool_calls": 0}
    assert prompts == ["before", "items only", "0.39 prompt", "both kinds"]


def test_a_tally_an_older_agentscan_kept_is_not_taken_for_a_file_with_both_kinds(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A "4" tally counted a message written as both kinds of event twice: a row whose window
    shows ``item_completed`` messages takes the window's counts until a whole pass keeps one."""
    from agentscan.providers.codex import fullcounts

    filler = [function_output(at(150 + i * 0.01), f"c{i}", "y" * 14000) for i in range(80)]
    _write(isolated_home, [*both_kinds_turn(100, "first", "r1"), *filler, *both_kinds_turn(90000, "second", "r2")])
    current = fullcounts.VERSION
    monkeypatch.setattr(fullcounts, "VERSION", "4")
    cli_json("tokens", T)
    monkeypatch.setattr(fullcounts, "VERSION", current)
    assert cli_json("list", "--all")["sessions"][0]["counts_partial"] is True
    cli_json("show", T)
    row = cli_json("list", "--all")["sessions"][0]
    assert row["counts_partial"] is False and row["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 0}


KINDS = [line_kind(record) for record in [
    *both_kinds_turn(1, "p1", "r1"), *items_only_turn(10, "p2", "r2"), *prompt_first_turn(20, "p3", "r3"),
    *items_only_turn(30, "p4", "r4"), user_item(at(41), "p5"), user_message(at(41.1), "p5"),
    assistant_item(at(42), "r5"), agent_message(at(42.1), "r5")]]


def test_the_flat_tally_read_on_from_any_line_is_the_whole_files() -> None:
    """``add_kind``'s tally, kept (as the cache keeps it) after any line and read on, counts as one
    read; it stays a flat dict of counts."""
    kinds = [kind for kind in KINDS if kind is not None]
    whole: dict[str, int] = {}
    for kind in kinds:
        add_kind(whole, kind)
    assert (counts_of(whole).prompts, counts_of(whole).responses) == (5, 5)
    for cut in range(len(kinds) + 1):
        kept: dict[str, int] = {}
        for kind in kinds[:cut]:
            add_kind(kept, kind)
        kept = orjson.loads(orjson.dumps(kept))
        assert all(isinstance(key, str) and type(count) is int for key, count in kept.items())
        for kind in kinds[cut:]:
            add_kind(kept, kind)
        assert counts_of(kept) == counts_of(whole), cut


def test_the_source_of_a_stretch() -> None:
    assert source(1, 1, 1) == 0 and source(2, 1, 0) == 0  # the events: never fewer than the items
    assert source(1, 2, 0) == 1 and source(0, 1, 3) == 1
    assert source(0, 0, 3) == 2 and source(0, 0, 0) == 2
    assert ends_stretch("turn", False) and ends_stretch("item_prompt", True)
    assert not ends_stretch("item_prompt", False) and not ends_stretch("event_prompt", True)
    # an older agentscan's tally (its ``item_completed`` messages among its events) reads as it did
    assert counts_of({"event_prompt": 2, "item_prompt": 3}).prompts == 2


def test_a_prompt_keeps_its_place_before_the_calls_it_started(isolated_home: Path) -> None:
    # Every record at one time: ``show --full`` orders by reading order, and a prompt is added
    # only as its stretch closes, after the calls it started: it keeps the place it was read at.
    from codex_builders import function_call

    same = at(1)
    _write(isolated_home, [turn_context(same, "gpt-5"), user_item(same, "run it"), user_message(same, "run it"),
                           function_call(same, "shell", {"command": ["ls"]}, "c1"), function_output(same, "c1", "a b"),
                           agent_message(same, "Done."), token_count(same, usage(1000), usage(1000))])
    result = CliRunner().invoke(app, ["show", T, "--full", "--no-pager"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    order = [next(i for i, text in enumerate(lines) if text.endswith(needle)) for needle in ("  prompt", "  shell  ok",
                                                                                            "  response (gpt-5)")]
    assert order == sorted(order), lines
