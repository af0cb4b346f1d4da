"""``tokens``' warnings of many sessions come in one order (``scan.saidorder``): the session
list's, however the reads finished.  A cached run said those the index answered first, as it
replayed them, then those it parsed; ``--no-cache`` said them as its parse (or its workers)
finished: the two runs' stderr differed, and one cached run's from the next."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, ran
from gemini_builders import gemini, meta, tokens, user, write_chat

BASE = time.time() - 3600
BAD = '{"type": "assistant", "message": {"usage": {not json'  # (a line a count reads, between two calls)


def _claude(home: Path, session: str) -> Path:
    return claude_session_file(home, session, [
        claude_user(session, "2026-11-07T10:00:00.000Z", "work"),
        claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id=f"{session}-m1", request_id=f"{session}-r1",
                         usage=claude_usage(100, 10)),
        BAD,
        claude_assistant(session, "2026-11-07T10:00:02.000Z", msg_id=f"{session}-m2", request_id=f"{session}-r2",
                         usage=claude_usage(50, 5)),
    ])


def _home(home: Path) -> dict[str, Path]:
    """Two Claude sessions and a Gemini chat between them in time, each with a bad line."""
    paths = {"c1": _claude(home, "c1"), "c2": _claude(home, "c2")}
    paths["g1"] = write_chat(home, "p", "session-2026-11-07T10-00-g1.jsonl", [
        meta("g1"), user("u1", "2026-11-07T10:00:00.000Z", "hi"),
        gemini("a1", "2026-11-07T10:00:01.000Z", "x", usage=tokens(100, 10)),
        BAD,
        gemini("a2", "2026-11-07T10:00:02.000Z", "y", usage=tokens(50, 5)),
    ])
    for age, path in enumerate(paths.values()):  # (as written, the bad line as it is)
        path.write_bytes(path.read_bytes().replace(orjson.dumps(BAD), BAD.encode()))
        os.utime(path, (BASE - 10 * age, BASE - 10 * age))
    return paths


def _grow(path: Path) -> None:
    """The session changed on disk (its fingerprint), its place in time kept: the next cached
    run parses it again, and the others' warnings come from the index."""
    stat = path.stat()
    with path.open("a", encoding="utf-8") as out:
        out.write("\n")
    os.utime(path, (stat.st_atime, stat.st_mtime + 1))


@pytest.mark.parametrize("changed", ["c1", "c2", "g1"])
def test_a_cached_runs_warnings_come_in_the_no_cache_runs_order(isolated_home: Path, changed: str) -> None:
    paths = _home(isolated_home)
    ran("tokens", "--tz", "utc")  # (the index holds each session's sums and warnings)
    _grow(paths[changed])
    for args in (("tokens", "--tz", "utc"), ("tokens", "--tz", "utc", "--json")):
        out, err = ran(*args)
        fresh_out, fresh_err = ran(*args, "--no-cache")
        assert err.count("invalid JSON skipped") == 3 or out.count('"invalid JSON skipped') == 3
        assert (out, err) == (fresh_out, fresh_err)
        assert ran(*args) == (fresh_out, fresh_err)  # and the next cached run's the same


def test_a_file_of_more_bad_lines_than_are_held_is_counted_whole(isolated_home: Path) -> None:
    """Held for their order, a file's warnings past those held are counted still: the "N more"
    line says every one (a file of garbage must not be held whole either)."""
    from agentscan.scan.memo import MAX_WARNINGS

    bad = MAX_WARNINGS + 50
    chat = write_chat(isolated_home, "p", "session-2026-11-07T10-00-g2.jsonl", [
        meta("g2"), user("u1", "2026-11-07T10:00:00.000Z", "hi"),
        gemini("a1", "2026-11-07T10:00:01.000Z", "x", usage=tokens(100, 10))])
    with chat.open("a", encoding="utf-8") as out:
        out.writelines(f"{{bad {number}\n" for number in range(bad))
    out_json, _ = ran("tokens", "--json", "--no-cache")
    listed = 20  # (a file's warnings listed: the rest counted)
    assert f"{bad - listed:,} more warnings for this file were not listed" in out_json


