"""``show``'s plan from Claude Code's task tools (``TaskCreate``/``TaskUpdate``, 2.1.16+),
not only from ``TodoWrite``: whichever list was written last is the plan, read forward,
from the end of a huge transcript, from a resume state after the file grew, and by
halves of the file, always the same (``providers/claude/tasklist.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.providers.claude import halfjoin, halves, rowresume, tasklist
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.tasklist import PlanFold
from agentscan.scan.scanner import Scanner
from agentscan.toolkit.jsonl import ReadProgress
from builders import (claude_assistant, claude_progress, claude_session_file, claude_subagent_file, claude_usage,
                      claude_user, cli_json)
from claude_events import forward_and_from_end, lines_of, lower_row_limits
from conftest_hypothesis import FUZZ
from spies import record_calls

S = "7a5c0000-0000-4000-8000-000000000036"
AGENT = "a36b36c"


def _at(n: int) -> str:
    return f"2026-03-01T{10 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


def _prompt(n: int, text: str | None = None) -> dict:
    return claude_user(S, _at(n), text or f"question {n}", uuid=f"u{n}")


def _call(n: int, name: str, data: object, **extra) -> dict:
    return claude_assistant(S, _at(n), msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(input=1, output=1),
                            blocks=[{"type": "tool_use", "id": f"c{n}", "name": name, "input": data}], uuid=f"a{n}", **extra)


def _create(n: int, subject: str | None, active: str | None = None, **extra) -> dict:
    data = {"description": f"all about {subject}", "metadata": {"k": 1}}
    data.update({"subject": subject} if subject is not None else {})
    data.update({"activeForm": active} if active is not None else {})
    return _call(n, "TaskCreate", data, **extra)


def _created(n: int, call: int, task_id: str | None, subject: str = "x", *, told: bool = True, error: bool = False,
             **extra) -> dict:
    """The result of the ``TaskCreate`` made at ``call``: its id in ``toolUseResult`` (``told``) and its text."""
    text = "<tool_use_error>InputValidationError</tool_use_error>" if error else f"Task #{task_id} created successfully: {subject}"
    record = claude_user(S, _at(n), [{"type": "tool_result", "tool_use_id": f"c{call}", "content": text,
                                      **({"is_error": True} if error else {})}], uuid=f"u{n}", **extra)
    if told and not error:
        record["toolUseResult"] = {"task": {"id": task_id, "subject": subject}}
    return record


def _update(n: int, task_id: str, **changes) -> dict:
    return _call(n, "TaskUpdate", {"taskId": task_id, **changes})


def _todo(n: int, *steps: str) -> dict:
    return _call(n, "TodoWrite", {"todos": [{"content": s, "activeForm": s, "status": "completed"} for s in steps]})


def _plan(home: Path) -> list[tuple[str, str]]:
    with Scanner(home=home, provider_names=["claude"]) as scanner:
        return [(step.step, step.status) for step in scanner.show(S).plan]


def _tasks() -> list:
    """Three tasks, the first begun, the second renamed, the third deleted, a fourth of no subject."""
    return [
        _prompt(0, "fix the build"),
        _create(1, "Fix failing tests", "Fixing failing tests"), _created(2, 1, "1", "Fix failing tests"),
        _create(3, "Write docs"), _created(4, 3, "2", "Write docs", told=False),  # (its id from the text alone)
        _create(5, "Drop me"), _created(6, 5, "3", "Drop me"),
        _update(7, "1", status="in_progress", owner="me", addBlocks=["2"]),
        _update(8, "2", subject="Write the docs"),
        _update(9, "3", status="deleted"),
        _call(10, "TaskList", {}), _call(11, "TaskGet", {"taskId": "1"}),
        _create(12, None, "Running the linter"), _created(13, 12, "4"),
    ]


EXPECTED = [("Fix failing tests", "in_progress"), ("Write the docs", "pending"), ("Running the linter", "pending")]


def test_task_calls_give_the_plan(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _tasks())
    assert _plan(isolated_home) == EXPECTED
    document = cli_json("show", S)
    assert document["session"]["plan"] == [{"step": step, "status": status} for step, status in EXPECTED]


@pytest.mark.parametrize(("records", "expected"), [
    ([_todo(1, "old todo"), _create(2, "new task"), _created(3, 2, "1")], [("new task", "pending")]),
    ([_create(1, "old task"), _created(2, 1, "1"), _todo(3, "new todo")], [("new todo", "completed")]),
    # An update after a todo list makes the task list, all of it, the plan again.
    ([_create(1, "a task"), _created(2, 1, "1"), _create(3, "b task"), _created(4, 3, "2"), _todo(5, "a todo"),
      _update(6, "2", status="completed")], [("a task", "pending"), ("b task", "completed")]),
    # An update of a task this file never created changes nothing: the todo list stays.
    ([_todo(1, "a todo"), _update(2, "9", status="completed")], [("a todo", "completed")]),
], ids=["todo-then-tasks", "tasks-then-todo", "update-after-todo", "unknown-task"])
def test_the_list_written_last_is_the_plan(isolated_home: Path, records: list, expected: list) -> None:
    claude_session_file(isolated_home, S, [_prompt(0), *records])
    assert _plan(isolated_home) == expected


def test_a_task_is_named_by_the_id_its_result_gave(isolated_home: Path) -> None:
    # A list that did not start at 1 (the ids say so): "1" names none of its tasks.
    claude_session_file(isolated_home, S, [
        _prompt(0), _create(1, "seven"), _created(2, 1, "7"), _create(3, "eight"), _created(4, 3, "8", told=False),
        _update(5, "1", status="completed"), _update(6, "8", status="in_progress"),
    ])
    assert _plan(isolated_home) == [("seven", "pending"), ("eight", "in_progress")]


def test_results_in_one_record_give_their_ids_by_their_texts(isolated_home: Path) -> None:
    both = claude_assistant(S, _at(1), msg_id="m1", request_id="r1", usage=claude_usage(input=1, output=1), uuid="a1",
                            blocks=[{"type": "tool_use", "id": f"c{n}", "name": "TaskCreate", "input": {"subject": s}}
                                    for n, s in ((1, "one"), (2, "two"))])
    results = claude_user(S, _at(2), [
        {"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": "Task #4 created successfully: one"}]},
        {"type": "tool_result", "tool_use_id": "c2", "content": "Task #5 created successfully: two"}], uuid="u2")
    results["toolUseResult"] = {"task": {"id": "4", "subject": "one"}}  # (whose? two results: the texts say)
    claude_session_file(isolated_home, S, [_prompt(0), both, results, _update(3, "5", status="completed")])
    assert _plan(isolated_home) == [("one", "pending"), ("two", "completed")]


def test_a_transcript_cut_before_its_results_goes_by_creation_order(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        _prompt(0), _create(1, "first"), _create(2, "second"), _update(3, "2", status="completed"),
        _update(4, 1, status="in_progress"),  # (an id written as a number)
    ])
    assert _plan(isolated_home) == [("first", "in_progress"), ("second", "completed")]


def test_a_create_that_failed_made_no_task(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        _prompt(0), _create(1, "refused"), _created(2, 1, None, error=True), _create(3, "made"), _created(4, 3, "1"),
    ])
    assert _plan(isolated_home) == [("made", "pending")]


def test_a_new_task_of_an_id_in_use_replaces_the_old_one(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        _prompt(0), _create(1, "old"), _created(2, 1, "1"), _update(3, "1", status="completed"),
        _create(4, "new"), _created(5, 4, "1"),  # Claude Code began the list again
    ])
    assert _plan(isolated_home) == [("new", "pending")]


def test_a_subagents_task_calls_are_its_own(isolated_home: Path) -> None:
    sub_create = _create(2, "the subagent's task", sidechain=True, agentId=AGENT)
    claude_session_file(isolated_home, S, [
        _prompt(0), _create(1, "the session's task"), _created(2, 1, "1"),
        claude_progress(S, _at(3), AGENT, sub_create), claude_progress(S, _at(4), AGENT, _update(4, "1", status="completed")),
    ])
    claude_subagent_file(isolated_home, S, AGENT, [
        claude_user(S, _at(1), "sub task", sidechain=True, agentId=AGENT), sub_create,
        _created(3, 2, "1", sidechain=True, agentId=AGENT),
        _update(4, "1", status="completed", sidechain=True, agentId=AGENT),
    ])
    assert _plan(isolated_home) == [("the session's task", "pending")]


def test_the_newest_thousand_tasks_are_kept(isolated_home: Path) -> None:
    records: list = [_prompt(0)]
    for n in range(tasklist.MAX_TASKS + 5):
        records += [_create(2 * n + 1, f"task {n}"), _created(2 * n + 2, 2 * n + 1, str(n + 1))]
    records.append(_update(len(records) + 1, "1", status="completed"))  # dropped: changes nothing
    claude_session_file(isolated_home, S, records)
    plan = _plan(isolated_home)
    assert len(plan) == tasklist.MAX_TASKS == 1000
    assert plan[0] == ("task 5", "pending") and plan[-1] == ("task 1004", "pending")


def test_an_edit_takes_back_which_list_is_the_plan_not_the_tasks(isolated_home: Path) -> None:
    """The task list lives outside the conversation: an edited prompt takes no task back,
    but the plan is the list the live branch wrote last."""
    edit = _prompt(5, "no, keep the todo list")
    edit["parentUuid"] = "a1"
    claude_session_file(isolated_home, S, [
        _prompt(0), _todo(1, "a todo"),
        {**_prompt(2, "use tasks"), "parentUuid": "a1"}, _create(3, "a task"), _created(4, 3, "1"),
        edit,
    ])
    assert _plan(isolated_home) == [("a todo", "completed")]
    with open(next((isolated_home / ".claude" / "projects").rglob(f"{S}.jsonl")), "ab") as handle:
        handle.write(lines_of([_update(6, "1", status="in_progress")]))
    assert _plan(isolated_home) == [("a task", "in_progress")]


SCENARIOS = {
    "tasks": _tasks,
    "todo-then-tasks": lambda: [_prompt(0), _todo(1, "t"), _create(2, "x"), _created(3, 2, "1")],
    "tasks-then-todo": lambda: [_prompt(0), _create(1, "x"), _created(2, 1, "1"), _todo(3, "t", "u")],
    "cut": lambda: [_prompt(0), _create(1, "a"), _create(2, "b"), _update(3, "2", status="completed")],
    "failed": lambda: [_prompt(0), _create(1, "a"), _created(2, 1, None, error=True), _create(3, "b")],
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_read_forward_or_from_the_end_the_plan_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          name: str) -> None:
    from agentscan.providers.claude import provider

    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)  # shown from its end, as a huge one is
    claude_session_file(tmp_path / "home", S, SCENARIOS[name]())
    forward, from_end, _ = forward_and_from_end(tmp_path / "home")
    assert from_end is not None and forward.plan
    assert from_end.plan == forward.plan


def test_show_json_cold_warm_grown_and_uncached(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider, tail

    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(rowresume, "MIN_BYTES", 0)
    from_end = record_calls(monkeypatch, tail, "read_tail", lambda *args, **kwargs: "tail")
    records = _tasks()
    path = claude_session_file(isolated_home, S, records[:7])
    expected = [{"step": "Fix failing tests", "status": "pending"}, {"step": "Write docs", "status": "pending"},
                {"step": "Drop me", "status": "pending"}]
    assert cli_json("show", S)["session"]["plan"] == expected  # cold
    assert cli_json("show", S)["session"]["plan"] == expected  # warm: the row and its facts from the index
    assert len(from_end) == 2
    resumes: list = []
    load = rowresume.load
    monkeypatch.setattr(rowresume, "load", lambda *args, **kwargs: resumes.append(load(*args, **kwargs)) or resumes[-1])
    with path.open("ab") as handle:
        handle.write(lines_of(records[7:]))
    grown = cli_json("show", S)["session"]["plan"]
    assert resumes and resumes[0] is not None  # went on from the state kept, its task list with it
    assert grown == [{"step": step, "status": status} for step, status in EXPECTED]
    assert cli_json("show", S, "--no-cache")["session"]["plan"] == grown
    assert len(from_end) == 4
    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 1 << 60)  # read forward
    assert cli_json("show", S, "--no-cache")["session"]["plan"] == grown


# -- the fold below the readers: a resume state, the halves' join ------------------------------


def _facts_of(records: list, facts: ShowFacts | None = None) -> ShowFacts:
    facts = facts if facts is not None else ShowFacts()
    for record in records:
        facts.feed(record)
    return facts


def test_a_resume_state_keeps_the_task_list() -> None:
    records = _tasks()
    for cut in range(len(records) + 1):
        state = orjson.loads(orjson.dumps(_facts_of(records[:cut]).to_state()))
        again = ShowFacts()
        again.load_state(state)
        assert _facts_of(records[cut:], again).plan == _facts_of(records).plan == [list(step) for step in EXPECTED]


def test_a_state_kept_before_the_task_list_is_no_state() -> None:
    state = _facts_of(_tasks()).to_state()
    state["plan"] = state.pop("fold")["todos"]  # as version 4 kept it
    with pytest.raises(KeyError):
        ShowFacts().load_state(state)
    for bad in ({"tasks": "x"}, {"newest": "both"}, {"journal": [["u", None, None, None, None]]}):
        damaged = {**_facts_of(_tasks()).to_state()}
        damaged["fold"] = {**damaged["fold"], **bad}
        with pytest.raises(ValueError):
            ShowFacts().load_state(damaged)


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)  # no resume state: the halves' case


def _halves_and_one_pass(path: Path, seam: int, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """The plan read by halves (and whether they were joined), and by one pass."""
    joined = record_calls(monkeypatch, halfjoin.Join, "apply", lambda *args: "joined")
    ctx = ScanContext(path.parents[4], {})
    parts = halves.Halves(path, ctx, os.stat(path), seam)
    facts = ShowFacts()
    try:
        summary, totals, progress = parts.first_half(facts)
        parts.join(summary, totals, facts, progress)
    finally:
        parts.stop()
    facts.finish()
    one = ShowFacts()
    summarize(path, ScanContext(path.parents[4], {}), facts=one, progress=ReadProgress())
    one.finish()
    return facts.plan, bool(joined), one.plan


def _split_file(tmp_path: Path, first: list, second: list) -> tuple[Path, int]:
    path = claude_session_file(tmp_path / "home", S, [])
    path.write_bytes(lines_of(first))
    seam = path.stat().st_size
    path.write_bytes(lines_of(first + second))
    return path, seam


def test_the_second_half_goes_on_from_the_first_halfs_list(tmp_path: Path, small_limits: None,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    records = _tasks()
    path, seam = _split_file(tmp_path, records[:7], [_prompt(100, "go on"), *records[7:]])
    halved, joined, one = _halves_and_one_pass(path, seam, monkeypatch)
    assert joined and halved == one == [list(step) for step in EXPECTED]


@pytest.mark.parametrize(("limit", "value"), [("MAX_JOURNAL", 2), ("MAX_JOURNAL_BYTES", 8)])  # changes, or their texts
def test_a_second_half_of_too_many_changes_is_read_here(tmp_path: Path, small_limits: None,
                                                        monkeypatch: pytest.MonkeyPatch, limit: str, value: int) -> None:
    monkeypatch.setattr(tasklist, limit, value)
    records = _tasks()
    path, seam = _split_file(tmp_path, records[:7], [_prompt(100, "go on"), *records[7:]])
    halved, joined, one = _halves_and_one_pass(path, seam, monkeypatch)
    assert not joined and halved == one == [list(step) for step in EXPECTED]


def test_a_create_waiting_for_its_result_at_the_seam_is_read_here(tmp_path: Path, small_limits: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The second half looks at no result of a call it did not see: a create whose result lies
    # past the seam (an interrupted turn, resumed) keeps the halves apart.
    first = [_prompt(0, "plan it"), _create(1, "Write the parser")]
    second = [_prompt(100, "go on"), _created(101, 1, "1", "Write the parser"), _update(102, "1", status="completed")]
    path, seam = _split_file(tmp_path, first, second)
    halved, joined, one = _halves_and_one_pass(path, seam, monkeypatch)
    assert not joined and halved == one == [["Write the parser", "completed"]]


def test_a_task_the_second_half_names_by_number_is_read_here(tmp_path: Path, small_limits: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # A create and an update of task 1 in one message past the seam: the second half, which
    # knows no id yet, takes "1" for its own first create; the one pass, for the first half's.
    both = _create(11, "three")
    both["message"]["content"].append({"type": "tool_use", "id": "c12", "name": "TaskUpdate",
                                       "input": {"taskId": "1", "status": "deleted"}})
    first = [_prompt(0), _create(1, "one"), _created(2, 1, "1", "one"), _create(3, "two"), _created(4, 3, "2", "two")]
    second = [_prompt(10, "go on"), both, _created(13, 11, "3", "three"), _update(14, "3", status="completed")]
    path, seam = _split_file(tmp_path, first, second)
    halved, joined, one = _halves_and_one_pass(path, seam, monkeypatch)
    assert not joined and halved == one == [["two", "pending"], ["three", "completed"]]


# -- any order of task calls: every reader folds it the same way --------------------------------

EVENTS = st.lists(st.one_of(
    st.tuples(st.just("create"), st.sampled_from(["told", "text", "none", "error"])),
    st.tuples(st.just("update"), st.sampled_from(["1", "2", "3", "5"]),
              st.sampled_from([None, "pending", "in_progress", "completed", "deleted"]), st.booleans()),
    st.tuples(st.just("todo"), st.integers(0, 2)),
    st.tuples(st.just("prompt"), st.just(None)),
    st.tuples(st.just("reuse"), st.just(None)),  # a create of a call id used before
    # A create and an update in one message (parallel calls), the create's result after both.
    st.tuples(st.just("parallel"), st.sampled_from(["1", "2", "3"]), st.sampled_from(["deleted", "completed"])),
), min_size=1, max_size=25)


def _records_of(events: list[tuple]) -> list:
    records: list = [_prompt(0)]
    given_ids = 0
    for n, event in enumerate(events, start=1):
        kind = event[0]
        if kind == "create":
            records.append(_create(3 * n, f"task {n}", f"doing {n}"))
            if event[1] != "none":
                given_ids += event[1] != "error"
                records.append(_created(3 * n + 1, 3 * n, str(given_ids), told=event[1] == "told",
                                        error=event[1] == "error"))
        elif kind == "update":
            records.append(_update(3 * n, event[1], status=event[2], **({"subject": f"renamed {n}"} if event[3] else {})))
        elif kind == "todo":
            records.append(_todo(3 * n, *(f"todo {n}.{i}" for i in range(event[1]))))
        elif kind == "parallel":
            record = _create(3 * n, f"task {n}")
            record["message"]["content"].append({"type": "tool_use", "id": f"u{3 * n}", "name": "TaskUpdate",
                                                 "input": {"taskId": event[1], "status": event[2]}})
            records.append(record)
            given_ids += 1
            records.append(_created(3 * n + 1, 3 * n, str(given_ids)))
        elif kind == "reuse":
            record = _create(3 * n, f"again {n}")
            record["message"]["content"][0]["id"] = "c3"
            records.append(record)
        else:
            records.append(_prompt(3 * n))
    return records


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 60))
@given(events=EVENTS, cut=st.floats(0, 1))
def test_any_task_calls_fold_alike_whole_resumed_and_joined(events: list, cut: float) -> None:
    records = _records_of(events)
    whole = _facts_of(records)
    at = int(cut * len(records))
    resumed = ShowFacts()
    resumed.load_state(orjson.loads(orjson.dumps(_facts_of(records[:at]).to_state())))
    assert _facts_of(records[at:], resumed).plan == whole.plan
    first, second = _facts_of(records[:at]), ShowFacts()
    second.fold = PlanFold(journal=True)
    _facts_of(records[at:], second)
    if first.fold.waiting or second.fold.guessed:
        return  # not joined (``Join.checks``): a create waiting for its result, a task named by number
    first.fold.join(second.fold)
    assert first.plan == whole.plan


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 30))
@given(events=EVENTS)
def test_any_task_calls_read_forward_or_from_the_end_agree(tmp_path_factory: pytest.TempPathFactory,
                                                           events: list) -> None:
    from agentscan.providers.claude import provider

    home = tmp_path_factory.mktemp("p") / "home"
    claude_session_file(home, S, _records_of(events))
    with pytest.MonkeyPatch.context() as example:
        example.setattr(provider, "TAIL_MIN_BYTES", 0)
        forward, from_end, _ = forward_and_from_end(home)
    assert from_end is not None and from_end.plan == forward.plan
