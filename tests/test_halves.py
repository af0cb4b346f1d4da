"""A huge transcript's row pass by halves of the file, one on each core (``halves``).

Wherever the seam falls, the row, the ``show`` detail, the sums and the
warnings must be those of the one pass; the halves are joined only when
nothing in the second half depends on the first (else this process reads
the second half itself).  The tests lower every threshold, so small files
are split, are read from their end and settle calls out of the window.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.providers.claude import halfjoin, halfpass, halves, recordnotes, rowresume, showfacts
from agentscan.providers.claude.filesummary import FileSummary
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.windowed import WindowedTotals
from agentscan.scan.scanner import Scanner
from agentscan.toolkit.jsonl import ReadProgress
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from claude_events import SESSION, TRANSCRIPT, lines_of, lower_row_limits, qa_turns, records_of, split_huge_passes, ts_of
from conftest_hypothesis import FUZZ
from spies import record_calls
from test_sidepass import BOUNDS, _extras

_SUMMARY = {"type": "summary", "summary": "an older conversation", "leafUuid": "u-late"}


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)  # no resume state: the halves' case


def _write(tmp_path: Path, records: list) -> Path:
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records))
    return path


def _line_starts(path: Path) -> list[int]:
    """Where each line after the first starts, and the file's end."""
    data = path.read_bytes()
    return [index + 1 for index, byte in enumerate(data) if byte == 0x0A]


def _seen(env: dict[str, str], *, cache: bool = True) -> tuple:
    with Scanner(env=env, use_cache=cache) as scanner:
        row = scanner.all_rows()[0]
        detail = scanner.show(SESSION, bounds=BOUNDS)
        return row.to_json(), detail.to_json(), sorted(map(str, scanner.ctx.warnings.items))


def _env(tmp_path: Path, cache: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 60))
@given(events=TRANSCRIPT, where=st.floats(0, 1))
def test_wherever_the_seam_falls_the_halves_give_what_one_pass_gives(tmp_path_factory: pytest.TempPathFactory,
                                                                     small_limits: None, events, where) -> None:
    tmp_path = tmp_path_factory.mktemp("h")
    path = _write(tmp_path, records_of(events) + _extras())
    starts = _line_starts(path)
    seam = starts[min(len(starts) - 1, int(where * len(starts)))]
    with pytest.MonkeyPatch.context() as example:
        example.setattr(halves, "find_seam", lambda path, size: seam)
        first = record_calls(example, halves.Halves, "first_half", lambda *args: "first")
        split_huge_passes(example, True)
        split = _seen(_env(tmp_path, "split"))
        assert first  # the main transcript was read by halves
        split_huge_passes(example, False)
        assert split == _seen(_env(tmp_path, "one"))
        assert split == _seen(_env(tmp_path, "none"), cache=False)


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 30))
@given(turns=st.integers(2, 12), where=st.floats(0, 1), bad=st.lists(st.integers(0, 40), max_size=3))
def test_turns_split_at_a_prompt_are_joined(tmp_path_factory: pytest.TempPathFactory, small_limits: None,
                                            turns, where, bad) -> None:
    """Each message and call of its own (as Claude Code writes them): the helper's half is
    taken, with its bad lines said at their lines of the whole file."""
    tmp_path = tmp_path_factory.mktemp("t")
    records: list = qa_turns(turns)
    for position in sorted(bad, reverse=True):
        records.insert(min(position, len(records)), b"{oops")
    path = _write(tmp_path, records)
    prompts = [start for start, record in zip([0, *_line_starts(path)], records)
               if isinstance(record, dict) and record["type"] == "user"]
    seam = prompts[max(1, min(len(prompts) - 1, int(where * len(prompts))))]
    with pytest.MonkeyPatch.context() as example:
        example.setattr(halves, "find_seam", lambda path, size: seam)
        joined = record_calls(example, halfjoin.Join, "apply", lambda *args: "joined")
        split_huge_passes(example, True)
        split = _seen(_env(tmp_path, "split"))
        assert joined
        split_huge_passes(example, False)
        assert split == _seen(_env(tmp_path, "one"))


