"""``list --grep`` rules out Codex sessions by their table facts' models (``TableFacts.models``,
``providers/codex/tablefacts.py``): every name the row's ``model`` may be, from the naming
thread's windows, its files' kept tallies and the thread index, or none where unsure.

A row's model must be one of them whenever they are named: at the time they are found, and
after (the facts are kept for the same files while a whole pass may keep a tally later).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.codex import fullcounts, headtail
from agentscan.providers.codex import threadfacts as codex_threadfacts
from agentscan.providers.codex.provider import CodexProvider
from agentscan.scan import factfilter
from agentscan.scan.scanner import Scanner
from codex_builders import (
    Calls,
    at,
    compacted,
    index_row,
    line,
    meta,
    paginated,
    rollout_path,
    task_started,
    token_count,
    turn_context,
    usage,
    usage_record,
    user_message,
    write_rollout,
    write_state_db,
)
from conftest_hypothesis import FUZZ
from spies import record_results

MAIN = "019a0000-0000-7000-8000-00000000aaaa"
CHILD = "019a0000-0000-7000-8000-00000000bbbb"
PARENT = "019a0000-0000-7000-8000-00000000cccc"  # a fork's origin (its rollout may be gone)
LIVE = "019a0000-0000-7000-8000-00000000dddd"  # a paginated thread's later file
MODELS = ("gpt-5-codex", "gpt-5.5", "o4-mini", "gpt-5.6-luna")

# -- the fuzz: one thread's lines, as operations ----------------------------------------------

_MODEL = st.sampled_from(MODELS)
_OPS = st.one_of(
    st.tuples(st.just("turn"), _MODEL),
    st.tuples(st.just("call"), st.integers(1, 60)),
    st.tuples(st.just("call_named"), _MODEL, st.integers(1, 60)),  # info.model
    st.tuples(st.just("record"), st.one_of(st.none(), _MODEL), st.integers(1, 60)),
    st.tuples(st.just("compacted"), st.one_of(st.none(), _MODEL), st.integers(1, 60)),
    st.tuples(st.just("filler"), st.integers(1, 8)),
    st.tuples(st.just("user"), st.sampled_from(["fix the tests", "ship it"])),
    st.sampled_from([
        ("no_info",),  # a token_count without info
        ("again",),  # the same total emitted again
        ("marker",),  # a fork's own first turn
        ("escaped_value",),  # a model spelled with an escape
        ("escaped_key",),  # a key spelled with an escape
        ("nested",),  # a model only a nested object names
        ("null_model",),
        ("broken",),  # an unfinished line
    ]),
)


def _lines(ops: list[tuple], start: int, calls: Calls) -> list[bytes]:
    out: list[bytes] = []
    for step, op in enumerate(ops):
        moment = at(start + step)
        kind = op[0]
        if kind == "turn":
            out.append(orjson.dumps(turn_context(moment, op[1])))
        elif kind == "call":
            out.append(orjson.dumps(calls.call(moment, op[1] * 10, 0, op[1])))
        elif kind == "call_named":
            record = calls.call(moment, op[2] * 10, 0, op[2])
            record["payload"]["info"]["model"] = op[1]
            out.append(orjson.dumps(record))
        elif kind in ("record", "compacted"):
            record = usage_record(moment, f"resp-{start}-{step}", usage(op[2] * 7, 0, op[2]))
            if op[1] is not None:
                record["payload"]["model"] = op[1]
            out.append(orjson.dumps(record if kind == "record" else compacted(moment, record)))
        elif kind == "filler":
            out.extend([orjson.dumps(line(moment, "response_item", {"type": "reasoning", "encrypted_content": "z" * 200}))]
                       * op[1])
        elif kind == "user":
            out.append(orjson.dumps(user_message(moment, op[1])))
        elif kind == "no_info":
            out.append(orjson.dumps(token_count(moment, None)))
        elif kind == "again":
            out.append(orjson.dumps(token_count(moment, dict(calls.total))))
        elif kind == "marker":
            out.append(orjson.dumps(task_started(moment)))
        elif kind == "escaped_value":
            out.append(orjson.dumps(turn_context(moment, "gpt-5.5")).replace(b'"gpt-5.5"', b'"gpt\\u002d5.5"'))
        elif kind == "escaped_key":
            out.append(orjson.dumps(turn_context(moment, "o4-mini")).replace(b'"model"', b'"mod\\u0065l"'))
        elif kind == "nested":
            out.append(orjson.dumps(line(moment, "response_item", {"type": "x", "meta": {"model": "nested-model"}})))
        elif kind == "null_model":
            out.append(orjson.dumps(line(moment, "turn_context", {"cwd": "/w", "model": None})))
        else:
            out.append(b'{"type":"turn_context","payload":{"model":"cut')  # no time: the facts' time stands
    return out


def _write(path: Path, first: dict, lines: list[bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join([orjson.dumps(first), *lines]) + b"\n")
    os.utime(path, (at(0).timestamp(), at(0).timestamp()))
    return path


def _build(home: Path, shape: str, ops: list[tuple], more: list[tuple], indexed: str | None) -> Path:
    """The session to check (``shape``), ``ops`` its model thread's lines (``more``: a later
    file's, or its subagent's); returns the file the thread's lines end in."""
    codex = home / ".codex"
    calls = Calls()
    if shape == "paged":
        root = _write(rollout_path(codex, MAIN, at(0)), paginated(meta(MAIN, at(0)), ordinal=0), _lines(ops, 1, calls))
        live = _write(rollout_path(codex, LIVE, at(500)), paginated(meta(MAIN, at(0)), base=(MAIN, 10), ordinal=3),
                      _lines(more, 500, Calls(total=dict(calls.total))))
        main_path, last = root, live
    elif shape == "subagent":  # its parent's rollout is gone: the subagent is the row
        main_path = last = _write(rollout_path(codex, CHILD, at(0)), meta(CHILD, at(200), spawn_parent=PARENT),
                                  _lines(ops, 1, calls) + _lines(more, 300, calls))
    else:
        first = meta(MAIN, at(200), forked_from=PARENT) if shape == "fork" else meta(MAIN, at(0))
        main_path = last = _write(rollout_path(codex, MAIN, at(0)), first, _lines(ops, 1, calls))
        if shape == "fork":  # the parent, whose calls tell a markerless fork's copy
            _write(rollout_path(codex, PARENT, at(0)), meta(PARENT, at(0)), _lines(ops[:4], 1, Calls()))
        if shape == "child":  # a subagent's models are not the row's
            _write(rollout_path(codex, CHILD, at(300)), meta(CHILD, at(300), spawn_parent=MAIN),
                   _lines(more, 300, Calls()))
    if indexed is not None and shape != "subagent":
        write_state_db(codex / "state_5.sqlite", [index_row(MAIN, main_path, created=at(0), updated=at(1),
                                                            model=indexed)])
    return last


