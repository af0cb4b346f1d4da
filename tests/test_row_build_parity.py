"""Rows read in workers (``scan/rowbuild.py``) against rows read one after the other, over
more of what a home holds than ``test_row_build`` lays out (the review of c3a72fc): every
provider at once (Gemini and Cursor rows read here, among the travelling ones), Codex forks,
paginated threads and tallies brought up to date, Claude resume states, capped sums, a
row's warnings past what its capture keeps, filters, ``export``'s formats and ``otlp``.
Every output and every table of the index must be the same both ways."""

from __future__ import annotations

import os
import re
import sqlite3
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest

from agentscan.providers.claude import rowresume, windowed
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.codex import fullcounts, header, headtail
from agentscan.scan import rowbuild
from agentscan.toolkit import workers
from agentscan.sealing import unseal
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from codex_builders import Calls, at, meta, rollout_path, turn_context, user_message, write_rollout
from cursor_builders import copy_real_dot_cursor
from gemini_builders import lay_out_real_gemini
from test_codex_counting import _fork, _parent
from test_codex_recovery import _paginated_home
import test_row_build
from test_row_build import _session, lay_out, one_after_the_other, run

travelled = test_row_build.travelled  # the fixture: rows read in workers, the ids of those that were

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")

Step = list[str] | Callable[[Path], None]


def _fresh_process_caches() -> None:
    """What a new process starts with: Codex's header and head/tail caches live as long as the
    module, and a read they answer keeps no fact in the index (the second run would keep fewer)."""
    header._CACHE.clear()
    headtail._TAIL_CACHE.clear()
    headtail._HEAD_CACHE.clear()


#: tables whose values hold files' inodes or times (a resume state's): of these, only what is
#: the same in two homes built alike
_STAMPED = {"resume": ("session_id",), "files": ("path", "kind", "size", "offset")}


def _printed_again(value: bytes) -> tuple:
    """A remembered answer as it is printed again (``scan.answers.say_again``): its warnings said
    into the sink, where a repeat folds (a discovery made aside says its own again, as the
    row that reads the same file does), and the answer."""
    from agentscan.scan.answers import _told_of
    from agentscan.sealing import unframed

    payload = unseal(value)
    parts = unframed(payload) if payload is not None else None
    head = unframed(parts[0]) if parts is not None else None  # (the program its hints name, then the warnings)
    assert parts is not None and head is not None
    warnings = _told_of(head[1])
    assert warnings is not None
    return "answer", tuple(dict.fromkeys(warnings)), parts[1]


def _index(path: Path, home: Path) -> dict[str, list[str]]:
    """Every table, sealed values opened, the home's path and the files' stamps (inodes, times)
    left out when the two runs had homes of their own."""
    found = {}
    with sqlite3.connect(path) as conn:
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            cursor = conn.execute(f"SELECT * FROM {table}")
            names = [column[0] for column in cursor.description]
            rows = []
            for row in cursor.fetchall():
                cells: list[Any] = []
                for name, cell in zip(names, row):
                    if table == "snapshots" and name == "value" and str(row[0]).startswith("answer:"):
                        cell = _printed_again(cell)
                    elif isinstance(cell, bytes) and unseal(cell) is not None:
                        cell = ("sealed", unseal(cell))
                    if home.name != "home" and (name in ("fingerprint", "mtime_ns", "head") or table in ("snapshots", "meta")):
                        cell = "*"
                    elif home.name != "home" and name == "stamp" and isinstance(cell, str):
                        cell = cell.split(":")[0]  # the size
                    cells.append(cell)
                if home.name != "home" and table in _STAMPED:
                    cells = [cells[names.index(name)] for name in _STAMPED[table]]
                rows.append(repr(tuple(cells)).replace(str(home), "HOME"))
            found[table] = sorted(rows)
    return found


def _output(command: list[str], home: Path) -> tuple:
    """What the command printed and, for a file it wrote, what the file holds."""
    printed = tuple(text.replace(str(home), "HOME") for text in run(*command))
    if "--output" not in command or command[command.index("--output") + 1] == "-":
        return printed
    written = Path(command[command.index("--output") + 1])
    if written.suffix == ".sqlite":
        tables = _index(written, home)
        tables.pop("_agentscan_migrations")  # when it was made
        today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
        content = re.sub(today + r"T[0-9:.]+Z", "NOW", repr(tables))  # first and last seen
    else:
        content = written.read_text().replace(str(home), "HOME")
    written.unlink()
    return (*printed, content)