# -- the join's checks, one by one, below ``Scanner`` --------------------------------


def _ctx(tmp_path: Path) -> ScanContext:
    return ScanContext(tmp_path, {})


def _one_pass(path: Path, ctx: ScanContext) -> tuple:
    facts, totals, progress = ShowFacts(), WindowedTotals(), ReadProgress()
    summary = summarize(path, ctx, totals=totals, facts=facts, progress=progress)
    facts.finish()
    return _outcome(summary, facts, totals, progress, ctx)


def _by_halves(path: Path, ctx: ScanContext, seam: int, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, bool]:
    """The outcome, and whether the helper's half was joined."""
    joined = record_calls(monkeypatch, halfjoin.Join, "apply", lambda *args: "joined")
    parts = halves.Halves(path, ctx, os.stat(path), seam)
    facts = ShowFacts()
    try:
        summary, totals, progress = parts.first_half(facts)
        summary, whole = parts.join(summary, totals, facts, progress)
    finally:
        parts.stop()
    facts.finish()
    return _outcome(summary, facts, whole, progress, ctx), bool(joined)


def _outcome(summary, facts: ShowFacts, totals: WindowedTotals, progress: ReadProgress, ctx: ScanContext) -> tuple:
    state = summary.to_state()
    state.pop("model_messages"), state.pop("text_messages")  # (the newest ids: equal, but not in order)
    counts = (facts.prompts, facts.responses, facts.tools, facts.reused, facts.clipped, facts.plan)
    return (state, counts, totals.total(), totals.exact, totals.groups(()),
            (progress.complete_offset, progress.lines), [tuple(w) for w in ctx.warnings.listed()])


def _seam_before(path: Path, records: list, index: int) -> int:
    return ([0, *_line_starts(path)])[index]


def test_a_seam_at_a_prompt_is_joined(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    records = qa_turns(8)
    path = _write(tmp_path, records)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 6), monkeypatch)
    assert joined
    assert halved == _one_pass(path, _ctx(tmp_path))


def _reply(n: int, msg: str, blocks: list, **extra) -> dict:
    fields = {"usage": claude_usage(input=n + 1, output=2), **extra}
    record = claude_assistant(SESSION, ts_of(n), msg_id=msg, request_id=f"r{msg}", uuid=f"a{n}", blocks=blocks, **fields)
    if record["message"].get("model") is None:
        del record["message"]["model"]
    return record


def _anonymous(record: dict) -> dict:
    del record["uuid"], record["message"]["id"]
    return record


def _call(call_id: str) -> dict:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {}}


def _prompt(n: int, text: str = "") -> dict:
    return claude_user(SESSION, ts_of(n), text or f"question {n}", uuid=f"u{n}")


