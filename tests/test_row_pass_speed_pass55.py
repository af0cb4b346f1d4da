"""Pass 55: a huge Claude transcript's row pass (a cold ``show`` of 1 GB) does less per record.

Each shortcut skips work whose answer is known, so what a row, ``show`` and ``tokens``
say is unchanged: a tool's result is no prompt (``records.real_prompt_text``), a progress
record that names no subagent counts no call (``usage.progress_call``), a call leaving the
window that is no pair, no sidechain's and under a ``requestId`` settles as the general
path settles it (``windowed.WindowedTotals._evict_oldest``), a call's summary is made
without its paths for ``show``'s facts (``detail.summary_text``), a record of one block
is read where it is, a count is a count without a call (``usage.call_of``).  Each test
checks the work skipped, then that the outcome is the general path's.
"""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.bounds import Bounds
from agentscan.providers.claude import detail, recordnotes, records, usage, windowed
from agentscan.providers.claude.detail import summary_text, tool_summary
from agentscan.providers.claude.records import real_prompt_text
from agentscan.providers.claude.dedupe import better_copy
from agentscan.providers.claude.usage import SIDECHAIN
from agentscan.providers.claude.windowed import WindowedTotals
from agentscan.providers.claude.windowkeys import settle_keys
from agentscan.toolkit.hashes64 import Hashes64
from builders import (claude_assistant, claude_progress, claude_session_file, claude_subagent_file, claude_usage,
                      claude_user)
from claude_events import AGENT, SESSION, cli_json_at, forward_and_from_end, lower_row_limits, ts_of


class _Watched(dict):
    """A record that lists the fields read of it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read: list[str] = []

    def get(self, key: str, default: Any = None) -> Any:
        self.read.append(key)
        return super().get(key, default)


def _result(tool_id: str = "t1", **extra: Any) -> dict:
    return claude_user(SESSION, ts_of(1), [{"type": "tool_result", "tool_use_id": tool_id, "content": "done"}], **extra)


def test_a_tool_result_is_no_prompt_before_anything_else_is_read() -> None:
    record = _Watched(_result(origin={"kind": "human"}))
    assert real_prompt_text(record) is None
    assert record.read == ["message"]


@pytest.mark.parametrize("content, expected", [
    ([{"type": "tool_result", "tool_use_id": "t1", "content": "done"}], None),
    ([{"type": "text", "text": "look"}, {"type": "tool_result", "tool_use_id": "t1"}], None),
    (["odd", {"type": "tool_result", "tool_use_id": "t1"}], None),
    ([{"type": "text", "text": "fix the bug"}], "fix the bug"),
    ([{"type": "image", "source": {}}, {"type": "text", "text": "this one"}], "this one"),
    ([], None),
    ("plain words", "plain words"),
])
def test_what_is_a_prompt_is_unchanged(content: Any, expected: str | None) -> None:
    assert real_prompt_text(claude_user(SESSION, ts_of(1), content)) == expected
    # The checks before the content still say no first (a meta record's words are no prompt).
    assert real_prompt_text(claude_user(SESSION, ts_of(1), content, isMeta=True)) is None


def _pass(home: Path, records_: list, monkeypatch: pytest.MonkeyPatch | None = None) -> Any:
    from agentscan.providers.claude.provider import ClaudeProvider
    from agentscan.context import ScanContext

    claude_session_file(home, SESSION, records_)
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=home, env={})
    [ref] = provider.discover(ctx)
    return provider.row(ref, ctx)


def test_a_progress_record_naming_no_subagent_is_not_taken_for_a_call(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict] = []
    real = usage.progress_call
    monkeypatch.setattr(usage, "progress_call", lambda record, *a, **k: asked.append(record) or real(record, *a, **k))
    copied = claude_assistant(SESSION, ts_of(3), msg_id="sub1", request_id="rsub1", usage=claude_usage(input=7, output=3),
                              sidechain=True)
    found = _pass(tmp_path / "home", [
        claude_user(SESSION, ts_of(1), "go"),
        {**claude_progress(SESSION, ts_of(2), None, copied), "data": {"type": "bash_progress", "output": "x"}},
        claude_progress(SESSION, ts_of(3), None, copied),  # a copy of a call naming no run: counts nothing
        claude_progress(SESSION, ts_of(4), AGENT, copied),  # the run's call, copied: counts (its file is gone)
        claude_assistant(SESSION, ts_of(5), msg_id="m1", request_id="r1", usage=claude_usage(input=10, output=2)),
    ])
    assert [record["data"].get("agentId") for record in asked] == [AGENT]
    assert found.tokens is not None and (found.tokens.input, found.tokens.output) == (17, 5)


def _call(message: str | None, request: str | None, total: int, *, sidechain: bool = False, order: int = 0) -> tuple:
    return (message, request, sidechain, False, total, 0, 0, 1, 1_700_000_000.0 + order, "claude-sonnet-4-5", None,
            order, 0, 0, False, None)


def _calls() -> list[tuple]:
    """Copies of each call next to each other, of every rule's kind: plain calls written twice
    (the larger copy counts), a pair with and without ``requestId``, a sidechain replay of a
    parent's message, a call without a message id, one message under two requests."""
    calls: list[tuple] = []
    for n in range(12):
        calls += [_call(f"m{n}", f"r{n}", 10 + n, order=2 * n), _call(f"m{n}", f"r{n}", 20 + n, order=2 * n + 1)]
    calls += [_call("pair", "rp", 5, order=40), _call("pair", None, 9, order=41)]
    calls += [_call("parent", "rq", 30, order=42), _call("parent", "other", 31, sidechain=True, order=43)]
    calls += [_call(None, None, 4, order=44), _call(None, "rx", 6, order=45)]
    calls += [_call("twice", "a", 3, order=46), _call("twice", "b", 8, order=47)]
    calls += [_call("side", "rs", 2, sidechain=True, order=48), _call("side", "rs", 7, sidechain=True, order=49)]
    calls += [_call(f"late{n}", f"rl{n}", 1, order=50 + n) for n in range(6)]
    return calls


