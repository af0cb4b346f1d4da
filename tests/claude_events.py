"""Generated Claude transcripts for property tests: records from small pools of
ids, so replies split over records, messages interleave, call ids are reused
and results meet their calls (or not) often (``test_show_tail``, ``test_row_resume``)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import strategies as st

from builders import claude_assistant, claude_usage, claude_user

SESSION = "7a11a11a-0000-4000-8000-000000000001"
AGENT = "a1b2c3d"
BIG = 300  # characters: over the 200-byte message bound the tests set


def ts_of(n: int) -> str:
    return f"2026-03-01T{10 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


def text_of(n: int, long: bool) -> str:
    return "long " * BIG + "é" if long else f"reply {n:04d} é"  # 13 bytes: the tests' byte budgets are multiples


IDS = ["t1", "t2", "t3", None]
MESSAGES = ["m1", "m2", "m3", None, "anonymous"]  # None: the record's uuid stands for the id; "anonymous": no uuid either
#: one record each; ids come from small pools, so replies split over records, messages
#: interleave, call ids are reused and results meet their calls (or not) often
EVENTS = st.one_of(
    st.tuples(st.just("prompt"), st.booleans()),
    st.tuples(st.just("command"), st.sampled_from(["/model", "/review PR 12"])),
    st.tuples(st.just("meta"), st.just(None)),
    st.tuples(st.just("text"), st.sampled_from(MESSAGES), st.booleans()),
    st.tuples(st.just("tool"), st.sampled_from(MESSAGES), st.sampled_from(IDS)),
    st.tuples(st.just("long_tool"), st.sampled_from(["m1", "m4"])),
    st.tuples(st.just("multi"), st.sampled_from(MESSAGES), st.sampled_from(IDS), st.sampled_from(IDS)),
    st.tuples(st.just("todo"), st.integers(0, 3)),
    st.tuples(st.just("result"), st.sampled_from(["t1", "t2", "t3", "toolu_task"]), st.booleans()),
    st.tuples(st.just("task"), st.just(None)),
    st.tuples(st.just("progress"), st.just(None)),
    st.tuples(st.just("bad"), st.sampled_from([b"{oops", b"[1, 2]", b"", b"  "])),
)
#: a turn as Claude Code writes one: a prompt, a reply split over records with calls, their results
TURN = st.tuples(st.booleans(), st.sampled_from(MESSAGES), st.sampled_from(IDS), st.sampled_from(IDS), st.booleans(),
                 st.booleans()).map(
    lambda t: [("prompt", t[0]), ("text", t[1], False), *([("text", t[1], False)] if t[5] else []),
               ("tool", t[1], t[2]), ("tool", t[1], t[3]), ("result", t[2] or "t1", t[4]), ("result", t[3] or "t2", not t[4])])
TRANSCRIPT = st.lists(st.one_of(EVENTS.map(lambda e: [e]), TURN), min_size=1, max_size=40).map(
    lambda parts: [event for part in parts for event in part])


def records_of(events: list[tuple]) -> list:
    records: list = []
    for n, event in enumerate(events):
        kind, ts = event[0], ts_of(n)
        if kind == "prompt":
            records.append(claude_user(SESSION, ts, text_of(n, event[1]), uuid=f"u{n}"))
        elif kind == "command":
            # ``/model`` as Claude Code writes a command it runs itself (name first: no prompt),
            # ``/review`` as one it sends the model (message first: a prompt)
            name, args = event[1].split()[0], " ".join(event[1].split()[1:])
            head = (f"<command-name>{name}</command-name>" if name == "/model"
                    else f"<command-message>{name[1:]}</command-message>\n<command-name>{name}</command-name>")
            records.append(claude_user(SESSION, ts, f"{head}<command-args>{args}</command-args>", uuid=f"u{n}"))
        elif kind == "meta":
            records.append(claude_user(SESSION, ts, "injected", uuid=f"u{n}", isMeta=True))
        elif kind in ("text", "tool", "long_tool", "multi", "todo", "task"):
            if kind == "text":
                blocks = [{"type": "text", "text": text_of(n, event[2])}, {"type": "text", "text": "  "}]
                msg_id = event[1]
            elif kind == "tool":
                blocks = [{"type": "tool_use", "name": "Bash", "input": {"command": f"ls {n}"},
                           **({"id": event[2]} if event[2] else {})}]
                msg_id = event[1]
            elif kind == "multi":
                blocks = [{"type": "text", "text": text_of(n, False)},
                          *({"type": "tool_use", "name": "Grep", "input": {"pattern": f"p{n}.{i}"}, **({"id": i} if i else {})}
                            for i in event[2:])]
                msg_id = event[1]
            elif kind == "long_tool":
                blocks = [{"type": "tool_use", "name": "Read", "id": f"long{n}", "input": {"file_path": "/x" * 1000}}]
                msg_id = event[1]
            elif kind == "todo":
                blocks = [{"type": "tool_use", "name": "TodoWrite", "id": f"todo{n}",
                           "input": {"todos": [{"content": f"step {n}.{i}", "status": "pending"} for i in range(event[1])]}}]
                msg_id = None
            else:
                blocks = [{"type": "tool_use", "name": "Task", "id": "toolu_task",
                           "input": {"subagent_type": "Explore", "prompt": "look"}}]
                msg_id = "m5"
            anonymous = msg_id == "anonymous"
            record = claude_assistant(SESSION, ts, msg_id=None if anonymous else msg_id, request_id=f"r{msg_id}",
                                      blocks=blocks, usage=claude_usage(input=n + 1, output=2), uuid=f"u{n}")
            if anonymous:
                del record["uuid"]  # without a message id or a uuid, a record is a reply of its own
            records.append(record)
        elif kind == "result":
            record = claude_user(SESSION, ts, [{"type": "tool_result", "tool_use_id": event[1], "content": "done",
                                                "is_error": event[2]}], uuid=f"u{n}")
            if event[1] == "toolu_task":
                record["toolUseResult"] = {"agentId": AGENT, "status": "completed"}
            records.append(record)
        elif kind == "progress":
            records.append({"type": "progress", "timestamp": ts, "uuid": f"u{n}", "data": {"type": "bash_progress"}})
        else:
            records.append(event[1])
    return records


def lines_of(records: list) -> bytes:
    """A transcript's bytes: records as JSON lines, raw ``bytes`` as they are."""
    return b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n" for r in records)