CASES = {
    # a reply whose records lie on both sides of the seam: one message, counted once
    "a message across the seam": ([_prompt(0), _reply(1, "m1", [{"type": "text", "text": "part one"}]),
                                   _reply(2, "m1", [{"type": "text", "text": "part two"}]), _prompt(3)], 2),
    # a call id met again on the other side: the show facts count it reused
    "a call id on both sides": ([_prompt(0), _reply(1, "m1", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
                                 _prompt(2), _reply(3, "m2", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}])], 2),
    # one message on both sides, with text: one reply of the row (its newest text ids)
    "a message's text on both sides": ([_prompt(0), _reply(1, "m1", [{"type": "text", "text": "one"}], usage=None, model=None),
                                         _prompt(2), _reply(3, "m1", [{"type": "text", "text": "two"}], usage=None,
                                                            model=None)], 2),
    # one message on both sides with a model: counted once (its newest model ids)
    "a message's model on both sides": ([_prompt(0), _reply(1, "m1", [_call("t1")], usage=None),
                                          _prompt(2), _reply(3, "m1", [_call("t2")], usage=None)], 2),
    # one call on both sides (no model, no text): the larger copy counts, once
    "a call on both sides": ([_prompt(0), _reply(1, "m1", [_call("t1")], model=None),
                              _prompt(2), _reply(3, "m1", [_call("t2")], model=None, usage=claude_usage(input=50))], 2),
    # a ``summary`` in the first half (not at the file's start) whose leaf is after the seam
    "a summary's leaf after the seam": ([_prompt(0), _SUMMARY, _reply(1, "m1", [{"type": "text", "text": "hi"}]),
                                         {**_prompt(2), "uuid": "u-late"}, _reply(3, "m2", [{"type": "text", "text": "x"}])], 3),
    # a record with neither a message id nor a uuid after the seam: its stand-in id is numbered
    # from the seam there, from the file's start in the one pass
    "a stand-in id": ([_prompt(0), _reply(1, "m1", [{"type": "text", "text": "hi"}]), _prompt(2),
                       _anonymous(_reply(3, "m2", [{"type": "text", "text": "x"}], usage=None))], 2),
    # a call the second half makes with no message id: settled in the one pass between the
    # first half's window calls
    "a call without a message id": ([_prompt(0), _reply(1, "m1", [{"type": "text", "text": "hi"}]), _prompt(2),
                                     claude_assistant(SESSION, ts_of(3), msg_id=None, request_id=None, uuid="a3",
                                                      blocks=[{"type": "text", "text": "x"}],
                                                      usage=claude_usage(input=4, output=1))], 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_the_second_half_cannot_know_is_read_here(tmp_path: Path, small_limits: None,
                                                       monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    records, index = CASES[case]
    path = _write(tmp_path, records)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, index), monkeypatch)
    assert not joined
    assert halved == _one_pass(path, _ctx(tmp_path))


@pytest.mark.parametrize("bom", [False, True], ids=["plain", "a byte order mark first"])
def test_summaries_the_file_starts_with_are_the_helpers_too(tmp_path: Path, small_limits: None,
                                                            monkeypatch: pytest.MonkeyPatch, bom: bool) -> None:
    """Claude Code writes a resumed session's ``summary`` records first: the helper starts
    from them, so a leaf after the seam names the title, and the halves are joined."""
    records = [_SUMMARY, *qa_turns(3), {**_prompt(20), "uuid": "u-late"}, *qa_turns(2, start=30)]
    path = _write(tmp_path, records)
    if bom:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert halves.leading_summaries(path, _ctx(tmp_path)) == {"u-late": "an older conversation"}
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 5), monkeypatch)
    assert joined
    assert halved[0]["summary_matched"] == "an older conversation"
    assert halved == _one_pass(path, _ctx(tmp_path))


def test_a_subagent_result_after_the_seam_names_the_call_before_it(tmp_path: Path, small_limits: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    task = {"type": "tool_use", "name": "Task", "id": "toolu_task", "input": {"subagent_type": "Explore"}}
    result = claude_user(SESSION, ts_of(3), [{"type": "tool_result", "tool_use_id": "toolu_task", "content": "done"}],
                         uuid="u3")
    result["toolUseResult"] = {"agentId": "agone01"}
    records = [_prompt(0), _reply(1, "m1", [task]), *qa_turns(2, start=5), result, *qa_turns(2, start=9)]
    path = _write(tmp_path, records)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 2), monkeypatch)
    assert joined
    assert halved[0]["task_types"] == {"agone01": "Explore"}
    assert halved == _one_pass(path, _ctx(tmp_path))


def test_a_window_pushed_out_by_the_second_half_is_settled_in_order(tmp_path: Path, small_limits: None,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The first half's window calls are settled as the second half's calls push them out
    (three calls a window here): the sums, their groups and ``exact`` as one pass's."""
    records = [*qa_turns(5), *[_reply(20 + n, f"x{n}", [{"type": "text", "text": "more"}], sidechain=n % 2 == 0)
                               for n in range(4)], *qa_turns(5, start=40)]
    path = _write(tmp_path, records)
    for index in (2, 4, 6, 8, 14):
        halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, index), monkeypatch)
        assert halved == _one_pass(path, _ctx(tmp_path)), index
        assert not halved[3]  # calls left the window
    assert joined