def _scanner(home: Path, cache: bool) -> Scanner:
    env = {"AGENTSCAN_CACHE_DIR": str(home.parent / "cache"), "AGENTSCAN_DATA_DIR": str(home.parent / "data")}
    scanner = Scanner(home=home, env=env, use_cache=cache)
    assert (scanner.cache is not None) == cache  # opened: the passes read (and keep) tallies there
    return scanner


def _checked(home: Path, cache: bool, wanted: str = MAIN) -> dict[str, Any]:
    """The session's facts with and without models, and its row (a fresh pass), in that order."""
    headtail._TAIL_CACHE.clear()
    headtail._HEAD_CACHE.clear()
    with _scanner(home, cache) as scanner:
        provider = scanner.provider("codex")
        ref = next(ref for ref in provider.discover(scanner.ctx) if ref.native_id == wanted)
        found = CodexProvider().table_facts(ref, scanner.ctx, models=True)
        plain = CodexProvider().table_facts(ref, scanner.ctx)
        row = provider.row(ref, scanner.ctx)
    if found is None:
        assert plain is None
    else:
        assert plain is not None and found[:3] == plain[:3] and plain.models is None
        assert found.models is None or row.model is None or row.model in found.models, (row.model, found.models)
    return {"found": found, "row": row}


def _keep_tallies(home: Path) -> None:
    """A whole pass over the session (``tokens``), which keeps each file's tally."""
    with _scanner(home, True) as scanner:
        provider = scanner.provider("codex")
        refs = provider.discover(scanner.ctx)
        provider.usage(refs, scanner.ctx)


@FUZZ
@given(shape=st.sampled_from(["plain", "fork", "subagent", "child", "paged"]),
       ops=st.lists(_OPS, max_size=14), more=st.lists(_OPS, max_size=6),
       indexed=st.one_of(st.none(), st.sampled_from(["gpt-index-only", *MODELS])),
       window=st.sampled_from([400, 1500, 1 << 20]), head=st.sampled_from([600, 1 << 20]),
       cache=st.booleans(), tally=st.booleans(), grow=st.lists(_OPS, max_size=4))
