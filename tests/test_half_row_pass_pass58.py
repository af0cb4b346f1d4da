"""The row pass specialised for a huge transcript's halves (``halfrow``, the fifty-eighth
pass, docs/performance.md) against ``row.summarize``'s general loop, on every rule: the
same row (every field of the summary, its inline runs too), the same ``show`` facts, the
same sums and window, the same warnings and progress; read whole, as a first half (to a
line's end) and the rest read on from it, and as the helper's second half (``halfpass``).
On the real Claude samples and on generated transcripts of the edge cases.
"""

from __future__ import annotations

import json
from array import array
from collections import deque
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.providers.claude import showfacts, windowed
from agentscan.providers.claude.filesummary import RecentIds
from agentscan.providers.claude.halfpass import HalfTotals, _EarlyIds, second_half
from agentscan.providers.claude.halfrow import lean_loop
from agentscan.providers.claude.halves import leading_summaries
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.toolkit.hashes64 import Hashes64
from agentscan.toolkit.jsonl import ReadProgress
from conftest_hypothesis import FUZZ

REAL = sorted((Path(__file__).parent.parent / "fixtures" / "real" / "claude").glob("*.jsonl"))


def _norm(value: Any, depth: int = 0) -> Any:
    """What a value holds, comparable with ``==`` (objects by their fields)."""
    if depth > 12:
        return "…"
    if value is None or isinstance(value, (str, int, float, bool, bytes, Enum)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Hashes64):
        return ("Hashes64", value.to_bytes())
    if isinstance(value, array):
        return ("array", value.tobytes())
    if isinstance(value, dict):
        return [(_norm(key, depth + 1), _norm(item, depth + 1)) for key, item in value.items()]
    if isinstance(value, (list, tuple, deque)):
        return [_norm(item, depth + 1) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(_norm(item, depth + 1)) for item in value)
    if callable(value) and not hasattr(value, "__dict__"):
        return "callable"
    fields = dict(vars(value)) if hasattr(value, "__dict__") else {}
    for name in getattr(type(value), "__slots__", ()):
        if hasattr(value, name):
            fields[name] = getattr(value, name)
    return (type(value).__name__, {name: _norm(item, depth + 1) for name, item in sorted(fields.items())
                                   if not callable(item) or hasattr(item, "__dict__")})


def _loop(lean: bool) -> Any:
    return lean_loop if lean else None


def _warnings(ctx: ScanContext) -> list:
    return [(w.message, w.line) for w in ctx.warnings.items]


def _picture(ctx: ScanContext, summary: Any, totals: HalfTotals, facts: ShowFacts | None,
             progress: ReadProgress) -> dict:
    return {"summary": _norm(summary), "totals": _norm(totals), "sums": _norm(totals.window_sums()),
            "facts": None if facts is None else _norm(facts), "warnings": _warnings(ctx),
            "progress": (progress.complete_offset, progress.lines, progress.values.to_parts())}


def _whole(path: Path, lean: bool, with_facts: bool) -> dict:
    ctx = ScanContext.create(home=path.parent, env={})
    totals, facts, progress = HalfTotals(), ShowFacts() if with_facts else None, ReadProgress()
    summary = summarize(path, ctx, totals=totals, progress=progress, facts=facts, loop=_loop(lean))
    if facts is not None:
        facts.finish()
    return _picture(ctx, summary, totals, facts, progress)


def _halves_here(path: Path, lean: bool, with_facts: bool, end: int) -> dict:
    """A first half to ``end``, then the rest read on from it (``halves.Halves.join`` when the
    checks fail): the picture after each."""
    ctx = ScanContext.create(home=path.parent, env={})
    totals, facts, progress = HalfTotals(), ShowFacts() if with_facts else None, ReadProgress()
    with ctx.held_warnings() as held:
        main = summarize(path, ctx, totals=totals, progress=progress, facts=facts, end=end, tell_values=False,
                         loop=_loop(lean))
    first = _picture(ctx, main, totals, facts, progress)
    summary = summarize(path, ctx, totals=totals, progress=progress, facts=facts, resumed=main, loop=_loop(lean))
    if facts is not None:
        facts.finish()
    return {"first": first, "said": _norm(held.said),
            "whole": _picture(ctx, summary, totals, facts, progress)}