class _GeneralPath(WindowedTotals):
    """Every call leaving the window by the general path (the one pass 54 took for each)."""

    def _oldest_key(self) -> tuple[str, str | None]:
        """The window's oldest key, passing over those a pair's eviction took out (pass 54's)."""
        order, recent = self._order, self._recent
        while order[0] not in recent:
            order.popleft()
        return order[0]

    def _evict_oldest(self) -> None:
        key = self._oldest_key()
        self._order.popleft()
        call = self._recent.pop(key)
        message_id, request_id = key
        other = self._partner(message_id, request_id)
        if other is not False:
            partner = self._recent.pop((message_id, other))
            del self._requests[message_id]
            if self._settled_keys is None:
                self._settled_keys = Hashes64()
            self._settled_keys.add(self._hash(key))
            self._settled_keys.add(self._hash((message_id, other)))
            if not (call[SIDECHAIN] and partner[SIDECHAIN]):
                if self._settled_parents is None:
                    self._settled_parents = Hashes64()
                self._settled_parents.add(self._hash(message_id))
            self._settle(partner if better_copy(partner, call) else call)
            return
        replay = call[SIDECHAIN] and self._replays_parent(message_id, request_id)
        requests = self._requests[message_id]
        alone = not isinstance(requests, set)
        if isinstance(requests, set):
            requests.discard(request_id)
            if not requests:
                del self._requests[message_id]
        else:
            del self._requests[message_id]
        if self._settled_keys is None:
            self._settled_keys = Hashes64()
        self._settled_keys.add(self._hash(key))
        if alone and (request_id is None or call[SIDECHAIN]):
            self._bare_settled |= settle_keys(self._settled_keys, self._hash, message_id, request_id)
        if not call[SIDECHAIN]:
            if self._settled_parents is None:
                self._settled_parents = Hashes64()
            self._settled_parents.add(self._hash(message_id))
        if not replay:
            self._settle(call)


