"""`otlp` (pass 49): usage a provider never reports is left out of spans, a failed call's
shell span is an error, a dropped hook payload is warned of, the live sender loses no span
of a wide parallel batch and never stops for good after one huge turn, `--retries` is bounded,
a Cursor model slug names its real provider.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hooks_builders import CONVERSATION, Replay, prompt, stop
from otlp_builders import claude_delegating_session, no_proxy, otlp, read_otlp_file  # noqa: F401 - no_proxy is a fixture


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def export(tmp_path: Path, *args: str) -> list:
    out = tmp_path / "spans.jsonl"
    result = otlp(*args, "-o", str(out))
    assert result.exit_code == 0, result.output
    return [span for spans in read_otlp_file(out) for span in spans]


REASONING = ("gen_ai.usage.reasoning.output_tokens", "agentscan.usage.reasoning")


def test_claude_spans_leave_reasoning_out_it_is_never_reported(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    spans = export(tmp_path)
    usage_spans = [span for span in spans if "gen_ai.usage.output_tokens" in span.attrs]
    assert usage_spans and {span.name.split()[0] for span in usage_spans} >= {"chat", "invoke_agent"}
    assert not [span.name for span in usage_spans if any(key in span.attrs for key in REASONING)]
    assert all("agentscan.usage.total" in span.attrs for span in usage_spans)


def test_a_cursor_stop_snapshot_leaves_reasoning_out(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir)
    replay.send_all([prompt("go"), stop(input_tokens=1000, output_tokens=50, cache_read_tokens=400, cache_write_tokens=0)])
    [root] = [span for span in export(tmp_path, f"cursor:{CONVERSATION}") if not span.parent]
    assert root.attrs["gen_ai.usage.output_tokens"] == 50
    assert not any(key in root.attrs for key in REASONING)


# --- the live sender: no span lost to busy slots, no stop for good after one huge turn -------

LIVE = "live-49"


def claude(event: str, turn: int = 1, **fields: object) -> dict:
    return {"hook_event_name": event, "session_id": LIVE, "prompt_id": f"p-{turn}", "cwd": "/repo", **fields}


def bash(call: str) -> dict:
    return {"tool_name": "Bash", "tool_input": {"command": f"echo {call}"}, "tool_use_id": call}


def hook_process(data_dir: Path, payload: dict, endpoint: str) -> Any:
    import subprocess
    import sys

    import orjson

    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    process = subprocess.Popen([sys.executable, "-m", "agentscan", "hook", "--agent", "claude", "--otlp-endpoint", endpoint],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    assert process.stdin is not None
    process.stdin.write(orjson.dumps(payload))
    process.stdin.close()
    return process


@pytest.mark.usefixtures("no_proxy")
def test_a_parallel_batch_wider_than_the_senders_loses_no_span(data_dir: Path) -> None:
    from agentscan.otlp import live
    from otlp_builders import Receiver

    calls = [f"t{n}" for n in range(2 * live.SLOTS + 2)]
    with Receiver(delay=0.15) as receiver:  # each send holds its slot a while: the others find none
        for call in calls:
            hook_process(data_dir, claude("PreToolUse", **bash(call)), receiver.url).wait(20)
        for process in [hook_process(data_dir, claude("PostToolUse", tool_response={}, **bash(call)), receiver.url)
                        for call in calls]:
            process.wait(20)
        receiver.wait(len(calls), seconds=20)
    import time

    deadline = time.monotonic() + 10  # the last sender counts after its request was answered
    while ((counts := live.read_counts(str(data_dir))) is None or counts["spans_sent"] < len(calls)) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(span.attrs["gen_ai.tool.call.id"] for span in receiver.spans()) == sorted(calls)
    assert counts is not None and counts["dropped"] == 0 and counts["spans_sent"] == len(calls)
    assert not list((data_dir / live.SPOOL_DIR / "pending").glob("*.json"))


def store_calls(data_dir: Path, calls: list[str]) -> list[int]:
    """The calls' requests and completions in the store; the completions' capture times."""
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="go"))
    for call in calls:
        replay.send(claude("PreToolUse", **bash(call)))
    return [replay.send(claude("PostToolUse", tool_response={}, **bash(call))) for call in calls]


def argv(data_dir: Path, at: int, endpoint: str) -> list[str]:
    return [str(data_dir), "claude", LIVE, str(at), "PostToolUse", "p-1", endpoint]


@pytest.mark.usefixtures("no_proxy")
def test_a_sender_that_finds_no_slot_queues_and_the_next_one_sends_the_queue(data_dir: Path) -> None:
    from agentscan.otlp import live, livequeue
    from otlp_builders import Receiver

    times = store_calls(data_dir, ["a", "b", "c"])
    slots = data_dir / live.SPOOL_DIR
    slots.mkdir(parents=True)
    for index in range(live.SLOTS):
        (slots / f"sender-{index}.slot").write_text("1")
    with Receiver() as receiver:
        live.main(argv(data_dir, times[0], receiver.url))
        live.main(argv(data_dir, times[1], receiver.url))
        assert livequeue.waiting(str(data_dir)) == 2 and receiver.received == []
        assert live.read_counts(str(data_dir)) is None  # nothing counted dropped
        for index in range(live.SLOTS):
            (slots / f"sender-{index}.slot").unlink()
        live.main(argv(data_dir, times[2], receiver.url))
    assert [span.attrs["gen_ai.tool.call.id"] for span in receiver.spans()] == ["c", "a", "b"]
    assert livequeue.waiting(str(data_dir)) == 0 and not list(slots.glob("*.slot"))


@pytest.mark.usefixtures("no_proxy")
def test_a_slot_freed_between_the_two_looks_is_taken_by_the_queued_sender(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.otlp import live, livequeue
    from otlp_builders import Receiver

    [at] = store_calls(data_dir, ["a"])
    real, looks = livequeue.take_slot, []

    def busy_then_free(root: str) -> str | None:
        looks.append(root)
        return None if len(looks) == 1 else real(root)  # the holder let its slot go after the first look

    monkeypatch.setattr(livequeue, "take_slot", busy_then_free)
    with Receiver() as receiver:
        live.main(argv(data_dir, at, receiver.url))
    assert [span.attrs["gen_ai.tool.call.id"] for span in receiver.spans()] == ["a"]
    assert livequeue.waiting(str(data_dir)) == 0


def test_the_queue_is_bounded_and_a_stale_job_is_dropped(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.otlp import live, livequeue

    [at] = store_calls(data_dir, ["a"])
    monkeypatch.setattr(livequeue, "MAX_PENDING", 1)
    monkeypatch.setattr(livequeue, "take_slot", lambda root: None)
    live.main(argv(data_dir, at, "http://127.0.0.1:9"))
    live.main(argv(data_dir, at, "http://127.0.0.1:9"))
    counts = live.read_counts(str(data_dir))
    assert counts is not None and counts["dropped"] == 1 and "spans queued" in counts["last_problem"]
    # A job queued before the collector went away, found long after: dropped, counted.
    monkeypatch.setattr(livequeue, "PENDING_STALE_S", 0.0)
    assert livequeue.claim(str(data_dir)) == (None, 1)


def test_after_a_turn_too_big_to_read_the_mark_moves_on_and_later_turns_go_out(
        data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orjson

    from agentscan.otlp import live

    monkeypatch.setattr(live, "MAX_EVENTS_BYTES", 20_000)
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", 1, prompt="read everything"), at_ms=0)
    for n in range(12):  # 12 reads of 3 KB each: more than the sender reads on an event
        call = {"tool_name": "Read", "tool_input": {"file_path": f"/f{n}"}, "tool_use_id": f"r{n}"}
        replay.send(claude("PreToolUse", 1, **call), at_ms=10 + n)
        replay.send(claude("PostToolUse", 1, tool_response={"content": "x" * 3000}, **call), at_ms=20 + n)
    big_stop = replay.send(claude("Stop", 1), at_ms=100)
    live_ids = set()
    assert live.closed_spans(str(data_dir), "claude", LIVE, big_stop, "Stop", "p-1") is None  # given up
    for turn in (2, 3):
        base = turn * 10_000
        replay.send(claude("UserPromptSubmit", turn, prompt="and now"), at_ms=base)
        replay.send(claude("PreToolUse", turn, **bash(f"b{turn}")), at_ms=base + 10)
        done = replay.send(claude("PostToolUse", turn, tool_response={}, **bash(f"b{turn}")), at_ms=base + 20)
        closed = live.closed_spans(str(data_dir), "claude", LIVE, done, "PostToolUse", f"p-{turn}")
        assert closed is not None and [span.attributes["gen_ai.tool.call.id"] for span in closed.spans] == [f"b{turn}"]
        live_ids.add((closed.spans[0].trace_id, closed.spans[0].span_id))
        stop = replay.send(claude("Stop", turn), at_ms=base + 30)
        [root] = live.closed_spans(str(data_dir), "claude", LIVE, stop, "Stop", f"p-{turn}").spans
        assert root.attributes["agentscan.turn.id"] == f"p-{turn}"
        live_ids.add((root.trace_id, root.span_id))
    batch = export(tmp_path, f"claude:{LIVE}")
    assert live_ids <= {(span.trace_id, span.span_id) for span in batch}  # the ids a batch export gives
    counts = orjson.loads((data_dir / live.COUNTER_FILE).read_bytes())
    # Moved once, past the big turn (the turns after it are small enough to read, and marked).
    assert counts["skipped"] == 1 and 36_000 < counts["skipped_bytes"] < 60_000
    assert "live export goes on from a later prompt" in counts["last_problem"]


def test_otlp_warns_of_a_hook_payload_dropped_unread_and_strict_fails(data_dir: Path, tmp_path: Path) -> None:
    import orjson

    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="read the big log"))
    replay.send(claude("PreToolUse", **bash("big")))
    # As the hook logs a payload it did not read (over 8 MiB): the completion of that call.
    (data_dir / "hook-errors.log").write_text(
        f"2026-09-21T10:00:00Z claude: payload larger than 8388608 bytes, dropped (session {LIVE}, event PostToolUse)\n")
    out = tmp_path / "spans.jsonl"
    result = otlp(f"claude:{LIVE}", "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    warnings = orjson.loads(result.stdout)["warnings"]
    assert [w["message"] for w in warnings] == [
        "1 hook payload of this session was dropped unread (larger than 8 MiB, or too slow to arrive): "
        "a call whose completion it was shows no status"]
    assert otlp("--strict", f"claude:{LIVE}", "-o", str(out)).exit_code == 1


def test_a_failed_call_s_shell_span_is_an_error_as_its_call_is(data_dir: Path, tmp_path: Path) -> None:
    from hooks_builders import failed_then_retried_shell

    replay = Replay(data_dir)
    replay.send(prompt("test it"), at_ms=-10)
    failed_then_retried_shell(replay)
    replay.send(stop(), at_ms=1000)
    spans = export(tmp_path, f"cursor:{CONVERSATION}")
    calls = {span.attrs["gen_ai.tool.call.id"]: span for span in spans if span.name == "execute_tool Shell"}
    shells = {span.parent: span for span in spans if span.name == "shell"}
    failed, retried = shells[calls["try-1"].span_id], shells[calls["try-2"].span_id]
    assert calls["try-1"].status == failed.status == 2  # ERROR
    assert failed.attrs["agentscan.tool.status"] == "timeout" and failed.attrs["error.type"] == "timeout"
    assert retried.status == 0 and "error.type" not in retried.attrs


@pytest.mark.parametrize(("given", "code"), [("10", 0), ("11", 2), ("1000000", 2)])
def test_retries_are_bounded(given: str, code: int, isolated_home: Path) -> None:
    from otlp_builders import Receiver

    with Receiver() as receiver:
        result = otlp("--endpoint", receiver.url, "--retries", given)
    assert result.exit_code == code, result.output
    if code:
        assert f"error: --retries wants 0 to 10 (got {given})" in result.stderr


@pytest.mark.parametrize(("model", "provider"), [
    ("cursor-grok-4.5-high", "x_ai"), ("Cursor-Claude-4.5-Sonnet", "anthropic"), ("cursor-small", "cursor"),
    ("grok-4", "x_ai"), ("composer-1", "cursor"),
])
def test_a_cursor_model_slug_names_its_maker(model: str, provider: str) -> None:
    from agentscan.otlp.semconv import provider_name

    assert provider_name(model, "cursor") == provider


def test_reasoning_stays_for_providers_that_report_it() -> None:
    from agentscan.model import TokenUsage
    from agentscan.otlp.semconv import usage_attributes

    usage = TokenUsage(input=1, output=10, reasoning=4)
    for agent in ("codex", "gemini"):
        attributes = usage_attributes(usage, agent)
        assert attributes["gen_ai.usage.reasoning.output_tokens"] == attributes["agentscan.usage.reasoning"] == 4
    assert not set(REASONING) & set(usage_attributes(usage, "claude"))
