"""Rows read ahead in workers for a batch that ended before they were asked for
(``RowReader._keep_read_ahead``, the review of d5c02a1): kept in the index, a later run that
takes them from there prints, warns and keeps exactly what a fresh read one after the other
gives; whatever the batch stored is committed by its end.  And rows kept by a read one after
the other whose warnings overflowed what a row keeps."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Callable, Sequence

import orjson
import pytest

from agentscan.bounds import TOKEN_SUM_CAPPED
from agentscan.model import SessionRef
from agentscan.scan import rowreader
from agentscan.toolkit import workers
from agentscan.memohint import is_memo_ref
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls
from test_row_build import _index, _session, lay_out, one_after_the_other, run
import test_row_build

travelled = test_row_build.travelled  # the fixture: rows read in workers, the ids of those that were

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")

OVERFLOWING = "0ff10000-1111-4000-8000-000000000000"
CAPPED = "cafecafe-1111-4000-8000-000000000000"


def _overflowing(home: Path, *, mtime: int = 1_790_000_000) -> Path:
    """A session whose pass says 150 warnings: more than a row keeps (``CAPTURE_LIMIT``)."""
    records = [orjson.dumps(claude_user(OVERFLOWING, "2026-11-01T09:00:00.000Z", "overflowing"))]
    records += [orjson.dumps(claude_assistant(OVERFLOWING, f"2026-11-01T09:0{index + 1}:00.000Z", msg_id=f"o{index}",
                                              request_id=f"or{index}", usage=claude_usage(10, 10))) for index in range(3)]
    records += [b"{bad %d" % index for index in range(150)]
    path = claude_session_file(home, OVERFLOWING, [])
    path.write_bytes(b"\n".join(records) + b"\n")
    os.utime(path, (mtime, mtime))
    return path


def _capped(home: Path, monkeypatch: pytest.MonkeyPatch, *, mtime: int = 1_790_000_000) -> Path:
    """A session whose sums saturate (``TOKEN_SUM_CAPPED``; at a cap lowered for it: a
    million calls reach the real one), with a damaged line."""
    from agentscan import bounds, model

    for module in (bounds, model):
        monkeypatch.setattr(module, "MAX_TOKEN_SUM", 2 * 10**12)
    records = [orjson.dumps(claude_user(CAPPED, "2026-11-01T09:00:00.000Z", "capped"))]
    records += [orjson.dumps(claude_assistant(CAPPED, f"2026-11-01T09:0{index + 1}:00.000Z", msg_id=f"c{index}",
                                              request_id=f"cr{index}", usage=claude_usage(10**12, 10**12)))
                for index in range(3)]
    records.insert(2, b"{damaged")
    path = claude_session_file(home, CAPPED, [])
    path.write_bytes(b"\n".join(records) + b"\n")
    os.utime(path, (mtime, mtime))
    return path


def _read_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the rows a run read in its own process (not from the index)."""
    return record_calls(monkeypatch, rowreader, "guarded_row", lambda provider, ref, ctx: ref.id)


def _stop_early(asked: int, *, memo: bool = False,
                meanwhile: Callable[[Scanner, Sequence[SessionRef]], None] | None = None) -> set[str]:
    """A caller that asks for every row (``prefetch_rows(every=True)``), takes the first
    ``asked`` of them and stops (``end_batch``), as ``list`` does with enough rows.  The ids
    kept in the index; nothing left uncommitted."""
    with Scanner(use_cache=True, memo_discovery=memo) as scanner:
        refs = list(scanner.refs())
        assert all(is_memo_ref(ref) for ref in refs) == memo
        scanner.prefetch_rows(refs, every=True)
        for ref in refs[:asked]:
            scanner.row(ref)
        if meanwhile is not None:
            meanwhile(scanner, refs)
        scanner.end_batch()
        assert scanner.cache is not None and not scanner.cache.conn.in_transaction
        asked_ids = {ref.id for ref in refs[:asked]}
    with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite") as conn:
        stored = {session_id for (session_id,) in conn.execute("SELECT session_id FROM rows")}
    return stored - asked_ids


COMMANDS = [["list", "--all", "--json"], ["list", "--all"], ["tokens"]]


