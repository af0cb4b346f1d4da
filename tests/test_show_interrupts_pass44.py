"""``show`` says where the user interrupted the agent, and the card marks declined calls.

Claude's ``[Request interrupted by user]`` (``… for tool use]``) user records, Codex's
``turn_aborted`` events and Gemini's ``Request cancelled.`` notices are no prompt: they
once left no trace at all.  Now the card counts them (``2 interrupted``), ``--full``
shows an ``interrupted`` item at each one's time, and ``show --json`` lists them as
``interruptions``.  The card's ``denied`` (a call the user declined) gets a legend line, as
its ``?`` does.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.tailfacts import TailFacts
from builders import REAL, claude_session_file, cli_json, invoke, lay_out_real_claude
from claude_events import forward_and_from_end
from codex_builders import agent_message, at, iso, line, meta, rollout_path, turn_context, user_message, write_rollout
from gemini_builders import lay_out_real_gemini

HEAVY = "d6e0bada"  # spotter-tool-heavy: interrupted twice (lines 18 and 39)
SHORT = "55604662"  # spotter-short: interrupted for tool use (line 13), two calls declined


def test_claude_interruptions_are_counted_listed_and_shown_at_their_time(isolated_home: Path) -> None:
    lay_out_real_claude(isolated_home)
    card = invoke("show", HEAVY).output
    # (``/mcp``, typed between, ran in Claude Code: no prompt, pass 52)
    assert "  counts   2 prompts, 1 response, 6 tool calls, 2 interrupted" in card
    session = cli_json("show", HEAVY)["session"]
    assert session["counts"]["prompts"] == 2  # (the markers are no prompt)
    assert session["interruptions"] == [
        {"text": "Request interrupted by user", "timestamp": "2026-02-10T22:58:03.831Z", "subagent": None},
        {"text": "Request interrupted by user", "timestamp": "2026-02-10T22:59:46.748Z", "subagent": None},
    ]
    full = invoke("show", HEAVY, "--full").output.splitlines()
    stops = [index for index, text in enumerate(full) if text.endswith("  interrupted")]
    assert len(stops) == 2 and full[stops[0] + 1] == "    Request interrupted by user"
    # At its time: after the first prompt's calls, before the next prompt (and the ``/mcp`` run
    # twice between them, marked since pass 52).
    assert [text.split("  ", 1)[1] for text in full[stops[0] + 2:stops[0] + 4]] == ["── /mcp (ran in Claude Code)"] * 2
    assert full[stops[0] + 4].endswith("  prompt") and full[stops[0] + 5].startswith("    scrolling back in xterm.js")


def test_the_card_explains_no_as_it_explains_the_question_mark(isolated_home: Path) -> None:
    lay_out_real_claude(isolated_home)
    card = invoke("show", SHORT).output
    assert "  denied Bash: mix phx.server" in card
    assert "  denied = declined by the user: the call never ran" in card
    assert "1 prompt, 1 response, 2 tool calls, 1 interrupted" in card
    assert "denied =" not in invoke("show", HEAVY).output  # none declined: no legend


def test_a_huge_claude_transcript_read_from_its_end_lists_the_same_interruptions(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider as claude_provider

    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    sample = REAL / "claude" / "spotter-tool-heavy-v2.1.38.jsonl"
    records = [orjson.loads(raw) for raw in sample.read_bytes().splitlines() if raw.strip()]
    claude_session_file(isolated_home, "d6e0bada-1959-4eec-a9d2-0bfade768d8f", records)
    forward, tail, _ = forward_and_from_end(isolated_home)
    assert tail is not None
    assert len(forward.extra["interruptions"]) == 2
    assert tail.extra["interruptions"] == forward.extra["interruptions"]


def test_show_facts_keep_interruptions_through_a_resume_state_and_the_index() -> None:
    facts = ShowFacts()
    facts.feed({"type": "user", "timestamp": "2026-02-10T22:58:03.831Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}})
    assert facts.prompts == 0 and facts.interruptions == [["Request interrupted by user for tool use",
                                                            "2026-02-10T22:58:03.831Z"]]
    again = ShowFacts()
    again.load_state(orjson.loads(orjson.dumps(facts.to_state())))
    assert again.interruptions == facts.interruptions
    kept = TailFacts(1, 0, 0, 0, 0, 1, 0, 1, None, {}, {}, [], 0, (), (("Request interrupted by user", None),), 1)
    assert TailFacts.from_json(orjson.loads(orjson.dumps(kept.to_json()))) == kept


def test_a_gemini_cancelled_request_is_an_interruption(isolated_home: Path) -> None:
    lay_out_real_gemini(isolated_home)
    session = cli_json("show", "0ab84937")["session"]
    assert session["interruptions"] == [{"text": "Request cancelled", "timestamp": "2026-04-23T12:58:35.591Z",
                                         "subagent": None}]
    assert "tool calls, 1 interrupted" in invoke("show", "0ab84937").output


def test_a_codex_aborted_turn_is_an_interruption_and_no_prompt(isolated_home: Path) -> None:
    thread = "019e0000-0000-7000-8000-0000000044b1"
    write_rollout(rollout_path(isolated_home / ".codex", thread, at(0)), [
        meta(thread, at(0)), turn_context(at(1)), user_message(at(2), "build it"),
        line(at(3), "event_msg", {"type": "turn_aborted", "turn_id": "t1", "reason": "interrupted"}),
        user_message(at(4), "no, test it"), agent_message(at(5), "Tests pass."),
        line(at(6), "event_msg", {"type": "turn_aborted", "turn_id": "t2", "reason": "review_ended"}),
    ])
    session = cli_json("show", thread)["session"]
    assert session["counts"]["prompts"] == 2
    assert session["interruptions"] == [{"text": "turn aborted: interrupted", "timestamp": iso(at(3)), "subagent": None}]
    full = invoke("show", thread, "--full").output.splitlines()
    stop = full.index(next(text for text in full if text.endswith("  interrupted")))
    assert full[stop + 1] == "    turn aborted: interrupted" and full[stop + 3] == "    no, test it"
