"""Claude Code's own count of a session's cost (its ``cost-state`` records: ``providers.claude.
coststate``): ``show`` says it, and why it differs, rather than leaving a user to find
``/cost`` and agentscan apart; counting never reads it.

The real shape: fixtures/real/claude/greenbelt-cost-state-v2.1.268.trimmed.jsonl
(mikhail-tokarev/greenbelt, fixtures/transcript_1.jsonl: SOURCES.md), whose last record
counts ``claude-haiku-4-5-20251001`` calls no assistant record holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.bounds import Bounds
from agentscan.cli.term import Terminal
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import showfacts
from agentscan.toolkit import reverse
from builders import (claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke,
                      lay_out_real_claude_sample)
from test_show_tail import _detail_both_ways

REAL_SESSION = "3423aa0a-0ebe-4ed0-a291-abc0b466990d"
SAMPLE = "greenbelt-cost-state-v2.1.268.trimmed.jsonl"
S = "5e6f7a8b-1111-4222-8333-444455556666"
OTHER = "0a0b0c0d-1111-4222-8333-444455556666"


def _state(session: str, total: object, **models: dict) -> dict:
    return {"type": "cost-state", "sessionId": session, "totalCostUSD": total, "totalDuration": 1000,
            "modelUsage": models, "hasUnknownModelCost": False}


def _usage(input: int = 0, output: int = 0, thinking: int = 0, read: int = 0, write: int = 0, cost: float = 0.0) -> dict:
    return {"inputTokens": input, "outputTokens": output, "thinkingTokens": thinking, "cacheReadInputTokens": read,
            "cacheCreationInputTokens": write, "webSearchRequests": 0, "costUSD": cost}


def _call(session: str, n: int, ts: str = "2026-10-01T10:00:05.000Z") -> dict:
    return claude_assistant(session, ts, msg_id=f"msg_{n}", request_id=f"req_{n}", usage=claude_usage(100, 20),
                            model="claude-sonnet-4-5", blocks=[{"type": "text", "text": f"answer {n}"}])


def _session(home: Path, records: list[dict]) -> Path:
    return claude_session_file(home, S, [claude_user(S, "2026-10-01T10:00:00.000Z", "why?"), *records])


def test_the_real_records_are_reported_and_tokens_stay_the_transcripts(isolated_home: Path) -> None:
    lay_out_real_claude_sample(isolated_home, SAMPLE, REAL_SESSION, "-Users-user-work-project")
    session = cli_json("show", REAL_SESSION)["session"]
    said = session["agent_reported"]
    assert said["cost_usd"] == 1.1128065 and said["calls_after"] is False and said["unknown_model_cost"] is False
    assert said["models"]["claude-haiku-4-5-20251001"] == {"input": 2414, "output": 52, "cache_read": 0, "cache_write": 0,
                                                          "reasoning": 0, "total": 2466, "cost_usd": 0.0026739999999999993}
    sonnet = said["models"]["claude-sonnet-5"]
    assert (sonnet["input"], sonnet["output"], sonnet["reasoning"], sonnet["cache_read"], sonnet["cache_write"]) == \
        (18171, 28655, 2908, 1458550, 168385)
    # Counting is the transcript's calls alone: the one reply's usage.
    assert session["tokens"]["total"] == 2 + 4522 + 80982 + 220
    text = invoke("show", REAL_SESSION).stdout
    cost_at = text.splitlines().index(next(line for line in text.splitlines() if line.startswith("  cost ")))
    # The record's 1,676,227 tokens less the one reply's 85,726: the sample is trimmed (most of
    # its calls left out), so the Haiku calls no record names are only part of the difference,
    # and the line says they are among it ("incl."), never that they are all of it.
    assert said["not_in_transcript"] == ["claude-haiku-4-5-20251001"]
    assert text.splitlines()[cost_at + 1] == ("  reported $1.11 by Claude Code's own count"
                                              " (its /cost: 1590501 tokens more, incl. calls of claude-haiku-4-5-20251001"
                                              " the transcript does not hold)")


@pytest.mark.parametrize(("usage", "said"), [
    ({"input": 100, "output": 20}, "(its /cost: the same tokens, at Claude Code's own prices)"),
    ({"input": 1}, "(its /cost: it counts 119 tokens fewer than the transcript's calls)"),
    # More tokens of the model the calls name: no call is said to be missing (a call whose
    # recorded output is short, Claude Code's bug #22686, counts more in /cost than here).
    ({"input": 100, "output": 25}, "(its /cost: it counts 5 tokens more than the transcript's calls record)"),
])
def test_the_line_says_how_the_counts_differ(isolated_home: Path, usage: dict, said: str) -> None:
    _session(isolated_home, [_call(S, 1), _state(S, 5.0, **{"claude-sonnet-4-5": _usage(**usage)})])
    assert f"  reported $5.00 by Claude Code's own count {said}\n" in invoke("show", S).stdout
    assert cli_json("show", S)["session"]["agent_reported"]["not_in_transcript"] == []


def test_calls_not_held_are_said_only_of_a_model_no_call_names(isolated_home: Path) -> None:
    helper = "claude-haiku-4-5-20251001"
    _session(isolated_home, [_call(S, 1), _state(S, 5.0, **{"claude-sonnet-4-5": _usage(100, 20), helper: _usage(5)})])
    assert ("  reported $5.00 by Claude Code's own count (its /cost: 5 tokens more, incl. calls of"
            f" {helper} the transcript does not hold)\n") in invoke("show", S).stdout
    assert cli_json("show", S)["session"]["agent_reported"]["not_in_transcript"] == [helper]


def test_a_fast_mode_call_names_its_model(isolated_home: Path) -> None:
    # Counted as ``<model>-fast``; Claude Code's record names the model itself.
    fast = claude_assistant(S, "2026-10-01T10:00:05.000Z", msg_id="msg_f", request_id="req_f", model="claude-opus-4-6",
                            usage={**claude_usage(100, 20), "speed": "fast"}, blocks=[{"type": "text", "text": "ok"}])
    _session(isolated_home, [fast, _state(S, 5.0, **{"claude-opus-4-6": _usage(100, 30)})])
    assert cli_json("show", S)["session"]["agent_reported"]["not_in_transcript"] == []


def test_an_unpriced_models_same_tokens_are_not_said_to_be_priced_apart(isolated_home: Path) -> None:
    # agentscan's cost a lower bound (``≥$``): the difference is its missing price, not Claude Code's table.
    unpriced = claude_assistant(S, "2026-10-01T10:00:09.000Z", msg_id="msg_u", request_id="req_u",
                                model="claude-nonesuch-9", usage=claude_usage(100, 20),
                                blocks=[{"type": "text", "text": "ok"}])
    _session(isolated_home, [_call(S, 1), unpriced,
                             _state(S, 5.0, **{"claude-sonnet-4-5": _usage(100, 20), "claude-nonesuch-9": _usage(100, 20)})])
    text = invoke("show", S).stdout
    assert "\n  cost     ≥" in text, text
    assert ("  reported $5.00 by Claude Code's own count (its /cost: the same tokens; agentscan has no price for a"
            " model of them)\n") in text
    _session(isolated_home, [_call(S, 1), unpriced,
                             _state(S, 5.0, **{"claude-sonnet-4-5": _usage(100, 20), "claude-nonesuch-9": _usage(1)})])
    assert ("(its /cost: it counts 119 tokens fewer than the transcript's calls; agentscan has no price for a model)\n"
            in invoke("show", S).stdout)


def test_the_last_of_the_sessions_own_is_reported(isolated_home: Path) -> None:
    # A forked or resumed file holds another session's record too: never read as this one's.
    _session(isolated_home, [_call(S, 1), _state(S, 0.10, m=_usage(1)), _call(S, 2), _state(S, 0.25, m=_usage(2)),
                             _state(OTHER, 9.0, m=_usage(3))])
    said = cli_json("show", S)["session"]["agent_reported"]
    assert said["cost_usd"] == 0.25 and said["models"]["m"]["input"] == 2 and said["calls_after"] is False


def test_calls_after_the_last_record_are_said(isolated_home: Path) -> None:
    # A run resumed and still going: Claude Code's count is of when it was saved.
    _session(isolated_home, [_call(S, 1), _state(S, 0.25, m=_usage(2)), _call(S, 2, "2026-10-01T11:00:00.000Z")])
    assert cli_json("show", S)["session"]["agent_reported"]["calls_after"] is True
    assert "(its /cost when last saved: the transcript has later calls)" in invoke("show", S).stdout


def test_a_resumed_sessions_line_names_the_session_resumed_from(isolated_home: Path) -> None:
    # Its card leaves the copied calls to the first session; Claude Code's total may start from it.
    first = [claude_user(OTHER, "2026-09-30T10:00:00.000Z", "start", uuid="c1"), _call(OTHER, 9, "2026-09-30T10:00:05.000Z")]
    claude_session_file(isolated_home, OTHER, first)
    claude_session_file(isolated_home, S, [*first, claude_user(S, "2026-10-01T10:00:00.000Z", "go on", parentUuid="a9"),
                                           _call(S, 1), _state(S, 5.0, m=_usage(input=400))])
    text = invoke("show", S).stdout
    assert "resumed" in text
    assert ("  reported $5.00 by Claude Code's own count (its /cost: 280 tokens more: the session it was resumed from,"
            " or calls the transcript does not hold)\n") in text


def test_an_api_error_after_the_record_is_no_later_call(isolated_home: Path) -> None:
    error = claude_assistant(S, "2026-10-01T11:00:00.000Z", msg_id="msg_e", request_id="req_e", usage=claude_usage(),
                             model="<synthetic>", blocks=[{"type": "text", "text": "API Error: 529 overloaded"}],
                             isApiErrorMessage=True)
    _session(isolated_home, [_call(S, 1), _state(S, 0.25, m=_usage(2)), error])
    assert cli_json("show", S)["session"]["agent_reported"]["calls_after"] is False


def test_a_bare_record_says_nothing(isolated_home: Path) -> None:
    # (one with no count at all, as another reader's tests write for a session of only a slash command)
    bare = {"type": "cost-state", "sessionId": S}
    _session(isolated_home, [_call(S, 1), _state(S, 0.25, m=_usage(2)), bare])
    assert cli_json("show", S)["session"]["agent_reported"]["cost_usd"] == 0.25
    _session(isolated_home, [_call(S, 1), bare])
    assert cli_json("show", S)["session"]["agent_reported"] is None


def test_no_record_is_null_and_says_nothing(isolated_home: Path) -> None:
    _session(isolated_home, [_call(S, 1)])
    assert cli_json("show", S)["session"]["agent_reported"] is None
    assert "reported" not in invoke("show", S).stdout


@pytest.mark.parametrize("bad", [
    _state(S, "0.25", m=_usage(1)),
    _state(S, True, m=_usage(1)),
    {**_state(S, 0.25), "modelUsage": []},
    _state(S, 0.25, m=[1, 2]),  # type: ignore[arg-type]
    _state(S, 0.25, m={**_usage(1), "inputTokens": -3}),
    _state(S, 0.25, m={**_usage(1), "outputTokens": 1.5}),
    _state(S, 0.25, m={**_usage(1), "costUSD": "cheap"}),
])
def test_a_record_of_the_wrong_shape_is_ignored_with_a_warning(isolated_home: Path, bad: dict) -> None:
    _session(isolated_home, [_call(S, 1), _state(S, 0.10, m=_usage(1)), bad])
    doc = cli_json("show", S)
    assert doc["session"]["agent_reported"]["cost_usd"] == 0.10  # (the last of the right shape)
    assert any("cost-state record ignored" in warning["message"] for warning in doc["warnings"])


def test_an_equal_count_says_nothing(isolated_home: Path) -> None:
    _session(isolated_home, [_call(S, 1)])
    cost = cli_json("show", S)["session"]["cost_usd"]
    _session(isolated_home, [_call(S, 1), _state(S, cost, m=_usage(1))])
    assert "reported" not in invoke("show", S).stdout


def test_the_line_fits_the_terminal(isolated_home: Path) -> None:
    from agentscan.cli.show_reported import reported_line
    from agentscan.cli.term import width_of

    lay_out_real_claude_sample(isolated_home, SAMPLE, REAL_SESSION, "-Users-user-work-project")
    from agentscan.context import ScanContext
    from agentscan.providers.claude.provider import ClaudeProvider

    provider = ClaudeProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(ctx)
    detail = provider.detail(ref, ctx, Bounds())
    for width in (40, 60, 80, 120):
        line = reported_line(detail, Terminal(tty=True, width=width, color=False))
        assert line is not None and width_of(line) <= width and line.startswith("  reported $1.11 by Claude Code")


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    monkeypatch.setattr(reverse, "BLOCK", 300)


def test_read_from_the_end_the_newest_is_found_first(tmp_path: Path, small_limits: None) -> None:
    home = tmp_path / "home"
    _session(home, [_call(S, 1), _state(S, 0.10, m=_usage(1)), _call(S, 2, "2026-10-01T10:10:00.000Z"),
                    _state(S, 0.25, m=_usage(2)), _state(OTHER, 9.0, m=_usage(3)),
                    _call(S, 3, "2026-10-01T10:20:00.000Z")])
    forward, tail, _, _ = _detail_both_ways(home, Bounds(prompts=5, responses=5, tools=5, message_bytes=200))
    assert tail is not None
    assert tail.extra["agent_reported"] == forward.extra["agent_reported"]
    assert forward.extra["agent_reported"]["cost_usd"] == 0.25 and forward.extra["agent_reported"]["calls_after"] is True


def test_read_from_the_end_a_record_further_back_is_unknown_not_none(tmp_path: Path, small_limits: None) -> None:
    # The tail read stops once the detail's bounds are full: a record before the part read is
    # not looked for, and ``null`` then says so (``agent_reported_unknown``) rather than "none".
    home = tmp_path / "home"
    calls = [record for n in range(2, 12) for record in (
        claude_user(S, f"2026-10-01T10:{n:02d}:00.000Z", f"and {n}?"), _call(S, n, f"2026-10-01T10:{n:02d}:05.000Z"))]
    _session(home, [_call(S, 1), _state(S, 0.10, m=_usage(1)), *calls])
    forward, tail, _, _ = _detail_both_ways(home, Bounds(prompts=1, responses=2, tools=1, message_bytes=200))
    assert tail is not None and forward.extra["agent_reported"]["cost_usd"] == 0.10
    assert tail.extra["agent_reported"] is None and tail.extra["agent_reported_unknown"] is True
    assert "agent_reported_unknown" not in forward.extra


def test_read_from_the_end_to_the_start_none_is_none(tmp_path: Path, small_limits: None) -> None:
    home = tmp_path / "home"
    _session(home, [_call(S, 1), _call(S, 2, "2026-10-01T10:10:00.000Z")])
    _, tail, _, _ = _detail_both_ways(home, Bounds(prompts=5, responses=5, tools=5, message_bytes=200))
    assert tail is not None and tail.extra["agent_reported"] is None and "agent_reported_unknown" not in tail.extra