@pytest.mark.parametrize("window", [1, 2, 3, 5])
def test_a_plain_call_leaves_the_window_as_the_general_path_settles_it(monkeypatch: pytest.MonkeyPatch,
                                                                         window: int) -> None:
    asked: list = []
    real = WindowedTotals._partner
    for stable in (False, True):
        general = _GeneralPath(window=window, stable=stable)
        for call in _calls():
            general.add(call)
        with monkeypatch.context() as patch:
            patch.setattr(WindowedTotals, "_partner", lambda self, *a: asked.append(a) or real(self, *a))
            fast = WindowedTotals(window=window, stable=stable)
            for call in _calls():
                fast.add(call)
        assert list(fast._all_sums().items()) == list(general._all_sums().items())
        for mine, theirs in ((fast._settled_keys, general._settled_keys), (fast._settled_parents, general._settled_parents)):
            assert mine is not None and theirs is not None
            assert sorted(array("q", mine.to_bytes())) == sorted(array("q", theirs.to_bytes()))
        assert (fast._bare_settled, fast.exact) == (general._bare_settled, general.exact)
        assert fast.evictions > 10
    # Only the calls that may be a pair (or a sidechain's, or without ``requestId``) asked.
    assert asked and {message for message, _ in asked} <= {"pair", "parent", "side", "twice", None}


def test_settled_calls_still_refuse_their_later_copies() -> None:
    totals = WindowedTotals(window=2)
    for call in [_call("a", "ra", 10), _call("b", "rb", 20), _call("c", "rc", 30), _call("a", "ra", 99),
                 _call("a", None, 98), _call("a", "other", 97, sidechain=True)]:
        totals.add(call)
    assert totals.total() is not None and totals.total().input == 60  # (the late copies of ``a`` count nothing)


@pytest.mark.parametrize("name, tool_input", [
    ("Bash", {"command": "  ls -la  ", "description": "list"}),
    ("Edit", {"file_path": "/a.py", "old_string": "x"}),
    ("MultiEdit", {"edits": [{"file_path": "/b.py"}, "odd"], "file_path": "/a.py"}),
    ("TaskCreate", {"subject": "ship it", "description": "a paragraph"}),
    ("TaskUpdate", {"taskId": "3", "status": "completed"}),
    ("TodoWrite", {"todos": [{"content": "one", "status": "pending"}]}),
    ("Mystery", {"b": 1, "a": [2]}),
    ("Mystery", "raw words"),
    ("Mystery", None),
    ("Mystery", {"blank": "   ", "command": "  "}),
])
def test_a_calls_summary_alone_is_the_one_with_its_paths(name: str, tool_input: Any) -> None:
    assert summary_text(name, tool_input) == tool_summary(name, tool_input)[0]


