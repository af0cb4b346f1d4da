"""``show`` of a huge Claude transcript from its end equals the full forward pass.

A main transcript of ``TAIL_MIN_BYTES`` or more is shown from its newest
records (``providers/claude/tail.py``) with the whole-file facts its row's
pass kept (``showfacts.py``, ``tailfacts.py``).  Whatever the transcript holds (replies split
over records, interleaved messages, reused call ids, results before and
after their calls, prompts and replies past the byte budgets, clipped
messages, bad lines), the detail must be the one ``detail`` builds by
reading everything, in the same reading order; and facts that cannot
answer the bounds asked for must not be used.  The tests lower the size
threshold and the bounds, so a small file is read from its end and the
reading stops early.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.bounds import Bounds
from agentscan.context import ScanContext
from agentscan.detailmodel import SessionDetail
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import showfacts, tailfacts
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import reverse
from builders import backward_reads, claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from claude_events import AGENT, SESSION, TRANSCRIPT, records_of, taken_back_unknown, ts_of
from conftest_hypothesis import FUZZ

#: per-list byte budgets: a few short items exactly, some, or all
BUDGETS = [26, 39, 600, 10_000]


def _home(tmp_path: Path, events: list[tuple], subagent: bool) -> Path:
    home = tmp_path / "home"
    path = claude_session_file(home, SESSION, [])
    path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n" for r in records_of(events)))
    if subagent:
        claude_subagent_file(home, SESSION, AGENT, [
            claude_user(SESSION, ts_of(1), "sub task", sidechain=True, agentId=AGENT),
            claude_assistant(SESSION, ts_of(2), msg_id="s1", request_id="rs1", usage=claude_usage(input=5, output=1),
                             blocks=[{"type": "text", "text": "sub answer"},
                                     {"type": "tool_use", "id": "st1", "name": "Grep", "input": {"pattern": "x"}}],
                             sidechain=True, agentId=AGENT),
        ])
    return path


def _detail_both_ways(home: Path, bounds: Bounds) -> tuple[SessionDetail, SessionDetail | None, set, set]:
    """The forward detail, and the one from the end (``None`` when the kept facts
    cannot answer ``bounds``, which is then checked against the facts)."""
    provider = ClaudeProvider()
    forward_ctx = ScanContext.create(home=home, env={})
    [ref] = provider.discover(forward_ctx)
    forward = provider.detail(ref, forward_ctx, bounds)
    tail_ctx = ScanContext.create(home=home, env={})
    [ref] = provider.discover(tail_ctx)
    assert provider.shows_from_row(ref, tail_ctx)
    row = provider.row(ref, tail_ctx)
    tail = provider.detail_with_row(ref, tail_ctx, bounds, row)
    facts = tailfacts.kept(tail_ctx, ref.hint.main, provider.fingerprint(ref, tail_ctx))
    assert facts is not None and (tail is None) == (not facts.answers(bounds))
    if tail is not None and forward.extra.get("agent_reported") is None:
        # A read that stopped short of the start says Claude Code's own count may be further
        # back (``coststate``): the one way it differs from the forward read, of a transcript without one.
        tail.extra.pop("agent_reported_unknown", None)
    if tail is not None:
        taken_back_unknown(tail, forward)
    return forward, tail, set(forward_ctx.warnings.items), set(tail_ctx.warnings.items)


def _reading_order(detail: SessionDetail) -> list:
    # (a slash command Claude Code ran itself too: ``show --full`` places one of no time by it)
    items = [*detail.prompts, *detail.responses, *detail.tools, *detail.local_commands]
    return [(type(item).__name__, item) for item in sorted(items, key=lambda item: item.seq)]


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    monkeypatch.setattr(reverse, "BLOCK", 300)


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 250))
@given(events=TRANSCRIPT, subagent=st.booleans(), prompts=st.integers(0, 4), responses=st.integers(0, 5),
       tools=st.integers(0, 6), text_bytes=st.sampled_from(BUDGETS), window=st.sampled_from([6, 50]))
def test_the_tail_gives_the_forward_detail(tmp_path_factory: pytest.TempPathFactory, small_limits: None,
                                           monkeypatch: pytest.MonkeyPatch, events, subagent, prompts, responses, tools,
                                           text_bytes, window) -> None:
    monkeypatch.setattr(showfacts, "WINDOW", window)
    bounds = Bounds(prompts=prompts, responses=responses, tools=tools, prompt_bytes=text_bytes, response_bytes=text_bytes,
                    tool_bytes=text_bytes, message_bytes=200)
    home = _home(tmp_path_factory.mktemp("t"), events, subagent)
    forward, tail, forward_warnings, tail_warnings = _detail_both_ways(home.parents[3], bounds)
    if tail is None:  # a call id was reused: the facts answer the window's own tool bound only
        bounds = Bounds(prompts=prompts, responses=responses, tools=window, prompt_bytes=text_bytes,
                        response_bytes=text_bytes, tool_bytes=text_bytes, message_bytes=200)
        forward, tail, forward_warnings, tail_warnings = _detail_both_ways(home.parents[3], bounds)
    assert tail is not None
    assert tail == forward
    assert tail.to_json() == forward.to_json()
    assert _reading_order(tail) == _reading_order(forward)
    assert tail_warnings == forward_warnings


def test_a_long_transcript_is_read_only_near_its_end(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    events = [("prompt", False), ("text", "m1", False), ("tool", "m1", None), ("result", "t1", False)] * 500
    events += [("todo", 2), ("task", None), ("result", "toolu_task", False)]
    events += [("prompt", False), ("text", "m2", False)] * 20
    path = _home(tmp_path, events, True)
    bounds = Bounds(prompts=5, responses=5, tools=3, message_bytes=200)
    read = backward_reads(monkeypatch)
    forward, tail, _, _ = _detail_both_ways(path.parents[3], bounds)
    assert tail == forward
    assert [step.step for step in tail.plan] == ["step 2000.0", "step 2000.1"]  # written long before the tail
    assert tail.subagents[0].agent_type == "Explore" and tail.subagents[0].call_id == "toolu_task"
    assert tail.truncated["prompts"] == 515 and tail.truncated["tools"] == 502 - 3 + 1  # the subagent's call joins the three
    assert sum(read) < path.stat().st_size / 10


def test_show_uses_the_kept_row_and_facts_and_a_change_reads_again(tmp_path: Path, small_limits: None) -> None:
    events = [("prompt", True), ("text", "m1", True), ("tool", "m1", "t1"), ("result", "t1", True)] * 50
    path = _home(tmp_path, events, False)
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    bounds = Bounds(prompts=5, responses=5, tools=5, message_bytes=200)
    with Scanner(env=env, use_cache=True) as cold:
        first = cold.show(SESSION, bounds=bounds)
        assert cold.parses == 1
    with Scanner(env=env, use_cache=True) as warm:
        again = warm.show(SESSION, bounds=bounds)
        assert warm.parses == 0  # the row came from the index, the facts too
        assert warm.list_sessions()[0].counts == first.row.counts and warm.parses == 0
    assert again == first
    with Scanner(env=env) as uncached:
        assert uncached.show(SESSION, bounds=bounds) == first
    with path.open("ab") as handle:
        handle.write(orjson.dumps(claude_user(SESSION, ts_of(9999), "one more question")) + b"\n")
    with Scanner(env=env, use_cache=True) as changed:
        grown = changed.show(SESSION, bounds=bounds)
        assert changed.parses == 1
    assert grown.prompts[-1].text == "one more question" and grown.row.counts.prompts == 51


def test_bounds_the_facts_cannot_answer_read_everything(tmp_path: Path, small_limits: None) -> None:
    path = _home(tmp_path, [("prompt", True), ("text", "m1", False), ("tool", "m1", "t1"), ("tool", "m2", "t1")], False)
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=path.parents[3], env={})
    [ref] = provider.discover(ctx)
    row = provider.row(ref, ctx)
    assert provider.detail_with_row(ref, ctx, Bounds(message_bytes=100), row) is None  # clipped at another size
    assert provider.detail_with_row(ref, ctx, Bounds(tools=3), row) is None  # an id was reused: only the window's own
    assert provider.detail_with_row(ref, ctx, Bounds(tools=showfacts.WINDOW, message_bytes=200), row) is not None


def test_damaged_facts_are_no_facts() -> None:
    good = tailfacts.TailFacts(10, 1, 1, 1, 0, 5, 0, 200, None, {}, {},
                               [["a1", "m", 900, 0, None, 1, 2, 3, 4, 0, 1, 0, 0]]).to_json()
    assert tailfacts.TailFacts.from_json(good) is not None
    for key, value in (("prompts", -1), ("plan", [["a"]]), ("groups", [["a1", "m", 900, 0, None, 1, 2, 3, 4, 0, 1, 0]]), ("groups", [[1, "m", 900, 0, None, 1, 2, 3, 4, 0, 1, 0, 0]]), ("v", "0"), ("size", "10")):
        assert tailfacts.TailFacts.from_json({**good, key: value}) is None
    assert tailfacts.TailFacts.from_json([good]) is None


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 300))
@given(keys=st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", None]), max_size=80), window=st.integers(1, 6))
def test_calls_dropped_are_counted_as_the_collector_drops_them(monkeypatch: pytest.MonkeyPatch, keys, window) -> None:
    from agentscan.detailmodel import ToolEvent
    from agentscan.toolkit.detail import DetailCollector

    monkeypatch.setattr(showfacts, "WINDOW", window)
    facts = showfacts.ShowFacts()
    collector = DetailCollector(Bounds(tools=window))
    for key in keys:
        facts.feed({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash", **({"id": key} if key else {})}]}})
        collector.add_tool(ToolEvent("Bash", "x"), key=key)
    kept = tailfacts.TailFacts(0, 0, 0, facts.tools, facts.reused, window, 0, 0, None, {}, {}, [])
    assert kept.tools_dropped(Bounds(tools=window)) == collector.build(_row()).truncated["tools"]
    if facts.reused == 0:  # then any smaller bound is answered too
        for smaller in range(window):
            small = DetailCollector(Bounds(tools=smaller))
            for key in keys:
                small.add_tool(ToolEvent("Bash", "x"), key=key)
            assert kept.tools_dropped(Bounds(tools=smaller)) == small.build(_row()).truncated["tools"]


def _row():
    from agentscan.model import SessionRow

    return SessionRow("claude", SESSION, None)


def test_a_row_kept_without_its_facts_gets_them_on_the_next_show(tmp_path: Path, small_limits: None) -> None:
    import sqlite3

    _home(tmp_path, [("prompt", False), ("text", "m1", False), ("tool", "m1", "t1"), ("result", "t1", False)] * 30, False)
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    bounds = Bounds(prompts=3, responses=3, tools=3, message_bytes=200)
    with Scanner(env=env, use_cache=True) as first:
        want = first.show(SESSION, bounds=bounds)
    with sqlite3.connect(tmp_path / "cache" / "index.sqlite") as db:  # as an index written before the facts were
        assert db.execute("DELETE FROM files WHERE kind = ?", (tailfacts.KIND,)).rowcount == 1
    with Scanner(env=env, use_cache=True) as again:
        assert again.show(SESSION, bounds=bounds) == want
    with Scanner(env=env, use_cache=True) as warm:
        assert warm.show(SESSION, bounds=bounds) == want
        assert warm.parses == 0
        assert tailfacts.gathered(warm.ctx, ClaudeProvider().fingerprint(warm.resolve(SESSION), warm.ctx)) is False


def test_a_transcript_past_the_line_cap_is_shown_from_what_the_reader_reads(tmp_path: Path, small_limits: None,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan import bounds as bounds_module

    monkeypatch.setattr(bounds_module, "MAX_FILE_LINES", 40)
    _home(tmp_path, [("prompt", False), ("text", "m1", False), ("tool", "m1", "t1"), ("result", "t1", False)] * 30, False)
    bounds = Bounds(prompts=3, responses=3, tools=3, message_bytes=200)
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=tmp_path / "home", env={})
    [ref] = provider.discover(ctx)
    forward = provider.detail(ref, ctx, bounds)
    row = provider.row(ref, ctx)
    assert provider.detail_with_row(ref, ctx, bounds, row) is None  # the lines after the cap would show
    with Scanner(home=tmp_path / "home") as scanner:
        shown = scanner.show(SESSION, bounds=bounds)
    assert shown.prompts == forward.prompts and shown.row.counts.prompts == 10


def test_the_cli_reads_a_huge_transcript_once_cold_and_only_its_end_warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app
    from agentscan.providers.claude import row as row_module

    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)  # the CLI's own bounds: the defaults
    _home(tmp_path, [("prompt", False), ("text", "m1", False), ("tool", "m1", "t1"), ("result", "t1", False)] * 40, False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "cache"))
    passes: list[str] = []
    summarize = row_module.summarize
    def spy(path, *args, **kwargs):
        passes.append(path.name)
        return summarize(path, *args, **kwargs)

    monkeypatch.setattr(row_module, "summarize", spy)
    monkeypatch.setattr(ClaudeProvider, "session_usage", lambda *a, **k: pytest.fail("the row's sums price the row"))
    outputs = []
    for _ in range(2):
        result = CliRunner().invoke(app, ["show", SESSION[:8], "--json"])
        assert result.exit_code == 0, result.output
        outputs.append(orjson.loads(result.stdout)["session"])
    assert passes == [f"{SESSION}.jsonl"]  # the cold run's row pass; the warm run read only the end
    assert outputs[0] == outputs[1] and outputs[0]["cost_usd"] > 0
    assert outputs[0]["counts"]["prompts"] == 40 and len(outputs[0]["prompts"]) == 40


def test_no_facts_are_kept_for_a_transcript_written_to_during_the_row_pass(tmp_path: Path, small_limits: None) -> None:
    """A live transcript grows while its row is read: facts about lines past the size the
    fingerprint names would not match a tail read that stops there, so none are kept."""
    path = _home(tmp_path, [("prompt", n) for n in range(6)], subagent=False)
    home = tmp_path / "home"
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=home, env={})
    [ref] = provider.discover(ctx)
    with path.open("ab") as handle:  # after discovery's stat, before the row pass
        handle.write(orjson.dumps(claude_user(SESSION, ts_of(99), "written meanwhile")) + b"\n")
    row = provider.row(ref, ctx)
    assert tailfacts.kept(ctx, path, provider.fingerprint(ref, ctx)) is None
    assert provider.detail_with_row(ref, ctx, Bounds(prompts=3, responses=3, tools=3), row) is None  # read forward


def test_a_sidechain_replay_long_after_its_parent_is_counted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule 4 past the window: a subagent file (read after the whole main transcript)
    replaying a parent message under another request counts nothing."""
    from agentscan.providers.claude.usage import call_of
    from agentscan.providers.claude.windowed import WindowedTotals

    totals = WindowedTotals(window=3)
    parent = claude_assistant(SESSION, ts_of(1), msg_id="m-parent", request_id="r1", usage=claude_usage(input=1000, output=10))
    totals.add(call_of(parent, None, 1))
    for n in range(10):  # push the parent out of the window
        totals.add(call_of(claude_assistant(SESSION, ts_of(2 + n), msg_id=f"m{n}", request_id=f"q{n}",
                                            usage=claude_usage(input=1, output=1)), None, 2 + n))
    replay = claude_assistant(SESSION, ts_of(50), msg_id="m-parent", request_id="r-sub", sidechain=True,
                              usage=claude_usage(input=1000, output=10))
    totals.add(call_of(replay, AGENT, 50))
    total = totals.total()
    assert total is not None and total.input == 1000 + 10


def test_a_reply_made_of_endless_records_is_not_held_whole() -> None:
    facts = showfacts.ShowFacts()
    facts.message_bytes = 50
    for _ in range(2000):
        facts.assistant("m-one", [{"type": "text", "text": "word " * 20}])
    assert sum(len(text) for text in facts._texts) <= 60
    facts.prompt("next")
    assert facts.responses == 1 and facts.clipped == 1
    short = showfacts.ShowFacts()
    short.message_bytes = 50
    short.assistant("m", [{"type": "text", "text": "  ok  "}])
    short.assistant("m", [{"type": "text", "text": " " * 500}])  # blank text past the kept part
    short.prompt("next")
    assert short.responses == 1 and short.clipped == 0


def test_a_call_id_spelled_like_a_stand_in_does_not_replace_a_call_without_an_id() -> None:
    from agentscan.detailmodel import ToolEvent
    from agentscan.toolkit.detail import DetailCollector

    collector = DetailCollector(Bounds(tools=10))
    collector.add_tool(ToolEvent(name="Bash", summary="no id"), key=None)
    collector.add_tool(ToolEvent(name="Read", summary="id #1"), key="#1")
    assert [tool.summary for tool in collector.tools()] == ["no id", "id #1"]
