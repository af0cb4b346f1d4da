"""Memory stays bounded, and so do the bytes read, whatever one line or one file weighs.

A line longer than ``MAX_LINE_BYTES`` (4 MiB) is skipped with a warning
without being held whole; a 2 GB sparse file (made with ``truncate``: no
disk space) is one giant line of NULs, skipped by jumping over its hole.
The big files are made here, in the test's tmp dir, and deleted after.
"""

from __future__ import annotations

import io
import os
import signal
import tracemalloc
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import pytest
import zstandard

from typer.testing import CliRunner

from agentscan.toolkit import jsonl
from agentscan.scan import liveness
from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.toolkit.jsonl import MAX_LINE_BYTES, iter_json_lines
from agentscan.scan.tokens import token_report
from bad_corpus import PROVIDERS, case, no_internal_errors, one_line_file, target, with_hole

MiB = 1024 * 1024
LINE = 100 * MiB
SPARSE = 2 * 1024 * MiB
PEAK_LIMIT = 32 * MiB  # a fixed budget, far below the 100 MB a whole line would cost
#: what a scan of a session with a 2 GB hole may read besides the hole (the session's other
#: lines, the index, the modules imported meanwhile, which hang on the import order and the
#: install: 21-84 MiB measured): generous, a quarter of one read of the hole, which still fails
READ_LIMIT = 512 * MiB
#: how far the peak resident set of the scan's processes may rise (28-51 MiB measured): a
#: scan of the hole through ``mmap`` maps it in, 2 GiB
PEAK_RSS_RISE = 512 * MiB
#: how many times each provider's passes read the whole hole today, ``longlines``' hole
#: skipping on: Claude's usage pass (``toolkit.linescan``, once for ``tokens``) and ``show``
#: from the end (``toolkit.reverse``, twice a ``show``: its API's and its CLI's); Codex's usage
#: pass (``linescan``: for ``tokens``, and for ``show``'s cost).  2 GiB each, a debt, not a
#: goal: a reader made to jump the hole lowers its count here.  With the skipping off, each
#: provider reads 10-22 GiB: the bound fails at once.
HOLE_READS = {"claude": 5, "codex": 2, "gemini": 0, "cursor": 0}


@pytest.fixture
def peak() -> Iterator[Callable[[], int]]:
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        yield lambda: tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _split(provider: str) -> tuple[bytes, bytes]:
    """A clean session of ``provider`` as (all lines but the last, the last one).

    The damage goes before the last line (the billed call, for most): the head
    that gives a title stays within its bounded read, and the call after the
    damage proves that reading resumes.
    """
    lines = case(provider, "clean").source.read_bytes().splitlines(keepends=True)
    return b"".join(lines[:-1]), lines[-1]


def _scan_everything(home: Path, native_id: str) -> tuple[list, object, object, list]:
    with Scanner(home=home, env={}) as scanner:
        rows = scanner.list_sessions()
        report = token_report(scanner)
        detail = scanner.show(native_id)
        assert no_internal_errors(scanner.warnings), scanner.warnings
        return rows, report, detail, scanner.warnings


# -- one 100 MB line ----------------------------------------------------------------

def test_the_reader_skips_a_100_mb_line_in_bounded_memory(tmp_path: Path, peak: Callable[[], int]) -> None:
    path = one_line_file(tmp_path / "big.jsonl", LINE, head=b'{"n": 1}\n{"pad": "', tail=b'"}\n{"n": 3}\n')
    try:
        ctx = ScanContext.create(home=tmp_path, env={})
        records = [(line.number, line.record) for line in iter_json_lines(path, ctx)]
        assert peak() < PEAK_LIMIT, f"peak {peak() / MiB:.1f} MiB"
    finally:
        path.unlink()
    assert records == [(1, {"n": 1}), (3, {"n": 3})]
    assert [(w.line, w.message) for w in ctx.warnings.items] == [(2, "line longer than 4 MiB skipped")]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_reads_around_a_100_mb_line(isolated_home: Path, peak: Callable[[], int], provider: str) -> None:
    item = case(provider, "clean")
    first, rest = _split(provider)
    path = one_line_file(target(isolated_home, item), LINE, head=first + b'{"pad": "', tail=b'"}\n' + rest)
    assert path.stat().st_size > LINE
    try:
        rows, report, detail, warnings = _scan_everything(isolated_home, item.id)
        assert peak() < PEAK_LIMIT, f"peak {peak() / MiB:.1f} MiB"
    finally:
        path.unlink()
    assert [(row.id, row.title) for row in rows] == [(item.id, item.title)]
    assert (report.total.total if report.total else None) == item.expected
    assert detail.prompts[0].text == item.title
    assert any(w.message == "line longer than 4 MiB skipped" for w in warnings)


