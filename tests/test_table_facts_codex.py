"""``tokens``' table beside a Codex session's sums: its date, project and title found from its
head, header, thread index and the bytes of its tail window (``providers/codex/tablefacts.py``),
without decoding every line of that window.  They must be the row's own, or there are none."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.model import TableFacts
from agentscan.providers.codex import headtail
from agentscan.providers.codex.provider import CodexProvider
from agentscan.scan.scanner import Scanner
from codex_builders import (
    agent_message,
    at,
    index_row,
    iso,
    line,
    meta,
    rollout_path,
    token_count,
    usage,
    user_message,
    write_demo,
    write_rollout,
    write_state_db,
)
from conftest_hypothesis import FUZZ

MAIN = "019a0000-0000-7000-8000-00000000aaaa"
CHILD = "019a0000-0000-7000-8000-00000000bbbb"


def _facts(home: Path) -> list[tuple[TableFacts | None, TableFacts]]:
    """Each session's facts from the bytes, and from its row."""
    scanner = Scanner(home=home, env={}, use_cache=False)
    with scanner:
        provider = scanner.provider("codex")
        refs = provider.discover(scanner.ctx)
        assert refs
        out = []
        for ref in refs:
            row = provider.row(ref, scanner.ctx)
            out.append((CodexProvider().table_facts(ref, scanner.ctx), TableFacts(row.updated_at, row.cwd, row.title,
                                                                                  archived=row.archived)))
        return out


_LINES = st.one_of(
    st.builds(lambda s, text: orjson.dumps(user_message(at(s), text)), st.integers(1, 500),
              st.sampled_from(["fix the tests", "", "  "])),
    st.builds(lambda s: orjson.dumps(agent_message(at(s), "done")), st.integers(1, 500)),
    st.builds(lambda s, n: orjson.dumps(token_count(at(s), usage(n, output=n))), st.integers(1, 500), st.integers(1, 99)),
    # A later time nested in a record; times that do not sort as text, or none.
    st.builds(lambda s, late: orjson.dumps(line(at(s), "event_msg", {"type": "x", "timestamp": iso(at(late))})),
              st.integers(1, 500), st.integers(1, 900)),
    st.sampled_from([
        orjson.dumps(line("2026-11-02T11:30:00+01:00", "event_msg", {"type": "agent_message", "message": "offset"})),
        orjson.dumps(line(None, "event_msg", {"type": "agent_message", "message": "no time"})),
        orjson.dumps({"timestamp": 1700000000, "type": "event_msg", "payload": {}}),
        rb'{"time\u0073tamp":"2099-01-01T00:00:00.000Z","type":"event_msg","payload":{}}',
    ]),
    st.builds(lambda s: json.dumps(agent_message(at(s), "spaced")).encode(), st.integers(1, 500)),
    st.sampled_from([b"{oops", b"", b"  ", b"[1]", b'{"timestamp":"2099-01-01T00:00:00.000Z", broken']),
)


def _write(path: Path, first: dict, lines: list[bytes], *, newline: bool) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join([orjson.dumps(first), *lines]) + (b"\n" if newline else b""))
    # Dated as its first record, so that the thread index's time may be newer than both the
    # rollout's last record and its mtime (then the index wins: ``row.index_is_newer``).
    os.utime(path, (at(0).timestamp(), at(0).timestamp()))
    return path


@FUZZ
@given(lines=st.lists(_LINES, max_size=12), child=st.one_of(st.none(), st.lists(_LINES, max_size=4)),
       indexed=st.one_of(st.none(), st.integers(0, 900)), window=st.sampled_from([64, 400, 1 << 20]),
       newline=st.booleans())
def test_the_facts_found_are_the_rows(tmp_path_factory: pytest.TempPathFactory, lines, child, indexed, window,
                                      newline) -> None:
    home = tmp_path_factory.mktemp("home")
    codex = home / ".codex"
    main = _write(rollout_path(codex, MAIN, at(0)), meta(MAIN, at(0), cwd="/work/main"), lines, newline=newline)
    if child is not None:
        _write(rollout_path(codex, CHILD, at(1)), meta(CHILD, at(1), spawn_parent=MAIN, cwd="/work/child"), child,
               newline=True)
    if indexed is not None:
        write_state_db(codex / "state_5.sqlite", [index_row(MAIN, main, created=at(0), updated=at(indexed),
                                                            title="index title", cwd="/work/indexed")])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(headtail, "TAIL_BYTES", window)  # a window cut mid-file, or the whole file
        headtail._TAIL_CACHE.clear()
        for found, row in _facts(home):
            assert found is None or found == row


