"""``show``'s ``truncated`` counts prompts and replies cut at 64 KiB (``clipped_messages``)
apart from tool call summaries cut at 1,600 bytes (``clipped_tools``).

One counter used to hold both, so a long shell command read as "1 message cut at
64 KiB"; and a subagent's cuts made through its own collector were not counted at all.
Every provider shares the collector; Claude's huge-transcript read (from the end, with
facts its row's pass kept) counts on its own and must agree with the forward read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.bounds import DEFAULT_BOUNDS
from agentscan.cli import app
from agentscan.cli.show_text import truncation_note
from agentscan.context import ScanContext
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import tailfacts
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan.scanner import Scanner
from agentscan.toolkit.detail import SUMMARY_BYTES
from builders import cli_json, claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from claude_events import taken_back_unknown

LONG_MESSAGE = "m" * (DEFAULT_BOUNDS.message_bytes + 10)
LONG_COMMAND = "echo " + "c" * SUMMARY_BYTES  # over the summary's bound, far under a message's
BOTH_CUT = "bounded: 1 message cut at 64 KiB, 1 tool call summary cut at 1,600 bytes"

CLAUDE = "c1c1c1c1-0000-4000-8000-000000000001"
AGENT = "a5e5e5e5e5e5e5e5e"


def _claude_call(ts: str, msg_id: str, call_id: str, command: str, **extra) -> dict:
    blocks = [{"type": "text", "text": "running it"},
              {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}]
    return claude_assistant(CLAUDE, ts, msg_id=msg_id, request_id=f"r-{msg_id}", usage=claude_usage(1, 1),
                            blocks=blocks, **extra)


def _claude_home(home: Path, *, subagent: bool = False) -> None:
    claude_session_file(home, CLAUDE, [
        claude_user(CLAUDE, "2026-11-02T09:00:00.000Z", LONG_MESSAGE, uuid="u1"),
        _claude_call("2026-11-02T09:00:05.000Z", "m1", "toolu_1", LONG_COMMAND),
    ])
    if subagent:
        claude_subagent_file(home, CLAUDE, AGENT, [
            claude_user(CLAUDE, "2026-11-02T09:00:06.000Z", "sub task", sidechain=True, agentId=AGENT, uuid="s1"),
            _claude_call("2026-11-02T09:00:07.000Z", "s-m1", "toolu_s1", LONG_COMMAND, sidechain=True, agentId=AGENT),
        ])


def test_each_cut_is_told_in_its_own_words() -> None:
    assert truncation_note({"clipped_messages": 1, "clipped_tools": 1}) == BOTH_CUT
    assert truncation_note({"clipped_messages": 0, "clipped_tools": 3}) == \
        "bounded: 3 tool call summaries cut at 1,600 bytes"
    # The words spell the bounds out: they must be the bounds the collector cuts at.
    assert DEFAULT_BOUNDS.message_bytes == 64 * 1024 and f"{SUMMARY_BYTES:,} bytes" == "1,600 bytes"


def test_claude_counts_a_long_message_and_a_long_command_apart(isolated_home: Path) -> None:
    _claude_home(isolated_home)
    detail = Scanner(home=isolated_home).show(CLAUDE)
    assert detail.truncated["clipped_messages"] == 1 and detail.truncated["clipped_tools"] == 1
    (tool,) = detail.tools
    assert tool.summary.endswith("…") and len(tool.summary.encode()) <= SUMMARY_BYTES
    document = cli_json("show", CLAUDE[:8])
    assert {key: document["session"]["truncated"][key] for key in ("clipped_messages", "clipped_tools")} == \
        {"clipped_messages": 1, "clipped_tools": 1}
    out = CliRunner().invoke(app, ["show", CLAUDE[:8]]).stdout
    assert BOTH_CUT in out


def test_a_subagents_cut_command_is_counted(isolated_home: Path) -> None:
    _claude_home(isolated_home, subagent=True)
    detail = Scanner(home=isolated_home).show(CLAUDE)
    assert [tool.subagent for tool in detail.tools] == [None, AGENT]
    assert detail.truncated["clipped_messages"] == 1 and detail.truncated["clipped_tools"] == 2


def test_claude_from_the_end_counts_as_the_forward_read(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)  # every transcript is "huge"
    _claude_home(isolated_home, subagent=True)
    provider = ClaudeProvider()
    forward_ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(forward_ctx)
    forward = provider.detail(ref, forward_ctx, DEFAULT_BOUNDS)
    tail_ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(tail_ctx)
    tail = provider.detail_with_row(ref, tail_ctx, DEFAULT_BOUNDS, provider.row(ref, tail_ctx))
    assert tail is not None
    taken_back_unknown(tail, forward)
    assert tail == forward
    assert tail.truncated["clipped_messages"] == 1 and tail.truncated["clipped_tools"] == 2
    facts = tailfacts.kept(tail_ctx, ref.hint.main, provider.fingerprint(ref, tail_ctx))
    assert facts is not None and (facts.clipped, facts.clipped_tools) == (1, 1)  # the main transcript's own
    assert tailfacts.TailFacts.from_json(facts.to_json()) == facts
    # Facts kept before the split counted both as one: they are no facts (the file is read again).
    older = {key: value for key, value in facts.to_json().items() if key != "clipped_tools"}
    assert tailfacts.TailFacts.from_json({**older, "v": "1"}) is None


def test_codex_counts_apart_its_subagents_included(isolated_home: Path) -> None:
    from codex_builders import at, function_call, meta, rollout_path, turn_context, user_message, write_rollout

    parent, child = "019c4444-0000-7000-8000-0000000000c1", "019c4444-0000-7000-8000-0000000000c2"
    codex = isolated_home / ".codex"
    write_rollout(rollout_path(codex, parent, at(0)), [
        meta(parent, at(0)), turn_context(at(0)), user_message(at(1), LONG_MESSAGE),
        function_call(at(2), "shell", {"command": ["bash", "-lc", LONG_COMMAND]}, "call_1"),
    ])
    write_rollout(rollout_path(codex, child, at(3)), [
        meta(child, at(3), spawn_parent=parent, agent_role="reviewer"), turn_context(at(3)),
        user_message(at(4), "review it"),
        function_call(at(5), "shell", {"command": ["bash", "-lc", LONG_COMMAND]}, "call_2"),
    ])
    detail = Scanner(home=isolated_home, provider_names=["codex"]).show(parent)
    assert sorted(tool.subagent or "" for tool in detail.tools) == ["", child]
    assert detail.truncated["clipped_messages"] == 1 and detail.truncated["clipped_tools"] == 2


def test_gemini_counts_a_subagents_cut_message(isolated_home: Path) -> None:
    from gemini_builders import call, gemini, meta, tokens, user, write_chat

    session = "33333333-aaaa-4bbb-8ccc-0000000000c3"
    write_chat(isolated_home, "proj", "session-2026-05-03T10-00-33333333.jsonl", [
        meta(session),
        user("q1", "2026-05-03T10:00:01.000Z", "investigate"),
        gemini("g1", "2026-05-03T10:00:05.000Z", "", usage=tokens(3, 3),
               calls=[call("c1", "run_shell_command", {"command": LONG_COMMAND})]),
    ])
    write_chat(isolated_home, "proj", f"{session}/ab12cd.jsonl", [
        meta("ab12cd", kind="subagent"),
        user("s1", "2026-05-03T10:00:06.000Z", LONG_MESSAGE),
        gemini("sg1", "2026-05-03T10:00:09.000Z", "found it", usage=tokens(7, 7)),
    ])
    detail = Scanner(home=isolated_home, provider_names=["gemini"]).show(session)
    assert detail.truncated["clipped_messages"] == 1 and detail.truncated["clipped_tools"] == 1
