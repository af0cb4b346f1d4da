"""Pass 56: `trace` and `otlp` read a session's hook events one payload at a time.

A Claude ``PostToolUse`` keeps the tool's whole response (a ``Read`` of a big file), which the
tree never keeps: holding every decoded event of the file (and the tree keeping each completion
and each event the repeat check had seen) made a 200 MB store take some 240 MB.  These pin that
the memory a trace takes no longer grows with those payloads, and that the tree is the same.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import orjson

from agentscan.hooks import store
from agentscan.hooks.eventstream import KEPT_LINE_BYTES, in_capture_order
from agentscan.hooks.tree import build_trace, effective_ns, trace_session

SESSION = "0a1b2c3d-0000-4000-8000-000000000001"
BASE_NS = 1_790_000_000_000_000_000
BIG = 250_000  # bytes of one Read's response
CALLS = 96
#: what the trace may take at its peak: decoding one line alone takes ~14 times the line (orjson)
BOUND = 10_000_000


def _line(at_ns: int, event: str, turn: str, **fields: object) -> bytes:
    payload = {"session_id": SESSION, "cwd": "/w", "prompt_id": turn, "hook_event_name": event, **fields}
    envelope = {"v": 1, "received_at_ns": at_ns, "agent": "claude", "event": event, "session_id": SESSION,
                "turn_id": turn, "payload": payload}
    return orjson.dumps(envelope) + b"\n"


def _big_store(root: Path) -> store.StoredSession:
    """One session of ``CALLS`` Reads, each response ``BIG`` bytes: 24 MB."""
    path = Path(store.session_path(str(root), "claude", SESSION))
    path.parent.mkdir(parents=True)
    at = BASE_NS
    with path.open("wb") as out:
        for n in range(CALLS):
            turn = f"p{n}"
            tool_input = {"file_path": f"/w/f{n}.txt"}
            out.write(_line(at, "UserPromptSubmit", turn, prompt=f"read {n}"))
            out.write(_line(at + 1_000_000, "PreToolUse", turn, tool_name="Read", tool_input=tool_input,
                            tool_use_id=f"t{n}"))
            # each response its own string: equal ones would be one object in memory
            out.write(_line(at + 2_000_000, "PostToolUse", turn, tool_name="Read", tool_input=tool_input,
                            tool_use_id=f"t{n}", tool_response={"file": {"content": f"{n}" + "x" * BIG}}))
            out.write(_line(at + 3_000_000, "Stop", turn))
            at += 3_000_000_000  # apart by more than the repeat window
    return store.StoredSession("claude", SESSION, str(path))


def _peak(work) -> int:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_trace_holds_no_more_than_a_few_payloads(tmp_path: Path) -> None:
    """Failed before: the peak was the whole file's payloads (over 24 MB), now about one line's decoding."""
    session = _big_store(tmp_path / "agentscan-data")
    assert os.path.getsize(session.path) > CALLS * BIG
    found: list[object] = []
    peak = _peak(lambda: found.append(trace_session("claude:0a1b2c3d", root=str(tmp_path / "agentscan-data"))))
    assert peak < BOUND, peak
    trace = found[0]
    assert trace.summary.tool_calls == CALLS  # type: ignore[attr-defined]
    assert [n.status for t in trace.turns for n in t.nodes if n.kind == "tool"] == ["ok"] * CALLS  # type: ignore[attr-defined]


def test_otlp_tree_holds_no_more_than_a_few_payloads(tmp_path: Path) -> None:
    """``otlp``'s hook tree is read the same way (it held every payload too)."""
    from agentscan.otlp.sources import _tree

    session = _big_store(tmp_path / "agentscan-data")
    notes: list[object] = []
    found: list[object] = []
    peak = _peak(lambda: found.append(_tree(session, notes)))  # type: ignore[arg-type]
    assert peak < BOUND, peak
    assert found[0] is not None and found[0].summary.tool_calls == CALLS  # type: ignore[attr-defined]


def test_the_stream_is_the_sorted_read(tmp_path: Path) -> None:
    """Events whose payload time puts them out of file order, large lines among them, come in
    the order the tree replays ``read_events`` in, and build the same trace."""
    path = Path(store.session_path(str(tmp_path), "claude", SESSION))
    path.parent.mkdir(parents=True)
    lines = [
        _line(BASE_NS + 5, "UserPromptSubmit", "p1", prompt="go", timestamp="2026-09-21T10:00:03Z"),
        _line(BASE_NS + 1, "PostToolUse", "p1", tool_name="Read", tool_input={"file_path": "a"}, tool_use_id="t1",
              tool_response={"content": "y" * (KEPT_LINE_BYTES * 2)}, timestamp="2026-09-21T10:00:05Z"),
        b"not json\n",
        _line(BASE_NS + 9, "PreToolUse", "p1", tool_name="Read", tool_input={"file_path": "a"}, tool_use_id="t1",
              timestamp="2026-09-21T10:00:04Z"),
        _line(BASE_NS + 2, "Stop", "p1", timestamp="2026-09-21T10:00:06Z"),
    ]
    path.write_bytes(b"".join(lines))
    session = store.StoredSession("claude", SESSION, str(path))
    events, warnings = store.read_events(session)
    streamed, stream_warnings = in_capture_order(session, effective_ns)
    streamed_list = list(streamed)
    assert [e.seq for e in streamed_list] == [e.seq for e in sorted(events, key=lambda e: (effective_ns(e), e.seq))]
    assert streamed_list == sorted(events, key=lambda e: (effective_ns(e), e.seq))
    assert [w.to_json() for w in stream_warnings] == [w.to_json() for w in warnings]
    whole = build_trace("claude", SESSION, events, warnings=warnings)
    again = build_trace("claude", SESSION, in_capture_order(session, effective_ns)[0], in_order=True, warnings=warnings)
    assert again == whole


def test_a_large_line_cut_short_by_its_turn_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """The file is only appended to; should a large line no longer read when its turn comes
    (the file cut short in place meanwhile), it is left out rather than failing the trace, and
    said (pass 56 review: it vanished silently)."""
    path = Path(store.session_path(str(tmp_path), "claude", SESSION))
    path.parent.mkdir(parents=True)
    small = _line(BASE_NS, "UserPromptSubmit", "p1", prompt="go")
    large = _line(BASE_NS + 1, "Notification", "p1", message="z" * (KEPT_LINE_BYTES * 2))
    path.write_bytes(small + large)
    events, warnings = in_capture_order(store.StoredSession("claude", SESSION, str(path)), effective_ns)
    path.write_bytes(small)  # (truncated: no append-only store does this, but it must not fail)
    assert [e.name for e in events] == ["UserPromptSubmit"]
    assert [(w.line, "no longer reads and was left out" in w.message) for w in warnings] == [(2, True)]