def test_too_many_subagent_results_in_the_second_half_are_read_here(tmp_path: Path, small_limits: None,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recordnotes, "MAX_RESULTS", 0)
    task = {"type": "tool_use", "name": "Task", "id": "toolu_task", "input": {"subagent_type": "Explore"}}
    result = claude_user(SESSION, ts_of(7), [{"type": "tool_result", "tool_use_id": "toolu_task", "content": "done"}],
                         uuid="u7")
    result["toolUseResult"] = {"agentId": "agone01"}
    records = [*qa_turns(2), _prompt(5), _reply(6, "m6", [task]), result]
    path = _write(tmp_path, records)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 2), monkeypatch)
    assert not joined
    assert halved == _one_pass(path, _ctx(tmp_path))


def test_two_halves_that_fill_the_window_only_together_are_not_exact(tmp_path: Path, small_limits: None,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    records = qa_turns(4)  # two calls a half, three a window
    path = _write(tmp_path, records)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 4), monkeypatch)
    assert joined and not halved[3]
    assert halved == _one_pass(path, _ctx(tmp_path))


def test_a_helper_gone_is_the_second_half_read_here(tmp_path: Path, small_limits: None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    records = qa_turns(6)
    path = _write(tmp_path, records)
    monkeypatch.setattr(halves, "second_half", lambda *args: os._exit(3))
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 4), monkeypatch)
    assert not joined
    assert halved == _one_pass(path, _ctx(tmp_path))


def test_a_file_replaced_during_the_pass_is_read_again_whole(tmp_path: Path, small_limits: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The halves would be of two files, and the second half read here would go on in the new
    one: the new file is read from its start, as one pass of it (the old one's bad line unsaid)."""
    records = [*qa_turns(1), b"{old", *qa_turns(5, start=1)]
    path = _write(tmp_path, records)
    original = halves.Halves.first_half

    def then_replaced(self, facts):  # after both halves are read, before the join
        found = original(self, facts)
        replacement = path.with_suffix(".new")
        replacement.write_bytes(lines_of([*qa_turns(2, start=50), b"{oops", *qa_turns(5, start=60)]))
        os.replace(replacement, path)
        return found

    monkeypatch.setattr(halves.Halves, "first_half", then_replaced)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 5), monkeypatch)
    assert not joined
    assert halved == _one_pass(path, _ctx(tmp_path))
    assert halved[0]["prompts"] == 7 and not any(warning[2] == 3 for warning in halved[-1])