def _then_as_fresh(monkeypatch: pytest.MonkeyPatch, commands: list[list[str]] = COMMANDS) -> list[str]:
    """The next runs, one after the other, take the rows kept from the index and give what a
    fresh index gives (outputs, warnings, and the index they leave).  The rows read again."""
    one_after_the_other(monkeypatch)
    cache = Path(os.environ["AGENTSCAN_CACHE_DIR"])
    read_again = _read_here(monkeypatch)
    outputs = [run(*command) for command in commands]
    read = list(read_again)
    after = _index(cache / "index.sqlite")
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(cache.parent / "fresh-cache"))
    assert [run(*command) for command in commands] == outputs
    assert _index(cache.parent / "fresh-cache" / "index.sqlite") == after
    return read


# -- warnings -----------------------------------------------------------------


def test_a_row_read_here_whose_warnings_overflowed(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read one after the other and kept with the first ``CAPTURE_LIMIT`` of its 150 warnings,
    a warm run said "80 more warnings" where a fresh one says "130 more"."""
    one_after_the_other(monkeypatch)
    _overflowing(isolated_home)
    cold = run("list", "--all", "--json")
    assert orjson.loads(cold[0])["warnings"][-1]["message"] == "130 more warnings for this file were not listed"
    assert run("list", "--all", "--json") == cold
    assert run("tokens", "--json")[0] == run("tokens", "--json", "--no-cache")[0]


def test_kept_ahead_with_passing_overflowing_and_capped_warnings(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 travelled: list[str]) -> None:
    for number in range(40):
        _session(isolated_home, number, damaged=number % 5 == 1)
    _overflowing(isolated_home, mtime=1_789_000_000)  # among the oldest: never asked for
    _capped(isolated_home, monkeypatch, mtime=1_789_000_001)
    # One row whose pass could not read a file this time (a passing warning): not kept.
    real_row = test_row_build.ClaudeProvider.row
    parent = os.getpid()

    def row(self, ref, ctx):  # noqa: ANN001, ANN202
        if os.getpid() != parent and ref.native_id.startswith("00000003"):
            ctx.warn(ref.path, "cannot read: busy", passing=True)
        return real_row(self, ref, ctx)

    monkeypatch.setattr(test_row_build.ClaudeProvider, "row", row)
    kept = _stop_early(5)
    monkeypatch.setattr(test_row_build.ClaudeProvider, "row", real_row)
    assert f"claude:{CAPPED}" in kept and "claude:00000003-1111-4000-8000-000000000000" not in kept
    assert len(kept) > 20 and f"claude:{OVERFLOWING}" not in kept  # taken back, it would say fewer warnings
    with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite") as conn:
        (document,) = conn.execute("SELECT row FROM rows WHERE session_id = ?", (f"claude:{CAPPED}",)).fetchone()
    assert [w["message"].split(":")[0] for w in orjson.loads(document)["warnings"]] == ["invalid JSON skipped", TOKEN_SUM_CAPPED]
    read = _then_as_fresh(monkeypatch)
    assert "claude:00000003-1111-4000-8000-000000000000" in read and not (kept & set(read))


def _session_path(home: Path, number: int) -> Path:
    return next((home / ".claude" / "projects").rglob(f"{number:08x}-1111-4000-8000-000000000000.jsonl"))


# -- refs -----------------------------------------------------------------------


def test_kept_ahead_for_stored_sessions(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, travelled: list[str]) -> None:
    """After a ``list`` the sessions are the index's (memo refs): each row is kept under the
    fingerprint of the provider's own ref, which the next run's stored ref matches."""
    lay_out(isolated_home)
    for number in range(14, 40):
        _session(isolated_home, number, damaged=number % 7 == 3)
    run("list")  # keeps the discovery
    stored_before = _index(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite")["rows"]
    kept = _stop_early(12, memo=True)
    assert len(kept) > 10
    read = _then_as_fresh(monkeypatch)
    assert not (kept & set(read)), "a row kept ahead was read again"
    assert stored_before  # ``list`` kept its own rows too


def test_what_taking_the_ref_said_is_not_kept_with_the_row(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                           travelled: list[str]) -> None:
    """``BuiltRow.before`` (said outside the row's capture when the row is asked for) is in
    no row kept, asked for or kept ahead."""
    for number in range(30):
        _session(isolated_home, number)
    real_ref = Scanner.real_ref

    def noisy(self: Scanner, ref: SessionRef, *, one: bool = False) -> SessionRef | None:
        self.ctx.warn(ref.path or ref.id, "said while taking the ref")
        return real_ref(self, ref, one=one)

    monkeypatch.setattr(Scanner, "real_ref", noisy)
    kept = _stop_early(4)
    assert len(kept) == 26
    with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite") as conn:
        documents = [orjson.loads(row) for (row,) in conn.execute("SELECT row FROM rows")]
    assert len(documents) == 30
    assert not any(w["message"] == "said while taking the ref" for document in documents for w in document["warnings"])


# -- changes and providers -----------------------------------------------------------


def test_a_session_changed_after_it_was_read_ahead(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                   travelled: list[str]) -> None:
    """Kept under the fingerprint taken before its files were read: the next run sees the
    change and reads it again."""
    for number in range(30):
        _session(isolated_home, number)
    oldest = _session_path(isolated_home, 0)

    def grow(scanner: Scanner, refs: Sequence[SessionRef]) -> None:
        del scanner, refs
        native = oldest.stem
        with oldest.open("ab") as handle:
            handle.write(orjson.dumps(claude_assistant(native, "2026-11-09T09:00:00.000Z", msg_id="late", request_id="late",
                                                       usage=claude_usage(5, 5))) + b"\n{late garbage\n")
        os.utime(oldest, (1_790_000_500, 1_790_000_500))

    kept = _stop_early(3, meanwhile=grow)
    assert f"claude:{oldest.stem}" in kept
    read = _then_as_fresh(monkeypatch)
    assert read.count(f"claude:{oldest.stem}") == 1 and len(set(read)) == 1


def test_every_provider_some_read_here(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                       travelled: list[str]) -> None:
    """Gemini and Cursor rows (never read ahead) and huge Claude transcripts (read here) among
    those read ahead: only rows read ahead are kept, and the next run is as a fresh one."""
    from agentscan.providers.claude import provider as claude_provider
    from test_row_build_parity import _every_provider

    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 1500)
    _every_provider(isolated_home)
    kept = _stop_early(6)
    assert kept and all(session_id.startswith(("claude:", "codex:")) for session_id in kept)
    _then_as_fresh(monkeypatch, [["list", "--all", "--json"], ["tokens", "--by", "session"]])


# -- commits ---------------------------------------------------------------------------


def _lock_held() -> bool:
    from test_row_build_commits import _lock_held as held

    return held()


def test_a_batch_ended_by_the_next_is_committed(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                travelled: list[str]) -> None:
    """A library caller that asks for part of a batch, then for another batch: the first
    batch's rows read ahead are kept by its end, and committed then, not held (with the
    index's write lock) while the caller goes on."""
    for number in range(30):
        _session(isolated_home, number)
    with Scanner(use_cache=True) as other:  # the next batch's rows are in the index
        for ref in other.refs()[20:]:
            other.row(ref)
    with Scanner(use_cache=True) as scanner:
        refs = list(scanner.refs())
        scanner.prefetch_rows(refs[:20], every=True)
        for ref in refs[:3]:
            scanner.row(ref)
        scanner.prefetch_rows(refs[20:])
        assert not _lock_held()
        rows = [scanner.row(ref) for ref in refs[20:]]
        assert len(rows) == 10 and scanner.parses == 3  # the rest: read ahead, or from the index


# -- progress ----------------------------------------------------------------------------


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch, tty) -> list[tuple[int, int] | None]:  # noqa: ANN001
    """What the progress line would show on a terminal: (done, total) each time it changes,
    ``None`` when a phase ends (a result printed, or another phase named: its count is its own)."""
    from agentscan.cli import progress as cli_progress
    from agentscan.progress import FINDING

    seen: list[tuple[int, int] | None] = []
    named: list[str] = []

    class Recording(cli_progress.StderrProgress):
        def changed(self) -> None:
            if self.phase == FINDING:
                return  # (sessions found so far: no total, pass 55)
            if named[-1:] != [self.phase]:
                named.append(self.phase)
                seen.append(None)
            seen.append((self.done, self.total))

        def cleared(self) -> None:
            seen.append(None)

    monkeypatch.setattr(cli_progress, "StderrProgress", Recording)
    tty(120)
    return seen


def _phases(seen: list[tuple[int, int] | None]) -> list[list[tuple[int, int]]]:
    phases: list[list[tuple[int, int]]] = [[]]
    for item in seen:
        if item is None:
            phases.append([])
        else:
            phases[-1].append(item)
    return [phase for phase in phases if phase]


@pytest.mark.parametrize("command", [["tokens"], ["tokens", "--by", "session"], ["list", "-n", "1", "--grep", "rare"],
                                     ["list", "--all"], ["export", "--format", "jsonl", "--output", "-"]])
def test_progress_never_past_its_total_nor_back(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                travelled: list[str], drawn: list, command: list[str]) -> None:
    from agentscan.scan import tablefacts

    # ``tokens``' table reads its Claude sessions' facts in workers, not their rows.
    monkeypatch.setattr(tablefacts, "MIN_SESSIONS", 2)
    monkeypatch.setattr(tablefacts, "MIN_BYTES", 0)
    facts_forked = record_calls(monkeypatch, tablefacts, "_in_workers", lambda *args: True)
    for number in range(120):
        _session(isolated_home, number, damaged=number % 9 == 2, task="rare" if number in (100, 50) else "task")
    _gemini_among(isolated_home)
    for warm in (False, True):  # cold, then with the rows kept (ahead too)
        drawn.clear()
        run(*command)
        phases = _phases(drawn)
        assert phases or warm, drawn
        for phase in phases:
            assert all(done <= total for done, total in phase), phase
            assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(phase, phase[1:])), phase
    assert facts_forked if command[0] == "tokens" else travelled


