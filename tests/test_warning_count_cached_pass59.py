"""A file of more warnings than a result keeps (``CAPTURE_LIMIT``): a cached ``tokens`` said
"80 more" of a file of 156 bad lines where ``--no-cache`` said 136.  A session's stored sums, its
resume state, its provider's snapshot and the remembered answer kept the first 100 warnings and no
count of the rest; each now keeps the count, and a cached run says what ``--no-cache`` says."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, ran

BASE = time.time() - 3600
BAD = '{"type": "assistant", "message": {"usage": {not json'
LISTED = 20  # (a file's warnings listed: the rest counted)


def _session(home: Path, session: str, bad: int, *, project: str) -> Path:
    records: list[object] = [claude_user(session, "2026-11-07T10:00:00.000Z", "work"),
                             claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id=f"{session}-m1",
                                              request_id=f"{session}-r1", usage=claude_usage(100, 10))]
    path = claude_session_file(home, session, records, project=project)
    path.write_bytes(path.read_bytes() + b"".join(b"%s %d\n" % (BAD.encode(), n) for n in range(bad)))
    return path


def _touch(path: Path, extra: bytes = b"\n") -> None:
    """The file changed on disk (its fingerprint), its place in time kept."""
    stat = path.stat()
    with path.open("ab") as out:
        out.write(extra)
    os.utime(path, (stat.st_atime, stat.st_mtime + 1))


@pytest.fixture
def home(isolated_home: Path) -> dict[str, Path]:
    paths = {"bad": _session(isolated_home, "bad", 156, project="-home-bad"),
             "other": _session(isolated_home, "other", 0, project="-home-other")}
    for age, path in enumerate(paths.values()):
        os.utime(path, (BASE - 100 * age, BASE - 100 * age))
    return paths


ARGS = [("tokens", "--tz", "utc", "--verbose"), ("tokens", "--tz", "utc", "--json")]


def _more(said: tuple[str, str], count: int, args: tuple[str, ...]) -> bool:
    """(Text folds a run's warnings past a few, but not with ``--verbose``.)"""
    return f"{count:,} more warnings for this file were not listed" in said[0] + said[1]


@pytest.mark.parametrize("args", ARGS)
def test_cold_and_warm_runs_say_the_no_cache_count(home: dict[str, Path], args: tuple[str, ...]) -> None:
    """Pins (it passed on the code before the count was kept, and cannot fail on it): the warm
    runs here are answered from the remembered answer, whose capture (``MAX_WARNINGS``) held all
    156.  The tests below, of sums, a resume state and a file read by halves, did fail."""
    fresh = ran(*args, "--no-cache")
    assert _more(fresh, 156 - LISTED, args)
    assert ran(*args) == fresh  # cold
    assert ran(*args) == fresh  # warm: the remembered answer
    assert ran(*args) == fresh


@pytest.mark.parametrize("args", ARGS)
def test_a_warm_run_without_a_remembered_answer_says_the_no_cache_count(
        home: dict[str, Path], args: tuple[str, ...]) -> None:
    ran(*args)
    _touch(home["other"])  # (another session changed: the answer is worked out from each one's sums)
    fresh = ran(*args, "--no-cache")
    assert _more(fresh, 156 - LISTED, args)
    assert ran(*args) == fresh
    assert ran(*args) == fresh


@pytest.mark.parametrize("args", ARGS)
def test_a_grown_file_read_from_its_resume_state_says_the_no_cache_count(
        home: dict[str, Path], args: tuple[str, ...]) -> None:
    ran(*args)
    grown = 156
    for _ in range(2):  # (changed once, it keeps a resume state: the second change resumes from it)
        _touch(home["bad"], b"".join(b"%s grown %d\n" % (BAD.encode(), n) for n in range(7)))
        grown += 7
        ran(*args)
    _touch(home["bad"], b"".join(b"%s grown %d\n" % (BAD.encode(), n) for n in range(7)))
    fresh = ran(*args, "--no-cache")
    assert _more(fresh, grown + 7 - LISTED, args)
    assert ran(*args) == fresh
    assert ran(*args) == fresh


def test_an_answer_worked_out_from_the_sums_is_remembered_with_the_count(
        home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The count said again from a session's sums is kept with the answer (not an overflow of its
    capture): the next warm run is answered from it, and says the same."""
    from agentscan.scan import answers

    args = ("tokens", "--tz", "utc", "--json")
    ran(*args)
    _touch(home["other"])
    worked_out = ran(*args)
    recalled: list[object] = []
    recall = answers.recall

    def spy(*given: object, **named: object) -> object:
        recalled.append(found := recall(*given, **named))  # type: ignore[arg-type]
        return found

    monkeypatch.setattr(answers, "recall", spy)
    assert ran(*args) == worked_out
    assert len(recalled) == 1 and recalled[0] is not None
    assert worked_out == ran(*args, "--no-cache")


def test_a_first_half_of_more_bad_lines_than_are_held_counts_them_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read by halves holds its first half's warnings (``ctx.held_warnings``) until it is
    known to be the file the census found: past the 1,000 held a file, they were dropped, and
    its "N more" was short of one pass's by as many."""
    from agentscan.context import HELD_PER_FILE
    from agentscan.providers.claude import incremental
    from agentscan.scan.scanner import Scanner
    from agentscan.toolkit import cores
    from claude_events import SESSION, lines_of, qa_turns

    bad = HELD_PER_FILE + 100
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(b"".join(b"%s %d\n" % (BAD.encode(), n) for n in range(bad)) + lines_of(qa_turns(400)))

    def said(split: bool) -> list[str]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(incremental, "SPLIT_BYTES", 0 if split else 1 << 60)
            patch.setattr(cores, "usable_workers", lambda limit=8: 2)  # a second core, even on one
            with Scanner(env={"HOME": str(tmp_path / "home")}, use_cache=False) as scanner:
                incremental.calls_and_chain(scanner.refs()[0].hint, scanner.ctx, keep_state=False)
                return [warning.message for warning in scanner.ctx.warnings.listed()]

    whole = said(False)
    assert f"{bad - LISTED:,} more warnings for this file were not listed" in whole
    assert said(True) == whole


def _subagent_session(home: Path, main_bad: int, sub_bad: int) -> Path:
    """A transcript of ``main_bad`` bad lines and its subagent's file of ``sub_bad``."""
    from builders import claude_subagent_file

    _session(home, "sess", main_bad, project="-home-dev-project")
    sub = claude_subagent_file(home, "sess", "a0", [
        claude_user("sess", "2026-11-07T10:01:00.000Z", "sub", isSidechain=True),
        claude_assistant("sess", "2026-11-07T10:01:01.000Z", msg_id="sm", request_id="sr",
                         usage=claude_usage(50, 5), isSidechain=True)])
    sub.write_bytes(sub.read_bytes() + b"".join(b"%s %d\n" % (BAD.encode(), n) for n in range(sub_bad)))
    return sub  # (written now: too young for an answer to be remembered, warm runs add up the sums)


@pytest.mark.parametrize("args", ARGS)
def test_a_subagent_files_warnings_are_kept_when_its_transcripts_fill_the_capture(
        isolated_home: Path, args: tuple[str, ...]) -> None:
    """A session's sums keep the warnings of all its files in one capture: its transcript's 150
    bad lines filled it, its subagent file's 5 were lost (``Captured.lost``) and the sums were
    stored without them; the second cached run (from the sums and snapshot) said none of the 5.
    A file's listed warnings are now kept past the capture's limit (``whole_files``)."""
    import subprocess
    import sys

    def apart(*more: str) -> tuple[str, str]:
        # (Each run its own process, as a user's are: run in this one, the second cached
        # run said the 5, and the test passed on the code it guards.)
        done = subprocess.run([sys.executable, "-m", "agentscan", *args, *more], capture_output=True, text=True,
                              timeout=120, check=True)
        return done.stdout, done.stderr

    sub = _subagent_session(isolated_home, 150, 5)
    fresh = apart("--no-cache")
    assert (fresh[0] + fresh[1]).count(sub.name) == 5
    for _ in range(3):
        assert apart() == fresh


@pytest.mark.parametrize("args", ARGS)
def test_a_file_read_by_halves_then_grown_twice_says_the_no_cache_count(
        isolated_home: Path, args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read by halves kept in its resume state the two halves' calls and warnings, not
    their counts past them (``usagehalves`` joins them without ``more``): grown, then grown
    again (resumed from that state), a cached run said "94 more" where ``--no-cache`` said 1,494."""
    import json

    from agentscan.providers.claude import incremental
    from agentscan.toolkit import cores

    monkeypatch.setattr(incremental, "SPLIT_BYTES", 64 * 1024)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)  # (halves even on one core)
    records = [json.dumps(claude_user("big", "2026-11-07T10:00:00.000Z", "w")).encode()]
    records += [b"%s %d" % (BAD.encode(), n) for n in range(500)]
    records += [json.dumps(claude_assistant("big", "2026-11-07T10:00:01.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                                            usage=claude_usage(100 + n, 10))).encode() for n in range(500)]
    path = isolated_home / ".claude" / "projects" / "-w" / "big.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join(records) + b"\n")
    os.utime(path, (BASE, BASE))
    assert path.stat().st_size > 2 * incremental.SPLIT_BYTES
    bad = 500
    for grown in range(3):  # cold, grown, grown again (from the resume state)
        if grown:
            _touch(path, b"".join(b"%s grown %d-%d\n" % (BAD.encode(), grown, n) for n in range(7)))
            bad += 7
        cached = ran(*args)
        assert cached == ran(*args, "--no-cache")
        assert _more(cached, bad - LISTED, args)


def test_a_recalled_answers_counts_are_said_where_the_sink_began_them(isolated_home: Path) -> None:
    """An answer printed again said its files' counts past their listed warnings in the order it
    stored them, all after every listed one: an answer worked out from the stored sums holds them
    session by session, so a subagent file's "10 more" came behind a later file's "5 more",
    where ``--no-cache`` says them in the order the sink began them, right after each file's
    listed ones (a count starts past a file's 20th).  Final read of pass 59: a reader's home (a
    subagent file newer than its transcript, a later session's file of 25 bad lines) showed the
    second remembered ``tokens --by day --json`` differ from ``--no-cache``.  (Pass 60: the
    answer keeps one value, each count in its place: stored and read back, then said again.)"""
    from types import SimpleNamespace

    from agentscan.context import ScanContext
    from agentscan.scan.answers import Recalled, _told_blob, _told_of, say_again
    from agentscan.toldwarnings import Counted

    sub, later = str(isolated_home / "sub.jsonl"), str(isolated_home / "later.jsonl")
    told = tuple([*((sub, f"invalid JSON skipped: {n}", n, False) for n in range(1, LISTED + 1)), Counted(sub, 10, 30),
                  *((later, f"invalid JSON skipped: {n}", n, False) for n in range(1, LISTED + 1)), Counted(later, 5, 25)])
    ctx = ScanContext(home=isolated_home, env={})
    back = _told_of(_told_blob(told))
    assert back == told
    say_again(SimpleNamespace(ctx=ctx), Recalled(b"", back))  # type: ignore[arg-type]
    said = [(warning.path, warning.message) for warning in ctx.warnings.listed()]
    assert said[-2:] == [(sub, "10 more warnings for this file were not listed"),
                         (later, "5 more warnings for this file were not listed")], said[-2:]


def test_every_replay_of_kept_warnings_says_a_files_count_in_its_place(isolated_home: Path) -> None:
    """A remembered answer, a session's stored sums and a worker's result say their kept warnings
    again through one rule (``WarningSink.say_again``): the stored sums said theirs with every
    count at the end, as the answer did before the final read of pass 59 mended it alone."""
    from agentscan.context import ScanContext
    from agentscan.scan.sessionsums import SessionSums
    from agentscan.toldwarnings import Counted

    sub, later = str(isolated_home / "sub.jsonl"), str(isolated_home / "later.jsonl")
    told = [*((sub, f"invalid JSON skipped: {n}", n, False) for n in range(1, LISTED + 1)), Counted(sub, 10, 30),
            *((later, f"invalid JSON skipped: {n}", n, False) for n in range(1, LISTED + 1)), Counted(later, 5, 25)]
    sums = SessionSums.from_bytes(SessionSums([], told).to_bytes())
    assert sums is not None and list(sums.told) == told
    ctx = ScanContext(home=isolated_home, env={})
    sums.say(ctx)
    said = [(warning.path, warning.message) for warning in ctx.warnings.listed()]
    assert said[-2:] == [(sub, "10 more warnings for this file were not listed"),
                         (later, "5 more warnings for this file were not listed")], said[-2:]
