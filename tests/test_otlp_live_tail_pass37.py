"""The live sender reads a session's events from a mark left after a quiet turn, not from the
start, and gets exactly the spans a whole read gives (``otlp.livetail``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hooks_builders import Replay
from agentscan.hooks import store
from agentscan.otlp import live, livetail

SESSION = "tail-1"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, turn: int | None, **fields: Any) -> dict[str, Any]:
    payload = {"hook_event_name": event, "session_id": SESSION, "cwd": "/repo", **fields}
    if turn is not None:
        payload["prompt_id"] = f"p-{turn}"
    return payload


def bash(call: str) -> dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": call}


def turn(replay: Replay, number: int, at_s: float, *, ids: bool = True, stop: bool = True) -> list[tuple]:
    """A prompt, one Bash call, a stop, 10 s apart from the next turn: the closing events, as
    (received_ns, event, turn id) the hook hands its sender."""
    own = number if ids else None
    closes = []
    replay.send(claude("UserPromptSubmit", own, prompt=f"turn {number}"), at_ms=at_s * 1000)
    replay.send(claude("PreToolUse", own, **bash(f"t{number}")), at_ms=at_s * 1000 + 100)
    closes.append((replay.send(claude("PostToolUse", own, tool_response={}, **bash(f"t{number}")), at_ms=at_s * 1000 + 300),
                   "PostToolUse"))
    if stop:
        closes.append((replay.send(claude("Stop", own), at_ms=at_s * 1000 + 500), "Stop"))
    turn_id = f"p-{number}" if ids else ""
    return [(at, name, turn_id) for at, name in closes]


def sent(data_dir: Path, close: tuple) -> Any:
    return live.closed_spans(str(data_dir), "claude", SESSION, close[0], close[1], close[2])


def whole(data_dir: Path, close: tuple) -> Any:
    """What the sender finds reading the whole file (no mark)."""
    mark = Path(livetail.mark_path(str(data_dir), "claude", SESSION))
    kept = mark.read_bytes() if mark.exists() else None
    mark.unlink(missing_ok=True)
    try:
        return sent(data_dir, close)
    finally:
        if kept is not None:
            mark.write_bytes(kept)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[livetail.Tail]:
    """Every tail the sender read."""
    found: list[livetail.Tail] = []
    real = livetail.read_tail

    def spy(*args: Any) -> livetail.Tail:
        tail = real(*args)
        found.append(tail)
        return tail

    monkeypatch.setattr(livetail, "read_tail", spy)
    return found


@pytest.mark.parametrize("ids", [True, False], ids=["prompt ids", "derived turns"])
def test_after_a_quiet_turn_the_sender_reads_from_its_prompt_and_sends_what_a_whole_read_does(
        data_dir: Path, reads: list[livetail.Tail], ids: bool) -> None:
    replay = Replay(data_dir, agent="claude")
    closes = [close for number in range(3) for close in turn(replay, number, number * 10, ids=ids)]
    for close in closes:
        assert sent(data_dir, close) is not None
    reads.clear()
    last_tool = closes[-2]
    found = sent(data_dir, last_tool)
    # Read from the second turn's prompt (the mark left at its stop... or the third's, after its stop)
    [tail] = reads
    assert tail.mark is not None and tail.events[0].name == "UserPromptSubmit" and tail.events[0].seq > 1
    assert len(tail.events) < len(replay.lines(SESSION))
    assert found == whole(data_dir, last_tool)
    root = sent(data_dir, closes[-1]).spans[0]
    assert root.attributes["agentscan.turn.id"] == ("p-2" if ids else "derived-3")  # numbered from the session's start
    assert root.attributes["agentscan.cwd"] == "/repo"
    assert sent(data_dir, closes[-1]) == whole(data_dir, closes[-1])


def test_no_mark_past_a_turn_with_a_call_still_running(data_dir: Path, reads: list[livetail.Tail]) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", 0, prompt="go"), at_ms=0)
    replay.send(claude("PreToolUse", 0, **bash("bg")), at_ms=100)  # its completion comes in a later turn
    replay.send(claude("Stop", 0), at_ms=500)
    later = [close for number in (1, 2) for close in turn(replay, number, number * 10)]
    for close in later:
        sent(data_dir, close)
    assert not Path(livetail.mark_path(str(data_dir), "claude", SESSION)).exists()
    reads.clear()
    done = (replay.send(claude("PostToolUse", 0, tool_response={}, **bash("bg")), at_ms=30_000), "PostToolUse", "p-0")
    found = sent(data_dir, done)
    assert found is not None and found.spans[0].name == "execute_tool Bash"
    assert reads[-1].mark is None  # read whole


def test_a_late_event_of_a_turn_before_the_mark_is_read_from_the_start(data_dir: Path, reads: list[livetail.Tail]) -> None:
    replay = Replay(data_dir, agent="claude")
    for number in range(3):
        for close in turn(replay, number, number * 10):
            sent(data_dir, close)
    assert livetail.load_mark(str(data_dir), "claude", SESSION) is not None
    # A completion of turn 0 that only now arrives: the mark is past that turn's prompt.
    straggler = (replay.send(claude("PermissionDenied", 0, **bash("t0")), at_ms=40_000), "PermissionDenied", "p-0")
    reads.clear()
    assert sent(data_dir, straggler) == whole(data_dir, straggler)
    assert [t.mark is None for t in reads][-1]


def _three_turns_sent(data_dir: Path) -> tuple[list[tuple], livetail.Mark]:
    """Three quiet turns, each closing event sent as it came; the mark they left."""
    replay = Replay(data_dir, agent="claude")
    closes = [close for number in range(3) for close in turn(replay, number, number * 10)]
    for close in closes:
        sent(data_dir, close)
    mark = livetail.load_mark(str(data_dir), "claude", SESSION)
    assert mark is not None
    return closes, mark


def test_a_mark_for_another_file_or_line_is_not_used(data_dir: Path, reads: list[livetail.Tail]) -> None:
    closes, mark = _three_turns_sent(data_dir)
    path = Path(store.session_path(str(data_dir), "claude", SESSION))
    # The same bytes in a new file (another inode), then a mark whose line CRC is wrong.
    copy = path.with_suffix(".copy")
    copy.write_bytes(path.read_bytes())
    os.replace(copy, path)
    reads.clear()
    sent(data_dir, closes[-2])
    assert reads[0].mark is None
    livetail.save_mark(str(data_dir), "claude", SESSION, livetail.Mark(
        **{**{f: getattr(mark, f) for f in mark.__slots__}, "ino": path.stat().st_ino, "dev": path.stat().st_dev,
           "head": mark.head ^ 1}))
    reads.clear()
    assert sent(data_dir, closes[-2]) == whole(data_dir, closes[-2])
    assert reads[0].mark is None


def test_the_size_limit_counts_the_bytes_after_the_mark(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    closes, mark = _three_turns_sent(data_dir)
    size = Path(store.session_path(str(data_dir), "claude", SESSION)).stat().st_size
    monkeypatch.setattr(live, "MAX_EVENTS_BYTES", size - 1)  # the file is over it, its tail is not
    assert sent(data_dir, closes[-2]) is not None


def test_a_turn_the_user_interrupted_no_stop_does_not_hold_the_mark_back(data_dir: Path, reads: list[livetail.Tail]) -> None:
    replay = Replay(data_dir, agent="claude")
    closes = [close for number in range(3) for close in turn(replay, number, number * 10, stop=number != 0)]
    for close in closes:
        sent(data_dir, close)
    mark = livetail.load_mark(str(data_dir), "claude", SESSION)
    assert mark is not None and mark.lines > 0
    reads.clear()
    assert sent(data_dir, closes[-2]) == whole(data_dir, closes[-2])
    assert reads[0].mark is not None


def test_the_quiet_before_a_mark_outlasts_a_hooks_slowest_write() -> None:
    """An event is stamped when its hook starts and appended up to the hook's two time limits
    later: a mark's quiet must be longer, or an earlier event could land past the mark."""
    from agentscan.hooks import capture

    assert livetail.QUIET_NS >= (capture.AGENT_SECONDS + capture.READ_SECONDS) * 1e9
