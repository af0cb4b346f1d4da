"""Second review of the split row pass (``sidepass``): a transcript appended to between the
two reads, told apart (or not) by what each read, deterministically; and ``workers.busy``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agentscan import bounds
from agentscan.providers.claude import row as row_module
from agentscan.providers.claude import sidepass
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import helperproc, workers
from builders import claude_session_file
from claude_events import LATE_REPLY, SESSION, lines_of, lower_row_limits, no_halves, qa_turns
from spies import record_calls


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch, helper=True)
    no_halves(monkeypatch)  # the side pass itself (the halves' tests: test_halves.py)


def _row(tmp_path: Path, cache: str) -> tuple:
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}
    with Scanner(env=env, use_cache=False) as scanner:
        return scanner.all_rows()[0].to_json(), sorted(map(str, scanner.ctx.warnings.items))


def _race(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, original: bytes, appended: bytes, *,
          helper_reads_after: bool) -> tuple[tuple, tuple, list]:
    """The one pass's row over ``original``, and the split pass's when ``appended`` is written
    just after this process's pass read the file: before the helper reads it
    (``helper_reads_after``) or after it answered; with the second passes made here."""
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(original)
    with pytest.MonkeyPatch.context() as one:
        one.setattr(sidepass, "SPLIT_BYTES", 1 << 60)
        expected = _row(tmp_path, "one")
    summarize, receive, side_pass = row_module.summarize, helperproc.Helper.receive, sidepass.side_pass

    def append() -> None:
        with path.open("ab") as handle:
            handle.write(appended)

    def then_append(file: Path, *args, **kwargs):
        summary = summarize(file, *args, **kwargs)
        if file == path and helper_reads_after:
            append()
        return summary

    def answered_then_append(self: helperproc.Helper):
        answer = receive(self)  # the helper has read the file
        if not helper_reads_after:
            append()
        return answer

    def helper_waits(file: Path, ctx, stable: bool, *, limit: int | None = None):
        if limit is None and helper_reads_after:  # the helper's pass: once the file has grown
            deadline = time.monotonic() + 30
            while file.stat().st_size == len(original) and time.monotonic() < deadline:
                time.sleep(0.01)
        return side_pass(file, ctx, stable, limit=limit)

    monkeypatch.setattr(row_module, "summarize", then_append)
    monkeypatch.setattr(helperproc.Helper, "receive", answered_then_append)
    monkeypatch.setattr(sidepass, "side_pass", helper_waits)
    here = record_calls(monkeypatch, sidepass, "side_pass", lambda *args, **kwargs: "here")
    monkeypatch.setattr(sidepass, "SPLIT_BYTES", 0)
    split = _row(tmp_path, "split")
    assert path.read_bytes() == original + appended
    return expected, split, here


def test_lines_appended_after_both_reads_leave_the_helpers_sums(tmp_path: Path, small_limits: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent at work in the session: its reply written after this pass and the helper
    both read the file.  The helper read what this pass read: its sums stand (no second
    pass), and the row is the one pass's over what it read."""
    expected, split, here = _race(tmp_path, monkeypatch, lines_of(qa_turns(20)), LATE_REPLY, helper_reads_after=False)
    assert here == []
    assert split == expected and split[0]["tokens"]["input"] < 1_000_000


def test_lines_the_helper_read_but_this_pass_did_not_are_added_up_again(
        tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    expected, split, here = _race(tmp_path, monkeypatch, lines_of(qa_turns(20)), LATE_REPLY, helper_reads_after=True)
    assert here == ["here"]
    assert split == expected and split[0]["tokens"]["input"] < 1_000_000


@pytest.mark.parametrize("helper_reads_after", [False, True])
def test_a_last_line_completed_between_the_reads(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch,
                                                 helper_reads_after: bool) -> None:
    """The last reply is whole but its newline not written yet when this pass reads it (a
    record here, after the last complete line); the helper reads it with its newline: not
    what this pass read (the complete offset differs), added up again here, the reply counted."""
    original = lines_of(qa_turns(20)).rstrip(b"\n")
    expected, split, here = _race(tmp_path, monkeypatch, original, b"\n" + LATE_REPLY, helper_reads_after=helper_reads_after)
    assert here == (["here"] if helper_reads_after else [])
    assert split == expected and split[0]["tokens"]["input"] > 20  # the unterminated reply's tokens counted


@pytest.mark.parametrize("helper_reads_after", [False, True])
def test_lines_past_the_line_cap_appended_between_the_reads(tmp_path: Path, small_limits: None,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            helper_reads_after: bool) -> None:
    """A transcript of exactly ``MAX_FILE_LINES`` lines, grown between the two reads: the
    helper stops at the cap where this pass ended (the same records, offset and lines, the
    same bytes): its sums stand for the one pass's; its warning about the cap is not said."""
    records = qa_turns(20)
    monkeypatch.setattr(bounds, "MAX_FILE_LINES", len(records))
    expected, split, here = _race(tmp_path, monkeypatch, lines_of(records), LATE_REPLY, helper_reads_after=helper_reads_after)
    assert here == []
    assert split == expected and not any("more than" in warning for warning in split[1])


def test_a_pool_worker_is_busy_too() -> None:
    """A worker of ``run_parallel`` is one of the processes holding the cores: a huge
    transcript's row read in it forks no helper (a third busy process on two cores)."""
    seen = [(ok, result) for _, ok, result in workers.run_parallel(lambda index: workers.busy(), [[0], [1]], 2)]
    assert seen == [(True, True), (True, True)]
    assert not workers.busy()
