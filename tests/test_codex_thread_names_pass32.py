"""A Codex thread's name (what ``codex resume`` shows) is its title: from the rollout's
``thread_name_updated`` events, ``session_index.jsonl`` and the thread index's ``name``,
the newest winning (docs/providers/codex.md, ``providers/codex/names.py``)."""

from __future__ import annotations

import errno
import os
from datetime import datetime
from pathlib import Path
from typing import Callable

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.model import TableFacts
from agentscan.providers.codex import headtail, names
from agentscan.providers.codex.provider import CodexProvider
from agentscan.scan.scanner import Scanner
from codex_builders import (
    INDEX_COLUMNS_WITH_NAME,
    Calls,
    agent_message,
    at,
    index_row,
    meta,
    paginated,
    rollout_path,
    session_index_entry,
    thread_name_updated,
    token_count,
    turn_context,
    usage,
    user_message,
    write_rollout,
    write_session_index,
    write_state_db,
)
from gemini_builders import hash_named_chat
from spies import record_calls

MAIN = "019a0000-0000-7000-8000-00000000aaaa"
OTHER = "019a0000-0000-7000-8000-00000000bbbb"
FORK = "019a0000-0000-7000-8000-00000000cccc"
CHILD = "019a0000-0000-7000-8000-00000000dddd"
PROMPT = "fix the flaky test in the importer"


def _conversation(thread: str, *, renames: list[dict] = (), prompt: str = PROMPT, start: float = 0,
                  **meta_args) -> list[dict]:
    return [
        meta(thread, at(start), **meta_args),
        turn_context(at(start + 1)),
        user_message(at(start + 1), prompt),
        agent_message(at(start + 2), "done"),
        token_count(at(start + 3), usage(100, output=10)),
        *renames,
    ]


def _write(codex: Path, thread: str, records: list[dict], *, start: float = 0) -> Path:
    # Dated as its last record: the thread index's time may then be older or newer at will.
    return write_rollout(rollout_path(codex, thread, at(start)), records, mtime=at(start + 10).timestamp())


def _run(args: list[str], *, code: int = 0) -> dict:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return orjson.loads(result.stdout) if "--json" in args else {"text": result.stdout}


def _titles(*extra: str) -> dict[str, str]:
    listed = _run(["list", "--json", "--provider", "codex", *extra])
    return {row["native_id"]: row["title"] for row in listed["sessions"]}


# -- the rollout's event ----------------------------------------------------------------


def test_a_rename_in_the_rollout_titles_list_show_export_and_the_tokens_table(isolated_home: Path,
                                                                             tmp_path: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN, renames=[thread_name_updated(at(5), MAIN, "Release checklist")]))
    assert _titles() == {MAIN: "Release checklist"}
    assert _run(["show", "--json", MAIN])["session"]["title"] == "Release checklist"
    out = tmp_path / "out.jsonl"
    _run(["export", "--format", "jsonl", "--output", str(out)])
    assert [orjson.loads(line)["title"] for line in out.read_bytes().splitlines()] == ["Release checklist"]
    table = _run(["tokens", "--no-cache", "--provider", "codex"])["text"]
    assert "Release checklist" in table and PROMPT not in table


def test_the_latest_rename_wins_and_blank_or_foreign_ones_are_no_names(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN, renames=[
        thread_name_updated(at(5), MAIN, "First name"),
        thread_name_updated(at(6), MAIN, "Release   checklist\n"),  # whitespace collapsed, as a title's
        thread_name_updated(at(7), MAIN, "   "),  # blank: no name (Codex skips it too)
        thread_name_updated(at(8), MAIN, None),
        thread_name_updated(at(9), OTHER, "Another thread's name"),
    ]))
    assert _titles() == {MAIN: "Release checklist"}
    assert _run(["show", "--json", MAIN])["session"]["title"] == "Release checklist"


