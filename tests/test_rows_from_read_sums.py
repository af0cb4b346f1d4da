"""``tokens``' table reads every session's row after the report has read every session's
sums: a Claude row's pass then takes its tokens from those sums (``usagegroups.note_read``,
``groups_read``) instead of adding every call up again (a quarter of the pass).

The rows must be the ones a pass that adds the calls up makes: the same tokens and the same
count of subagents, for streamed copies, sidechain replays, subagents with a transcript and
without one (their calls copied into the parent's records), sessions without usage.  A
session changed since its sums were read is added up by its own pass.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.context import ScanContext
from agentscan.providers.claude import windowed
from agentscan.providers.claude.usage import C_INPUT
from agentscan.readsums import groups_read, note_read
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import claude_assistant, claude_progress, claude_session_file, claude_subagent_file, claude_usage, claude_user
from conftest_hypothesis import FUZZ

MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"]
#: (message number, tokens, model, where): where 0 = the main transcript, 1 = a subagent's
#: transcript, 2 = a sidechain replay in the main one, 3 = copied into the main one's progress
#: records from a subagent whose transcript is gone
CALL = st.tuples(st.integers(0, 5), st.integers(0, 90_000), st.integers(0, 1), st.integers(0, 3))


def _session(home: Path, number: int, calls: list[tuple[int, int, int, int]], *, orphan: bool = False) -> None:
    """``orphan``: the main transcript is gone, its subagent's is left."""
    native = f"{number:08x}-0000-4000-8000-000000000000"
    main: list[dict] = [claude_user(native, "2026-11-01T09:00:00.000Z", f"task {number}")]
    sub: list[dict] = []
    for index, (message, tokens, model, where) in enumerate(calls):
        record = claude_assistant(native, f"2026-11-01T{9 + index // 60:02d}:{index % 60:02d}:30.000Z",
                                  # messages 4 and 5 are in every session (a resumed or forked one's
                                  # copies): a row's sums are the session's own all the same
                                  msg_id=f"msg-{number if message < 4 else 'shared'}-{message}",
                                  request_id=f"req-{number}-{message % 3}",
                                  usage=claude_usage(tokens, tokens // 3 + 1, cache_read=tokens * 2), model=MODELS[model],
                                  sidechain=where in (1, 2))
        if where == 1:
            sub.append(record)
        elif where == 3:
            main.append(claude_progress(native, record["timestamp"], "gone0001", record))
        else:
            main.append(record)
    main_file = claude_session_file(home, native, main, mtime=1_790_000_000 + number)
    if sub:
        claude_subagent_file(home, native, "a1b2c3", sub)
        if orphan:
            main_file.unlink()


def _rows(*, report_first: bool) -> dict[str, dict]:
    with Scanner(use_cache=True) as scanner:
        if report_first:
            token_report(scanner)
        return {ref.id: scanner.row(ref).to_json() for ref in scanner.refs()}


@pytest.fixture
def additions(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Every call a row's pass adds up (``WindowedTotals.add``)."""
    seen: list[tuple] = []
    real = windowed.WindowedTotals.add

    def add(self: windowed.WindowedTotals, call: tuple) -> None:
        seen.append(call)
        real(self, call)

    monkeypatch.setattr(windowed.WindowedTotals, "add", add)
    return seen


@FUZZ
@given(sessions=st.lists(st.tuples(st.lists(CALL, max_size=10), st.booleans()), min_size=1, max_size=4))
def test_rows_after_the_report_are_the_rows_a_pass_adds_up(isolated_home: Path, additions: list[tuple],
                                                            sessions: list) -> None:
    cache = Path(os.environ["AGENTSCAN_CACHE_DIR"])
    for path in [*cache.glob("*"), *(isolated_home / ".claude").rglob("*.jsonl")]:
        path.unlink()
    for number, (calls, orphan) in enumerate(sessions):
        _session(isolated_home, number, calls, orphan=orphan)
    alone = _rows(report_first=False)
    assert len(alone) == len(sessions)
    assert additions or not any(calls for calls, _ in sessions)  # these rows added their calls up
    for path in cache.glob("*"):
        path.unlink()  # the rows read again, after a cold report
    additions.clear()
    assert _rows(report_first=True) == alone
    assert additions == []  # no call added up: every row took the sums the report read


def test_a_session_changed_since_its_sums_were_read_is_added_up_again(isolated_home: Path, additions: list[tuple]) -> None:
    _session(isolated_home, 1, [(0, 500, 0, 0), (1, 700, 1, 1)])
    path = next((isolated_home / ".claude" / "projects").glob("*/*.jsonl"))
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
        (ref,) = scanner.refs()
        assert groups_read(scanner.ctx, ref.id, scanner.fingerprint(ref)) is not None
        # An agent appends a call between the report's read and the row's pass: the session's
        # fingerprint (discovery's stats) is still the one the sums were read at.
        native = ref.native_id
        with path.open("a") as handle:
            handle.write(orjson.dumps(claude_assistant(native, "2026-11-01T10:00:00.000Z", msg_id="late", request_id="late",
                                                       usage=claude_usage(300, 1))).decode() + "\n")
        row = scanner.row(ref)
    assert additions  # its own pass added the calls up
    assert row.tokens is not None and row.tokens.input == 1500
    assert row.subagents == 1


def test_a_session_whose_reading_said_something_is_added_up_by_its_pass(isolated_home: Path, additions: list[tuple]) -> None:
    _session(isolated_home, 1, [(0, 500, 0, 0)])
    path = next((isolated_home / ".claude" / "projects").glob("*/*.jsonl"))
    with path.open("a") as handle:
        handle.write('{"type": "assistant", "message": {"usage": broken\n')  # the usage scan reads it, and says so
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
        (ref,) = scanner.refs()
        assert groups_read(scanner.ctx, ref.id, scanner.fingerprint(ref)) is None
        row = scanner.row(ref)
    assert additions and row.tokens is not None and row.tokens.input == 500


def test_a_row_whose_resume_state_is_kept_still_adds_its_calls_up(isolated_home: Path, additions: list[tuple],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import rowresume

    monkeypatch.setattr(rowresume, "MIN_BYTES", 0)  # every transcript is worth a resume state
    monkeypatch.setattr(rowresume, "KEEP_DAYS", 3650)  # the test's transcripts are dated 2026-09
    _session(isolated_home, 1, [(0, 500, 0, 0), (1, 700, 1, 0)])
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
        (ref,) = scanner.refs()
        row = scanner.row(ref)
    assert len(additions) == 2  # the state holds the totals: they are added up
    assert row.tokens is not None and row.tokens.input == 1200


def test_a_session_of_more_calls_than_half_the_window_adds_its_calls_up(isolated_home: Path, additions: list[tuple],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windowed, "WINDOW", 4)  # past two calls: as past 10,000 for real
    _session(isolated_home, 1, [(0, 500, 0, 0), (1, 700, 1, 0), (2, 900, 1, 0)])
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
        (ref,) = scanner.refs()
        row = scanner.row(ref)
    assert len(additions) == 3
    assert row.tokens is not None and row.tokens.input == 2100


def test_the_tables_rows_read_in_workers_take_the_sums_read(isolated_home: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Through ``agentscan tokens`` (the text table), its rows read in forked workers: no
    worker adds a call up (told through a file: a worker's memory is its own), and every
    row is the one ``list`` reads alone afterwards from a fresh index."""
    from typer.testing import CliRunner

    from agentscan.cli import app
    from agentscan.scan import rowbuild

    told = tmp_path / "additions"
    real = windowed.WindowedTotals.add

    def add(self: windowed.WindowedTotals, call: tuple) -> None:
        with told.open("a") as handle:
            handle.write(f"{os.getpid()}\n")
        real(self, call)

    monkeypatch.setattr(windowed.WindowedTotals, "add", add)
    monkeypatch.setattr(rowbuild, "MIN_ROWS", 2)
    monkeypatch.setattr(rowbuild, "MIN_BYTES", 0)
    for number in range(6):
        _session(isolated_home, number, [(0, 100 + number, 0, 0), (1, 200, 1, 1), (2, 300, 0, 3)], orphan=number == 5)
    runner = CliRunner()
    table = runner.invoke(app, ["tokens"])
    assert table.exit_code == 0, table.output
    assert not told.exists()
    listed = runner.invoke(app, ["list", "--all", "--json"])
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "fresh"))
    fresh = runner.invoke(app, ["list", "--all", "--json"])
    assert told.exists()  # the fresh index's rows added their calls up
    assert orjson.loads(listed.stdout)["sessions"] == orjson.loads(fresh.stdout)["sessions"]


def _read(groups: list[list]) -> SimpleNamespace:
    return SimpleNamespace(groups=groups, said=False, warnings=[], passing=False)


def test_a_workers_context_has_the_sums_the_scan_read() -> None:
    ctx = ScanContext.create(home="/nowhere", env={})
    note_read(ctx, {"claude:x": "fp"}, {"claude:x": _read([["g"]])})
    ctx.memo["other"] = object()
    worker = ctx.for_worker()
    assert groups_read(worker, "claude:x", "fp") == [["g"]]
    assert "other" not in worker.memo


def test_the_last_read_of_a_session_is_the_one_taken() -> None:
    ctx = ScanContext.create(home="/nowhere", env={})
    note_read(ctx, {"claude:x": "old", "claude:y": "fp"}, {"claude:x": _read([["old"]]), "claude:y": _read([["y"]])})
    note_read(ctx, {"claude:x": "new"}, {"claude:x": _read([["new"]])})
    assert groups_read(ctx, "claude:x", "new") == [["new"]]
    assert groups_read(ctx, "claude:x", "old") is None  # read again since, at another fingerprint
    assert groups_read(ctx, "claude:y", "fp") == [["y"]]
    assert groups_read(ctx, "claude:y", None) is None
    note_read(ctx, {"claude:z": "fp"}, {"claude:z": SimpleNamespace(groups=[], said=True, warnings=["a bad line"], passing=False)})
    assert groups_read(ctx, "claude:z", "fp") is None


@pytest.mark.parametrize("in_workers", [False, True])
def test_list_all_after_tokens_takes_the_sums_the_index_keeps(isolated_home: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, in_workers: bool) -> None:
    """Another command: ``tokens --json`` reads no row, only sums, which the index keeps; the
    ``list --all`` after it takes them (``rowreader.note_kept_sums``) but for a session
    changed since, and lists what a fresh index's ``list --all`` lists."""
    from typer.testing import CliRunner

    from agentscan.cli import app
    from agentscan.scan import rowbuild

    told = tmp_path / "additions"
    real = windowed.WindowedTotals.add

    def add(self: windowed.WindowedTotals, call: tuple) -> None:
        with told.open("a") as handle:  # (a worker's memory is its own)
            handle.write(f"{call[C_INPUT]}\n")
        real(self, call)

    monkeypatch.setattr(windowed.WindowedTotals, "add", add)
    if in_workers:
        monkeypatch.setattr(rowbuild, "MIN_ROWS", 2)
        monkeypatch.setattr(rowbuild, "MIN_BYTES", 0)
    for number in range(6):
        _session(isolated_home, number, [(0, 100 + number, 0, 0), (1, 200, 1, 1), (2, 300, 0, 3)], orphan=number == 5)
    runner = CliRunner()
    assert runner.invoke(app, ["tokens", "--json"]).exit_code == 0
    assert not told.exists()  # (no row read)
    listed = runner.invoke(app, ["list", "--all", "--json"])
    assert listed.exit_code == 0, listed.output
    assert not told.exists()  # no call added up again
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "fresh"))
    fresh = runner.invoke(app, ["list", "--all", "--json"])
    assert told.exists()  # the fresh index's rows added their calls up
    assert orjson.loads(listed.stdout)["sessions"] == orjson.loads(fresh.stdout)["sessions"]


def test_list_all_adds_up_a_session_changed_since_tokens(isolated_home: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's sums of a session that grew since ``tokens`` are of other files: its row's
    pass adds its calls up, with the new one."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    for number in range(3):
        _session(isolated_home, number, [(0, 100 + number, 0, 0), (1, 200, 1, 1)])
    runner = CliRunner()
    assert runner.invoke(app, ["tokens", "--json"]).exit_code == 0
    native = f"{1:08x}-0000-4000-8000-000000000000"
    with next((isolated_home / ".claude" / "projects").glob(f"*/{native}.jsonl")).open("a") as handle:
        handle.write(orjson.dumps(claude_assistant(native, "2026-11-01T11:00:00.000Z", msg_id="late", request_id="late",
                                                   usage=claude_usage(4321, 1))).decode() + "\n")
    seen: list[tuple] = []
    real = windowed.WindowedTotals.add
    monkeypatch.setattr(windowed.WindowedTotals, "add", lambda self, call: (seen.append(call), real(self, call))[1])
    listed = orjson.loads(runner.invoke(app, ["list", "--all", "--json"]).stdout)["sessions"]
    assert sorted(call[C_INPUT] for call in seen) == [101, 200, 4321]  # only the grown one added up
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "fresh"))
    assert listed == orjson.loads(runner.invoke(app, ["list", "--all", "--json"]).stdout)["sessions"]
    assert {row["tokens"]["input"] for row in listed if row["id"].endswith(native)} == {200 + 101 + 4321}


def test_asking_whether_the_index_kept_a_sessions_sums_decodes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ref.id in sums`` (``rowreader.note_kept_sums``, per row's session) checks the key:
    ``Mapping.__contains__`` decoded the document each time."""
    from agentscan.scan import sessionsums
    from agentscan.scan.rowreader import _KeptSums

    decoded: list[object] = []
    monkeypatch.setattr(sessionsums.SessionSums, "from_bytes", classmethod(lambda cls, data: decoded.append(data)))
    kept = _KeptSums({"claude:a": b"{}", "claude:b": b"{}"})
    assert "claude:a" in kept and "claude:z" not in kept
    assert decoded == []
