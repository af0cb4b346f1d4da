"""Cached runs say what ``--no-cache`` says, byte for byte, after every growth step of a fake
home: a Claude transcript whose last line is written in parts (1, 2 or 3 appends; a last line
that is valid JSON with no newline yet; CRLF lines), with bad lines, a subagent, models of no
price, and a Codex rollout beside it.  Each step runs every command cached (twice: cold after
the change, then warm) and then without the cache, and asks the same stdout and stderr."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, ran
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, user_message, write_rollout

BASE = time.time() - 7200
BAD = b'{"type": "assistant", "message": {"usage": {not json'
SESSION = "aaaaaaaa-1111-4000-8000-000000000001"
OTHER = "bbbbbbbb-1111-4000-8000-000000000002"
THREAD = "cccccccc-1111-4000-8000-000000000003"

COMMANDS: list[tuple[str, ...]] = [
    ("tokens", "--tz", "utc", "--verbose"),
    ("tokens", "--tz", "utc", "--json"),
    ("tokens", "--tz", "utc", "--by", "model", "--json"),
    ("list", "--all", "--json"),
    ("show", SESSION, "--json"),
]


def _call(session: str, n: int, *, model: str = "claude-sonnet-4-5-20250929", sidechain: bool = False) -> bytes:
    return json.dumps(claude_assistant(session, f"2026-11-07T10:{n // 60:02d}:{n % 60:02d}.000Z", msg_id=f"{session}-m{n}",
                                       request_id=f"{session}-r{n}", usage=claude_usage(100 + n, 10 + n), model=model,
                                       isSidechain=sidechain)).encode()


def _home(home: Path, *, bad: int, eol: bytes, sub_bad: int = 30) -> Path:
    """The transcript (``bad`` bad lines among its calls, lines ending ``eol``), a subagent of
    its own bad lines, another session of a model of no price, a Codex rollout of bad lines
    and a model of no price."""
    path = claude_session_file(home, SESSION, [], project="-home-dev-project")
    lines = [json.dumps(claude_user(SESSION, "2026-11-07T10:00:00.000Z", "work")).encode()]
    lines += [_call(SESSION, n) for n in range(3)]
    lines += [b"%s %d" % (BAD, n) for n in range(bad)]
    lines += [_call(SESSION, n, model="made-up-model-a") for n in range(3, 5)]
    path.write_bytes(eol.join(lines) + eol)
    sub = claude_subagent_file(home, SESSION, "a0", [
        claude_user(SESSION, "2026-11-07T10:01:00.000Z", "sub", isSidechain=True)])
    sub.write_bytes(sub.read_bytes() + b"".join(b"%s sub %d\n" % (BAD, n) for n in range(sub_bad))
                    + _call(SESSION, 40, sidechain=True, model="made-up-model-b") + b"\n")
    other = claude_session_file(home, OTHER, [claude_user(OTHER, "2026-11-06T10:00:00.000Z", "other")],
                                project="-home-other")
    other.write_bytes(other.read_bytes() + _call(OTHER, 1, model="made-up-model-c") + b"\n"
                      + b"".join(b"%s o %d\n" % (BAD, n) for n in range(120)))
    rollout = write_rollout(rollout_path(home / ".codex", THREAD, at(0)), [
        meta(THREAD, at(0)), turn_context(at(1), model="made-up-codex-model"), user_message(at(2), "go"),
        token_count(at(3), usage(500, 100, 50), usage(500, 100, 50))])
    rollout.write_bytes(rollout.read_bytes() + b"".join(b"%s c %d\n" % (BAD, n) for n in range(110)))
    for age, each in enumerate((path, sub, other, rollout)):
        os.utime(each, (BASE - 100 * age, BASE - 100 * age))
    return path


def _append(path: Path, data: bytes, step: int) -> None:
    """``data`` written at the end of ``path``, its time one second later each step."""
    with path.open("ab") as out:
        out.write(data)
    os.utime(path, (BASE + step, BASE + step))


def _same_every_way(step: str) -> None:
    for args in COMMANDS:
        cached = ran(*args)
        warm = ran(*args)
        fresh = ran("--no-cache", *args)
        assert cached == fresh, (step, args, "cold")
        assert warm == fresh, (step, args, "warm")


def _pieces(line: bytes, parts: int) -> list[bytes]:
    """``line`` in ``parts`` appends, the last without its newline: cut inside its usage
    (a truncated line ``tokens`` decodes, and warns of), and before that."""
    cuts = {1: [], 2: [line.index(b'"usage"') + 30], 3: [len(line) // 4, line.index(b'"usage"') + 30]}[parts]
    bounds = [0, *cuts, len(line)]
    return [line[start:end] for start, end in zip(bounds, bounds[1:])]


@pytest.mark.parametrize(("eol", "parts", "bad"), [(b"\n", 1, 130), (b"\n", 3, 130), (b"\r\n", 2, 0)])
def test_a_last_line_written_in_parts_is_counted_once(isolated_home: Path, eol: bytes, parts: int, bad: int) -> None:
    path = _home(isolated_home, bad=bad, eol=eol)
    _same_every_way("start")
    step = 0
    for n in (10, 11):
        # the line in pieces, the last valid JSON with no newline yet, then its end of line
        for piece in _pieces(_call(SESSION, n), parts) + [eol]:
            step += 1
            _append(path, piece, step)
            _same_every_way(f"call {n} step {step}")
    for piece in _pieces(b'%s "usage" late bad line' % BAD + b"." * 30, parts) + [eol]:  # a bad line in parts
        step += 1
        _append(path, piece, step)
        _same_every_way(f"bad line step {step}")


def test_a_crlf_line_cut_between_its_cr_and_lf(isolated_home: Path) -> None:
    path = _home(isolated_home, bad=25, eol=b"\r\n")
    _same_every_way("start")
    _append(path, _call(SESSION, 12) + b"\r", 1)
    _same_every_way("cr")
    _append(path, b"\n", 2)
    _same_every_way("lf")


def test_a_codex_files_count_past_a_capture_is_said_by_each_scan_of_one_process(isolated_home: Path) -> None:
    """A Codex rollout's head and tail reads are remembered in the process (``headtail._cached``)
    with the warnings they said, as a capture keeps them (100): a second scan in the same
    process (a library's, or these tests') said "80 more" of its 110 bad lines where the first
    said 90.  A read of more warnings than its capture keeps is not remembered."""
    _home(isolated_home, bad=0, eol=b"\n")
    first = ran("--no-cache", "list", "--all", "--json")
    assert '"message": "90 more warnings for this file were not listed"' in first[0]
    assert ran("--no-cache", "list", "--all", "--json") == first


def test_a_last_line_cut_in_its_usage_is_counted_once_in_a_resumed_count(isolated_home: Path) -> None:
    """Past a file's kept warnings, its truncated last line is counted (``Captured.told``), and
    the count was kept with the resume state: the line written whole, each run said one more
    warning than ``--no-cache`` for good ("111 more" for 110)."""
    path = _home(isolated_home, bad=130, eol=b"\n")
    args = ("tokens", "--tz", "utc", "--verbose")
    assert ran(*args) == ran("--no-cache", *args)
    line = _call(SESSION, 10)
    for step, piece in enumerate(_pieces(line, 2) + [b"\n"], 1):
        _append(path, piece, step)
        assert ran(*args) == ran("--no-cache", *args), step
    assert "110 more warnings for this file were not listed" in ran(*args)[1]


def test_list_prices_sessions_in_their_order_wherever_their_sums_came_from(isolated_home: Path) -> None:
    """A row's pass keeps the sums its cost is priced from only when its capture held all its
    warnings (``provider.row``): a ``list --json`` after a cold ``tokens`` priced the sessions of
    kept sums first, and said its "no price" warnings in another order than ``--no-cache``."""
    _home(isolated_home, bad=130, eol=b"\n")
    ran("tokens")
    assert ran("list", "--all", "--json") == ran("--no-cache", "list", "--all", "--json")


def test_a_resumed_count_keeps_the_last_line_it_counted_before_the_unfinished_one(isolated_home: Path) -> None:
    """The count kept with a resume state past a file's kept warnings ends at the last line it
    counted (the sink's rule: a line at or before it is the file read again).  Cut at the last
    complete line, past the true last one, ``list`` after ``tokens`` counted the file's lines
    again: "140 more" where ``--no-cache`` said 110 (``Captured.told_upto``)."""
    path = _home(isolated_home, bad=130, eol=b"\n")
    commands = [("tokens", "--json"), ("list", "--all", "--json")]
    for step, piece in enumerate(_pieces(_call(SESSION, 10), 3) + [b"\n"], 1):
        _append(path, piece, step)
        for args in commands:
            assert ran(*args) == ran("--no-cache", *args), (step, args)


def test_an_unchanged_subagent_counted_past_its_kept_warnings_keeps_its_session_while_the_transcript_grows(
        isolated_home: Path) -> None:
    """A file unchanged since the resume state was made hands its entry back as the next state's;
    its warnings, read into values (a count past the kept ones among them), were written back as
    they were read: the state could not be written, and the whole session fell out of a cached
    ``tokens``, ``list``, ``show`` and ``export`` (its row "recorded no usage") while
    ``--no-cache`` counted it."""
    path = _home(isolated_home, bad=0, eol=b"\n", sub_bad=130)
    _same_every_way("start")
    for step, n in enumerate((10, 11, 12), 1):
        _append(path, _call(SESSION, n) + b"\n", step)
        _same_every_way(f"call {n}")
    assert SESSION[:8] in ran("tokens", "--tz", "utc", "--verbose")[0]
