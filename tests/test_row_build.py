"""Rows read in worker processes (``scan/rowbuild.py``): ``tokens``' table, ``list --all`` and
``export`` print, warn and keep exactly what rows read one after the other give, cached or
not, cold or after a ``list``; a worker that fails or dies costs only speed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan import rowbuild
from agentscan.toolkit import workers
from agentscan.scan.scanner import Scanner
from builders import (
    claude_assistant,
    claude_base,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    lay_out_real_claude,
)
from codex_builders import lay_out_real_codex, write_demo
from spies import record_calls

runner = CliRunner()

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")  # the CI machine has both


def run(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


@pytest.fixture
def travelled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Rows always read in workers (every threshold at its least); the ids of those that were."""
    monkeypatch.setattr(rowbuild, "MIN_ROWS", 2)
    monkeypatch.setattr(rowbuild, "MIN_BYTES", 0)
    seen: list[str] = []
    real_finish = rowbuild.finish

    def finish(scanner: Scanner, built: rowbuild.BuiltRow) -> None:
        assert built.real is not None and built.row is not None
        seen.append(built.real.id)
        real_finish(scanner, built)

    monkeypatch.setattr(rowbuild, "finish", finish)
    return seen


def one_after_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rowbuild, "MIN_ROWS", 10**9)


def _session(home: Path, number: int, *, damaged: bool = False, title: str | None = None, subagent: bool = False,
             task: str = "task number", mtime: int | None = None) -> None:
    native = f"{number:08x}-1111-4000-8000-000000000000"
    records: list = [claude_user(native, f"2026-11-0{1 + number % 8}T09:00:00.000Z", f"{task} {number}")]
    for index in range(3 + number % 4):
        records.append(claude_assistant(
            native, f"2026-11-0{1 + number % 8}T09:{index + 1:02d}:00.000Z", msg_id=f"msg-{number}-{index}",
            request_id=f"req-{number}-{index}", usage=claude_usage(100 * (number + 1), 10 + index, cache_read=1000),
            blocks=[{"type": "text", "text": "done"}, {"type": "tool_use", "id": f"t{index}", "name": "Bash", "input": {}}]))
    if title is not None:
        records.append({"type": "custom-title", "customTitle": title, "sessionId": native})
    lines = [orjson.dumps(record) for record in records]
    if damaged:
        lines.insert(2, b"{not json")
        lines.insert(3, b"[1, 2]")
    path = claude_session_file(home, native, [])
    path.write_bytes(b"\n".join(lines) + (b'\n{"type": "user", "trunc' if damaged else b"\n"))
    when = 1_790_000_000 + number if mtime is None else mtime
    os.utime(path, (when, when))
    if subagent:
        claude_subagent_file(home, native, f"ab{number:04d}", [
            claude_assistant(native, "2026-11-01T09:30:00.000Z", msg_id=f"sub-{number}", request_id=f"sreq-{number}",
                             usage=claude_usage(7, 3), sidechain=True),
            {**claude_base(native, "2026-11-01T09:31:00.000Z"), "type": "summary", "summary": "sub done"},
        ])


def lay_out(home: Path) -> None:
    """Claude sessions of every kind a row's pass meets, real Claude and Codex samples, a
    delegating Codex session."""
    for number in range(14):
        _session(home, number, damaged=number % 5 == 1, title="renamed" if number % 4 == 2 else None,
                 subagent=number % 3 == 0)
    lay_out_real_claude(home)
    lay_out_real_codex(home)
    write_demo(home)


def _index(path: Path) -> dict[str, list]:
    with sqlite3.connect(path) as conn:
        return {
            "rows": sorted(conn.execute("SELECT * FROM rows").fetchall()),
            "files": sorted(conn.execute('SELECT path, kind, size, version, head, "offset", state FROM files').fetchall()),
        }


def _both_ways(monkeypatch: pytest.MonkeyPatch, travelled: list[str], commands: list[list[str]]) -> None:
    """Each command's output with rows read in workers, then one after the other with a fresh
    index, equal; and so are the two indexes."""
    cache = Path(os.environ["AGENTSCAN_CACHE_DIR"])
    outputs = [run(*command) for command in commands]
    assert travelled, "no row was read in a worker"
    kept = _index(cache / "index.sqlite")
    one_after_the_other(monkeypatch)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(cache.parent / "serial-cache"))
    assert [run(*command) for command in commands] == outputs
    assert _index(cache.parent / "serial-cache" / "index.sqlite") == kept