def test_a_fork_does_not_take_the_name_its_copied_history_gave_its_parent(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    parent = _conversation(MAIN, renames=[thread_name_updated(at(5), MAIN, "Parent's name")])
    _write(codex, MAIN, parent)
    fork = [meta(FORK, at(20), forked_from=MAIN), *parent, user_message(at(21), "now the fork's own prompt")]
    _write(codex, FORK, fork, start=20)
    titles = _titles()
    assert titles[MAIN] == "Parent's name"
    # Its own first prompt (pass 46: not the one its copied history starts with), not the parent's name.
    assert titles[FORK] == "now the fork's own prompt"


def test_a_session_whose_parent_rollout_is_gone_takes_its_subagents_name(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    child = _conversation(CHILD, spawn_parent=MAIN, prompt="review the importer",
                          renames=[thread_name_updated(at(5), CHILD, "Importer review")])
    _write(codex, CHILD, child)
    assert _titles() == {MAIN: "Importer review"}


def test_list_reads_a_rename_only_in_the_window_it_reads_and_show_reads_it_anywhere(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rename in the middle of a rollout larger than the tail window: ``list`` does not see it
    (the title stays the first prompt), ``show`` reads every line; ``session_index.jsonl``
    names it for both."""
    codex = isolated_home / ".codex"
    filler = [agent_message(at(10 + n), "x" * 200) for n in range(40)]
    records = _conversation(MAIN, renames=[thread_name_updated(at(5), MAIN, "Named early"), *filler])
    _write(codex, MAIN, records)
    monkeypatch.setattr(headtail, "TAIL_BYTES", 2048)
    headtail._TAIL_CACHE.clear()
    assert _titles("--no-cache") == {MAIN: PROMPT}
    assert _run(["show", "--json", "--no-cache", MAIN])["session"]["title"] == "Named early"
    write_session_index(codex, [session_index_entry(MAIN, "Named early", at(5))])
    assert _titles("--no-cache") == {MAIN: "Named early"}


# -- session_index.jsonl --------------------------------------------------------------------


def test_session_index_names_threads_the_last_entry_of_an_id_winning(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    _write(codex, OTHER, _conversation(OTHER, prompt="another prompt"), start=30)
    write_session_index(codex, [
        session_index_entry(MAIN, "Old name", at(100)),
        session_index_entry(OTHER.upper(), "Other's name", at(101)),  # ids are matched as Codex writes them, any case
        session_index_entry(MAIN, "Release checklist", at(102)),
        session_index_entry("019a0000-0000-7000-8000-0000000000ff", "No such thread", at(103)),
        session_index_entry(MAIN, "", at(104)),  # blank: no name
    ])
    assert _titles() == {MAIN: "Release checklist", OTHER: "Other's name"}
    assert _run(["show", "--json", MAIN])["session"]["title"] == "Release checklist"


def test_each_codex_home_has_its_session_index(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = isolated_home / "one", isolated_home / "two"
    _write(one, MAIN, _conversation(MAIN))
    _write(two, OTHER, _conversation(OTHER))
    write_session_index(one, [session_index_entry(MAIN, "Named in one", at(100))])
    write_session_index(two, [session_index_entry(OTHER, "Named in two", at(100))])
    monkeypatch.setenv("CODEX_HOME", f"{one},{two}")
    assert _titles() == {MAIN: "Named in one", OTHER: "Named in two"}


def test_bad_session_index_lines_are_warnings_never_a_failure(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    path = write_session_index(codex, [
        b"{oops",
        b"[1, 2]",
        orjson.dumps({"id": 5, "thread_name": "no id"}),
        orjson.dumps({"id": MAIN, "thread_name": None}),
        orjson.dumps(session_index_entry(MAIN, "Release checklist", at(100))),
        b'{"id": "' + MAIN.encode() + b'", "thread_na',  # still being written
    ], newline=False)
    listed = _run(["list", "--json", "--provider", "codex"])
    assert [row["title"] for row in listed["sessions"]] == ["Release checklist"]
    said = [(w["path"], w.get("line"), w["message"]) for w in listed["warnings"]]
    assert [(p, line) for p, line, _ in said] == [(str(path), n) for n in (1, 2, 3, 4, 6)]
    assert said[0][2].startswith("invalid JSON skipped")
    assert "truncated last line" in said[-1][2]
    _run(["list", "--json", "--strict", "--provider", "codex"], code=1)  # the bad lines count for --strict
    assert _run(["show", "--json", MAIN])["session"]["title"] == "Release checklist"


def test_only_the_end_of_a_large_session_index_is_read(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    _write(codex, OTHER, _conversation(OTHER, prompt="another prompt"), start=30)
    entries = [session_index_entry(OTHER, "Named long ago", at(1))]
    entries += [session_index_entry(f"019a0000-0000-7000-8000-{n:012x}", "filler", at(2)) for n in range(200)]
    entries += [session_index_entry(MAIN, "Named lately", at(3))]
    write_session_index(codex, entries)
    monkeypatch.setattr(names, "INDEX_BYTES", 4096)
    listed = _run(["list", "--json", "--no-cache", "--provider", "codex"])
    assert {row["native_id"]: row["title"] for row in listed["sessions"]} == {MAIN: "Named lately",
                                                                             OTHER: "another prompt"}
    assert listed["warnings"] == []  # the window's cut first line is not a bad line
    with Scanner(home=isolated_home, env={}, use_cache=False) as scanner:
        said = CodexProvider().diagnostics(scanner.ctx)
    assert any(line.startswith(f"{codex / 'session_index.jsonl'}: only its last ") for line in said), said


def test_a_session_index_that_is_no_regular_file_or_links_out_is_skipped(isolated_home: Path, tmp_path: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(orjson.dumps(session_index_entry(MAIN, "Not from here", at(100))) + b"\n")
    (codex / "session_index.jsonl").symlink_to(outside)
    listed = _run(["list", "--json", "--provider", "codex"])
    assert [row["title"] for row in listed["sessions"]] == [PROMPT]
    assert [w["message"] for w in listed["warnings"]] == ["points outside its Codex home; skipped"]
    (codex / "session_index.jsonl").unlink()
    os.mkfifo(codex / "session_index.jsonl")  # never opened for a read that would wait
    listed = _run(["list", "--json", "--no-cache", "--provider", "codex"])
    assert [row["title"] for row in listed["sessions"]] == [PROMPT]
    assert [w["message"].startswith("cannot read") for w in listed["warnings"]] == [True]


# -- precedence ---------------------------------------------------------------------------


@pytest.mark.parametrize(("event", "index_file", "database", "expected"), [
    (5, 20, None, "from session_index"),  # a later rename Codex wrote to the session index only
    (20, 5, None, "from the rollout"),
    (5, 3, 8, "from the database"),  # the thread index's row changed after both (not after the rollout)
    (20, 5, 8, "from the rollout"),  # its row is older: its name is older too
    (None, None, 8, "from the database"),  # older than the rollout, still the thread's name
    (7, 7, 7, "from the rollout"),  # equal times: the rollout, then the session index
    (None, 7, 7, "from session_index"),
])
def test_the_newest_name_wins(isolated_home: Path, event, index_file, database, expected) -> None:
    codex = isolated_home / ".codex"
    renames = [thread_name_updated(at(event), MAIN, "from the rollout")] if event is not None else []
    main = _write(codex, MAIN, _conversation(MAIN, renames=renames))
    if index_file is not None:
        write_session_index(codex, [session_index_entry(MAIN, "from session_index", at(index_file))])
    if database is not None:
        write_state_db(codex / "state_5.sqlite", [
            index_row(MAIN, main, created=at(0), updated=at(database), title="index title", name="from the database")],
            columns=INDEX_COLUMNS_WITH_NAME)
    assert _titles() == {MAIN: expected}
    assert _run(["show", "--json", MAIN])["session"]["title"] == expected
    table = _run(["tokens", "--no-cache", "--provider", "codex"])["text"]
    assert expected in table


def test_a_name_beats_a_newer_thread_index_title_and_a_cleared_name_is_none(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    main = _write(codex, MAIN, _conversation(MAIN, renames=[thread_name_updated(at(5), MAIN, "Release checklist")]))
    _write(codex, OTHER, _conversation(OTHER, prompt="another prompt"), start=30)
    other = rollout_path(codex, OTHER, at(30))
    columns = (*INDEX_COLUMNS_WITH_NAME, "name_state TEXT")
    write_state_db(codex / "state_5.sqlite", [
        index_row(MAIN, main, created=at(0), updated=at(500), title="Codex's own title"),
        index_row(OTHER, other, created=at(30), updated=at(500), title="Codex's title", name="Cleared name",
                  name_state="cleared"),
    ], columns=columns)
    assert _titles() == {MAIN: "Release checklist", OTHER: "Codex's title"}


# -- the cache ------------------------------------------------------------------------------


def test_a_warm_run_gives_what_a_cold_one_does_and_sees_a_rename(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN, renames=[thread_name_updated(at(5), MAIN, "From the rollout")]))
    _write(codex, OTHER, _conversation(OTHER, prompt="another prompt"), start=30)
    write_session_index(codex, [session_index_entry(OTHER, "Other's name", at(40))])
    cold = _run(["list", "--json", "--no-cache"])
    assert {row["native_id"]: row["title"] for row in cold["sessions"]} == {MAIN: "From the rollout",
                                                                           OTHER: "Other's name"}
    first, warm = _run(["list", "--json"]), _run(["list", "--json"])
    assert first == cold and warm == cold
    table = _run(["tokens", "--provider", "codex"])["text"]
    assert _run(["tokens", "--provider", "codex"])["text"] == table == _run(
        ["tokens", "--no-cache", "--provider", "codex"])["text"]
    # Renamed where only the session index says so: the kept rows and table do not stand.
    write_session_index(codex, [session_index_entry(OTHER, "Other's name", at(40)),
                                session_index_entry(MAIN, "Renamed later", at(60))])
    renamed = _run(["list", "--json"])
    assert {row["native_id"]: row["title"] for row in renamed["sessions"]} == {MAIN: "Renamed later",
                                                                              OTHER: "Other's name"}
    assert renamed == _run(["list", "--json", "--no-cache"])
    assert "Renamed later" in _run(["tokens", "--provider", "codex"])["text"]


def test_doctor_says_which_session_index_named_threads(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    path = write_session_index(codex, [session_index_entry(MAIN, "Release checklist", at(100))])
    with Scanner(home=isolated_home, env={}, use_cache=False) as scanner:
        lines = CodexProvider().diagnostics(scanner.ctx)
    assert f"thread names: {path} (1 listed thread named)" in lines


# -- tokens' table: its facts are the row's -------------------------------------------------


def _facts(home: Path) -> list[tuple[TableFacts | None, TableFacts]]:
    with Scanner(home=home, env={}, use_cache=False) as scanner:
        provider = scanner.provider("codex")
        out = []
        for ref in provider.discover(scanner.ctx):
            row = provider.row(ref, scanner.ctx)
            out.append((CodexProvider().table_facts(ref, scanner.ctx), TableFacts(row.updated_at, row.cwd, row.title)))
        return out


@pytest.mark.parametrize("window", ["none", "late", "whole"])
@pytest.mark.parametrize("indexed", [None, 3, 50])
@pytest.mark.parametrize("listed", [None, 4, 40])
def test_the_table_facts_name_the_session_as_its_row(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                     window: str, indexed: int | None, listed: int | None) -> None:
    codex = isolated_home / ".codex"
    main = _write(codex, MAIN, _conversation(MAIN, renames=[
        thread_name_updated(at(5), MAIN, "Early name"),
        agent_message(at(6), "y" * 300),
        thread_name_updated(at(7), OTHER, "Not this thread's"),
        thread_name_updated(at(8), MAIN, "Late name"),
        agent_message(at(9), "z" * 200),
    ]))
    _write(codex, CHILD, _conversation(CHILD, spawn_parent=MAIN, renames=[
        thread_name_updated(at(15), CHILD, "Subagent's name")]), start=10)
    if indexed is not None:
        write_state_db(codex / "state_5.sqlite", [
            index_row(MAIN, main, created=at(0), updated=at(indexed), title="index title", name="index name")],
            columns=INDEX_COLUMNS_WITH_NAME)
    if listed is not None:
        write_session_index(codex, [session_index_entry(MAIN, "session index name", at(listed))])
    data = main.read_bytes()
    # The tail window holds no rename, the later two (the other thread's and the late one), or all.
    late = len(data) - data.rfind(b"\n", 0, data.index(b"Not this thread's"))
    monkeypatch.setattr(headtail, "TAIL_BYTES", {"none": 300, "late": late, "whole": 1 << 20}[window])
    headtail._TAIL_CACHE.clear()
    ((found, row),) = _facts(isolated_home)
    assert found is not None and found == row
    candidates = [(at(8), "Late name")] if window != "none" else []
    candidates += [(at(when), name) for when, name in ((indexed, "index name"), (listed, "session index name"))
                   if when is not None]
    assert row.title == (max(candidates)[1] if candidates else PROMPT)


def test_the_table_facts_of_a_session_without_its_parent_rollout_are_its_rows(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, CHILD, _conversation(CHILD, spawn_parent=MAIN, renames=[
        thread_name_updated(at(5), CHILD, "Subagent's name")]))
    ((found, row),) = _facts(isolated_home)
    assert found == row and row.title == "Subagent's name"


def test_an_escaped_event_type_is_left_to_the_row(isolated_home: Path) -> None:
    """A type spelled with a JSON escape is the same event to the row's decoder and invisible to a
    search of bytes: the table reads the row then."""
    codex = isolated_home / ".codex"
    path = _write(codex, MAIN, _conversation(MAIN))
    escaped = (b'{"timestamp":"2026-03-02T09:00:05.000Z","type":"event_msg","payload":'
               b'{"type":"thread_name\\u005fupdated","thread_id":"' + MAIN.encode() + b'","thread_name":"Escaped"}}\n')
    path.write_bytes(path.read_bytes() + escaped)
    ((found, row),) = _facts(isolated_home)
    assert found is None and row.title == "Escaped"


@pytest.mark.parametrize(("updated_at", "expected"), [
    # 09:00:10Z, before the rollout's 09:00:20Z, though its clock reads later
    ("2026-03-02T10:00:10+01:00", "from the rollout"),
    # 09:00:30Z, after it, though its clock reads earlier
    ("2026-03-02T08:00:30-01:00", "from session_index"),
])
def test_name_times_compare_as_instants(isolated_home: Path, updated_at: str, expected: str) -> None:
    """An offset time and a UTC one are compared as the instants they are, not as their clocks read."""
    codex = isolated_home / ".codex"
    assert at(20) == datetime.fromisoformat("2026-03-02T09:00:20+00:00")  # the premise
    _write(codex, MAIN, _conversation(MAIN, renames=[thread_name_updated(at(20), MAIN, "from the rollout")]))
    write_session_index(codex, [{"id": MAIN, "thread_name": "from session_index", "updated_at": updated_at}])
    assert _titles() == {MAIN: expected}
    assert _run(["show", "--json", MAIN])["session"]["title"] == expected


# -- a paginated thread: a rename in a part a rollback left ---------------------------------

PAGED = "019a1111-0000-7000-8000-000000000001"
LIVE_SEGMENT = "019a1111-0000-7000-8000-000000000002"
LEFT_SEGMENT = "019a1111-0000-7000-8000-000000000003"
REVERTED_NAME = "Named in the reverted turn"


def _paginated(codex: Path, where: str) -> None:
    """Thread ``PAGED``: its first file, then a rollback to after the first turn, continued in
    ``LIVE_SEGMENT``.  The rename is in the turn the rollback left (past the first file's
    cut-off: ``reverted``), or in another continuation left behind (``branch``: a segment
    whose cut-off is 0), as ``_paginated_home`` in test_codex_recovery.py lays it out."""
    calls = Calls()
    root = [paginated(meta(PAGED, at(0)), ordinal=0), turn_context(at(0)), user_message(at(1), "first prompt"),
            calls.call(at(5), 1000, 0, 100), agent_message(at(6), "answer one")]
    boundary = len(b"".join(orjson.dumps(record) + b"\n" for record in root))
    reverted = [user_message(at(10), "reverted prompt")]
    if where == "reverted":
        reverted.append(thread_name_updated(at(11), PAGED, REVERTED_NAME))
    root += [*reverted, calls.call(at(12), 2000, 1000, 200), agent_message(at(13), "answer two")]
    write_rollout(rollout_path(codex, PAGED, at(0)), root, mtime=at(14).timestamp())
    if where == "branch":
        write_rollout(rollout_path(codex, LEFT_SEGMENT, at(15)), [
            paginated(meta(PAGED, at(0)), base=(PAGED, boundary), ordinal=5), turn_context(at(15)),
            user_message(at(16), "abandoned prompt"), thread_name_updated(at(17), PAGED, REVERTED_NAME),
            agent_message(at(18), "abandoned answer")], mtime=at(18).timestamp())
    continued = Calls(total=usage(1000, 0, 100))
    write_rollout(rollout_path(codex, LIVE_SEGMENT, at(20)), [
        paginated(meta(PAGED, at(0)), base=(PAGED, boundary), ordinal=5), turn_context(at(20)),
        user_message(at(21), "edited prompt"), continued.call(at(22), 1500, 500, 120),
        agent_message(at(23), "answer three")], mtime=at(25).timestamp())


@pytest.mark.parametrize("where", ["reverted", "branch"])
def test_a_rename_a_rollback_left_names_the_thread_in_show_as_in_list(isolated_home: Path, tmp_path: Path,
                                                                      where: str) -> None:
    """A rollback does not undo a rename in Codex: ``show`` notes it past a segment's cut-off
    and in a branch left behind, as ``list``, ``export`` and the table read it in each file's
    window, without taking those lines into the conversation."""
    _paginated(isolated_home / ".codex", where)
    assert _titles("--no-cache") == {PAGED: REVERTED_NAME}
    session = _run(["show", "--json", "--no-cache", PAGED])["session"]
    assert session["title"] == REVERTED_NAME
    prompts = [prompt["text"] for prompt in session["prompts"]]
    assert "edited prompt" in prompts and "reverted prompt" not in prompts and "abandoned prompt" not in prompts
    out = tmp_path / "out.jsonl"
    _run(["export", "--format", "jsonl", "--no-cache", "--output", str(out)])
    assert [orjson.loads(line)["title"] for line in out.read_bytes().splitlines()] == [REVERTED_NAME]
    assert REVERTED_NAME in _run(["tokens", "--no-cache", "--provider", "codex"])["text"]
    ((found, row),) = _facts(isolated_home)
    assert found == row and row.title == REVERTED_NAME


def test_the_table_facts_read_one_window_at_a_time(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session of many subagents: its table facts hold one thread's window at a time, not
    every thread's at once (40 subagents of 1 MiB windows held 41 MiB)."""
    import tracemalloc

    codex = isolated_home / ".codex"
    window = 64 * 1024
    monkeypatch.setattr(headtail, "TAIL_BYTES", window)
    filler = [agent_message(at(10 + n / 1000), "x" * 1000) for n in range(2 * window // 1000)]
    _write(codex, MAIN, _conversation(MAIN, renames=filler))
    for n in range(12):
        child = f"019a0000-0000-7000-8000-0000000010{n:02x}"
        _write(codex, child, _conversation(child, spawn_parent=MAIN, prompt="sub", renames=filler), start=5)
    with Scanner(home=isolated_home, env={}, use_cache=False) as scanner:
        (ref,) = scanner.provider("codex").discover(scanner.ctx)
        assert CodexProvider().table_facts(ref, scanner.ctx) is not None  # heads and headers read once
        tracemalloc.start()
        try:
            assert CodexProvider().table_facts(ref, scanner.ctx) is not None
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    # One window's bytes are copied once as it is cut at a line (some 3 windows at the peak);
    # the 13 windows held at once came to 960 KiB.
    assert peak < 6 * window, peak


# -- the 64 other threads a rollout's names are kept for --------------------------------------


def test_a_threads_own_rename_is_kept_after_64_other_threads(isolated_home: Path, tmp_path: Path) -> None:
    codex = isolated_home / ".codex"
    others = [thread_name_updated(at(5), f"019a0000-0000-7000-8000-0000000020{n:02x}", f"name {n}")
              for n in range(names.MAX_NAMED_THREADS + 6)]
    _write(codex, MAIN, _conversation(MAIN, renames=[*others, thread_name_updated(at(6), MAIN, "Its own name")]))
    assert _titles("--no-cache") == {MAIN: "Its own name"}
    assert _run(["show", "--json", "--no-cache", MAIN])["session"]["title"] == "Its own name"
    ((found, row),) = _facts(isolated_home)
    assert found == row and row.title == "Its own name"


# -- reading session_index.jsonl: cheap, said in few warnings, kept when it cannot change -----


def test_only_the_discovered_threads_names_are_made(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session index's lines are only decoded: the names (cleaned, their times parsed) are
    made for the threads discovery found, not for every line (30,000 lines cost 200 ms)."""
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    write_session_index(codex, [
        *(session_index_entry(f"019a0000-0000-7000-8000-{n:012x}", f"filler {n}", at(2)) for n in range(300)),
        session_index_entry(MAIN, "Release checklist", at(3)),
    ])
    parsed = record_calls(monkeypatch, names, "parse_iso", lambda value: value)
    cleaned = record_calls(monkeypatch, names, "clean_name", lambda value: value)
    assert _titles("--no-cache") == {MAIN: "Release checklist"}
    assert parsed == [session_index_entry(MAIN, "", at(3))["updated_at"]]
    assert cleaned == ["Release checklist"]


def test_borrowing_the_codex_directories_reads_no_session_index(isolated_home: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Another provider that asks for the Codex sessions' directories (a Gemini chat in a
    hash-named project: ``known_cwds``) has no use for their names: the file is not read."""
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    write_session_index(codex, [session_index_entry(MAIN, "Release checklist", at(3))])
    reads = record_calls(monkeypatch, names, "_read", lambda path, ctx: path)
    with Scanner(home=isolated_home, env={}, use_cache=False) as scanner:
        assert CodexProvider().known_cwds(scanner.ctx) == {"/work/project"}
        assert reads == []
        (ref,) = CodexProvider().discover(scanner.ctx)  # the listing's discovery reads it
        assert reads == [codex / "session_index.jsonl"]
        assert CodexProvider().row(ref, scanner.ctx).title == "Release checklist"


def test_many_bad_session_index_lines_are_said_in_six_warnings_and_discovery_is_kept(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first bad lines are said with their numbers, the rest counted in one warning: a
    file of a million bad lines took seconds a run, and its discovery, with more warnings
    than a stored one keeps, was never stored (every warm run discovered afresh)."""
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    path = write_session_index(codex, [b"[]"] * 150 + [orjson.dumps(session_index_entry(MAIN, "Kept", at(3)))]
                               + [b"{oops"] * 2)
    discovered = record_calls(monkeypatch, CodexProvider, "discover", lambda self, ctx: self.name)
    cold = _run(["list", "--json", "--provider", "codex"])
    assert [row["title"] for row in cold["sessions"]] == ["Kept"]
    said = [(w["path"], w.get("line"), w["message"]) for w in cold["warnings"]]
    assert [(p, line) for p, line, _ in said] == [(str(path), n) for n in (1, 2, 3, 4, 5)] + [(str(path), None)]
    assert said[0][2].startswith("not a thread name entry")
    assert said[-1][2] == "… and 147 more bad lines in this file skipped"
    warm = _run(["list", "--json", "--provider", "codex"])
    assert warm == cold and discovered == ["codex"]  # the warm run took the stored discovery


def test_a_cut_session_index_counts_its_bad_lines_without_numbers(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    path = write_session_index(codex, [b"[1]"] * 400)
    monkeypatch.setattr(names, "INDEX_BYTES", 1000)
    listed = _run(["list", "--json", "--no-cache", "--provider", "codex"])
    said = [(w["path"], w.get("line"), w["message"]) for w in listed["warnings"]]
    # A window's lines have no number: one is said, then the count of the rest (1,001 bytes
    # read: 250 whole lines), which adds up to every bad line read.
    assert said == [(str(path), None, 'not a thread name entry ({"id", "thread_name", "updated_at"}): skipped'),
                    (str(path), None, f"… and 249 more bad lines in the last {names.window_text()} skipped")]


def _discoveries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return record_calls(monkeypatch, CodexProvider, "discover", lambda self, ctx: self.name)


def _directory(path: Path) -> None:
    path.mkdir()


def _loop(path: Path) -> None:
    path.symlink_to(path.name)


@pytest.mark.parametrize(("make", "put_right", "said"), [
    (_directory, Path.rmdir, "cannot read: not a regular file (a directory)"),
    (_loop, Path.unlink, "cannot read: Too many levels of symbolic links"),
])
def test_a_session_index_that_stays_unreadable_is_said_and_the_discovery_kept(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None],
        put_right: Callable[[Path], None], said: str) -> None:
    """A directory or a symlink loop stays so until someone puts it right: not a warning of
    something not read *this time* (``passing``), which kept every discovery from being stored
    (a warm ``list`` of 15,000 sessions took 2 s instead of 0.15 s)."""
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    make(codex / "session_index.jsonl")
    discovered = _discoveries(monkeypatch)
    cold = _run(["list", "--json", "--provider", "codex"])
    assert [w["message"] for w in cold["warnings"]] == [said]
    assert _run(["list", "--json", "--provider", "codex"]) == cold and discovered == ["codex"]
    # Put right: the next run sees it.
    put_right(codex / "session_index.jsonl")
    write_session_index(codex, [session_index_entry(MAIN, "Release checklist", at(3))])
    assert _titles() == {MAIN: "Release checklist"} and discovered == ["codex", "codex"]


def test_a_session_index_not_read_this_time_is_read_again(isolated_home: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A permission or an I/O error may pass: the discovery made without the file is not kept."""
    from agentscan.toolkit import fsutil

    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    index = write_session_index(codex, [session_index_entry(MAIN, "Release checklist", at(3))])
    real = fsutil.read_tail

    def refused(path: Path, limit: int) -> tuple[bytes, bool]:
        if path == index:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, limit)

    monkeypatch.setattr(fsutil, "read_tail", refused)
    discovered = _discoveries(monkeypatch)
    listed = _run(["list", "--json", "--provider", "codex"])
    assert [w["message"] for w in listed["warnings"]] == ["cannot read: Permission denied"]
    monkeypatch.setattr(fsutil, "read_tail", real)
    assert _titles() == {MAIN: "Release checklist"} and discovered == ["codex", "codex"]


def test_a_gemini_list_is_not_failed_by_an_unreadable_session_index(isolated_home: Path) -> None:
    """A Gemini chat in a hash-named project borrows the Codex sessions' directories: a Codex
    session index that cannot be read is Codex's trouble, not ``list -p gemini --strict``'s."""
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    (codex / "session_index.jsonl").mkdir()
    hash_named_chat(isolated_home, "/work/project")  # the cwd only the Codex session names
    for _ in range(3):  # cold, warm, warm again
        result = CliRunner().invoke(app, ["--strict", "list", "--json", "-p", "gemini"])
        assert result.exit_code == 0, result.output
        assert [row["cwd"] for row in orjson.loads(result.stdout)["sessions"]] == ["/work/project"]


def test_a_file_of_nothing_but_bad_lines_is_not_read_past_its_first_lines(isolated_home: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bad line costs a failed decode: a window of a million took seconds a discovery."""
    codex = isolated_home / ".codex"
    _write(codex, MAIN, _conversation(MAIN))
    path = write_session_index(codex, [b"{x"] * 300)
    monkeypatch.setattr(names, "NO_ENTRY_LINES", 100)
    listed = _run(["list", "--json", "--no-cache", "--provider", "codex"])
    said = [(w.get("line"), w["message"]) for w in listed["warnings"] if w["path"] == str(path)]
    assert said[-2:] == [(None, "… and 95 more bad lines in this file skipped"),
                         (None, "no thread name entry in its first 100 lines read: not read further "
                                "(not a session index?)")]
    # One good entry among its first lines, and the file is read to its end.
    write_session_index(codex, [b"{x"] * 50 + [orjson.dumps({"id": MAIN, "thread_name": "Kept", "updated_at": None})]
                        + [b"{x"] * 250)
    again = _run(["list", "--json", "--no-cache", "--provider", "codex"])
    assert not any("not read further" in w["message"] for w in again["warnings"])


def test_of_a_thread_s_files_the_newest_rename_wins_not_the_last_file() -> None:
    """An abandoned branch comes after the chain's earlier files: an older rename there must
    not win over a newer one in an earlier file."""
    from datetime import datetime, timezone

    older, newer = datetime(2026, 3, 1, tzinfo=timezone.utc), datetime(2026, 3, 2, tzinfo=timezone.utc)
    chain = (("t1", "Newer", newer),)
    branch = (("t1", "Older", older),)
    assert names.merged([chain, branch]) == (("t1", "Newer", newer),)
    assert names.merged([branch, chain]) == (("t1", "Newer", newer),)
    # Unknown or equal times: the later file, as before.
    assert names.merged([chain, (("t1", "Later file", None),)]) == (("t1", "Later file", None),)
    assert names.merged([chain, (("t1", "Same time", newer),)]) == (("t1", "Same time", newer),)


def test_the_census_stats_the_folder_of_a_session_index_that_links_out_of_its_home(tmp_path: Path) -> None:
    """A link out of the Codex home is never read, and what it leads to may change each run
    (``/proc/self/environ``): the census watches the folder, so warm runs keep discovery."""
    from agentscan.providers.codex.provider import _census_path

    home = tmp_path / ".codex"
    home.mkdir()
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(b"")
    link = home / "session_index.jsonl"
    link.symlink_to(outside)
    assert _census_path(link) == str(home)
    inside = home / "real.jsonl"
    inside.write_bytes(b"")
    link.unlink()
    link.symlink_to(inside)
    assert _census_path(link) == str(link)