def test_the_row_model_is_among_the_facts_models(tmp_path_factory: pytest.TempPathFactory, shape, ops, more, indexed,
                                                 window, head, cache, tally, grow) -> None:
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(headtail, "TAIL_BYTES", window)  # a window that misses the first models, or all
        patch.setattr(codex_threadfacts, "REPLAY_HEAD_BYTES", head)  # a fork's copy read in its head, or past it
        patch.setattr(fullcounts, "WHOLE_BYTES", 100)  # a whole pass keeps a small file's tally too
        last = _build(home, shape, ops, more, indexed)
        wanted = PARENT if shape == "subagent" else MAIN  # a subagent whose parent is gone: under its id
        before = _checked(home, cache, wanted)
        if cache and tally:
            _keep_tallies(home)
            after = _checked(home, cache, wanted)
            # The facts found before the tally are kept for the same files: they still hold.
            models = before["found"].models if before["found"] is not None else None
            assert models is None or after["row"].model is None or after["row"].model in models
            if grow:  # the file goes on: the tally is brought up to date from where it stopped
                with last.open("ab") as handle:
                    handle.write(b"\n".join(_lines(grow, 900, Calls(total=usage(10**6)))) + b"\n")
                _checked(home, cache, wanted)
    escaped = any(op[0].startswith("escaped") for op in [*ops, *more])
    if window == 1 << 20 and not escaped and before["found"] is not None:  # all in the window: sure of them
        assert before["found"].models is not None


