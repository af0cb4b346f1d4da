"""Claude Code's ``show``, as a heavy user reads it (pass 48).

* A Stop hook's errors (a ``system`` record ``stop_hook_summary`` with ``hookErrors``) were
  nowhere: they are among the session's errors (kind ``hook``), on the card, in ``--full``
  and in ``--json``, and a huge transcript read from its end lists them too.
* A failed call showed ``ERR Bash: ruff check .`` and never why: its error text (the
  ``tool_result``'s, one line) is under it in ``--full`` and its ``error`` in ``--json``.
* ``show agent-<id>`` (a subagent file's stem, as ``ls`` shows it) matched no session, while
  the bare id and the file's path did.
* ``ExitPlanMode``'s summary was its input as JSON (``{"plan":"1. …\\n2. …"}``).
* A prompt of words and an image read as the words alone: it is marked `` [image]``.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.bounds import Bounds
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import showfacts
from agentscan.toolkit import reverse
from claude_events import forward_and_from_end
from builders import (claude_assistant, claude_base, claude_session_file, claude_subagent_file, claude_usage,
                      claude_user, invoke)

S = "c0c0c0c0-0000-4000-8000-000000000048"
AGENT = "a1b2c3d4e5f607182"
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


def _stop_hook(ts: str, uuid: str, **extra: object) -> dict:
    return {**claude_base(S, ts, uuid=uuid), "type": "system", "subtype": "stop_hook_summary", "hookCount": 1,
            "hookInfos": [{"command": "~/.claude/hooks/stop.sh"}], "hookErrors": ["stop.sh exited 2: tests failing"],
            "preventedContinuation": True, "stopReason": "tests failing", "hasOutput": True, "level": "warning",
            **extra}


def _call(ts: str, n: int, name: str, tool_input: dict) -> dict:
    return claude_assistant(S, ts, msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(10, 5), uuid=f"a{n}",
                            blocks=[{"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": tool_input}])


def _result(ts: str, n: int, content: object, *, error: bool) -> dict:
    return claude_user(S, ts, [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": content,
                                "is_error": error}], uuid=f"r{n}")


def _records() -> list[dict]:
    return [
        claude_user(S, "2026-12-05T12:00:00.000Z", "run the linter", uuid="u1"),
        _call("2026-12-05T12:00:03.000Z", 1, "Bash", {"command": "ruff check ."}),
        _result("2026-12-05T12:00:04.000Z", 1, "PreToolUse:Bash hook error: blocked by policy\nmore", error=True),
        _call("2026-12-05T12:00:05.000Z", 2, "Read", {"file_path": "/x/missing.py"}),
        _result("2026-12-05T12:00:05.500Z", 2, [{"type": "text", "text": "<tool_use_error>File does not exist."
                                                                          "</tool_use_error>"}], error=True),
        _call("2026-12-05T12:00:05.700Z", 3, "Bash", {"command": "ls"}),
        _result("2026-12-05T12:00:05.800Z", 3, "a.py", error=False),
        _stop_hook("2026-12-05T12:00:06.000Z", "h1"),
        claude_user(S, "2026-12-05T12:01:00.000Z", [{"type": "text", "text": "why is the header red?"}, IMAGE],
                    uuid="u2"),
        claude_user(S, "2026-12-05T12:02:00.000Z", [{"type": "text", "text": "[Image #1] and this one?"}, IMAGE],
                    uuid="u3"),
        claude_user(S, "2026-12-05T12:03:00.000Z", [IMAGE, IMAGE], uuid="u4"),
        _call("2026-12-05T12:04:00.000Z", 4, "ExitPlanMode", {"plan": "1. add redis client\n\n2. swap session store"}),
    ]


def test_a_stop_hooks_errors_are_among_the_sessions_errors(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _records())
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert shown["errors"] == [{"text": "stop hook: stop.sh exited 2: tests failing (prevented continuation)",
                                "timestamp": "2026-12-05T12:00:06.000Z", "kind": "hook", "subagent": None}]
    card = invoke("show", S).stdout
    assert "errors (1)\n  2026-12-05 12:00  stop hook: stop.sh exited 2: tests failing" in card
    full = invoke("show", S, "--full").stdout
    assert "  error\n    stop hook: stop.sh exited 2: tests failing (prevented continuation)" in full


@pytest.mark.parametrize("extra, expected", [
    ({"hookErrors": []}, None),  # a summary of hooks that all passed: no error
    ({"hookErrors": "oops"}, None),
    ({"preventedContinuation": False}, "stop hook: stop.sh exited 2: tests failing"),
    ({"stopReason": "blocked by CI", "hookErrors": ["a", " b\nc "]},
     "stop hook: a; b c (prevented continuation: blocked by CI)"),
])
def test_which_hook_summaries_are_errors(extra: dict, expected: str | None) -> None:
    from agentscan.providers.claude.errorrecords import recorded_error

    found = recorded_error(_stop_hook("2026-12-05T12:00:06.000Z", "h1", **extra))
    assert found == (None if expected is None else ("hook", expected))


def test_a_failed_calls_error_text_is_shown_and_listed(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _records())
    tools = orjson.loads(invoke("show", S, "--json").stdout)["session"]["tools"]
    assert [(tool["status"], tool["error"]) for tool in tools] == [
        ("error", "PreToolUse:Bash hook error: blocked by policy more"), ("error", "File does not exist."),
        ("ok", None), ("unknown", None)]
    full = invoke("show", S, "--full").stdout
    assert "  Bash  error\n    ruff check .\n    error: PreToolUse:Bash hook error: blocked by policy more\n" in full
    assert "    error: File does not exist.\n" in full
    assert "error: a.py" not in full
    redacted = orjson.loads(invoke("show", S, "--json", "--redact").stdout)["session"]["tools"]
    assert redacted[0]["error"].startswith("[redacted: ") and redacted[2]["error"] is None


def test_a_long_error_is_one_clipped_line() -> None:
    from agentscan.providers.claude.tooltext import ERROR_CHARS, error_text

    text = error_text({"content": "x" * 500 + "\nnext"})
    assert text is not None and len(text) == ERROR_CHARS and text.endswith("…") and "\n" not in text
    assert error_text({"content": [{"type": "image"}]}) is None and error_text({}) is None


def test_exit_plan_mode_shows_the_plan_as_one_readable_line(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _records())
    tools = orjson.loads(invoke("show", S, "--json").stdout)["session"]["tools"]
    assert tools[-1]["summary"] == "plan: 1. add redis client / 2. swap session store"
    assert "ExitPlanMode: plan: 1. add redis client / 2. swap session store" in invoke("show", S).stdout


def test_a_prompt_sent_with_an_image_is_marked(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _records())
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert [p["text"] for p in shown["prompts"]] == [
        "run the linter", "why is the header red? [image]", "[Image #1] and this one?", "[2 images]"]
    # The counts and the title are as they were: the mark is what ``show`` lists only.
    assert shown["counts"]["prompts"] == 4 and shown["title"] == "run the linter"


@pytest.mark.parametrize("query", [f"agent-{AGENT}", f"claude:agent-{AGENT}", "agent-a1b2c3d4"])
def test_a_subagent_files_stem_opens_its_session(isolated_home: Path, query: str) -> None:
    claude_session_file(isolated_home, S, _records()[:1])
    claude_subagent_file(isolated_home, S, AGENT, [
        claude_user(S, "2026-12-05T12:00:01.000Z", "find call sites", sidechain=True, agentId=AGENT),
        claude_assistant(S, "2026-12-05T12:00:02.000Z", msg_id="s1", request_id="rs1", usage=claude_usage(5, 1),
                         sidechain=True, agentId=AGENT, blocks=[{"type": "text", "text": "two"}]),
    ])
    shown = orjson.loads(invoke("show", query, "--json").stdout)
    assert shown["session"]["id"] == f"claude:{S}"
    assert shown["session"]["focus"] == {"subagent": AGENT, "query": query, "opened": "parent"}


def test_a_stem_of_no_subagent_matches_nothing(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _records()[:1])
    claude_subagent_file(isolated_home, S, AGENT, [
        claude_user(S, "2026-12-05T12:00:01.000Z", "find call sites", sidechain=True, agentId=AGENT)])
    result = invoke("show", "agent-ffffffffffff")
    assert result.exit_code != 0 and "no session matches" in result.stderr


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    monkeypatch.setattr(reverse, "BLOCK", 300)


@pytest.mark.parametrize("tools", [2, 6])
def test_the_read_from_the_end_gives_the_forward_detail(tmp_path: Path, small_limits: None, tools: int) -> None:
    # A huge transcript is read from its end, with facts kept on the row's pass: hook errors,
    # the calls' error texts and the image marks (which count in the clipped messages) alike.
    home = tmp_path / "home"
    long_words = "w" * 195  # with " [image]" past the 200 bytes a message is cut at: counted as clipped
    claude_session_file(home, S, [*_records(), claude_user(S, "2026-12-05T12:05:00.000Z",
                                                           [{"type": "text", "text": long_words}, IMAGE], uuid="u5")])
    forward, tail, _ = forward_and_from_end(home, Bounds(prompts=3, responses=2, tools=tools, message_bytes=200))
    assert tail is not None  # (the kept facts answered: read from the end)
    assert tail.to_json() == forward.to_json()
    assert forward.truncated["clipped_messages"] == 1 and forward.prompts[-1].text.endswith("…")
    assert [error["kind"] for error in tail.extra["errors"]] == ["hook"]
    assert any(tool.error for tool in tail.tools) == (tools == 6)


@pytest.mark.parametrize("query", ["agent-", "agent-a", "agent-a1b2c"])
def test_a_stem_with_too_few_characters_of_an_id_opens_nothing(isolated_home: Path, query: str) -> None:
    # (review of pass 48: ``agent-`` counted for the prefix, and opened a home's one subagent)
    claude_session_file(isolated_home, S, _records()[:1])
    claude_subagent_file(isolated_home, S, AGENT, [
        claude_user(S, "2026-12-05T12:00:01.000Z", "find call sites", sidechain=True, agentId=AGENT)])
    result = invoke("show", query)
    assert result.exit_code == 1 and not result.stdout
    assert "is too short: give at least 6 characters of the id after agent-" in result.stderr
