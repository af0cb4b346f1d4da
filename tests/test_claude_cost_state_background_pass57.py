"""Pass 57: a background subagent still at work after Claude Code saved its own count
(``cost-state``) made calls that count does not hold: ``calls_after``, and the card says the
transcript has later calls (docs/providers/claude.md, "Claude Code's own count").

The record has no time of its own: it stands after the main transcript's records, so a
subagent's call made after the newest of those (before the record) is later than it, when the
turn that ended before the record left background runs at work (its ``turn_duration``'s
``pendingBackgroundAgentCount``).  Only
the main transcript's calls were looked at, and a background run's calls after the run's last
reply left the line saying nothing of them.  A foreground run's calls, made before the reply
that follows its result, are no later calls."""

from __future__ import annotations

from pathlib import Path

from builders import (claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, cli_json,
                      invoke)
from test_claude_cost_state_pass54 import _state, _usage

S = "c057a7e5-5757-4000-8000-000000000001"
SONNET, HAIKU = "claude-sonnet-4-5", "claude-haiku-4-5-20251001"
LATER = "(its /cost when last saved: the transcript has later calls)"


def _turn_end(pending: int | None) -> dict:
    record = {"type": "system", "subtype": "turn_duration", "sessionId": S, "timestamp": "2026-10-01T10:00:06.000Z",
              "durationMs": 6000, "uuid": "u-turn"}
    return record if pending is None else {**record, "pendingBackgroundAgentCount": pending}


def _home(home: Path, subagent_call_at: str, pending: int | None = 1) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-10-01T10:00:00.000Z", "review it in the background"),
        claude_assistant(S, "2026-10-01T10:00:05.000Z", msg_id="msg_1", request_id="req_1", model=SONNET,
                         usage=claude_usage(100, 20)),
        _turn_end(pending),
        _state(S, 0.01, **{SONNET: _usage(100, 20)}),
    ])
    claude_subagent_file(home, S, "a1b2c3d", [
        claude_user(S, "2026-10-01T10:00:04.000Z", "look at the tests", sidechain=True, agentId="a1b2c3d"),
        claude_assistant(S, subagent_call_at, msg_id="msg_s", request_id="req_s", model=HAIKU,
                         usage=claude_usage(50, 10), sidechain=True, agentId="a1b2c3d"),
    ])


def test_a_background_runs_call_after_the_record_is_a_later_call(isolated_home: Path) -> None:
    _home(isolated_home, "2026-10-01T10:02:00.000Z")  # two minutes after the run's last reply
    said = cli_json("show", S)["session"]["agent_reported"]
    assert said["calls_after"] is True, said
    assert LATER in " ".join(invoke("show", S).stdout.split())


def test_a_runs_call_before_the_record_is_none(isolated_home: Path) -> None:
    _home(isolated_home, "2026-10-01T10:00:04.500Z")  # before the main reply that follows it
    said = cli_json("show", S)["session"]["agent_reported"]
    assert said["calls_after"] is False, said
    assert LATER not in " ".join(invoke("show", S).stdout.split())


def test_with_no_background_run_at_work_a_later_time_is_none(isolated_home: Path) -> None:
    # The turn ended with none pending (or said none): a run's calls after the transcript's last
    # record were made before the count was saved (``test_claude_cost_state_subagents_pass56``).
    for pending in (0, None):
        _home(isolated_home, "2026-10-01T10:02:00.000Z", pending=pending)
        assert cli_json("show", S)["session"]["agent_reported"]["calls_after"] is False, pending


def test_read_from_the_end_the_time_before_the_record_is_its_own(isolated_home: Path) -> None:
    # ``show`` of a huge transcript reads it from its end (``hugeshow``): the first time met
    # before the record is the one it is compared with, not a later record's.
    from agentscan.context import ScanContext
    from agentscan.providers.claude.coststate import CostStates

    records = [
        claude_assistant(S, "2026-10-01T10:00:05.000Z", msg_id="msg_1", request_id="req_1", model=SONNET,
                         usage=claude_usage(100, 20)),
        _turn_end(2),
        _state(S, 0.01, **{SONNET: _usage(100, 20)}),
        {"type": "last-prompt", "sessionId": S, "lastPrompt": "x"},
    ]
    for newest_first in (False, True):
        reported = CostStates(S, None, ScanContext.create(env={}), newest_first=newest_first)
        for record in (reversed(records) if newest_first else records):
            reported.feed(record)
        early = claude_assistant(S, "2026-10-01T10:00:04.000Z", msg_id="m2", request_id="r2", model=HAIKU,
                                 usage=claude_usage(1, 1), sidechain=True)
        reported.feed_subagent(early)  # (before the turn's end at 10:00:06)
        assert reported.json([])["calls_after"] is False
        reported.feed_subagent({**early, "timestamp": "2026-10-01T10:00:09.000Z"})
        assert reported.json([])["calls_after"] is True, newest_first
