"""Review of the split row pass (``sidepass``): cases where it gave other than the one pass."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import row as row_module
from agentscan.providers.claude import rowresume, sidepass
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import helperproc
from builders import claude_session_file
from claude_events import LATE_REPLY, SESSION, TRANSCRIPT, lines_of, lower_row_limits, no_halves, qa_turns, records_of, split_huge_passes
from conftest_hypothesis import FUZZ
from spies import record_calls


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch, helper=True)
    no_halves(monkeypatch)  # the side pass itself (the halves' tests: test_halves.py)


def _transcript(turns: int) -> bytes:
    return lines_of([b"{oops", *qa_turns(turns)])


def _row(tmp_path: Path, cache: str, *, use_cache: bool = False) -> dict:
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}
    with Scanner(env=env, use_cache=use_cache) as scanner:
        return scanner.list_sessions()[0].to_json()


@pytest.mark.parametrize("keep", [False, True])
def test_lines_appended_after_this_pass_read_the_file_are_not_added_up(
        tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch, keep: bool) -> None:
    """An agent appends a reply just after this pass reached the end of its transcript: the
    row is the one pass's over what it read, the new reply's tokens not among its sums
    (they were when the second pass here read the file as it had grown)."""
    monkeypatch.setattr(rowresume, "MAX_BYTES", 1 << 40 if keep else -1)
    path = claude_session_file(tmp_path / "home", SESSION, [])
    original = _transcript(20)
    summarize = row_module.summarize

    def appending(file: Path, *args, **kwargs):
        summary = summarize(file, *args, **kwargs)
        if file == path:  # this pass has read the file; the helper may or may not have
            with path.open("ab") as handle:
                handle.write(LATE_REPLY)
        return summary

    monkeypatch.setattr(row_module, "summarize", appending)
    seen = {}
    for split in (False, True):
        path.write_bytes(original)
        split_huge_passes(monkeypatch, split)
        here = record_calls(monkeypatch, sidepass, "side_pass", lambda *args, **kwargs: "here")
        seen[split] = _row(tmp_path, f"cache-{split}", use_cache=keep)
        if split:
            # A helper that read the late reply cannot stand for this pass: added up again here
            # (one that ended before it was written read what this pass read, and stands).
            assert here in ([], ["here"])
    assert seen[True] == seen[False]
    assert seen[False]["tokens"]["input"] < 1_000_000  # the one pass: what it read, not the late reply



RAW = st.sampled_from([b"{oops", b"[1, 2]", b"", b"   ", b"\xef\xbb\xbf{\"type\": \"user\"}", b'{"type": "progress"}',
                       b'{"type": "assistant", "message": "not a dict"}'])


@settings(FUZZ, max_examples=min(FUZZ.max_examples, 30))
@given(events=TRANSCRIPT, raw=st.lists(st.tuples(st.integers(0, 60), RAW), max_size=4), tail=st.sampled_from([b"", b'{"type": "user"', LATE_REPLY.rstrip()]),
       keep=st.booleans())
def test_the_second_pass_here_gives_what_one_pass_gives(tmp_path_factory: pytest.TempPathFactory, small_limits: None,
                                                         events, raw, tail, keep) -> None:
    """The helper gone (or its answer refused) for any transcript: the second pass here,
    up to the records this pass read, gives the one pass's row, ``show`` and warnings."""
    from agentscan.bounds import Bounds

    tmp_path = tmp_path_factory.mktemp("s")
    records: list = records_of(events)
    for at, line in raw:
        records.insert(min(at, len(records)), line)
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records) + tail)

    def seen(cache: str) -> tuple:
        env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}
        with Scanner(env=env) as scanner:
            row = scanner.all_rows()[0]  # (``list`` leaves out a session that recorded nothing)
            detail = scanner.show(SESSION, bounds=Bounds(prompts=3, responses=4, tools=5, message_bytes=200))
            return row.to_json(), detail.to_json(), [str(w) for w in scanner.ctx.warnings.items]

    def gone(self: helperproc.Helper) -> None:
        self.stop()
        raise helperproc.HelperGone("killed")

    with pytest.MonkeyPatch.context() as example:
        example.setattr(rowresume, "MAX_BYTES", 1 << 40 if keep else -1)
        example.setattr(helperproc.Helper, "receive", gone)
        here = record_calls(example, sidepass, "side_pass", lambda *args, **kwargs: "here")
        split_huge_passes(example, True)
        split = seen("split")
        assert here  # every main transcript's sums added up here
        split_huge_passes(example, False)
        assert split == seen("one")

# -- the progress of a huge transcript's read (``Progress.reading``) ------------------