def _claude_of_bad_lines(home: Path, session: str, bad: int) -> Path:
    """A Claude session of six calls, a bad line after each, then ``bad`` bad lines."""
    records: list[object] = [claude_user(session, "2026-11-07T10:00:00.000Z", "work")]
    for call in range(6):
        records += [claude_assistant(session, f"2026-11-07T10:00:{call + 1:02d}.000Z", msg_id=f"{session}-m{call}",
                                     request_id=f"{session}-r{call}", usage=claude_usage(100, 10)), BAD]
    path = claude_session_file(home, session, records, project=f"-home-{session}")
    path.write_bytes(path.read_bytes().replace(orjson.dumps(BAD), BAD.encode())
                     + b"".join(b"%s %d\n" % (BAD.encode(), n) for n in range(bad)))
    return path


@pytest.mark.parametrize("command", ["list", "show", "export"])
def test_a_file_of_more_bad_lines_than_are_held_is_counted_once_in_list_show_and_export(
        isolated_home: Path, tmp_path: Path, command: str) -> None:
    """Read by the row's pass and again by the sums', a file's lines past those held were
    counted twice by ``--no-cache`` (10,092 more said for 10,036), once from the cache."""
    from agentscan.scan.memo import MAX_WARNINGS

    args = {"list": ("list", "--all", "--json"), "show": ("show", "c2", "--json"),
            "export": ("export", "--format", "jsonl", "--output", str(tmp_path / "all.jsonl"), "--json")}[command]
    bad = MAX_WARNINGS + 50  # (past what an answer keeps, and what was held for the order)
    for age, path in enumerate((_claude_of_bad_lines(isolated_home, "c1", 0),
                                _claude_of_bad_lines(isolated_home, "c2", bad),
                                _claude_of_bad_lines(isolated_home, "c3", 30))):
        os.utime(path, (BASE - 100 * age, BASE - 100 * age))
    fresh = ran(*args, "--no-cache")
    said = fresh[0] + fresh[1]
    listed = 20  # (a file's warnings listed: the rest counted)
    assert f'"{6 + bad - listed:,} more warnings for this file were not listed"' in said
    assert (f'"{6 + 30 - listed:,} more warnings for this file were not listed"' in said) == (command != "show")
    assert ran(*args) == fresh  # (the cache's answer, then its own)
    assert ran(*args) == fresh


def test_a_file_past_its_listed_warnings_is_held_as_a_count_and_read_again_counts_once() -> None:
    """Held for their order, a file keeps the warnings the sink lists, past them a count: 10,000
    a file held took 90 MB over 25 files of bad lines; read twice, its lines count once."""
    from agentscan.context import ScanContext
    from agentscan.scan.saidorder import in_session_order
    from agentscan.toldwarnings import Counted

    class Pass:
        def __init__(self) -> None:
            self.ctx = ScanContext.create()
            self.held = 0

        @in_session_order
        def read(self, refs: list[object]) -> None:
            for _ in range(2):  # (the row's pass, then the sums')
                for line in range(2, 50_002):
                    self.ctx.warn("/h/bad.jsonl", "invalid JSON skipped", line)
            self.held = sum(type(said) is not Counted for said in self.ctx.warnings.said)  # type: ignore[attr-defined]

    reader = Pass()
    reader.read([])
    assert reader.held == 20  # (a file's warnings listed)
    listed = reader.ctx.warnings.listed()
    assert len(listed) == 21 and listed[-1].message == "49,980 more warnings for this file were not listed"
    again = Pass()  # the file warned of before, its first 40,000 lines: the rule goes on from there
    for line in range(2, 40_002):
        again.ctx.warn("/h/bad.jsonl", "invalid JSON skipped", line)
    again.read([])
    assert again.held == 0 and again.ctx.warnings.listed() == listed