def _helper(path: Path, lean: bool, with_facts: bool, seam: int) -> dict:
    ctx = ScanContext.create(home=path.parent, env={})
    answer = second_half(path, ctx, seam, with_facts, leading_summaries(path, ctx), lean=lean)
    return _norm(answer)


def _line_ends(path: Path) -> list[int]:
    data = path.read_bytes()
    return [index + 1 for index, byte in enumerate(data) if byte == 0x0A]


def _same_every_way(path: Path, cuts: list[int]) -> None:
    for with_facts in (True, False):
        assert _whole(path, True, with_facts) == _whole(path, False, with_facts)
        for cut in cuts:
            assert _halves_here(path, True, with_facts, cut) == _halves_here(path, False, with_facts, cut)
            assert _helper(path, True, with_facts, cut) == _helper(path, False, with_facts, cut)


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls settle after 3, ``show``'s reused calls and clipped messages at small bounds."""
    monkeypatch.setattr(windowed, "WINDOW", 3)
    monkeypatch.setattr(showfacts, "WINDOW", 2)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 24)


@pytest.mark.usefixtures("small_windows")
@pytest.mark.parametrize("path", REAL, ids=[path.name for path in REAL])
def test_the_real_samples_read_the_same_by_either_loop(path: Path, tmp_path: Path) -> None:
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    ends = _line_ends(copy)
    cuts = sorted({ends[len(ends) * share // 4] for share in (1, 2, 3)} if len(ends) > 4 else set(ends[:-1]))
    _same_every_way(copy, cuts)


# -- generated transcripts of the edge cases ---------------------------------------------

SESSION = "s0000000-0000-4000-8000-000000000000"
TIMES = st.one_of(
    st.builds(lambda minute, ms: f"2026-11-01T09:{minute:02d}:00.{ms:03d}Z", st.integers(0, 5), st.sampled_from([0, 0, 7])),
    st.sampled_from(["2026-11-01T09:03:00Z", "2026-11-01T09:03:00.000+00:00", "0001-01-01T00:00:00.000Z",
                     "2026-13-01T09:00:00.000Z", "xxxxxxxxxxxxxxxxxxxxxxxZ", 5, None]),
)
UUIDS = st.sampled_from(["u1", "u2", "u3", "u4", "u5", None, 7])
IDS = st.sampled_from(["m1", "m2", "m3", "", None, 9])
TEXTS = st.sampled_from(["hi", "  ", "\u2003", "", "a" * 40, " é漢 " * 9, "[Request interrupted by user]",
                         "[Request interrupted by user for tool use]", "<command-name>/init</command-name>",
                         "<ide_selection>x</ide_selection> why", "<system-reminder>r</system-reminder> go", "\ud800"])
USAGE = st.one_of(
    st.none(),
    st.fixed_dictionaries({"input_tokens": st.sampled_from([1, 7, -1, "3", None]), "output_tokens": st.sampled_from([2, 0]),
                           "cache_read_input_tokens": st.sampled_from([0, 5]),
                           "cache_creation_input_tokens": st.sampled_from([0, 4, 1.5])},
                          optional={"speed": st.sampled_from(["fast", "standard"]), "inference_geo": st.just("us"),
                                    "server_tool_use": st.sampled_from([{"web_search_requests": 2}, {}, "x"]),
                                    "cache_creation": st.just({"ephemeral_1h_input_tokens": 3}),
                                    "iterations": st.sampled_from([
                                        [{"type": "message", "input_tokens": 1}],
                                        [{"type": "message"}, {"type": "advisor_message", "input_tokens": 3, "model": "m"}],
                                        [{"type": "compaction", "input_tokens": 2, "output_tokens": 1}], "bad"])}),
)
BLOCK = st.one_of(
    st.builds(lambda text: {"type": "text", "text": text}, TEXTS),
    st.just({"type": "text", "text": 5}),
    st.builds(lambda key, name, command: {"type": "tool_use", "id": key, "name": name, "input": {"command": command}},
              st.sampled_from(["t1", "t2", "t3", "", None]), st.sampled_from(["Bash", "Task", "Agent", "", 3]), TEXTS),
    st.builds(lambda key, kind: {"type": "tool_use", "id": key, "name": "Task", "input": {"subagent_type": kind,
                                                                                          "description": "d"}},
              st.sampled_from(["t1", "t4"]), st.sampled_from(["Explore", None])),
    st.builds(lambda key: {"type": "tool_use", "id": key, "name": "TodoWrite",
                           "input": {"todos": [{"content": "step", "status": "pending"}]}}, st.sampled_from(["t5", "t6"])),
    st.builds(lambda key: {"type": "tool_use", "id": key, "name": "TaskCreate",
                           "input": {"subject": "plan it", "description": "d"}}, st.sampled_from(["t7", "t8"])),
    st.just({"type": "thinking", "thinking": "hm"}),
    st.just("not a block"),
)
CONTENT = st.one_of(st.lists(BLOCK, max_size=3), TEXTS, st.just(None), st.just({"odd": 1}))


def _base(kind: str, ts: object, uuid: object, parent: object, sidechain: bool, **extra: Any) -> dict:
    record = {"type": kind, "timestamp": ts, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
              "isSidechain": sidechain, "cwd": "/w/p", "gitBranch": "main"}
    record.update(extra)
    return {key: value for key, value in record.items() if value is not None or key == "parentUuid"}


ASSISTANT = st.builds(
    lambda ts, uuid, parent, side, mid, rid, model, content, usage, error: _base(
        "assistant", ts, uuid, parent, side, requestId=rid, isApiErrorMessage=error or None,
        message={key: value for key, value in {"id": mid, "model": model, "content": content, "usage": usage}.items()
                 if value is not None}),
    TIMES, UUIDS, UUIDS, st.booleans(), IDS, st.sampled_from(["r1", "r2", None]),
    st.sampled_from(["claude-sonnet-4-5", "<synthetic>", None, 5]), CONTENT, USAGE, st.sampled_from([False, False, True]))
RESULT = st.builds(
    lambda ts, uuid, parent, side, key, told, text, is_error: _base(
        "user", ts, uuid, parent, side, toolUseResult=told,
        message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": key, "content": text,
                                              "is_error": is_error}] + ([{"type": "text", "text": text}] if is_error else [])}),
    TIMES, UUIDS, UUIDS, st.booleans(), st.sampled_from(["t1", "t4", "t7", None]),
    st.sampled_from([None, {"agentId": "a1"}, {"agentId": 3}, {"task": {"id": "9"}}, {"status": "ok"}, "text"]),
    TEXTS, st.booleans())
