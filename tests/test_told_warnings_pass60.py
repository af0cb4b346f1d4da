"""Kept warnings and each file's count past them as one value (``toldwarnings``), its count in
its place: a capture, a hold, a session's stored sums, Claude's resume state and a remembered
answer say them again as the sink said them first; ``--strict`` counts a file's "N more" from
the sink's own field, not its words read back."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, ran

BASE = time.time() - 3600
BAD = '{"type": "assistant", "message": {"usage": {not json'


def test_strict_counts_a_files_count_from_the_sinks_field_not_its_words() -> None:
    """A warning whose own words read like a file's count (a message quoting a line, say) was
    counted as that many warnings by ``--strict`` (its "N more" read back by a regex)."""
    from agentscan.warningsink import SinkWarning, WarningSink, counted_past

    sink = WarningSink()
    for line in range(1, 26):
        sink.add("/h/a.jsonl", "invalid JSON skipped", line)
    sink.add("/h/b.jsonl", "2 more warnings for this file were not listed")  # (its own words)
    listed = sink.listed()
    assert counted_past(listed) == (1, 5)
    assert counted_past(sink.items) == (1, 5)  # (the model's warnings carry it too)
    assert counted_past([SinkWarning("/h/c.jsonl", "7 more warnings for this file were not listed")]) == (0, 0)


def test_a_hold_says_a_files_count_past_those_it_holds() -> None:
    """Holds outside Claude's (``otlp.parallel``, Codex's fork part and runs, Gemini's) said
    ``held.said`` alone: a file's warnings past the 1,000 held went uncounted ("980 more" for a
    file of 1,500 bad lines, where one pass says 1,480)."""
    from agentscan.context import ScanContext, say

    ctx = ScanContext.create()
    with ctx.held_warnings() as held:
        for line in range(1, 1501):
            ctx.warn("/h/a.jsonl", "invalid JSON skipped", line)
    say(ctx, held.said)
    assert ctx.warnings.listed()[-1].message == "1,480 more warnings for this file were not listed"


def test_a_capture_said_again_says_each_count_where_the_sink_began_it() -> None:
    """A file's count began after another file's listed warnings came: said again from a list
    and the counts beside it (each count after its file's last kept one), the files' "N more"
    came in another order than the sink's."""
    from agentscan.warningsink import WarningSink

    def tell(sink: WarningSink) -> None:
        for path, lines in (("/h/c", range(1, 51)), ("/h/a", range(1, 21)), ("/h/b", range(1, 31)), ("/h/a", [21, 22])):
            for line in lines:
                sink.add(path, "invalid JSON skipped", line)

    live = WarningSink()
    with live.capture() as captured:
        tell(live)
    again = WarningSink()
    again.say_again(captured.told())
    assert again.listed() == live.listed()
    assert [warning.path for warning in live.listed() if warning.past] == ["/h/c", "/h/b", "/h/a"]


def _session(home: Path, session: str, bad: int, *, project: str) -> Path:
    records: list[object] = [claude_user(session, "2026-11-07T10:00:00.000Z", "work"),
                             claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id=f"{session}-m1",
                                              request_id=f"{session}-r1", usage=claude_usage(100, 10))]
    path = claude_session_file(home, session, records, project=project)
    path.write_bytes(path.read_bytes() + b"".join(b"%s %d\n" % (BAD.encode(), n) for n in range(bad)))
    return path


@pytest.mark.parametrize("bad", [150, 1_200])
def test_cached_runs_say_what_no_cache_says_of_many_bad_lines(isolated_home: Path, bad: int) -> None:
    """Differential: of a file of more bad lines than a result keeps (100) and than a hold
    holds (1,000), cold, warm and grown runs of list, show, tokens and export say what
    ``--no-cache`` says, byte for byte."""
    paths = [_session(isolated_home, "bad", bad, project="-home-bad"),
             _session(isolated_home, "some", 30, project="-home-some"),
             _session(isolated_home, "other", 0, project="-home-other")]
    for age, path in enumerate(paths):
        os.utime(path, (BASE - 100 * age, BASE - 100 * age))
    out = isolated_home.parent / "export.jsonl"
    commands = [("list", "--verbose"), ("list", "--json"), ("show", "claude:bad", "--verbose"),
                ("show", "claude:bad", "--json"), ("tokens", "--tz", "utc", "--verbose"),
                ("tokens", "--tz", "utc", "--json"), ("tokens", "--by", "session", "--json"),
                ("export", "--format", "jsonl", "--output", str(out), "--verbose")]
    for grown in range(2):
        if grown:
            stat = paths[0].stat()
            with paths[0].open("ab") as more:
                more.write(b"".join(b"%s grown %d\n" % (BAD.encode(), n) for n in range(7)))
            os.utime(paths[0], (stat.st_atime, stat.st_mtime + 1))
        for args in commands:
            fresh = ran(*args, "--no-cache")
            # (the file's every bad line counted once, by each command)
            assert f"{bad + 7 * grown - 20:,} more warnings for this file were not listed" in fresh[0] + fresh[1], args
            assert ran(*args) == fresh, args  # cold (or after the growth)
            assert ran(*args) == fresh, args  # warm




