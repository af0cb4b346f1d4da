"""Pass 48, hooks: Cursor's stop tokens (its input_tokens counts the cache), the model on a
hook turn's root span, a subagent's transcript never the session's, the MCP span's name,
Notification installed (and an older install said so), ``--agent`` with no value logged,
trace's token counts on a terminal and the partial-success warning's URL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from hooks_builders import CONVERSATION, Replay, after_mcp, before_mcp, cursor, ok, post, pre, prompt, stop, trace_doc
from otlp_builders import Receiver, one, otlp, read_otlp_file
from agentscan.hooks.text import Layout, lines
from agentscan.hooks.tree import trace_session

#: the reference's own sample of Cursor's (undocumented) stop token fields
STOP_TOKENS = {"input_tokens": 1180993, "output_tokens": 8146, "cache_read_tokens": 1007022, "cache_write_tokens": 173957}


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def export(tmp_path: Path, session: str) -> list[Any]:
    out = tmp_path / "out.jsonl"
    result = otlp(session, "-o", str(out))
    assert result.exit_code == 0, result.output
    return [span for trace in read_otlp_file(out) for span in trace]


def cursor_turn(replay: Replay, **stop_fields: Any) -> None:
    replay.send_all([prompt("fix it"), pre("Shell", {"command": "make"}, "c1"), post("Shell", {"command": "make"}, "c1"),
                     stop(**stop_fields)])


# 1. Cursor's stop tokens --------------------------------------------------------------


def test_cursor_stop_input_tokens_include_the_cache_so_input_is_what_is_left(data_dir: Path, tmp_path: Path) -> None:
    cursor_turn(Replay(data_dir), **STOP_TOKENS)
    doc = trace_doc()
    assert doc["summary"]["tokens"] == {"input": 14, "cache_read": 1007022, "cache_write": 173957, "output": 8146,
                                        "reasoning": 0, "total": 1189139}
    assert "1189139 tokens" in ok("trace", CONVERSATION).stdout
    [root] = [s for s in export(tmp_path, f"cursor:{CONVERSATION}") if not s.parent]
    assert root.attrs["gen_ai.usage.input_tokens"] == 1180993  # as Cursor said it: OTel's counts the cache too
    assert (root.attrs["agentscan.usage.input"], root.attrs["agentscan.usage.total"]) == (14, 1189139)


def test_cursor_input_tokens_smaller_than_its_cache_are_taken_as_uncached(data_dir: Path) -> None:
    cursor_turn(Replay(data_dir), input_tokens=100, output_tokens=5, cache_read_tokens=400, cache_write_tokens=0)
    tokens = trace_doc()["summary"]["tokens"]
    assert (tokens["input"], tokens["total"]) == (100, 505)


# 2. the model on a hook turn's root span ----------------------------------------------


def test_a_hook_only_turn_names_its_model_and_the_provider_it_comes_from(data_dir: Path, tmp_path: Path) -> None:
    cursor_turn(Replay(data_dir), **STOP_TOKENS)  # every payload: model_id claude-sonnet-4-5
    [root] = [s for s in export(tmp_path, f"cursor:{CONVERSATION}") if not s.parent]
    assert (root.attrs["gen_ai.request.model"], root.attrs["gen_ai.provider.name"]) == ("claude-sonnet-4-5", "anthropic")


def test_a_cursor_model_of_its_own_keeps_cursor_as_the_provider(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir)
    replay.send_all([cursor("beforeSubmitPrompt", prompt="go", model="composer-2", model_id="composer-2"),
                     cursor("stop", status="completed", model="composer-2", model_id="composer-2")])
    [root] = [s for s in export(tmp_path, f"cursor:{CONVERSATION}") if not s.parent]
    assert (root.attrs["gen_ai.request.model"], root.attrs["gen_ai.provider.name"]) == ("composer-2", "cursor")


def claude(event: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": event, "session_id": "s48", "cwd": "/repo", **fields}


def test_claude_s_session_start_model_is_its_turns_model(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send_all([claude("SessionStart", source="startup", model="claude-opus-4-7"),
                     claude("UserPromptSubmit", prompt="go", prompt_id="p1"), claude("Stop", prompt_id="p1")])
    [root] = [s for s in export(tmp_path, "claude:s48") if not s.parent]
    assert (root.attrs["gen_ai.request.model"], root.attrs["gen_ai.provider.name"]) == ("claude-opus-4-7", "anthropic")


def test_the_live_sender_s_mark_keeps_the_model_named_before_it(data_dir: Path) -> None:
    """The turns read from a mark get the SessionStart model too, as a whole read gives them."""
    from agentscan.otlp import live, livetail

    replay = Replay(data_dir, agent="claude")
    replay.send(claude("SessionStart", source="startup", model="claude-opus-4-7"), at_ms=0)
    stops = []
    for number in range(3):
        replay.send(claude("UserPromptSubmit", prompt=f"turn {number}", prompt_id=f"p{number}"), at_ms=number * 10_000 + 100)
        stops.append(replay.send(claude("Stop", prompt_id=f"p{number}"), at_ms=number * 10_000 + 500))
    for number, at in enumerate(stops):
        found = live.closed_spans(str(data_dir), "claude", "s48", at, "Stop", f"p{number}")
        assert found is not None and found.spans[0].attributes["gen_ai.request.model"] == "claude-opus-4-7"
    mark = livetail.load_mark(str(data_dir), "claude", "s48")
    assert mark is not None and mark.model == "claude-opus-4-7"


# 3. a subagent's transcript is never the session's -------------------------------------


def test_a_transcript_under_subagents_is_never_the_session_s(data_dir: Path) -> None:
    sub = f"/home/dev/.cursor/projects/work-repo/agent-transcripts/{CONVERSATION}/subagents/sub1.jsonl"
    Replay(data_dir).send_all([prompt("go", transcript_path=None),
                               pre("Read", {"file_path": "a"}, "r1", transcript_path=sub),
                               stop(transcript_path=None)])
    assert trace_doc()["session"]["transcript_path"] is None


# 4. the MCP tool span's name -----------------------------------------------------------


def test_a_cursor_mcp_call_span_is_named_by_its_tool_without_the_prefix(data_dir: Path, tmp_path: Path) -> None:
    query = {"q": "x"}
    Replay(data_dir).send_all([prompt("go"), pre("MCP:search", query, "m1"), before_mcp("search", query, "docs"),
                               after_mcp("search", query, "docs"), post("MCP:search", query, "m1"), stop()])
    spans = export(tmp_path, f"cursor:{CONVERSATION}")
    call = one(spans, "execute_tool search")
    assert call.attrs["gen_ai.tool.name"] == "search" and not [s for s in spans if "MCP:" in s.name]


# 5. Notification installed; an older install said so ----------------------------------


def test_notification_is_installed_and_an_install_without_it_is_told_to_run_install_again(isolated_home: Path) -> None:
    ok("hooks", "install", "claude", "--quiet")
    settings = isolated_home / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    assert "Notification" in config["hooks"]
    del config["hooks"]["Notification"]  # what an install before pass 48 wrote
    settings.write_text(json.dumps(config, indent=2))
    doc = json.loads(ok("hooks", "status", "--json").stdout)
    [report] = doc["installed"]
    assert (report["events"], report["of"]) == (20, 21)
    assert ("agentscan's hook is not on Notification (20 of the 21 events an install registers): "
            "run `agentscan hooks install claude` again to add it") in (report["note"] or "")
    assert "20/21 events" in ok("hooks", "status").stdout


# 6. --agent with no value is logged ----------------------------------------------------


@pytest.mark.parametrize("args", [("--agent",), ("--agent=",)])
def test_agent_with_no_value_is_logged_and_the_event_still_stored(tmp_path: Path, args: tuple[str, ...]) -> None:
    data_dir = tmp_path / "store"
    payload = json.dumps({"hook_event_name": "stop", "session_id": "x1"}).encode()
    result = subprocess.run([sys.executable, "-m", "agentscan", "hook", *args], input=payload, capture_output=True,
                            env={**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}, timeout=60)
    assert (result.returncode, result.stderr) == (0, b"")
    assert (data_dir / "events" / "unknown" / "x1.jsonl").is_file()
    [line] = (data_dir / "hook-errors.log").read_text().splitlines()
    assert line.endswith("option --agent given no value, ignored (the agent is told from the payload; one it cannot "
                         "tell is stored under 'unknown'); the event was stored all the same"), line


def test_an_endpoint_whose_value_ends_in_equals_is_a_value(tmp_path: Path) -> None:
    # (review of pass 48: ``--otlp-endpoint=…?sig=YWJj==`` was taken for "no value", whose log
    # line then raised a KeyError: every event was lost, and the token logged)
    data_dir = tmp_path / "store"
    payload = json.dumps({"hook_event_name": "Stop", "session_id": "x2"}).encode()
    endpoint = "--otlp-endpoint=http://127.0.0.1:9/v1/traces?sig=c2VjcmV0=="
    result = subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", "claude", endpoint],
                            input=payload, capture_output=True,
                            env={**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}, timeout=60)
    assert (result.returncode, result.stderr) == (0, b"")
    assert (data_dir / "events" / "claude" / "x2.jsonl").is_file()
    log = data_dir / "hook-errors.log"
    assert not log.exists() or "c2VjcmV0" not in log.read_text()


# 7. trace's token counts on a terminal; the partial-success warning's URL ---------------


def test_trace_groups_token_counts_on_a_terminal_and_not_in_a_pipe(data_dir: Path) -> None:
    cursor_turn(Replay(data_dir), **STOP_TOKENS)
    trace = trace_session(f"cursor:{CONVERSATION}")
    layout = Layout(200, len, lambda text, width: text[:width], lambda text, width: text[-width:])
    on_terminal = "\n".join(lines(trace, str, layout=layout))
    assert "1,189,139 tokens" in on_terminal and "1189139" not in on_terminal
    assert "1189139 tokens" in "\n".join(lines(trace, str))


def test_a_partial_success_warning_names_the_url_posted_to(data_dir: Path) -> None:
    cursor_turn(Replay(data_dir), **STOP_TOKENS)
    reply = orjson.dumps({"partialSuccess": {"rejectedSpans": "1", "errorMessage": "too old"}})
    with Receiver(reply=reply) as receiver:
        result = otlp(f"cursor:{CONVERSATION}", "--endpoint", receiver.url, "--protocol", "json")
    assert result.exit_code == 0, result.output
    assert f"warning: {receiver.url.rstrip('/')}/v1/traces: the collector rejected 1 of " in result.stderr, result.stderr