INTERRUPTED_RESULT = st.builds(
    lambda ts, text: _base("user", ts, "u9", None, False,
                           message={"role": "user", "content": [{"type": "tool_result", "text": text}]}), TIMES, TEXTS)
PROMPT = st.builds(
    lambda ts, uuid, parent, side, content, extra: _base("user", ts, uuid, parent, side, message={"role": "user", "content": content},
                                                         **extra),
    TIMES, UUIDS, UUIDS, st.booleans(),
    st.one_of(TEXTS, st.lists(st.one_of(st.builds(lambda t: {"type": "text", "text": t}, TEXTS),
                                        st.just({"type": "image", "source": {}})), max_size=2)),
    st.sampled_from([{}, {}, {"isMeta": True}, {"isCompactSummary": True}, {"origin": {"kind": "peer"}}]))
PROGRESS = st.builds(
    lambda ts, uuid, agent, mid, usage: _base("progress", ts, uuid, None, False, data={
        "type": "agent_progress", **({"agentId": agent} if agent else {}),
        "message": {"type": "assistant", "requestId": "r9", "timestamp": ts,
                    "message": {"id": mid, "model": "claude-haiku-4-5", "content": [], "usage": usage}}}),
    TIMES, UUIDS, st.sampled_from(["a1", "a2", None]), IDS, USAGE)