def test_a_list_of_many_sessions_counts_each_files_bad_lines_once(isolated_home: Path) -> None:
    """A Claude file of 1,200 bad lines and a Codex rollout of 1,100 among 300 sessions: ``list``
    said "2,080 more" of the first and "980 more" of the second (a hold's count past the 1,000
    it held said twice in one place and not at all in another), where ``-p claude`` said 1,180
    and ``show`` 1,080; each is now counted once, cold, warm and ``--no-cache`` alike."""
    from datetime import timedelta

    from codex_builders import at, meta, rollout_path, user_message, write_rollout

    claude = _session(isolated_home, "bad", 1_200, project="-home-bad")
    os.utime(claude, (BASE, BASE))
    codex_home = isolated_home / ".codex"
    for n in range(300):
        started = at(n * 60)
        records = [meta(f"00000000-0000-4000-8000-{n:012d}", started), user_message(started + timedelta(seconds=1), "hi")]
        path = write_rollout(rollout_path(codex_home, f"00000000-0000-4000-8000-{n:012d}", started), records,
                             mtime=BASE - 1000 - n)
        if n == 150:
            with path.open("ab") as out:
                out.write(b"".join(b'{"type": "event_msg", not json %d\n' % line for line in range(1_100)))
            os.utime(path, (BASE - 1000 - n, BASE - 1000 - n))
    for args in [("list", "--verbose", "-n", "400"), ("list", "--json", "-n", "400")]:
        fresh = ran(*args, "--no-cache")
        said = fresh[0] + fresh[1]
        assert "1,180 more warnings for this file were not listed" in said, args
        assert "1,080 more warnings for this file were not listed" in said, args
        assert ran(*args) == fresh, args
        assert ran(*args) == fresh, args


def test_a_count_its_unfinished_last_line_grew_is_kept_in_two_in_its_place() -> None:
    """A resume state's warnings (``Captured.told_upto``): a file's count past those kept, grown
    last by its unfinished last line (read again on the next resume), is kept as the count up to
    the last complete line, with the last line it counted then, and that line's part after it,
    both in its place; said again together, they say what the one count said.  Kept as one, the
    line written whole counted twice ("111 more" for 110), or a good line counted as bad."""
    from agentscan.toldwarnings import Counted
    from agentscan.warningsink import WarningSink

    live = WarningSink()
    with live.capture() as captured:
        for line in range(1, 4):
            live.add("/h/b", "invalid JSON skipped", line)
        for line in range(1, 131):
            live.add("/h/a", "invalid JSON skipped", line)
        live.add("/h/a", "truncated last line skipped", 140)  # (after 9 good lines: the tail)
    told = captured.told()
    assert told[100:] == (Counted("/h/a", 34, 140),)
    split = captured.told_upto(139)
    assert split[100:] == (Counted("/h/a", 33, 130), Counted("/h/a", 1, 140))
    assert split[:100] == told[:100]
    assert captured.told_upto(140) == told  # (nothing past the last complete line)
    again = WarningSink()
    again.say_again(split)
    assert again.listed() == live.listed()
    resumed = WarningSink()  # (as a resume says them: the count up to the last complete line)
    resumed.say_again(item for item in split if item[2] is not None and item[2] <= 139)
    assert resumed.listed()[-1].message.startswith("110 more warnings")


def test_a_resume_state_kept_before_a_count_was_split_is_read_again(tmp_path: Path) -> None:
    """A Claude resume state of version 14 (its count kept whole, or beside the warnings as
    ``more`` and ``tail_more``) is no state: the file is parsed again, never misread."""
    import orjson

    from agentscan.providers.claude import incremental

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"{}\n")
    entry = {"path": str(path), "dev": 1, "ino": 2, "stamp": "s", "offset": 3, "lines": 1, "crc": 0,
             "values": {}, "calls": []}
    for shape in ({"told": [["/h/a", 31, 140]]},
                  {"warnings": [], "tail_warnings": [], "more": [["/h/a", 30, 130]], "tail_more": [["/h/a", 1, 140]]}):
        for version, taken in ((14, False), (incremental.VERSION, "told" in shape)):
            state = orjson.dumps({"v": version, "files": [entry | shape]})
            assert (incremental._load_state(state, [(path, None)]) is not None) is taken, (version, shape)


def test_a_count_said_again_of_a_file_read_before_is_kept_by_a_capture() -> None:
    """A count said again (a resume state's) of a file the run read before (a row's pass): a
    repeat to the sink, but the capture open (the resumed read's) must keep it, as it keeps a
    warning the sink has seen; left out, the next resume state said "81 more" for 111."""
    from agentscan.toldwarnings import Counted
    from agentscan.warningsink import WarningSink

    sink = WarningSink()
    for line in range(1, 131):
        sink.add("/h/a", "invalid JSON skipped", line)
    kept = (*(("/h/a", "invalid JSON skipped", line, False) for line in range(1, 101)), Counted("/h/a", 30, 130))
    with sink.capture() as captured:
        sink.say_again(kept)
    assert captured.told() == kept
    again = WarningSink()
    again.say_again(captured.told())
    assert again.listed() == sink.listed()


def test_a_truncated_last_line_after_a_row_pass_is_counted_as_no_cache_counts_it(isolated_home: Path) -> None:
    """``show`` (its row's pass, then its card's resumed read) and ``tokens`` as a file of 130 bad
    lines gets a last line in parts, its second cut inside its usage (a warning): ``tokens``
    said "81 more" where ``--no-cache`` said 111 (the count its state kept was a repeat to the
    sink, which the row's pass had counted, and the resumed read's capture lost it)."""
    import json

    path = _session(isolated_home, "cut", 130, project="-home-cut")
    os.utime(path, (BASE, BASE))
    line = json.dumps(claude_assistant("cut", "2026-11-07T10:00:09.000Z", msg_id="cut-m9", request_id="cut-r9",
                                       usage=claude_usage(300, 30))).encode()
    at = line.index(b'"usage"') + 20
    args = ("tokens", "--tz", "utc", "--verbose")
    for step, piece in enumerate([b"", line[:20], line[20:at], line[at:], b"\n"]):
        if piece:
            with path.open("ab") as out:
                out.write(piece)
            os.utime(path, (BASE + step, BASE + step))
        ran("show", "claude:cut", "--json")
        assert ran(*args) == ran("--no-cache", *args), step