def _turns() -> list:
    """A transcript of every kind of record a row's pass and ``show``'s facts tell apart."""
    long_command = "x " * 400
    out: list = [claude_user(SESSION, ts_of(0), "first prompt", uuid="u0")]
    for n in range(1, 9):
        t = 10 * n
        out += [
            claude_user(SESSION, ts_of(t), f"prompt {n}", uuid=f"p{n}"),
            claude_assistant(SESSION, ts_of(t + 1), msg_id=f"m{n}", request_id=f"r{n}", uuid=f"a{n}",
                             usage=claude_usage(input=n, output=1), blocks=[{"type": "text", "text": f"reply {n}"}]),
            claude_assistant(SESSION, ts_of(t + 2), msg_id=f"m{n}", request_id=f"r{n}", uuid=f"b{n}",
                             usage=claude_usage(input=n, output=5),
                             blocks=[{"type": "tool_use", "id": f"t{n % 3}", "name": "Bash",
                                      "input": {"command": long_command if n == 4 else f"ls {n}"}}]),
            # A tool's result whose own ``usage`` (a subagent's summary) is never a call.
            {**_result(f"t{n % 3}", uuid=f"res{n}"), "timestamp": ts_of(t + 2),
             "toolUseResult": {"usage": {"input_tokens": 1_000_000, "output_tokens": 1_000_000}}},
            {"type": "progress", "timestamp": ts_of(t + 2), "uuid": f"pr{n}", "sessionId": SESSION,
             "data": {"type": "bash_progress", "output": "..."}},
        ]
    out += [
        # One record of several blocks, an odd item among them; a Task call and its run's copies.
        claude_assistant(SESSION, ts_of(100), msg_id="multi", request_id="rm", uuid="am",
                         usage=claude_usage(input=3, output=3),
                         blocks=[{"type": "text", "text": "two things"}, "odd",
                                 {"type": "tool_use", "id": "task1", "name": "Task",
                                  "input": {"description": "look", "prompt": "look around", "subagent_type": "Explore"}}]),
        claude_progress(SESSION, ts_of(101), AGENT, claude_assistant(
            SESSION, ts_of(101), msg_id="sub", request_id="rsub", usage=claude_usage(input=40, output=4), sidechain=True)),
        {"type": "system", "subtype": "compact_boundary", "timestamp": ts_of(102), "uuid": "cb", "sessionId": SESSION,
         "compactMetadata": {"trigger": "auto", "preTokens": 1234}},
        # A copy of the first call again, far from it: the one pass counts it once.
        claude_assistant(SESSION, ts_of(103), msg_id="m1", request_id="r1", uuid="again",
                         usage=claude_usage(input=1, output=5), blocks=[{"type": "text", "text": "reply 1"}]),
        claude_assistant(SESSION, ts_of(104), msg_id="m9", request_id="r9", uuid="a9", usage=claude_usage(input=9, output=1),
                         blocks=[{"type": "text", "text": "last " * 300}], model="<synthetic>"),
        claude_assistant(SESSION, ts_of(105), msg_id="m10", request_id=None, uuid="a10", usage=claude_usage(input=2, output=2),
                         blocks=[{"type": "text", "text": "done"}]),
    ]
    return out


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    claude_session_file(home, SESSION, _turns())
    # The run the Task call started, its call copied in the progress record above too.
    claude_subagent_file(home, SESSION, AGENT, [
        claude_user(SESSION, ts_of(101), "look around", sidechain=True, agentId=AGENT),
        claude_assistant(SESSION, ts_of(101), msg_id="sub", request_id="rsub", usage=claude_usage(input=40, output=4),
                         sidechain=True, agentId=AGENT),
    ])
    return home


@pytest.mark.parametrize("helper", [False, True])
def test_a_huge_transcript_shown_from_its_end_is_the_forward_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   helper: bool) -> None:
    lower_row_limits(monkeypatch, helper=helper)
    monkeypatch.setattr("agentscan.providers.claude.rowresume.MIN_BYTES", 1 << 60)  # (no state kept: by halves)
    from agentscan.providers.claude import sidepass

    monkeypatch.setattr(sidepass, "SPLIT_BYTES", 0)
    home = _home(tmp_path)
    forward, tail, found = forward_and_from_end(home, Bounds(message_bytes=200, tools=2_000))
    assert tail is not None
    # (A compaction's ``seq`` read from the end is its place in that read, not the forward
    # read's: so before this pass too, and not what is checked here.)
    for shown in (tail, forward):
        shown.extra["compactions"] = [{**mark, "seq": None} for mark in shown.extra["compactions"]]
    assert tail == forward
    assert found.counts == forward.row.counts
    assert tail.truncated == forward.truncated
    total = cli_json_at(tmp_path, monkeypatch, "tokens", "--json")["total"]
    assert found.tokens is not None
    assert (found.tokens.input, found.tokens.output) == (total["input"], total["output"])