OTHERS = st.one_of(
    st.builds(lambda ts, uuid, trigger: _base("system", ts, uuid, None, False, subtype="compact_boundary",
                                              compactMetadata={"trigger": trigger, "preTokens": 100}),
              TIMES, UUIDS, st.sampled_from(["auto", None])),
    st.builds(lambda ts: _base("system", ts, None, None, False, subtype="away_summary", content="recap"), TIMES),
    st.builds(lambda ts, sub: _base("system", ts, "u8", None, False, subtype=sub, content="boom",
                                    error={"status": 529}, retryAttempt=1, maxRetries=3),
              TIMES, st.sampled_from(["api_error", "api_refusal", "turn_duration", "stop_hook_summary"])),
    st.builds(lambda ts, prompt: _base("attachment", ts, "u6", None, False,
                                       attachment={"type": "queued_command", "prompt": prompt}), TIMES, TEXTS),
    st.builds(lambda leaf: {"type": "summary", "summary": "what it did", "leafUuid": leaf}, UUIDS),
    st.builds(lambda title: {"type": "custom-title", "customTitle": title}, st.sampled_from(["mine", "", 3])),
    st.builds(lambda title: {"type": "ai-title", "aiTitle": title}, st.sampled_from(["theirs", None])),
    st.builds(lambda ts, cwd: _base("relocated", ts, "u5", None, False, relocatedCwd=cwd), TIMES,
              st.sampled_from(["/w/q", "", 4])),
    st.builds(lambda ts: _base("user", ts, "u7", None, False, subtype="away_summary",
                               message={"role": "user", "content": "late"}), TIMES),
)
RAW = st.sampled_from([b'{"broken": ', b"   ", b"", b'["an", "array"]',
                       b'{"type":"user","timestamp":"2026-11-01T09:01:00.000Z","message":{"content":"\\ud800 x"}}',
                       b'{"type":"user","timestamp":"2026-11-01T09:01:00.000Z","message":{"content":"\xff bad"}}'])
LINE = st.one_of(ASSISTANT, ASSISTANT, RESULT, PROMPT, PROGRESS, OTHERS, INTERRUPTED_RESULT, RAW)


def _write(path: Path, lines: list, bom: bool, final_newline: bool) -> Path:
    # (``json``: it writes a lone surrogate as its escape, which ``orjson`` refuses to.)
    raw = [line if isinstance(line, bytes) else json.dumps(line).encode() for line in lines]
    data = b"\n".join(raw) + (b"\n" if final_newline else b"")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


@pytest.mark.usefixtures("small_windows")
@FUZZ
@given(lines=st.lists(LINE, min_size=1, max_size=24), bom=st.booleans(), final_newline=st.booleans(),
       cut=st.integers(0, 30))
def test_generated_transcripts_read_the_same_by_either_loop(tmp_path: Path, lines: list, bom: bool,
                                                            final_newline: bool, cut: int) -> None:
    path = _write(tmp_path / f"{SESSION}.jsonl", lines, bom, final_newline)
    ends = _line_ends(path)
    _same_every_way(path, [ends[cut % len(ends)]] if ends else [])


def _at(second: int, ms: int = 0) -> str:
    return f"2026-11-01T09:{second // 60:02d}:{second % 60:02d}.{ms:03d}Z"


def _reply(second: int, uuid: str, mid: object, rid: object, content: object, usage: object = None, **extra: Any) -> dict:
    message = {"id": mid, "model": extra.pop("model", "claude-sonnet-4-5"), "content": content,
               "usage": usage if usage is not None else {"input_tokens": 3, "output_tokens": second}}
    return _base("assistant", _at(second), uuid, None, extra.pop("side", False), requestId=rid,
                 message={key: value for key, value in message.items() if value is not None}, **extra)


def _said(second: int, uuid: str, content: object, parent: object = None, **extra: Any) -> dict:
    return _base("user", _at(second), uuid, parent, extra.pop("side", False), message={"role": "user", "content": content},
                 **extra)


def _result(second: int, uuid: str, key: str, told: object, text: str = "done") -> dict:
    return _said(second, uuid, [{"type": "tool_result", "tool_use_id": key, "content": text}], toolUseResult=told)


