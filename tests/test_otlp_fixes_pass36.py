"""``otlp`` review, pass 36: ``--timeout`` out of range is a usage error, ``--provider`` applies to
ids as in ``tokens``, counts read in the singular, the live sender names no option it lacks, and
``--json`` says when a failed send cut the export short."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any, Iterator

import orjson
import pytest

from agentscan.otlp import live
from agentscan.otlp.gaps import Untimed
from agentscan.otlp.sender import send
from agentscan.otlp.spans import KIND_INTERNAL, ExportTrace, Span
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from hooks_builders import Replay
from otlp_builders import Receiver, claude_delegating_session, no_proxy, otlp, ts  # noqa: F401 - no_proxy is a fixture

pytestmark = pytest.mark.usefixtures("no_proxy")

CLAUDE_ID = "claude:0f0e0d0c-1b2a-4c3d-8e9f-a0b1c2d3e4f5"
HOOK_SESSION = "11111111-2222-3333-4444-555555555555"


# --- F3: --timeout out of range ----------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e20", "0", "-1", "86401"])
def test_a_timeout_out_of_range_is_a_usage_error_in_one_line(isolated_home: Path, value: str) -> None:
    claude_delegating_session(isolated_home)
    result = otlp(CLAUDE_ID, "--endpoint", "http://127.0.0.1:9", "--timeout", value)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.strip().splitlines() == [
        f"error: --timeout wants seconds above 0 and at most 86,400 (got {float(value):g})",
        "Try 'agentscan otlp --help' for help."]


def test_negative_retries_are_refused_on_their_own(isolated_home: Path) -> None:
    result = otlp("--endpoint", "http://127.0.0.1:9", "--retries", "-1")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["error: --retries wants 0 to 10 (got -1)", "Try 'agentscan otlp --help' for help."]


# --- F4: --provider with ids, as tokens ----------------------------------------------------


def test_an_id_of_another_provider_is_left_out_and_said(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    out = tmp_path / "t.jsonl"
    result = otlp("-p", "codex", CLAUDE_ID, "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == b""
    assert result.stderr.strip() == f"{CLAUDE_ID} is a Claude Code session: --provider codex leaves it out; nothing is left to export"
    kept = otlp("-p", "codex", "-p", "claude", CLAUDE_ID, "-o", str(out), "--json")
    assert kept.exit_code == 0 and orjson.loads(kept.stdout)["spans"] == 13


def test_a_hook_session_of_another_agent_is_left_out(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    replay = Replay(Path(os.environ["AGENTSCAN_DATA_DIR"]), agent="claude")
    base = {"session_id": HOOK_SESSION, "cwd": "/tmp/proj", "transcript_path": f"/nowhere/{HOOK_SESSION}.jsonl",
            "prompt_id": "p-1"}
    replay.send({"hook_event_name": "UserPromptSubmit", "prompt": "hi", **base}, at_ms=0)
    replay.send({"hook_event_name": "Stop", **base}, at_ms=100)
    out = tmp_path / "t.jsonl"
    result = otlp("-p", "codex", f"claude:{HOOK_SESSION}", CLAUDE_ID, "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["spans"] == 0
    text = otlp("-p", "codex", f"claude:{HOOK_SESSION}", CLAUDE_ID, "-o", str(out))
    assert text.stderr.strip() == ("--provider codex leaves out 2 of the sessions asked for (Claude Code); "
                                   "nothing is left to export")


# --- F9: the singular, and the live sender's timeout ----------------------------------------


def test_one_untimed_call_is_said_in_the_singular() -> None:
    assert Untimed(tools=1, llm_calls=1).notes() == ["1 tool call without a timestamp was left out",
                                                    "1 LLM call without a timestamp was left out"]
    assert Untimed(tools=1_200).notes() == ["1,200 tool calls without a timestamp were left out"]


def _one_span_trace() -> ExportTrace:
    span = Span(trace_id="1" * 32, span_id="2" * 16, parent_span_id=None, name="invoke_agent claude-code",
                kind=KIND_INTERNAL, start_ns=1, end_ns=2)
    return ExportTrace(resource={"service.name": "claude-code"}, spans=[span])


@pytest.mark.parametrize(("partial", "said"), [
    ({"rejectedSpans": 1, "errorMessage": "too old"}, "the collector rejected 1 of 1 span: too old"),
    ({"errorMessage": "trimmed"}, "the collector accepted the 1 span, and said: trimmed"),
])
def test_a_collector_s_word_on_one_span_is_in_the_singular(partial: dict, said: str) -> None:
    with Receiver(reply=orjson.dumps({"partialSuccess": partial})) as receiver:
        result = send([_one_span_trace()], receiver.url, protocol="json")
    assert result.warnings == [said]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections and never answers (the kernel's backlog accepts them)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def test_the_live_sender_s_timeout_names_no_option_it_lacks(isolated_home: Path, silent_port: int,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "SEND_TIMEOUT_S", 0.2)
    root = os.environ["AGENTSCAN_DATA_DIR"]
    live._send(root, _one_span_trace(), f"http://127.0.0.1:{silent_port}", "Stop")
    counters = orjson.loads((Path(root) / live.COUNTER_FILE).read_bytes())
    problem = counters["last_problem"]
    assert problem.startswith("1 span of Stop: ") and "timed out" in problem, problem
    assert "--timeout" not in problem


def test_the_command_s_timeout_still_names_its_option(isolated_home: Path, silent_port: int) -> None:
    claude_delegating_session(isolated_home)
    result = otlp(CLAUDE_ID, "--endpoint", f"http://127.0.0.1:{silent_port}", "--timeout", "0.2", "--retries", "0")
    assert result.exit_code == 1
    assert "timed out: no answer within 0.2 s (--timeout)" in result.stderr


# --- F11: a failed send's counts say they are partial ----------------------------------------


def _a_one_span_turn_first(home: Path) -> None:
    """A first turn that is its root span alone (a prompt with no answer), then one with a call."""
    session = "0a0a0a0a-1111-4222-8333-444444444444"
    claude_session_file(home, session, [
        claude_user(session, ts(0), "hello?", uuid="u1"),
        claude_user(session, ts(60), "are you there", uuid="u2"),
        claude_assistant(session, ts(62), msg_id="m1", request_id="r1", usage=claude_usage(input=1, output=2), uuid="a1"),
    ])


def test_a_failed_send_s_document_says_it_is_incomplete(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    _a_one_span_turn_first(isolated_home)
    monkeypatch.setattr("agentscan.otlp.sender.BATCH_SPANS", 1)  # one trace per request
    with Receiver([200, 400]) as receiver:
        result = otlp("--endpoint", receiver.url, "--json")
    assert result.exit_code == 1
    assert "the collector had acknowledged 1 span before that" in result.stderr
    doc: dict[str, Any] = orjson.loads(result.stdout)
    assert doc["complete"] is False and doc["sent"]["spans"] == 1
    with Receiver() as receiver:
        done = otlp("--endpoint", receiver.url, "--json")
    assert done.exit_code == 0 and orjson.loads(done.stdout)["complete"] is True
    written = otlp("-o", str(tmp_path / "t.jsonl"), "--json")
    assert orjson.loads(written.stdout)["complete"] is True