# -- a 2 GB sparse file ---------------------------------------------------------------

class Read(NamedTuple):
    """What a process, or a family of them, took from files."""

    #: bytes ``read(2)`` and its kin returned (``/proc/<pid>/io``'s ``rchar``): a hole's NULs
    #: count as they are read, from the page cache or not (no disk time to guess at)
    rchar: int
    #: the peak resident set (``VmHWM``, ``/proc/<pid>/status``; ``read_since``: its rise), page
    #: cache mapped in included: a file scanned through ``mmap`` (Claude's ``childsearch``,
    #: ``continuations``, ``copyholders``, ``resumes``) is never counted in ``rchar``, but
    #: every page of it the scan touches stays resident until the map is closed.  (Not page faults: a fault maps
    #: a large folio of page cache at once: 1,429 faults for a 2 GiB hole scanned, measured.)
    peak: int


def _read_by(pid: int | str = "self") -> Read:
    """What process ``pid`` has read so far (a forked child's count starts at 0) and its peak
    resident set."""
    rchar = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/io").read_text().splitlines()
                 if line.startswith("rchar:"))
    peak = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if line.startswith("VmHWM:"))
    return Read(rchar, peak * 1024)


@pytest.fixture
def read_since(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[[], Read]]:
    """What this process and every child it forked read since the fixture began (a huge
    file's halves are read on two cores: ``toolkit.forking``): the bytes, summed, and how far
    the highest peak resident set of them rose past this process's resident set here (its
    peak reset to it: ``clear_refs``; a child's holds what it shares with this one).  A
    child leaves by ``os._exit`` (it adds its own counts then) or is SIGKILLed by its parent
    (``helperproc.Helper.stop``, ``workers``' busy workers at the end: the parent adds the
    child's counts just before the kill; one that ends between the two is counted twice, never
    missed).  The counts go to a file, one append each: whole, whatever another child does."""
    counts = tmp_path / "children-read"
    counts.touch()
    parent, real_exit, real_kill = os.getpid(), os._exit, os.kill

    def add(read: Read) -> None:
        descriptor = os.open(counts, os.O_WRONLY | os.O_APPEND)
        os.write(descriptor, f"{read.rchar} {read.peak}\n".encode())
        os.close(descriptor)

    def exit_counted(code: int) -> None:
        if os.getpid() != parent:
            add(_read_by())
        real_exit(code)

    def kill_counted(pid: int, signum: int) -> None:
        if signum == signal.SIGKILL and pid > 0 and pid != os.getpid():
            try:
                add(_read_by(pid))
            except (OSError, StopIteration):
                pass  # (gone already: it counted itself as it left)
        real_kill(pid, signum)

    monkeypatch.setattr(os, "_exit", exit_counted)
    monkeypatch.setattr(os, "kill", kill_counted)
    Path("/proc/self/clear_refs").write_text("5")  # (the peak resident set back to the current one)
    start = _read_by()

    def read() -> Read:
        children = [Read(*map(int, line.split())) for line in counts.read_text().splitlines()]
        return Read(_read_by().rchar - start.rchar + sum(child.rchar for child in children),
                    max([_read_by().peak, *(child.peak for child in children)]) - start.peak)

    yield read