EVERY_RULE = [
    {"type": "summary", "summary": "what it did", "leafUuid": "u3"},
    _said(1, "u1", "hi there"),
    _reply(2, "u2", "m1", "r1", [{"type": "text", "text": "hello"}]),
    _reply(2, "u3", "m1", "r1", [{"type": "tool_use", "id": "t7", "name": "TaskCreate",
                                  "input": {"subject": "plan it", "description": "d"}}]),
    _result(3, "u4", "t7", {"task": {"id": "9"}}, "Task #9 created successfully: plan it"),
    _reply(4, "u5", "m2", "r2", [{"type": "tool_use", "id": "t5", "name": "TodoWrite",
                                  "input": {"todos": [{"content": "step", "status": "in_progress"}]}}]),
    _result(4, "u6", "t5", {"newTodos": []}),
    _reply(5, "u7", "m3", "r3", [{"type": "tool_use", "id": "t4", "name": "Task",
                                  "input": {"subagent_type": "Explore", "description": "look", "prompt": "p"}}]),
    _said(6, "side1", "look around", side=True),
    _reply(7, "side2", "m9", "r9", [{"type": "text", "text": "found"}], side=True, parentUuid="side1"),
    _result(8, "u8", "t4", {"prompt": "look around", "status": "completed"}),  # (a build that ran it inline)
    _reply(8, "u8b", "m3b", "r3b", [{"type": "tool_use", "id": "t3", "name": "Agent", "input": {"description": "d"}}]),
    _result(8, "u8c", "t3", {"agentId": "a1", "status": "completed", "usage": {"input_tokens": 1}}),
    _result(8, "u9", "t1", "Error: no such file"),
    _said(9, "u10", [{"type": "text", "text": "[Request interrupted by user]"}]),
    _said(9, "u11", [{"type": "tool_result", "text": "[Request interrupted by user for tool use]"}]),
    _said(10, "u12", [{"type": "text", "text": "see"}, {"type": "image", "source": {}}]),
    {**_said(10, "u13", "old"), "timestamp": "0001-01-01T00:00:00.000Z"},
    {**_said(10, "u14", "bad"), "timestamp": "2026-13-01T09:00:00.000Z"},
    {**_said(10, "u15", "short"), "timestamp": "2026-11-01T09:00:11Z"},
    _base("progress", _at(12), "u16", None, False, data={"type": "agent_progress", "agentId": "a2", "message": {
        "type": "assistant", "requestId": "r8", "timestamp": _at(12),
        "message": {"id": "m8", "model": "claude-haiku-4-5", "content": [], "usage": {"input_tokens": 4}}}}),
    _base("progress", _at(12), "u17", None, False, data={"type": "bash_progress", "output": "x"}),
    _reply(13, "u18", "m4", "r4", [{"type": "text", "text": " \u2003 "}]),
    _reply(13, "u19", "m5", "r5", "a reply as a string"),
    _reply(13, "u20", "m6", "r6", [{"type": "text", "text": "two"}, "no block", {"type": "tool_use", "id": "t2",
                                                                                 "name": "Bash", "input": {}}]),
    _reply(14, "u21", "m1", "r7", [{"type": "text", "text": "again"}]),
    _reply(14, "u22", "m1", None, [{"type": "text", "text": "again"}]),
    _reply(14, "u23", None, None, [{"type": "text", "text": "no id"}]),
    _reply(15, "u25", "m7b", "r11", [{"type": "text", "text": "No response requested."}], model="<synthetic>"),
    _reply(15, "u25b", "m7d", "r15", [{"type": "text", "text": "open"}]),
    _reply(15, "u24", "m7", "r10", [{"type": "text", "text": "API Error: 529"}], isApiErrorMessage=True, error="rate_limit"),
    _reply(15, "u26", "m7c", "r12", [{"type": "text", "text": "advised"}],
           usage={"input_tokens": 1, "speed": "fast", "inference_geo": "us", "server_tool_use": {"web_search_requests": 2},
                  "iterations": [{"type": "message"}, {"type": "advisor_message", "input_tokens": 3, "model": "m"}]}),
    _base("attachment", _at(16), "u27", None, False, attachment={"type": "queued_command", "prompt": "also this"}),
    {"type": "custom-title", "customTitle": "mine"},
    {"type": "ai-title", "aiTitle": "theirs"},
    _base("relocated", _at(16), "u27b", None, False, relocatedCwd="/w/q"),  # (a kind either loop may come to read)
    _base("system", _at(17), "u28", None, False, subtype="away_summary", content="recap"),
    _base("system", _at(17), "u29", None, False, subtype="api_error", error={"status": 529}, retryAttempt=1, maxRetries=3),
    _base("system", _at(18), "u30", None, False, subtype="compact_boundary", compactMetadata={"trigger": "auto",
                                                                                            "preTokens": 100}),
    _said(1, "u1", "hi there"),  # re-appended copies of what the compaction followed
    _reply(2, "u2", "m1", "r1", [{"type": "text", "text": "hello"}]),
    _said(19, "u31", "after"),
    _reply(19, "u32", "m10", "r13", [{"type": "text", "text": "x" * 60}]),
    _reply(19, "u33", "m10", "r13", [{"type": "text", "text": "y" * 60}]),
    _reply(19, "u34", "m11", "r14", [{"type": "text", "text": "é" * 30}]),
    _said(20, "u35", "<command-name>/clear</command-name>"),
]
BAD_LINES = [b'{"broken": ', b"", b"  ", b'["an", "array"]',
             b'{"type":"user","timestamp":"2026-11-01T09:01:00.000Z","message":{"content":"\\ud800 x"}}',
             b'{"type":"user","timestamp":"2026-11-01T09:01:00.000Z","message":{"content":"\xff bad"}}']