def lower_row_limits(monkeypatch: pytest.MonkeyPatch, *, helper: bool = False) -> None:
    """Every threshold of a huge transcript's row pass lowered, so that small files keep
    resume states and show facts, are read from their end, and settle calls out of the
    window; ``helper``: and a side pass may fork its helper even on one core."""
    from agentscan.providers.claude import provider, rowresume, showfacts, windowed
    from agentscan.toolkit import cores, reverse

    monkeypatch.setattr(rowresume, "MIN_BYTES", 0)
    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    monkeypatch.setattr(reverse, "BLOCK", 300)
    monkeypatch.setattr(windowed, "WINDOW", 3)
    if helper:
        monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)


def split_huge_passes(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    """Every main transcript's row pass split (``sidepass``), or none."""
    from agentscan.providers.claude import sidepass

    monkeypatch.setattr(sidepass, "SPLIT_BYTES", 0 if on else 1 << 60)


def no_halves(monkeypatch: pytest.MonkeyPatch) -> None:
    """No main transcript read by halves (``halves``): a split pass is the side pass."""
    from agentscan.providers.claude import halves

    monkeypatch.setattr(halves.Halves, "worth_it", classmethod(lambda cls, *args: None))


def qa_turns(turns: int, start: int = 0) -> list:
    """Turns of a question and a one-record answer with usage, numbered from ``start``."""
    records: list = []
    for n in range(start, start + turns):
        records.append(claude_user(SESSION, ts_of(2 * n), f"question {n}", uuid=f"u{n}"))
        records.append(claude_assistant(SESSION, ts_of(2 * n + 1), msg_id=f"m{n}", request_id=f"r{n}", uuid=f"a{n}",
                                        blocks=[{"type": "text", "text": f"answer {n}"}],
                                        usage=claude_usage(input=n + 1, output=2)))
    return records


#: a reply an agent appends late, its tokens large enough to show if it were counted
LATE_REPLY = lines_of([claude_assistant(SESSION, ts_of(1), msg_id="late", request_id="late", uuid="late",
                                        blocks=[{"type": "text", "text": "late answer"}],
                                        usage=claude_usage(input=1_000_000, output=7))])


def forward_and_from_end(home: Any, bounds: Any = None) -> tuple[Any, Any, Any]:
    """The one Claude session of ``home`` shown read forward, and from its end (``None``
    when the kept facts cannot answer), with the row whose pass kept those facts; each
    read in a context of its own."""
    from agentscan.bounds import DEFAULT_BOUNDS
    from agentscan.context import ScanContext
    from agentscan.providers.claude.provider import ClaudeProvider

    bounds = DEFAULT_BOUNDS if bounds is None else bounds
    provider = ClaudeProvider()
    forward_ctx = ScanContext.create(home=home, env={})
    [ref] = provider.discover(forward_ctx)
    forward = provider.detail(ref, forward_ctx, bounds)
    tail_ctx = ScanContext.create(home=home, env={})
    [ref] = provider.discover(tail_ctx)
    row = provider.row(ref, tail_ctx)
    tail = provider.detail_with_row(ref, tail_ctx, bounds, row)
    if tail is not None and forward.extra.get("agent_reported") is None:
        # (pass 54) a read that stopped short of the start says Claude Code's own count may be
        # further back (``agent_reported_unknown``): the one way it differs from the forward read.
        tail.extra.pop("agent_reported_unknown", None)
    if tail is not None:
        taken_back_unknown(tail, forward)
    return forward, tail, row


def taken_back_unknown(tail: Any, forward: Any) -> None:
    """(pass 58) Read from its end, a transcript's replies taken back are not known
    (``retracted_replies``: ``None``, ``hugeshow``): checked, then set to the forward read's
    count, so the two details compare whole."""
    assert tail.extra["retracted_replies"] is None
    tail.extra["retracted_replies"] = forward.extra["retracted_replies"]


def calls_whole_and_by_halves(home: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    """The one Claude session of ``home``'s calls, resume state and warnings (message,
    line) as ``tokens``' pass finds them in one pass, and by halves (``usagehalves``, the
    seam where it falls); a halves read that found no seam fails."""
    from agentscan.providers.claude import incremental, usagehalves
    from agentscan.scan.scanner import Scanner
    from agentscan.toolkit import cores

    def read() -> tuple:
        with Scanner(env={"HOME": str(home)}, use_cache=False) as scanner:
            ref = scanner.refs()[0]
            with scanner.ctx.warnings.capture() as captured:
                calls, state, _ = incremental.calls_and_chain(ref.hint, scanner.ctx, keep_state=True)
            return calls, state, sorted((w.message, w.line) for w in captured)

    whole = read()
    monkeypatch.setattr(incremental, "SPLIT_BYTES", 0)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    seen: list = []
    real = usagehalves.find_seam
    monkeypatch.setattr(usagehalves, "find_seam", lambda *a: seen.append(real(*a)) or seen[-1])
    halves = read()
    assert seen and seen[0] is not None
    return whole, halves


def cli_json_at(tmp_path: Any, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict:
    """``builders.cli_json`` on the home ``tmp_path / "home"``, its cache and data beside it."""
    from builders import cli_json

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(tmp_path / "data"))
    return cli_json(*args)


def session_calls_of(home: Any, resume: bytes | None = None) -> tuple:
    """The one Claude session of ``home``'s calls and resume state as ``tokens``' pass reads
    them, resumed from ``resume`` when given."""
    from agentscan.providers.claude import incremental
    from agentscan.scan.scanner import Scanner

    with Scanner(env={"HOME": str(home)}, use_cache=False) as scanner:
        ref = scanner.refs()[0]
        return incremental.calls_and_chain(ref.hint, scanner.ctx, resume=resume, keep_state=True)[:2]