def _gemini_among(home: Path) -> None:
    from test_row_build_commits import _gemini_chats

    _gemini_chats(home)


# -- collect's workers: the parent's confined roots (``ScanContext.for_worker``) ----------------


def _linked_home(home: Path, outside: Path) -> None:
    """Sessions whose files are reached through symlinks: into another provider's root
    (followed) and out of every root (skipped, with a warning)."""
    from gemini_builders import REAL_JSONL, REAL_LEGACY_2025, REAL_LEGACY_2026, chats_dir

    for number in range(6):
        _session(home, number, subagent=number % 2 == 0)
    elsewhere = home / ".claude" / "elsewhere"  # inside Claude's root: followed from Gemini's
    elsewhere.mkdir(parents=True)
    outside.mkdir()
    chats = chats_dir(home, "proj")
    chats.mkdir(parents=True)
    for sample, where in ((REAL_LEGACY_2025, elsewhere), (REAL_LEGACY_2026, outside), (REAL_JSONL, elsewhere)):
        (where / sample.name).write_bytes(sample.read_bytes())
        (chats / sample.name).symlink_to(where / sample.name)
    projects = home / ".claude" / "projects" / "-home-dev-project"
    secret = outside / "agent-a.jsonl"
    secret.write_bytes((projects / "00000000-1111-4000-8000-000000000000" / "subagents").iterdir().__next__().read_bytes())
    (projects / "00000002-1111-4000-8000-000000000000" / "subagents" / "agent-zz0002.jsonl").symlink_to(secret)
    codex_side = home / ".codex" / "kept"
    codex_side.mkdir(parents=True)
    (codex_side / "agent-cc0004.jsonl").write_bytes(secret.read_bytes())
    (projects / "00000004-1111-4000-8000-000000000000" / "subagents" / "agent-cc0004.jsonl").symlink_to(
        codex_side / "agent-cc0004.jsonl")


def test_token_parses_in_workers_confine_symlinks_as_here(tmp_path: Path, isolated_home: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import usageparse

    _linked_home(isolated_home, tmp_path / "outside")
    parallel: list[int] = []
    real_run = workers.run_parallel

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        for result in real_run(*args, **kwargs):
            parallel.append(result[0])
            yield result

    monkeypatch.setattr(workers, "run_parallel", counting)
    answers = []
    for threshold in (0, 10**18):  # in workers, then here
        monkeypatch.setattr(usageparse, "PARALLEL_MIN_BYTES", threshold)
        found = []
        for command in (["tokens", "--json", "--no-cache"], ["tokens", "--by", "session", "--no-cache"]):
            found.append(run(*command))
        answers.append(found)
        assert bool(parallel) == (threshold == 0)
        parallel.clear()
    assert answers[0] == answers[1]
    messages = [w["message"] for w in orjson.loads(answers[0][0][0])["warnings"]]
    assert any("outside" in message for message in messages), messages