@pytest.mark.usefixtures("small_windows")
@pytest.mark.parametrize(("bom", "final_newline"), [(False, True), (True, False)])
def test_a_transcript_of_every_rule_reads_the_same_by_either_loop(tmp_path: Path, bom: bool, final_newline: bool) -> None:
    lines: list = [*EVERY_RULE[:12], *BAD_LINES, *EVERY_RULE[12:]]
    path = _write(tmp_path / f"{SESSION}.jsonl", lines, bom, final_newline)
    _same_every_way(path, _line_ends(path)[:-1])


@pytest.mark.usefixtures("small_windows")
def test_more_replies_than_the_recent_ids_kept_read_the_same_by_either_loop(tmp_path: Path) -> None:
    """Past ``filesummary.RECENT_IDS`` messages, the oldest ids are let go (``RecentIds``), and
    a reply of one of them counts again."""
    from agentscan.providers.claude.filesummary import RECENT_IDS

    lines = [_said(1, "u1", "go")]
    for n in range(RECENT_IDS + 40):
        lines.append(_reply(2 + n % 50, f"a{n}", f"m{n}", f"r{n}", [{"type": "text", "text": "t"}]))
    lines += [_reply(60, "b0", "m0", "r0", [{"type": "text", "text": "t"}]),
              _reply(60, "b1", f"m{RECENT_IDS}", "rx", [{"type": "text", "text": "t"}])]
    path = _write(tmp_path / f"{SESSION}.jsonl", lines, False, True)
    ends = _line_ends(path)
    _same_every_way(path, [ends[len(ends) // 2]])


class _OldEarlyIds(RecentIds):
    """``halfpass._EarlyIds`` of the fifty-seventh pass, written out (``RecentIds.add`` by ``super``)."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.early: list[str] = []
        self.stand_in = False

    def add(self, item: str) -> None:
        if item.startswith("#"):
            self.stand_in = True
        if len(self.early) < self._size and item not in self._members:
            self.early.append(item)
        super().add(item)


@FUZZ
@given(ids=st.lists(st.sampled_from(["a", "b", "c", "d", "#1", "#2", "e"]), max_size=40), size=st.integers(1, 4))
def test_the_early_ids_are_added_as_before(ids: list[str], size: int) -> None:
    new, old = _EarlyIds(), _OldEarlyIds(size)
    new._size = size
    for item in ids:
        new.add(item)
        old.add(item)
        assert (new.ids(), new._members, new.early, new.stand_in) == (old.ids(), old._members, old.early, old.stand_in)


CALLS = st.lists(st.tuples(st.sampled_from(["m1", "m2"]), st.sampled_from(["r1", None]), st.booleans(), st.booleans(),
                           st.integers(0, 3), st.integers(0, 3), st.booleans()), max_size=30)


@FUZZ
@given(calls=CALLS)
@example(calls=[("m1", "r1", False, False, 1, 1, False), ("m1", "r1", False, True, 1, 1, False)])  # speed
@example(calls=[("m1", "r1", True, False, 2, 2, False), ("m1", "r1", False, False, 1, 1, False)])  # the parent's
@example(calls=[("m1", "r1", False, False, 1, 1, True), ("m1", "r1", False, False, 1, 1, False)])  # a progress copy
def test_a_copy_in_the_window_replaces_the_one_there_by_call_rank(calls: list) -> None:
    """``WindowedTotals.add``'s shortcut for copies whose rank flags are alike keeps what
    ``dedupe.call_rank`` keeps: the better copy, the first of equals."""
    from agentscan.providers.claude.dedupe import call_rank
    from agentscan.providers.claude.windowed import WindowedTotals

    totals, kept = WindowedTotals(), {}
    for order, (mid, rid, sidechain, speed, fresh, output, progress) in enumerate(calls):
        call = (mid, rid, sidechain, speed, fresh, 1, 0, output, 0.0, "m", None, order, 0, 0, progress, None)
        totals.add(call)
        current = kept.get((mid, rid))
        if current is None or call_rank(call) > call_rank(current):
            kept[(mid, rid)] = call
    assert totals._recent == kept