def _both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str], build: Callable[[Path], None],
               steps: list[Step], *, own_homes: bool = False) -> tuple[Path, Path]:
    """``steps`` (commands, or changes to the home) with rows read in workers, then one after
    the other: in the same home with an index of its own, or, when a step changes files,
    in a home of its own built alike."""
    results = []
    for serial in (False, True):
        if serial:
            assert travelled, "no row was read in a worker"
            one_after_the_other(monkeypatch)
        home = tmp_path / ("home" if not own_homes else "serial" if serial else "parallel")
        if own_homes:
            home.mkdir()
            monkeypatch.setenv("HOME", str(home))
            monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        if not serial or own_homes:
            build(home)
        cache = tmp_path / ("serial-cache" if serial else "parallel-cache")
        monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(cache))
        _fresh_process_caches()
        outputs = [step(home) if callable(step) else _output(step, home) for step in steps]
        results.append((outputs, _index(cache / "index.sqlite", home)))
    (parallel, parallel_index), (serial, serial_index) = results
    assert serial == parallel
    assert serial_index == parallel_index
    return tmp_path / "parallel-cache" / "index.sqlite", tmp_path / "serial-cache" / "index.sqlite"


def _every_provider(home: Path) -> None:
    lay_out(home)  # Claude's own, real Claude and Codex samples, the Codex demo
    for number in range(14, 40):
        _session(home, number, damaged=number % 7 == 3)
    codex = home / ".codex"
    lines, calls = _parent(codex)
    _fork(codex, lines, calls, markers=False, copy_time=lambda index, record: record["timestamp"])
    _paginated_home(home)
    lay_out_real_gemini(home)
    copy_real_dot_cursor(home)


COMMANDS = [["list", "--all", "--json"], ["tokens"], ["tokens", "--by", "session"], ["list", "--all", "--provider", "claude"],
            ["export", "--format", "jsonl", "--output", "-"]]


@pytest.mark.parametrize("after_a_list", [False, True])
def test_every_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str], after_a_list: bool) -> None:
    _both_ways(tmp_path, monkeypatch, travelled, _every_provider, [["list"]] * after_a_list + COMMANDS)


def test_huge_claude_transcripts_among_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 1500)  # most of them: read here
    _both_ways(tmp_path, monkeypatch, travelled, _every_provider, COMMANDS)


def test_filters_export_formats_and_otlp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    _both_ways(tmp_path, monkeypatch, travelled, _every_provider, [
        ["list"],
        ["list", "--all", "--cwd", "/home/dev/project", "--json"],
        ["list", "--all", "--grep", "task"],
        ["export", "--since", "2026-11-03", "--format", "jsonl", "--output", "-"],
        ["export", "--format", "sqlite", "--output", str(out / "sessions.sqlite")],
        ["export", "--format", "csv", "--days", "--output", str(out / "days.csv")],
        ["otlp", "--output", str(out / "traces.jsonl"), "--include-content"],
    ])


def test_capped_sums_and_more_warnings_than_a_row_keeps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        travelled: list[str]) -> None:
    def build(home: Path) -> None:
        for number in range(6):
            _session(home, number)
        native = "cafecafe-1111-4000-8000-000000000000"
        records = [orjson.dumps(claude_user(native, "2026-11-01T09:00:00.000Z", "capped"))]
        records += [orjson.dumps(claude_assistant(native, f"2026-11-01T09:0{index + 1}:00.000Z", msg_id=f"c{index}",
                                                  request_id=f"cr{index}", usage=claude_usage(10**12, 10**12)))
                    for index in range(3)]
        records += [b"{bad %d" % index for index in range(150)]
        claude_session_file(home, native, []).write_bytes(b"\n".join(records) + b"\n")

    _both_ways(tmp_path, monkeypatch, travelled, build, [["list", "--all", "--json"], ["list", "--all"], ["tokens"]])


