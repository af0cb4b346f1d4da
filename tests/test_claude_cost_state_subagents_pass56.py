"""Pass 56: Claude Code's own count (``cost-state``: ``totalCostUSD``, ``modelUsage``) is its
process's cost tracker, which adds up every API call the session made, its subagents' (the Agent
/ Task tool's runs, made in the same process) included: anthropics/claude-code issue 46520 (its
``modelUsage`` "aggregated across the entire session", every Agent tool call of one model in one
entry).  ``show`` sets it against the row's tokens and cost, which roll the subagents' transcripts
in (docs/providers/claude.md, "Claude Code's own count"): the two count the same calls, so a
session whose subagent ran on another model says nothing more, and that model is no call the
transcript "does not hold"."""

from __future__ import annotations

from pathlib import Path

from builders import (claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, cli_json,
                      invoke)
from test_claude_cost_state_pass54 import _state, _usage

S = "c057a7e5-5656-4000-8000-000000000001"
SONNET, HAIKU = "claude-sonnet-4-5", "claude-haiku-4-5-20251001"


def _home(home: Path, *tail: dict) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-10-01T10:00:00.000Z", "review it"),
        claude_assistant(S, "2026-10-01T10:00:05.000Z", msg_id="msg_1", request_id="req_1", model=SONNET,
                         usage=claude_usage(100, 20)),
        *tail,
    ])
    claude_subagent_file(home, S, "a1b2c3d", [
        claude_user(S, "2026-10-01T10:00:06.000Z", "look at the tests", sidechain=True, agentId="a1b2c3d"),
        claude_assistant(S, "2026-10-01T10:00:09.000Z", msg_id="msg_s", request_id="req_s", model=HAIKU,
                         usage=claude_usage(50, 10), sidechain=True, agentId="a1b2c3d"),
    ])


def test_a_count_with_the_subagents_calls_is_the_sessions(isolated_home: Path) -> None:
    _home(isolated_home)
    session = cli_json("show", S)["session"]
    assert session["tokens"]["total"] == 180  # the main call's 120 and the subagent's 60
    cost = session["cost_usd"]
    _home(isolated_home, _state(S, cost, **{SONNET: _usage(100, 20), HAIKU: _usage(50, 10)}))
    said = cli_json("show", S)["session"]["agent_reported"]
    assert said["not_in_transcript"] == []  # the subagent's model is a call the transcript holds
    assert "reported" not in invoke("show", S).stdout  # the same tokens and dollars: nothing to explain


def test_a_count_without_them_is_said_to_be_fewer(isolated_home: Path) -> None:
    # A count of the main model's calls alone (none Claude Code writes) is short by the subagent's.
    _home(isolated_home, _state(S, 0.5, **{SONNET: _usage(100, 20)}))
    assert "(its /cost: it counts 60 tokens fewer than the transcript's calls)" in invoke("show", S).stdout