def test_a_model_only_a_large_file_s_tally_names_is_named(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first calls, on a model the window no longer holds, make the row's model once a whole
    pass kept the file's tally: the facts name it then, and not before (they would be kept)."""
    monkeypatch.setattr(headtail, "TAIL_BYTES", 600)
    monkeypatch.setattr(fullcounts, "WHOLE_BYTES", 100)
    calls = Calls()
    ops = [("turn", "gpt-5.6-luna"), ("call", 5), ("call", 6), ("call", 7), ("filler", 6), ("turn", "o4-mini"),
           ("call", 8)]
    _write(rollout_path(isolated_home / ".codex", MAIN, at(0)), meta(MAIN, at(0)), _lines(ops, 1, calls))
    before = _checked(isolated_home, cache=True)
    assert before["row"].model == "o4-mini" and before["found"].models is None
    # No tally can be kept, and the row's model may be one a turn begun before the window ran on
    # (``turnseed``): not sure, so the row is read.
    assert _checked(isolated_home, cache=False)["found"].models is None
    _keep_tallies(isolated_home)
    after = _checked(isolated_home, cache=True)
    assert after["row"].model == "gpt-5.6-luna" and after["found"].models == ("gpt-5.6-luna", "o4-mini")


def test_a_model_spelled_with_an_escape_leaves_the_models_unnamed(isolated_home: Path) -> None:
    calls = Calls()
    _write(rollout_path(isolated_home / ".codex", MAIN, at(0)), meta(MAIN, at(0)),
           _lines([("escaped_value",), ("call", 5), ("broken",), ("turn", "o4-mini")], 1, calls))
    checked = _checked(isolated_home, cache=False)
    assert checked["row"].model == "gpt-5.5" and checked["found"].models is None and checked["found"].cwd


def test_the_index_model_and_a_turn_after_a_broken_line_are_named(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    path = _write(rollout_path(codex, MAIN, at(0)), meta(MAIN, at(0)),
                  _lines([("user", "ship it"), ("broken",), ("turn", "o4-mini")], 1, Calls()))
    write_state_db(codex / "state_5.sqlite", [index_row(MAIN, path, created=at(0), updated=at(1), model="gpt-idx")])
    checked = _checked(isolated_home, cache=False)
    assert checked["row"].model == "o4-mini" and checked["found"].models == ("gpt-idx", "o4-mini")
    _write(path, meta(MAIN, at(0)), _lines([("user", "ship it")], 1, Calls()))
    checked = _checked(isolated_home, cache=False)
    assert checked["row"].model == "gpt-idx" and checked["found"].models == ("gpt-idx",)


# -- list, with and without the facts ---------------------------------------------------------

runner = CliRunner()


def _thread(number: int) -> str:
    return f"019a{number:04x}-0000-7000-8000-000000000001"


def _home(home: Path) -> None:
    """Codex sessions whose title, cwd, model, index model or (past their window) first model
    alone holds the word ``quokka``; the rest hold it nowhere."""
    codex = home / ".codex"
    rows = []
    for number in range(80):
        thread, start = _thread(number), 3600 * number
        cwd = "/src/quokka-service" if number % 11 == 4 else f"/src/app{number % 3}"
        prompt = "feed the quokka" if number % 13 == 6 else f"task {number}"
        model = "gpt-quokka-1" if number % 9 == 2 else "gpt-5-codex"
        calls = Calls()
        records = [meta(thread, at(start), cwd=cwd), user_message(at(start + 1), prompt)]
        if number % 10 != 7:  # else its model is the index's alone
            records += [turn_context(at(start + 1), model, cwd=cwd), calls.call(at(start + 2), 100, 0, 10)]
        if number % 15 == 8:  # three calls on the word's model, then past the window one on another
            records += [turn_context(at(start + 3), "gpt-quokka-early")]
            records += [calls.call(at(start + 4 + n), 100, 0, 10) for n in range(3)]
            records += [line(at(start + 8), "response_item", {"type": "reasoning", "encrypted_content": "z" * 2000})]
            records += [turn_context(at(start + 9), "gpt-5-codex"), calls.call(at(start + 10), 100, 0, 10)]
        path = write_rollout(rollout_path(codex, thread, at(start)), records, mtime=at(start + 20).timestamp())
        rows.append(index_row(thread, path, created=at(start), updated=at(start),
                              model="gpt-quokka-idx" if number % 10 == 7 else "gpt-5-codex"))
    write_state_db(codex / "state_5.sqlite", rows)


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of a few hundred bytes (a home of large rollouts, in small); facts for a few sessions."""
    monkeypatch.setattr(headtail, "TAIL_BYTES", 1500)
    monkeypatch.setattr(fullcounts, "WHOLE_BYTES", 100)
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 4)


def _run(*args: str) -> tuple[int, str, str]:
    headtail._TAIL_CACHE.clear()
    headtail._HEAD_CACHE.clear()
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _codex_ruled(ruled: list[factfilter.Ruled | None]) -> set[str]:
    return {session for found in ruled if found is not None for session in found.out if session.startswith("codex:")}


def _snapshot(tmp_path: Path) -> Path:
    """A copy of the index as it is now, to run ``list`` on later as if it were now: a ``list``
    changes it (it keeps rows, and the tallies of the sessions it prices)."""
    copy = tmp_path / f"index-copy-{len(list(tmp_path.glob('index-copy-*')))}"
    shutil.copytree(os.environ["AGENTSCAN_CACHE_DIR"], copy)
    return copy


def _unfiltered(monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], index: Path | None) -> tuple[int, str, str]:
    """``argv`` with every row read (no facts), on ``index`` (a snapshot), else without one."""
    with monkeypatch.context() as patch:
        patch.setattr(factfilter, "MIN_SESSIONS", 10**9)
        if index is None:
            return _run("--no-cache", *argv)
        patch.setenv("AGENTSCAN_CACHE_DIR", str(index))
        return _run(*argv)


@pytest.mark.parametrize("args", [
    ("--grep", "quokka", "--all"), ("--grep", "QUOKKA-1"), ("--grep", "quokka-idx", "--all"), ("--grep", "codex"),
    ("--grep", "no such word"), ("--grep", "task 1", "--all"), ("--cwd", "/src/app1", "--grep", "quokka"),
])
@pytest.mark.parametrize("json_out", [True, False])
def test_list_prints_what_every_row_read_prints(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                small_windows: None, args: tuple[str, ...], json_out: bool) -> None:
    _home(isolated_home)
    argv = ("list", *args, *(["--json"] if json_out else []))
    ruled = record_results(monkeypatch, factfilter, "ruled_out")
    cold = _run(*argv)
    assert cold == _unfiltered(monkeypatch, argv, None)
    index = _snapshot(tmp_path)
    warm = _run(*argv)  # facts kept; the rows of what the first run priced, with their tallies
    assert warm == _unfiltered(monkeypatch, argv, index)
    if args[1] != "codex":  # in every path
        assert _codex_ruled(ruled), "the facts left out no Codex session: the test tests nothing"


def test_a_tally_kept_after_the_facts_is_searched(isolated_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch, small_windows: None) -> None:
    """Facts kept by a first ``--grep``, then a whole pass keeps the tallies (``tokens``): a
    model of a file's first calls is the row's now, and ``--grep`` finds it."""
    _home(isolated_home)
    ruled = record_results(monkeypatch, factfilter, "ruled_out")
    assert _run("list", "--grep", "no such word")[0] == 0
    assert _codex_ruled(ruled)
    assert _run("tokens")[0] == 0
    argv = ("list", "--grep", "quokka-early", "--all", "--json")
    index = _snapshot(tmp_path)
    with_facts = _run(*argv)
    ids = {row["id"] for row in json.loads(with_facts[1])["sessions"]}
    assert ids == {f"codex:{_thread(n)}" for n in range(80) if n % 15 == 8}
    assert with_facts == _unfiltered(monkeypatch, argv, index)