def test_what_is_held_for_the_order_is_listed_with_what_was_said_before() -> None:
    """Read inside the hold, the sink lists what it would have, had they been said as they came:
    a "cannot read" said before (discovery, a row's pass) and again inside was dropped as a
    repeat, in neither list, and an unreadable session lost its mark (``unreadrows``): so
    000bdd0's hold did, its parent's not (this guards that regression)."""
    from agentscan.context import ScanContext
    from agentscan.scan.saidorder import in_session_order

    class Pass:
        def __init__(self) -> None:
            self.ctx = ScanContext.create()
            self.inside: list[tuple[str, str]] = []

        @in_session_order
        def read(self, refs: list[object]) -> None:
            self.ctx.warn("/h/denied.jsonl", "cannot read: Permission denied", passing=True)
            self.ctx.warn("/h/bad.jsonl", "invalid JSON skipped", 7)
            self.inside = [(w.path, w.message) for w in self.ctx.warnings.listed()]

    reader = Pass()
    reader.ctx.warn("/h/denied.jsonl", "cannot read: Permission denied", passing=True)
    reader.read([])
    said = [("/h/denied.jsonl", "cannot read: Permission denied"), ("/h/bad.jsonl", "invalid JSON skipped")]
    assert reader.inside == said
    assert [(w.path, w.message) for w in reader.ctx.warnings.listed()] == said


@pytest.mark.parametrize("room", [10_000, 25])
def test_past_its_listed_warnings_a_file_is_held_whole_only_as_far_as_a_capture_takes_them(room: int) -> None:
    """An answer's capture (``answers.remember``) open while the warnings are held: past a
    file's listed ones, as many are held whole as it can take, so that it is not overflowed by
    a count (its answer then never kept, for any file of more than 20 warnings), and no more
    (a file of 10,000 bad lines held whole took 3.3 MB)."""
    from agentscan.context import ScanContext
    from agentscan.scan.saidorder import in_session_order
    from agentscan.toldwarnings import Counted

    class Pass:
        def __init__(self) -> None:
            self.ctx = ScanContext.create()
            self.held = 0

        @in_session_order
        def read(self, refs: list[object]) -> None:
            for line in range(2, 52):
                self.ctx.warn("/h/bad.jsonl", "invalid JSON skipped", line)
            self.held = sum(type(said) is not Counted for said in self.ctx.warnings.said)  # type: ignore[attr-defined]

    reader = Pass()
    with reader.ctx.warnings.capture(room) as captured:
        reader.read([])
    assert reader.held == min(room, 50)
    assert captured.overflowed == (room < 50) and len(captured) == min(room, 50)
    assert reader.ctx.warnings.listed()[-1].message == "30 more warnings for this file were not listed"


def test_the_answer_of_a_home_with_a_file_of_many_bad_lines_is_remembered(isolated_home: Path) -> None:
    """Counted past its listed ones, a file of 30 bad lines must not overflow the answer's
    capture: 000bdd0's hold said them as a count, and ``tokens`` never kept its answer (every
    warm run made it again; its parent kept it: this guards that regression)."""
    import sqlite3

    from agentscan.scan.cachefile import FILE_NAME

    path = _claude_of_bad_lines(isolated_home, "c1", 30)
    os.utime(path, (BASE, BASE))
    fresh = ran("tokens", "--json", "--no-cache")
    assert '"16 more warnings for this file were not listed"' in fresh[0]
    assert ran("tokens", "--json") == fresh
    with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME) as connection:
        kept = connection.execute("SELECT count(*) FROM snapshots WHERE key LIKE 'answer:tokens%'").fetchone()[0]
    connection.close()
    assert kept == 1
    assert ran("tokens", "--json") == fresh  # (the remembered answer)