def test_the_demo_sessions_are_settled_from_their_bytes(isolated_home: Path) -> None:
    write_demo(isolated_home)
    pairs = _facts(isolated_home)
    assert pairs and all(found == row for found, row in pairs)
    assert all(found is not None and found.title for found, _ in pairs)


def test_a_compressed_rollout_is_left_to_the_row(isolated_home: Path) -> None:
    records = [meta(MAIN, at(0)), user_message(at(1), "hello"), agent_message(at(2), "hi")]
    write_rollout(rollout_path(isolated_home / ".codex", MAIN, at(0), compressed=True), records)
    ((found, row),) = _facts(isolated_home)
    assert found is None and row.title == "hello"


def test_the_newest_time_nested_only_is_left_to_the_row(isolated_home: Path) -> None:
    records = [meta(MAIN, at(0)), user_message(at(1), "hello"),
               line(at(2), "event_msg", {"type": "x", "timestamp": iso(at(99))})]
    write_rollout(rollout_path(isolated_home / ".codex", MAIN, at(0)), records)
    ((found, row),) = _facts(isolated_home)
    assert found is None and row.updated_at == datetime.fromisoformat(iso(at(2)))


def test_the_index_wins_against_the_main_rollout_alone(isolated_home: Path) -> None:
    """The thread index's row is newer than the main rollout, not than its subagent's: its title wins."""
    codex = isolated_home / ".codex"
    main = _write(rollout_path(codex, MAIN, at(0)), meta(MAIN, at(0)), [orjson.dumps(user_message(at(10), "hello"))],
                  newline=True)
    _write(rollout_path(codex, CHILD, at(1)), meta(CHILD, at(1), spawn_parent=MAIN),
           [orjson.dumps(agent_message(at(100), "late"))], newline=True)
    write_state_db(codex / "state_5.sqlite", [index_row(MAIN, main, created=at(0), updated=at(50), title="index title")])
    ((found, row),) = _facts(isolated_home)
    assert found == row and found.title == "index title"


@pytest.mark.parametrize("in_workers", [False, True])
def test_the_table_is_the_one_its_rows_print(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                             in_workers: bool) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app
    from agentscan.scan import tablefacts as gathering
    from agentscan.toolkit import workers

    if in_workers and not workers.usable_workers():
        pytest.skip("needs two cores and fork")  # the CI machine has both
    write_demo(isolated_home)
    write_state_db(isolated_home / ".codex" / "state_5.sqlite", [
        index_row("019ab7c1-5e2f-7a30-9c41-2d8e6f0b1a57", Path("/nowhere"), created=at(0), updated=at(10**8),
                  title="index title")])
    monkeypatch.setattr(gathering, "MIN_BYTES", 0)
    monkeypatch.setattr(gathering, "MIN_SESSIONS", 1 if in_workers else 10**9)

    def run() -> tuple[str, str]:
        result = CliRunner().invoke(app, ["tokens", "--no-cache", "--provider", "codex"])
        assert result.exit_code == 0, result.output
        return result.stdout, result.stderr

    with_facts = run()
    monkeypatch.setattr(CodexProvider, "table_facts", lambda self, ref, ctx: None)
    assert run() == with_facts


def test_an_index_row_naming_another_thread_s_rollout_keeps_no_facts_of_it(isolated_home: Path) -> None:
    """A thread index row may point at another thread's rollout: it is ignored (pass 49; it made
    a second session of that file, whose facts were stamped with each session's id), and the
    facts kept under that file are its own thread's, on every run."""
    from agentscan.scan import tablefacts as gathering

    codex = isolated_home / ".codex"
    other = "019a0000-0000-7000-8000-00000000cccc"
    path = write_rollout(rollout_path(codex, MAIN, at(0)), [
        meta(MAIN, at(0)), user_message(at(1), "hello"), token_count(at(2), usage(100, output=10)),
        agent_message(at(3), "hi")], mtime=at(3).timestamp())
    write_state_db(codex / "state_5.sqlite", [
        index_row(MAIN, path, created=at(0), updated=at(1000), title="main title", cwd="/main"),
        index_row(other, path, created=at(0), updated=at(2000), title="other title", cwd="/other")])
    rows = {}
    with Scanner(home=isolated_home, env={}, use_cache=False) as scanner:
        provider = scanner.provider("codex")
        for ref in provider.discover(scanner.ctx):
            row = provider.row(ref, scanner.ctx)
            rows[ref.id] = TableFacts(row.updated_at, row.cwd, row.title)
    assert {facts.title for facts in rows.values()} == {"main title"}
    for _ in range(3):  # found and kept, then taken back
        with Scanner(home=isolated_home, use_cache=True) as scanner:
            refs = sorted(scanner.provider("codex").discover(scanner.ctx), key=lambda ref: ref.id)
            assert gathering.gather(scanner, refs) == rows
