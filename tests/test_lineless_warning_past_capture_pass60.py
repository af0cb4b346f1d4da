"""A warning of no line (a file cut at ``MAX_FILE_LINES``: "read stopped there") said of a file
past its listed warnings, when a capture is full of that file's: the sink counts it ("N more"),
and a result kept with the capture must count it too, or a cached run says one fewer than
``--no-cache`` (``Captured.lost`` marked it, and the resume state and the session's sums were
kept without it)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, ran

BASE = time.time() - 3600
BAD = b'{"type": "assistant", "message": {"usage": {not json'
ARGS = ("tokens", "--tz", "utc", "--verbose")


def _call(session: str, n: int) -> bytes:
    return json.dumps(claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id=f"{session}-m{n}",
                                       request_id=f"{session}-r{n}", usage=claude_usage(100 + n, 10))).encode()


@pytest.fixture
def cut_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    from agentscan import bounds

    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 200)
    big = claude_session_file(isolated_home, "big", [claude_user("big", "2026-11-07T10:00:00.000Z", "w")],
                              project="-home-big")
    big.write_bytes(big.read_bytes() + b"".join(b"%s %d\n" % (BAD, n) for n in range(130))
                    + b"".join(_call("big", n) + b"\n" for n in range(100)))
    other = claude_session_file(isolated_home, "other", [claude_user("other", "2026-11-07T09:00:00.000Z", "w")],
                                project="-home-other")
    other.write_bytes(other.read_bytes() + _call("other", 1) + b"\n")
    for age, path in enumerate((big, other)):
        os.utime(path, (BASE - 100 * age, BASE - 100 * age))
    return {"big": big, "other": other}


def _touch(path: Path, extra: bytes, step: int) -> None:
    with path.open("ab") as out:
        out.write(extra)
    os.utime(path, (BASE + step, BASE + step))


def test_a_cut_files_count_is_kept_with_its_sums(cut_home: dict[str, Path]) -> None:
    fresh = ran("--no-cache", *ARGS)
    said = fresh[0] + fresh[1]
    assert "read stopped there" not in said  # (past the listed: counted)
    assert "111 more warnings for this file were not listed" in said, said
    assert ran(*ARGS) == fresh  # cold
    _touch(cut_home["other"], _call("other", 2) + b"\n", 1)  # the answer made again from the sums
    assert ran(*ARGS) == ran("--no-cache", *ARGS)
    assert ran(*ARGS) == ran("--no-cache", *ARGS)
    for step in (2, 3):  # grown (past the cut: read again from its resume state)
        _touch(cut_home["big"], _call("big", 100 + step) + b"\n", step)
        assert ran(*ARGS) == ran("--no-cache", *ARGS)
        assert ran(*ARGS) == ran("--no-cache", *ARGS)