def test_list_all_and_tokens_table_are_the_same_read_in_workers(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 travelled: list[str]) -> None:
    lay_out(isolated_home)
    _both_ways(monkeypatch, travelled, [["list", "--all", "--json"], ["tokens"], ["list", "--all"], ["tokens", "--json"]])
    assert {session_id.partition(":")[0] for session_id in travelled} == {"claude", "codex"}


def test_warnings_come_in_the_same_order(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    lay_out(isolated_home)
    out, _ = run("list", "--all", "--json")
    warnings = orjson.loads(out)["warnings"]
    assert len({warning["path"] for warning in warnings}) >= 3, warnings  # the damaged sessions' warnings
    one_after_the_other(monkeypatch)
    serial, _ = run("list", "--all", "--json", "--no-cache")
    assert orjson.loads(serial)["warnings"] == warnings


def test_after_a_list_the_stored_sessions_are_read_in_workers(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                              travelled: list[str]) -> None:
    """``list`` keeps its discovery (``scan.memo``): the next command's sessions are stored
    ones, whose provider's own refs are taken before the workers start."""
    lay_out(isolated_home)
    for number in range(14, 40):  # more than ``list`` shows: rows it did not read
        _session(isolated_home, number, damaged=number % 7 == 3)
    _both_ways(monkeypatch, travelled, [["list"], ["list", "--all", "--json"], ["export", "--format", "jsonl", "--output", "-"]])


def test_without_a_cache(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    lay_out(isolated_home)
    parallel = run("tokens", "--no-cache")
    assert travelled
    one_after_the_other(monkeypatch)
    assert run("tokens", "--no-cache") == parallel


def test_a_row_priced_from_its_pass_is_not_read_again(isolated_home: Path, travelled: list[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The sums a worker's pass kept come back with the row (``keptjson``): no session is
    read a second time for its cost."""
    for number in range(6):
        _session(isolated_home, number, subagent=number % 2 == 0)
    seen: list[str] = []
    real = ClaudeProvider.session_usage

    def counting(self, ref, ctx, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        seen.append(ref.native_id)
        return real(self, ref, ctx, *args, **kwargs)

    monkeypatch.setattr(ClaudeProvider, "session_usage", counting)
    rows = orjson.loads(run("list", "--all", "--json")[0])["sessions"]
    assert len(travelled) == 6 and seen == []
    assert all(row["cost_usd"] is not None for row in rows)


def test_a_worker_that_fails_costs_only_speed(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                              travelled: list[str]) -> None:
    lay_out(isolated_home)
    one_after_the_other(monkeypatch)
    expected = run("list", "--all", "--json", "--no-cache")
    monkeypatch.setattr(rowbuild, "MIN_ROWS", 2)
    parent = os.getpid()
    real_row = ClaudeProvider.row

    def row(self, ref, ctx):  # noqa: ANN001, ANN202
        if os.getpid() != parent and ref.native_id.startswith("00000003"):
            raise RuntimeError("only in a worker")
        return real_row(self, ref, ctx)

    monkeypatch.setattr(ClaudeProvider, "row", row)
    assert run("list", "--all", "--json", "--no-cache") == expected
    assert travelled and not any(session_id.startswith("claude:00000003") for session_id in travelled)

    real_run = workers.run_parallel

    def dies(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        for count, result in enumerate(real_run(*args, **kwargs)):
            if count == 3:
                raise RuntimeError("a worker process died")
            yield result

    monkeypatch.setattr(workers, "run_parallel", dies)
    travelled.clear()
    assert run("list", "--all", "--json", "--no-cache") == expected
    assert len(travelled) == 3


def test_a_session_gone_before_its_row(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    lay_out(isolated_home)

    def rows() -> tuple[list, list]:
        with Scanner(use_cache=True) as scanner:
            refs = list(scanner.refs())
            gone = next(ref for ref in refs if ref.native_id.startswith("00000004"))
            saved, stat = gone.path.read_bytes(), gone.path.stat()
            gone.path.unlink()
            try:
                scanner.prefetch_rows(refs, every=True)
                found = [scanner.row(ref).to_json() for ref in refs]
            finally:
                gone.path.write_bytes(saved)
                os.utime(gone.path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            return found, [warning.to_json() for warning in scanner.warnings]

    parallel = rows()
    assert travelled
    one_after_the_other(monkeypatch)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", os.environ["AGENTSCAN_CACHE_DIR"] + "-serial")
    assert rows() == parallel
    assert any("cannot read" in warning["message"] for warning in parallel[1])


def test_a_batchs_rows_are_committed_by_its_last_row(isolated_home: Path, travelled: list[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored a few hundred per commit (``SAVE_EVERY``), and all of them once the last is
    read, even by a library caller that never closes its scanner."""
    from agentscan.scan import rowreader

    monkeypatch.setattr(rowreader, "SAVE_EVERY", 4)
    for number in range(10):
        _session(isolated_home, number)
    scanner = Scanner(use_cache=True)
    rows = scanner.all_rows()
    index = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite"
    with sqlite3.connect(index) as other:  # another connection sees only what was committed
        stored = {session_id for (session_id,) in other.execute("SELECT session_id FROM rows")}
    assert stored == {row.id for row in rows} and len(stored) == 10
    assert len(travelled) == 10
    scanner.close()


def test_a_list_that_reads_on_reads_on_every_core(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                  travelled: list[str]) -> None:
    """A filter that rejects most sessions, or files that all have one time (a copied home):
    ``list`` reads past its first rows, in growing batches read in workers."""
    for number in range(90):
        _session(isolated_home, number, damaged=number % 11 == 4, task="rare" if number in (3, 70) else "task",
                 mtime=1_790_000_000 + number % 2)
    _both_ways(monkeypatch, travelled, [["list", "--grep", "rare", "--json"], ["list", "-n", "5"], ["list", "--json"]])
    assert len(travelled) > 50


def test_rows_read_ahead_for_a_list_that_stopped_are_kept(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          travelled: list[str]) -> None:
    """A ``list`` that has enough before its batch ends keeps the rows read ahead for the rest,
    with their warnings: the next run reads none of them, and says what a fresh read says."""
    from agentscan.scan.listing import ListFilter

    from agentscan.scan import factfilter

    # Rows read in batches are what is tested: no session is left out by its facts (``factfilter``).
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 10**9)
    for number in range(120):
        _session(isolated_home, number, damaged=number % 9 == 2, task="rare" if number in (100, 50) else "task")
    real_row = Scanner.row
    asked = record_calls(monkeypatch, Scanner, "row", lambda self, ref: ref.id)
    with Scanner(use_cache=True) as scanner:
        assert [row.native_id[:8] for row in scanner.list_sessions(limit=1, filters=ListFilter(grep="rare"))] == ["00000064"]
    monkeypatch.setattr(Scanner, "row", real_row)
    assert travelled
    with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite") as conn:
        stored = conn.execute("SELECT count(*) FROM rows").fetchone()[0]
    assert len(set(asked)) < stored < 120  # rows read ahead and never asked for were kept
    one_after_the_other(monkeypatch)
    with Scanner(use_cache=True) as scanner:
        kept = [row.to_json() for row in scanner.all_rows()], [w.to_json() for w in scanner.warnings]
        read = scanner.parses
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", os.environ["AGENTSCAN_CACHE_DIR"] + "-fresh")
    with Scanner(use_cache=True) as scanner:
        fresh = [row.to_json() for row in scanner.all_rows()], [w.to_json() for w in scanner.warnings]
    assert kept == fresh
    assert read == 120 - stored  # none of those kept was read again


def test_progress_counts_rows_read_ahead_once(isolated_home: Path, travelled: list[str]) -> None:
    """Rows read in workers count as they come back (a cold ``list --all`` or ``export`` shows
    progress while they are read), and not again when they are taken in their turn."""
    from agentscan.progress import Progress

    class Recording(Progress):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[int, int]] = []

        def changed(self) -> None:
            from agentscan.progress import FINDING

            if self.phase != FINDING:  # (sessions found so far: no total, pass 55)
                self.seen.append((self.done, self.total))

    for number in range(30):
        _session(isolated_home, number)
    with Scanner(use_cache=True) as scanner:
        scanner.ctx.progress = progress = Recording()
        real_prefetch = scanner.prefetch_rows
        during: list[int] = []

        def prefetch(refs, *, every=False):  # noqa: ANN001, ANN202
            real_prefetch(refs, every=every)
            during.append(progress.done)

        scanner.prefetch_rows = prefetch  # type: ignore[method-assign]
        rows = scanner.all_rows()
    assert len(rows) == 30 and len(travelled) == 30
    assert during == [30]  # all counted while the workers read them
    assert progress.seen[-1] == (30, 30)
    assert all(done <= total for done, total in progress.seen)
