"""Pass 56 review of ``hooks/eventstream.py``: the replay reads the file the first pass read
(a cron's ``find … -delete`` or a rotation between the passes lost every large event
silently), and the first pass keeps at most ``KEPT_BYTES`` of small lines (150,000 small
events of a 200 MB store still took 757 MB)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentscan.hooks import eventstream, store
from agentscan.hooks.eventstream import KEPT_LINE_BYTES, in_capture_order
from agentscan.hooks.tree import build_trace, effective_ns
from test_hooks_stream_pass56 import BASE_NS, SESSION, _line


def _session(tmp_path: Path) -> tuple[store.StoredSession, bytes]:
    path = Path(store.session_path(str(tmp_path), "claude", SESSION))
    path.parent.mkdir(parents=True)
    data = (_line(BASE_NS, "UserPromptSubmit", "p1", prompt="go")
            + _line(BASE_NS + 2, "Notification", "p1", message="z" * (KEPT_LINE_BYTES * 2))
            + _line(BASE_NS + 1, "Notification", "p1", message="small"))
    path.write_bytes(data)
    return store.StoredSession("claude", SESSION, str(path)), data


def _deleted(path: str) -> None:
    os.unlink(path)


def _replaced(path: str) -> None:  # a rotation by hand: the newer half kept, written anew
    with open(path + ".t", "wb") as out:
        out.write(b"")
    os.replace(path + ".t", path)


@pytest.mark.parametrize("change", [_deleted, _replaced])
def test_a_file_deleted_or_replaced_between_the_passes_still_gives_its_large_events(
        tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    session, _ = _session(tmp_path)
    events, warnings = in_capture_order(session, effective_ns)
    change(session.path)
    got = list(events)
    assert [e.name for e in got] == ["UserPromptSubmit", "Notification", "Notification"]
    assert len(got[2].get("message")) == KEPT_LINE_BYTES * 2 and warnings == []


def test_small_lines_past_the_budget_are_read_again_and_the_tree_is_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session, data = _session(tmp_path)
    with open(session.path, "ab") as out:
        for n in range(50):
            out.write(_line(BASE_NS + 10 + n, "Notification", "p1", message=f"m{n}"))
    whole = build_trace("claude", SESSION, list(in_capture_order(session, effective_ns)[0]), in_order=True)
    kept: list[int] = []
    real = eventstream._replay

    def counting(session, places, handle, warnings):  # type: ignore[no-untyped-def]
        kept.append(sum(place[2] is not None for place in places))
        return real(session, places, handle, warnings)

    first, _, third = data.splitlines(keepends=True)
    monkeypatch.setattr(eventstream, "KEPT_BYTES", len(first) + len(third))
    monkeypatch.setattr(eventstream, "_replay", counting)
    events, warnings = in_capture_order(session, effective_ns)
    assert kept == [2]  # the first and third lines fit; the large one and every later one are read again
    assert build_trace("claude", SESSION, events, in_order=True) == whole and warnings == []


def _calls(tmp_path: Path, calls: int, extra: int) -> store.StoredSession:
    """``calls`` small Bash calls, each request carrying ``extra`` bytes the tree never shows."""
    path = Path(store.session_path(str(tmp_path), "claude", SESSION))
    path.parent.mkdir(parents=True)
    with path.open("wb") as out:
        out.write(_line(BASE_NS, "UserPromptSubmit", "p1", prompt="go"))
        for n in range(calls):
            at = BASE_NS + (n + 1) * 3_000_000_000  # apart by more than the repeat window
            tool_input = {"command": f"ls {n}"}
            out.write(_line(at, "PreToolUse", "p1", tool_name="Bash", tool_input=tool_input, tool_use_id=f"t{n}",
                            transcript_path=f"{n}" + "/t" * (extra // 2)))
            out.write(_line(at + 1, "PostToolUse", "p1", tool_name="Bash", tool_input=tool_input, tool_use_id=f"t{n}",
                            tool_response={"stdout": "ok"}))
    return store.StoredSession("claude", SESSION, str(path))


def test_a_call_keeps_no_copy_of_its_requests_payload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call kept the whole event that opened it: 1,000 requests of 8 KB stayed in memory
    until the tree was built, whatever the first pass let go."""
    from test_hooks_stream_pass56 import _peak

    session = _calls(tmp_path, 1000, 8000)
    monkeypatch.setattr(eventstream, "KEPT_BYTES", 0)  # every line read at its turn: the tree's memory alone

    def trace() -> None:
        build_trace("claude", SESSION, in_capture_order(session, effective_ns)[0], in_order=True)

    assert _peak(trace) < 4_000_000  # (8 MB of requests kept before)


def test_the_payload_a_node_keeps_of_an_event_cannot_be_changed_for_the_others() -> None:
    from agentscan.hooks.draft import payload_free
    from agentscan.hooks.model import HookEvent

    event = HookEvent(1, BASE_NS, "claude", "Stop", SESSION, None, {"cwd": "/w", "big": "x"})
    kept, bare = payload_free(event, ("cwd",)), payload_free(event)
    assert dict(kept.payload) == {"cwd": "/w"} and dict(bare.payload) == {}
    with pytest.raises(TypeError):
        bare.payload["cwd"] = "/elsewhere"  # type: ignore[index]
    assert payload_free(event).payload == {}