def test_a_file_read_twice_in_one_command_gets_the_second_reads_own_rate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``show`` with bounds its row's facts cannot answer reads the main transcript twice
    (the row's pass, then the forward read): the second read's rate is its own, not one
    over both reads' time."""
    from agentscan import progress as library_progress
    from agentscan.bounds import Bounds
    from agentscan.cli import progress as progress_module
    from agentscan.progress import Progress

    class Told(Progress):
        def __init__(self) -> None:
            super().__init__()
            self.reads: list[int] = []

        def reading(self, name: str, done: int, size: int) -> None:
            self.reads.append(done)

    claude_session_file(tmp_path / "home", SESSION, []).write_bytes(_transcript(4200))
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    with Scanner(env={"HOME": str(tmp_path / "home")}, use_cache=False) as scanner:
        told = scanner.ctx.progress = Told()
        scanner.show(SESSION, bounds=Bounds(message_bytes=100))
    assert len(told.reads) == 4 and told.reads[2] < told.reads[1]  # one file, read twice, one phase

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = progress_module.StderrProgress(stream)
    for done in range(0, 1_000_000_001, 100_000_000):  # the first read: 100 MB/s for 10 s
        progress.reading("b16b16b1…", done, 1_000_000_000)
        clock[0] += 1.0
    progress.reading("b16b16b1…", 0, 1_000_000_000)  # the second read begins
    clock[0] += 0.5
    progress.reading("b16b16b1…", 200_000_000, 1_000_000_000)
    assert stream.getvalue().endswith("of 1,000 MB (100 MB/s)")  # within its own delay: not drawn yet
    clock[0] += 1.5
    progress.reading("b16b16b1…", 800_000_000, 1_000_000_000)
    assert stream.getvalue().endswith("\r\x1b[Kreading b16b16b1…: 800 of 1,000 MB (400 MB/s)")


def test_a_ctrl_c_just_after_the_helper_started_stops_it(tmp_path: Path, small_limits: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C that comes as the helper's start returns (before the row's pass begins) still
    stops and reaps it: a library caller that goes on after the interrupt keeps no process."""
    claude_session_file(tmp_path / "home", SESSION, []).write_bytes(_transcript(20))
    helpers = record_calls(monkeypatch, helperproc.Helper, "start", lambda helper: helper)
    real = sidepass.SidePass.start

    def interrupted(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(sidepass.SidePass, "start", interrupted)
    split_huge_passes(monkeypatch, True)
    try:
        with pytest.raises(KeyboardInterrupt):
            _row(tmp_path, "cache")
        assert len(helpers) == 1 and helpers[0].pid is None  # stopped (killed and reaped)
    finally:
        for helper in helpers:
            helper.stop()


def test_a_second_pass_that_cannot_read_the_file_again_keeps_nothing(tmp_path: Path, small_limits: None,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper gone, and the second pass here stopped by an I/O error this pass did not
    meet: its sums are of part of the file only, so the row is not kept in the index as if
    the file had been read (the error is said, as a passing one); the next run reads it."""
    claude_session_file(tmp_path / "home", SESSION, []).write_bytes(_transcript(20))
    expected = _row(tmp_path, "one")  # the one pass, no index

    def gone(self: helperproc.Helper) -> None:
        self.stop()
        raise helperproc.HelperGone("killed")

    real = sidepass.iter_json_lines

    def failing(path, ctx, **kwargs):
        for number, line in enumerate(real(path, ctx, **kwargs), 1):
            if number == 5:
                ctx.warn(path, "read failed: Input/output error", line.number, passing=True)
                return
            yield line

    with pytest.MonkeyPatch.context() as failed:
        failed.setattr(helperproc.Helper, "receive", gone)
        failed.setattr(sidepass, "iter_json_lines", failing)
        split_huge_passes(failed, True)
        first = _row(tmp_path, "cache", use_cache=True)
    assert first["tokens"] != expected["tokens"]  # this run's sums: of the lines read
    assert _row(tmp_path, "cache", use_cache=True) == expected  # the next run's: read again, whole


def test_a_ctrl_c_during_a_huge_read_erases_its_line(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C in the quarter of a minute a first ``show`` of a 1 GB transcript takes: the
    command ends (130, as click's) with its progress line erased, not left for the shell's
    prompt to be written after."""
    from agentscan import progress as library_progress
    from agentscan.cli import fastpath
    from agentscan.cli import progress as progress_module

    claude_session_file(isolated_home, SESSION, []).write_bytes(_transcript(4200))
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    monkeypatch.setattr(progress_module, "REDRAW_S", 0.0)
    real = progress_module.StderrProgress.reading

    def interrupted(self, *args) -> None:
        real(self, *args)
        raise KeyboardInterrupt

    monkeypatch.setattr(progress_module.StderrProgress, "reading", interrupted)
    tty(stderr=True)
    capsys.readouterr()
    assert fastpath.run(["show", SESSION[:8]]) == 130
    err = capsys.readouterr().err
    assert "\r\x1b[Kreading " in err and err.endswith("\r\x1b[K")