def test_codex_tallies_brought_up_to_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    """A worker's pass reads the grown end of a rollout whose tally ``tokens`` kept, and keeps
    the new tally (``fullcounts``), through the parent; the rows' costs keep it again after."""
    monkeypatch.setattr(fullcounts, "WHOLE_BYTES", 100)
    monkeypatch.setattr(headtail, "TAIL_BYTES", 300)
    writes: list[str] = []
    finish = rowbuild.finish

    def noting(scanner, built):  # noqa: ANN001, ANN202
        writes.extend(name for name, _ in built.writes)
        finish(scanner, built)

    monkeypatch.setattr(rowbuild, "finish", noting)

    def build(home: Path) -> None:
        for number in range(30):
            thread = f"019c{number:04d}-0000-7000-8000-00000000000a"
            calls, start = Calls(), number * 100
            lines = [meta(thread, at(start)), turn_context(at(start + 1)), user_message(at(start + 1), f"prompt {number}")]
            for index in range(5):
                lines += [calls.call(at(start + 10 + index), 1000, 0, 100), user_message(at(start + 11 + index), "more")]
            write_rollout(rollout_path(home / ".codex", thread, at(start)), lines)

    def grow(home: Path) -> None:
        for number, path in enumerate(sorted((home / ".codex").rglob("*.jsonl"))):
            if number % 2:
                with path.open("ab") as handle:
                    handle.write(orjson.dumps(user_message(at(5000), "grown")) + b"\n" + b"{garbage\n" * (number % 3 == 0))
                os.utime(path, (1_790_000_000 + number, 1_790_000_000 + number))

    indexes = _both_ways(tmp_path, monkeypatch, travelled, build,
                         [["tokens"], grow, ["list", "--all", "--json"], ["list", "--all"]], own_homes=True)
    assert "put_file" in writes
    tallies = []
    for index in indexes:
        with sqlite3.connect(index) as conn:
            query = "SELECT substr(path, -60), state FROM files WHERE kind = ? ORDER BY path"
            tallies.append(conn.execute(query, (fullcounts.KIND,)).fetchall())
    assert tallies[0] == tallies[1] and len(tallies[0]) == 30


def test_claude_row_passes_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    """A worker's pass goes on from a resume state (``rowresume``) and keeps the next one."""
    monkeypatch.setattr(rowresume, "MIN_BYTES", 0)
    monkeypatch.setattr(windowed, "WINDOW", 3)

    def build(home: Path) -> None:
        for number in range(30):  # written now: worth a resume state
            native = f"{number:08x}-2222-4000-8000-000000000000"
            records: list[Any] = [claude_user(native, "2026-11-01T09:00:00.000Z", f"recent {number}")]
            records += [claude_assistant(native, f"2026-11-01T09:{index + 1:02d}:00.000Z", msg_id=f"m{number}-{index}",
                                         request_id=f"r{number}-{index}", usage=claude_usage(100, 10, cache_read=50))
                        for index in range(4)]
            if number % 3 == 0:
                records.insert(2, b"{broken")
            path = claude_session_file(home, native, [])
            path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n" for r in records))
            recent = time.time() - 3600 + number  # worth a state, in a fixed order
            os.utime(path, (recent, recent))

    def grow(home: Path) -> None:
        for number, path in enumerate(sorted((home / ".claude").rglob("*.jsonl"))[::2]):
            native = path.stem
            with path.open("ab") as handle:
                handle.write(orjson.dumps(claude_assistant(native, "2026-11-01T10:00:00.000Z", msg_id=f"g{number}",
                                                           request_id=f"gr{number}", usage=claude_usage(1, 1))) + b"\n")
                handle.write(b"not json either\n" * (number % 2))
            recent = time.time() - 600 + number
            os.utime(path, (recent, recent))

    _both_ways(tmp_path, monkeypatch, travelled, build, [["list", "--all", "--json"], grow, ["list", "--all", "--json"]],
               own_homes=True)


@pytest.mark.parametrize("huge", [False, True])
def test_rows_read_here_while_the_workers_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str],
                                               huge: bool) -> None:
    """Gemini's, Cursor's and huge Claude transcripts' rows are read in this process while
    the workers read (``rowbuild.build``'s ``meanwhile``): here every one of them before any
    worker's row comes back, the order furthest from one after the other."""
    if huge:
        monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 1500)
    read_here: list[int] = []
    real_run = workers.run_parallel

    def run_parallel(job, batches, count, *, meanwhile=None):  # noqa: ANN001, ANN202
        while meanwhile is not None and meanwhile():
            read_here.append(1)
        yield from real_run(job, batches, count)

    monkeypatch.setattr(workers, "run_parallel", run_parallel)
    _both_ways(tmp_path, monkeypatch, travelled, _every_provider, COMMANDS)
    assert len(read_here) >= 4  # Gemini's and Cursor's sessions, at least
