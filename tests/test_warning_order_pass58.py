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