@pytest.mark.skipif(not liveness.supported(), reason="/proc is Linux-only: no count of bytes read")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_gets_through_a_2_gb_sparse_file_reading_little_of_it(
        isolated_home: Path, peak: Callable[[], int], read_since: Callable[[], Read], provider: str) -> None:
    """A 2 GB line of NULs between the session's first line and the rest of it: jumped over
    (``longlines``' hole skipping), not read, but by the passes ``HOLE_READS`` counts, nor
    mapped in and scanned (``PEAK_RSS_RISE``).  Bounded in bytes read and resident, not
    seconds (a timed bound failed under load and passed a read of the hole: 2 GiB of NULs are
    read in about a second): deterministic, whatever the load."""
    item = case(provider, "clean")
    first, rest = _split(provider)
    path = with_hole(target(isolated_home, item), first, SPARSE, b"\n" + rest)
    assert path.stat().st_size > SPARSE
    try:
        rows, report, detail, warnings = _scan_everything(isolated_home, item.id)
        assert peak() < PEAK_LIMIT, f"peak {peak() / MiB:.1f} MiB"
        result = CliRunner().invoke(app, ["show", item.id, "--json"])  # the CLI: exit 0, with the warning
        assert result.exit_code == 0 and "line longer than 4 MiB skipped" in result.stdout, result.stderr
        read = read_since()
    finally:
        path.unlink()
    assert read.rchar < HOLE_READS[provider] * SPARSE + READ_LIMIT, f"{read.rchar / MiB:.0f} MiB read"
    assert read.peak < PEAK_RSS_RISE, f"peak resident set up {read.peak / MiB:.0f} MiB (a map of the hole scanned?)"
    assert [(row.id, row.title) for row in rows] == [(item.id, item.title)]
    assert (report.total.total if report.total else None) == item.expected
    assert any(w.message == "line longer than 4 MiB skipped" for w in warnings)


def test_a_hole_is_jumped_over_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping the NULs of a hole reads (almost) none of them: no 2 GB of page cache."""
    path = with_hole(tmp_path / "sparse.jsonl", b'{"n": 1}\n', SPARSE, b'\n{"n": 3}\n')
    trailing = with_hole(tmp_path / "trailing.jsonl", b'{"n": 1}\n', SPARSE, b"")  # a hole up to the end
    read = []
    real_readinto = io.BufferedReader.readinto

    class Counting(io.BufferedReader):
        def readinto(self, buffer):  # type: ignore[no-untyped-def,override]
            count = real_readinto(self, buffer)
            read.append(count or 0)
            return count

    monkeypatch.setattr(jsonl, "open_binary", lambda p, *args: Counting(io.FileIO(p, "rb")))
    ctx = ScanContext.create(home=tmp_path, env={})
    assert [line.record for line in iter_json_lines(path, ctx)] == [{"n": 1}, {"n": 3}]
    assert [line.record for line in iter_json_lines(trailing, ctx)] == [{"n": 1}]
    assert sum(read) < 64 * MiB, f"{sum(read) / MiB:.0f} MiB read"


# -- where reading resumes after a skipped line -------------------------------------------

def _lines(long: int) -> bytes:
    return b'{"n": 1}\n{"pad": "' + b"y" * long + b'"}\n{"n": 3}\n{"n": 4}\n'


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "zst"])
def test_offsets_and_line_numbers_after_a_skipped_line_are_exact(tmp_path: Path, compressed: bool) -> None:
    """Both ways of skipping (seek back in a plain file, line pieces in a .zst stream)."""
    data = _lines(3 * 1024 + 17)
    path = tmp_path / ("t.jsonl.zst" if compressed else "t.jsonl")
    path.write_bytes(zstandard.ZstdCompressor().compress(data) if compressed else data)
    ctx = ScanContext.create(home=tmp_path, env={})
    progress = jsonl.ReadProgress()
    found = [(line.number, line.offset, line.record) for line in iter_json_lines(path, ctx, max_line=1024, progress=progress)]
    third = data.index(b'{"n": 3}')
    assert found == [(1, 0, {"n": 1}), (3, third, {"n": 3}), (4, data.index(b'{"n": 4}'), {"n": 4})]
    assert (progress.complete_offset, progress.lines) == (len(data), 4)
    assert [w.line for w in ctx.warnings.items] == [2]
    if not compressed:  # resuming at a recorded offset lands on a line start
        resumed = [line.record for line in iter_json_lines(path, ctx, start=third, first_line=3)]
        assert resumed == [{"n": 3}, {"n": 4}]


def test_the_default_line_limit_is_the_documented_4_mib() -> None:
    assert MAX_LINE_BYTES == 4 * MiB