def test_a_first_half_stopped_short_is_the_whole_pass(tmp_path: Path, small_limits: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The line cap met before the seam: the one pass stopped there too, and says so once."""
    from agentscan import bounds

    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 3)
    records = qa_turns(6)
    path = _write(tmp_path, records)
    ctx = _ctx(tmp_path)
    with ctx.warnings.capture() as captured:
        halved, joined = _by_halves(path, ctx, _seam_before(path, records, 8), monkeypatch)
    assert not joined
    assert halved == _one_pass(path, _ctx(tmp_path))
    assert [warning.message for warning in captured].count("more than 3 lines; read stopped there, earlier lines kept") == 1


def test_the_line_cap_reached_in_the_second_half_is_read_here(tmp_path: Path, small_limits: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan import bounds

    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 9)  # the one pass stops after 9 lines, and says so
    records = qa_turns(6)
    path = _write(tmp_path, records)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 4), monkeypatch)
    assert not joined
    assert halved == _one_pass(path, _ctx(tmp_path))
    assert any("more than 9 lines" in warning[1] for warning in halved[-1])


def test_too_many_warnings_in_the_second_half_are_read_here(tmp_path: Path, small_limits: None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(halfpass, "MAX_SAID", 2)
    records = [*qa_turns(3), b"{oops", b"{oops", b"{oops", *qa_turns(2, start=3)]
    path = _write(tmp_path, records)
    halved, joined = _by_halves(path, _ctx(tmp_path), _seam_before(path, records, 6), monkeypatch)
    assert not joined
    assert halved == _one_pass(path, _ctx(tmp_path))


def test_the_seam_is_the_first_prompt_past_the_first_share(tmp_path: Path) -> None:
    records = qa_turns(10)
    records.insert(11, claude_user(SESSION, ts_of(99), [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]))
    path = _write(tmp_path, records)
    size = path.stat().st_size
    seam = halves.find_seam(path, size)
    starts = [0, *_line_starts(path)]
    past = [start for start, record in zip(starts, records) if start > size * halves.FIRST_SHARE
            and record["type"] == "user" and isinstance(record["message"]["content"], str)]
    assert seam == past[0]


def test_no_user_record_past_the_middle_is_no_seam(tmp_path: Path) -> None:
    records = [_prompt(0), *[_reply(n, f"m{n}", [{"type": "text", "text": "x" * 50}]) for n in range(1, 40)]]
    path = _write(tmp_path, records)
    assert halves.find_seam(path, path.stat().st_size) is None
    assert halves.Halves.worth_it(path, _ctx(tmp_path), os.stat(path)) is None


def test_no_halves_while_workers_hold_the_cores_or_of_a_compressed_file(tmp_path: Path, small_limits: None,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import cores

    path = _write(tmp_path, qa_turns(6))
    split_huge_passes(monkeypatch, True)
    assert halves.Halves.worth_it(path, _ctx(tmp_path), os.stat(path)) is not None
    monkeypatch.setattr(cores, "busy", lambda: True)  # rows read in workers: no core is free
    assert halves.Halves.worth_it(path, _ctx(tmp_path), os.stat(path)) is None
    monkeypatch.setattr(cores, "busy", lambda: False)
    packed = path.with_name(path.name + ".zst")
    packed.write_bytes(path.read_bytes())
    assert halves.Halves.worth_it(packed, _ctx(tmp_path), os.stat(packed)) is None  # no seeking into it


def test_the_first_half_stops_at_the_seam(tmp_path: Path) -> None:
    records = qa_turns(4)
    path = _write(tmp_path, records)
    seam = _seam_before(path, records, 4)
    progress = ReadProgress()
    summary = summarize(path, _ctx(tmp_path), progress=progress, end=seam)
    assert (summary.records, summary.prompts, progress.complete_offset, progress.lines) == (4, 2, seam, 4)


def test_show_facts_module_bounds_are_the_helpers(small_limits: None) -> None:
    """The helper's facts read back against this process's bounds (``load_state``)."""
    facts = halfpass._HalfFacts()
    again = ShowFacts()
    again.load_state(facts.to_state())
    assert (again.message_bytes, again.window) == (showfacts.MESSAGE_BYTES, showfacts.WINDOW)


def test_the_helpers_lists_stay_bounded(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call id used again and again is listed once; subagent results past the cap are not
    kept (the one more says there were more): a hostile file must not fill the helper."""
    facts = halfpass._HalfFacts()
    for _ in range(50):
        facts.assistant("m1", [_call("t1")])
    assert facts.early == ["t1"] and facts.reused == 49
    monkeypatch.setattr(recordnotes, "MAX_RESULTS", 3)
    task = {"type": "tool_use", "name": "Task", "id": "toolu_task", "input": {"subagent_type": "Explore"}}
    results = []
    for n in range(10):
        result = claude_user(SESSION, ts_of(n + 2), [{"type": "tool_result", "tool_use_id": "toolu_task", "content": "x"}],
                             uuid=f"r{n}")
        result["toolUseResult"] = {"agentId": f"agent{n}"}
        results.append(result)
    path = _write(tmp_path, [_prompt(0), _reply(1, "m1", [task]), *results])
    summary = FileSummary(path)
    summary.results = []
    summarize(path, _ctx(tmp_path), progress=ReadProgress(0, 1), resumed=summary)
    assert len(summary.results) == 4 and len(summary.task_types) == 10