def test_show_facts_make_no_paths_nor_copy_a_one_block_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)
    copied: list = []
    real_blocks = recordnotes.content_blocks
    monkeypatch.setattr(recordnotes, "content_blocks", lambda message: copied.append(message) or real_blocks(message))
    monkeypatch.setattr(detail, "tool_summary", lambda *a: pytest.fail("paths made for show's facts"))
    tasks: list = []
    real_task = recordnotes.note_task
    monkeypatch.setattr(recordnotes, "note_task", lambda block, pending: tasks.append(block["name"]) or real_task(block, pending))
    home = _home(tmp_path)
    from agentscan.context import ScanContext
    from agentscan.providers.claude.provider import ClaudeProvider

    provider = ClaudeProvider()
    ctx = ScanContext.create(home=home, env={})
    [ref] = provider.discover(ctx)
    provider.row(ref, ctx)
    assert [orjson.dumps(message["content"][1]) for message in copied] == [b'"odd"']  # only the record of several blocks
    assert tasks == ["Task"]


def test_a_count_needs_no_call_and_an_odd_one_is_still_told(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list = []
    real = usage._count
    monkeypatch.setattr(usage, "_count", lambda value, field=None: counted.append(field) or real(value, field))
    plain = claude_assistant(SESSION, ts_of(1), msg_id="m", request_id="r",
                             usage=claude_usage(input=1, output=2, cache_write=3, cache_read=4))
    call = usage.call_of(plain, None, 0)
    assert call is not None and call[usage.C_INPUT:usage.C_OUTPUT + 1] == (1, 4, 3, 2) and counted == []
    odd = claude_assistant(SESSION, ts_of(1), msg_id="m", request_id="r",
                           usage=claude_usage(input="5", output=-1, cache_write=3.0, cache_read=None))
    call = usage.call_of(odd, None, 0)
    assert call is not None
    assert counted == ["cache_creation_input_tokens", "input_tokens", "cache_read_input_tokens", "output_tokens"]
    assert call[usage.C_INPUT:usage.C_OUTPUT + 1] == tuple(real(value) for value in ("5", None, 3.0, -1))


def test_the_row_asks_its_recent_ids_without_a_call_and_counts_as_before(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude.filesummary import RecentIds

    monkeypatch.setattr(RecentIds, "__contains__", lambda self, item: pytest.fail("a call a record"))
    found = _pass(tmp_path / "home", [
        claude_user(SESSION, ts_of(1), "go"),
        # One reply written as two records (one message id), then another reply.
        claude_assistant(SESSION, ts_of(2), msg_id="m1", request_id="r1", usage=claude_usage(input=1, output=1)),
        claude_assistant(SESSION, ts_of(3), msg_id="m1", request_id="r1", usage=claude_usage(input=1, output=2),
                         blocks=[{"type": "text", "text": "more"}]),
        claude_assistant(SESSION, ts_of(4), msg_id="m2", request_id="r2", usage=claude_usage(input=1, output=1),
                         model="claude-opus-4-6"),
    ])
    assert found.counts.responses == 2 and found.model in ("claude-sonnet-4-5-20250929", "claude-opus-4-6")


def test_calls_without_a_message_id_are_counted_by_any_totals() -> None:
    from agentscan.providers.claude.halfpass import HalfTotals

    assert HalfTotals.add is WindowedTotals.add  # (no call of its own a record)
    for totals in (WindowedTotals(), HalfTotals()):
        totals.add(_call(None, "r", 5))
        totals.add(_call("m", "r", 5))
        assert totals.unkeyed == 1 and totals.total() is not None and totals.total().input == 10


def test_the_modules_shortcuts_are_where_the_pass_looks() -> None:
    # (The names the tests above patch, so that a rename fails here and not silently there.)
    assert records.real_prompt_text is real_prompt_text and windowed.WindowedTotals is WindowedTotals
