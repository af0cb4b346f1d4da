"""Bad lines are skipped with a warning; the rest of the session still counts."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

S = "bbbbbbbb-1111-4222-8333-444444444444"


def good_lines() -> list[bytes]:
    return [
        orjson.dumps(claude_user(S, "2026-11-01T10:00:00Z", "still here")),
        orjson.dumps(claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(5, 7))),
    ]


def write_raw(home: Path, lines: list[bytes], *, trailing_newline: bool = True) -> Path:
    path = claude_session_file(home, S, [])
    data = b"\n".join(lines) + (b"\n" if trailing_newline else b"")
    path.write_bytes(data)
    return path


BAD_LINES = {
    "invalid json": b'{"type": "user", oops',
    "not an object": b"[1, 2, 3]",
    "invalid utf-8": b'{"type":"user","message":{"content":"\xff\xfe"}}',
    # five megabytes of JSON structure: no long string to cut (``shrinkline``), so it stays over the cap
    "five megabyte line": b'{"type":"user","pad":[' + b'"x",' * (5 * 1024 * 1024 // 4) + b'"x"]}',
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_line_is_skipped_with_warning(isolated_home: Path, case: str) -> None:
    path = write_raw(isolated_home, [good_lines()[0], BAD_LINES[case], good_lines()[1]])
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    assert row.title == "still here"
    assert row.tokens.total == 12
    assert [(w.path, w.line) for w in scanner.warnings] == [(str(path), 2)]


@pytest.mark.parametrize("use_cache", [True, False])
def test_a_bad_line_s_place_is_its_column_not_a_second_line_number(isolated_home: Path, use_cache: bool) -> None:
    # orjson says "line 1 column 20 (char 19)" of the one line it was given, beside the file's line 2.
    write_raw(isolated_home, [good_lines()[0], BAD_LINES["invalid json"], good_lines()[1]])
    scanner = Scanner(use_cache=use_cache)
    scanner.list_sessions()
    scanner.show(S)
    messages = {w.message for w in scanner.warnings}
    assert messages and all(m.startswith("invalid JSON skipped: ") for m in messages), messages
    assert all(" at column " in m and "line 1 " not in m and "(char " not in m for m in messages), messages


def test_truncated_last_line(isolated_home: Path) -> None:
    path = write_raw(isolated_home, [*good_lines(), b'{"type":"assistant","message":{"id":"m2"'], trailing_newline=False)
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    assert row.tokens.total == 12
    (warning,) = scanner.warnings
    assert warning.path == str(path) and warning.line == 3 and "truncated" in warning.message


def test_empty_file_is_reported_not_fatal(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [])
    other = "cccccccc-1111-4222-8333-444444444444"
    claude_session_file(isolated_home, other, [claude_user(other, "2026-11-01T10:00:00Z", "fine")])
    scanner = Scanner()
    rows = scanner.list_sessions()
    # The empty one recorded nothing: left out of list, named by its warning, still exported.
    assert {r.native_id for r in rows} == {other}
    assert any(w.message == "empty file" and w.path.endswith(f"{S}.jsonl") for w in scanner.warnings)
    assert {r.native_id for r in scanner.all_rows()} == {S, other}


def test_cli_exits_zero_with_warnings_and_one_with_strict(isolated_home: Path) -> None:
    write_raw(isolated_home, [good_lines()[0], b"not json", good_lines()[1]])
    runner = CliRunner()
    result = runner.invoke(app, ["list", "--json"])
    assert result.exit_code == 0, result.output
    document = orjson.loads(result.stdout)
    assert document["warnings"][0]["line"] == 2
    assert document["sessions"][0]["tokens"]["total"] == 12
    strict = runner.invoke(app, ["--strict", "list"])
    assert strict.exit_code == 1
    assert "warning:" in strict.stderr and "--strict" in strict.stderr
    assert "Traceback" not in strict.output


STILL_WRITING = [*good_lines(), b'{"type":"assistant","message":{"id":"m2"']


@pytest.mark.parametrize("argv", [["list"], ["show", S[:8]], ["export", "-f", "jsonl", "-o", "{out}"],
                                  ["otlp", "-o", "{out}"]])
def test_strict_does_not_fail_on_a_file_still_being_written(isolated_home: Path, tmp_path: Path, argv: list[str]) -> None:
    # A cron job with --strict meets agents mid-answer: their unfinished last line is
    # said, but fails the run only once the file has been still long enough to be lost.
    import os
    import time

    from agentscan.settling import SETTLING_SECONDS

    path = write_raw(isolated_home, STILL_WRITING, trailing_newline=False)
    argv = [a.replace("{out}", str(tmp_path / "index.jsonl")) for a in argv]
    runner = CliRunner()
    fresh = runner.invoke(app, ["--strict", *argv])
    assert fresh.exit_code == 0, fresh.output
    assert "truncated last line" in fresh.stderr
    settled = time.time() - SETTLING_SECONDS - 5
    os.utime(path, (settled, settled))
    late = runner.invoke(app, ["--strict", *argv])
    assert late.exit_code == 1, late.output
    assert "1 warning (--strict)" in late.stderr


def test_strict_still_counts_every_other_warning_of_a_fresh_file(isolated_home: Path) -> None:
    write_raw(isolated_home, [good_lines()[0], b"not json", *STILL_WRITING[1:]], trailing_newline=False)
    result = CliRunner().invoke(app, ["--strict", "list"])
    assert result.exit_code == 1
    assert "1 warning (--strict)" in result.stderr  # the bad line, not the unfinished one
    # Two warnings were printed above it: the count says why it gives one.
    assert ("error: 1 warning (--strict); 1 more, a truncated last line of a file still being written, "
            "not counted") in result.stderr


def test_doctor_groups_warnings_by_kind_keeping_a_limit_s_number(isolated_home: Path) -> None:
    # "N MiB" told a bug report nothing: a number every warning of its kind shares stays.
    write_raw(isolated_home, [good_lines()[0], BAD_LINES["five megabyte line"], b"not json", good_lines()[1]])
    result = CliRunner().invoke(app, ["doctor", "--json"])
    claude = next(p for p in orjson.loads(result.stdout)["providers"] if p["provider"] == "claude")
    assert claude["warnings"] == {"line longer than 4 MiB skipped": 1, "invalid JSON skipped": 1}


def test_doctor_still_groups_counts_that_differ() -> None:
    from collections import Counter

    from agentscan.scan.warningkinds import kinds as _kinds

    heads = Counter({"read the 9 complete messages": 2, "read the 12 complete messages": 1, "line longer than 4 MiB skipped": 1})
    assert _kinds(heads) == {"read the N complete messages": 3, "line longer than 4 MiB skipped": 1}


@pytest.mark.parametrize("argv", [["list"], ["list", "--all"], ["list", "--json"], ["export", "-f", "jsonl", "-o", "-"]])
def test_a_filter_s_list_says_only_its_own_sessions_warnings(isolated_home: Path, argv: list[str]) -> None:
    # A cron job on one project must not fail (--strict) on another project's bad line.
    write_raw(isolated_home, [good_lines()[0], b"not json", good_lines()[1]])  # in /home/dev/project
    other = "dddddddd-1111-4222-8333-444444444444"
    claude_session_file(isolated_home, other, [claude_user(other, "2026-11-02T10:00:00Z", "elsewhere", cwd="/srv/other")],
                        project="-srv-other")
    runner = CliRunner()
    quiet = runner.invoke(app, ["--strict", *argv, "--cwd", "/srv/other"] if argv[0] == "list"
                          else ["--strict", *argv, "--since", "2026-11-02"])
    assert quiet.exit_code == 0, quiet.output
    assert "not json" not in quiet.output and "invalid JSON" not in quiet.stderr
    loud = runner.invoke(app, ["--strict", *argv])
    assert loud.exit_code == 1 and "invalid JSON" in loud.stderr + loud.stdout


@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_cwd_matches_a_path_in_either_unicode_form(isolated_home: Path, form: str) -> None:
    import unicodedata

    cwd = unicodedata.normalize("NFD", "/home/jérôme/café")  # as macOS may record it
    claude_session_file(isolated_home, S, [claude_user(S, "2026-11-01T10:00:00Z", "accents", cwd=cwd)])
    result = CliRunner().invoke(app, ["list", "--json", "--cwd", unicodedata.normalize(form, "/home/jérôme/café")])
    assert [s["native_id"] for s in orjson.loads(result.stdout)["sessions"]] == [S]


def test_nul_padding_left_by_a_crash_is_said_as_such_and_fails_strict_at_once(isolated_home: Path) -> None:
    path = write_raw(isolated_home, good_lines())
    with path.open("ab") as handle:
        handle.write(b"\x00" * 4096)
    runner = CliRunner()
    result = runner.invoke(app, ["--strict", "list"])
    assert result.exit_code == 1  # no writer is coming back: not forgiven as a line still being written
    assert "NUL bytes at the end skipped" in result.stderr and "still being written" not in result.stderr
    document = orjson.loads(runner.invoke(app, ["show", S[:8], "--json"]).stdout)
    assert [w["message"] for w in document["warnings"]] == ["NUL bytes at the end skipped (left by a crash?)"]
    assert document["session"]["tokens"]["total"] == 12


def test_list_json_says_when_more_sessions_match_than_it_holds() -> None:
    runner = CliRunner()
    page = orjson.loads(runner.invoke(app, ["--demo", "list", "--json", "-n", "2"]).stdout)
    assert len(page["sessions"]) == 2 and page["more"] is True
    again = orjson.loads(runner.invoke(app, ["--demo", "list", "--json", "-n", "2"]).stdout)  # remembered
    assert again["more"] is True
    every = orjson.loads(runner.invoke(app, ["--demo", "list", "--json", "--all"]).stdout)
    assert every["more"] is False and len(every["sessions"]) > 2


def test_a_filter_still_says_the_bad_line_that_may_have_hidden_its_own_session(isolated_home: Path) -> None:
    # The only record naming the cwd is the damaged one: the session has no cwd, so --cwd
    # leaves it out, and the warning is the only sign a session of that project is missing.
    mine = "eeeeeeee-1111-4222-8333-444444444444"
    record = orjson.dumps(claude_user(mine, "2026-11-01T10:00:00Z", "mine", cwd="/srv/mine"))
    path = claude_session_file(isolated_home, mine, [], project="-srv-mine")
    path.write_bytes(record[:-8] + b"\n" + orjson.dumps(
        {"type": "assistant", "sessionId": mine, "timestamp": "2026-11-01T10:00:01Z",
         "message": {"id": "m", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
                     "usage": claude_usage(1, 1)}, "requestId": "r"}) + b"\n")
    result = CliRunner().invoke(app, ["--strict", "list", "--cwd", "/srv/mine"])
    assert result.exit_code == 1 and "invalid JSON" in result.stderr


def test_what_a_left_out_row_said_of_other_files_or_in_passing_is_still_said() -> None:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.leftout import still_ours

    ref = SessionRef("claude", "x", Path("/h/.claude/projects/p/x.jsonl"), 0.0, (Path("/h/.claude/projects/p/x.jsonl"),))
    row = SessionRow("claude", "x", str(ref.path), cwd="/elsewhere")
    said = [
        (str(ref.path), "invalid JSON skipped", 3, False),  # its own file: not this list's
        (str(ref.path), "cannot read: busy", None, True),  # passing: a remembered page must know
        ("/h/.cursor/state.vscdb", "Cursor state DB not used (locked)", None, False),  # said once a scan
    ]
    assert still_ours(said, ref, row, "cwd") == said[1:]


def test_the_warnings_left_unlisted_are_counted_as_every_cut_list_counts() -> None:
    # ``toolkit.andmore``'s words (pass 56): one left out is "1 more warning ... was", not
    # "1 more warnings ... were"; many are counted with thousands separators.
    from agentscan.warningsink import WarningSink

    sink = WarningSink()
    for line in range(2, 23):  # one past the twenty a file lists
        sink.add("/h/bad.jsonl", "invalid JSON skipped", line)
    listed = sink.listed()
    assert listed[-1].message == "1 more warning for this file was not listed", listed[-1]
    assert len(listed) == 21


def test_a_file_of_many_bad_lines_is_counted_not_kept_and_read_twice_counts_once() -> None:
    from agentscan.context import HELD_PER_FILE, HeldWarnings
    from agentscan.warningsink import WarningSink

    sink = WarningSink()
    for _ in range(2):  # discovery, then the row: the same lines again
        for line in range(2, 50_002):
            sink.add("/h/bad.jsonl", "invalid JSON skipped", line)
    listed = sink.listed()
    assert len(listed) == 21 and listed[-1].message == "49,980 more warnings for this file were not listed"
    assert len(sink._seen) <= 21  # not a key a line: a million bad lines took 300 MB
    held = HeldWarnings()
    for line in range(2, 50_002):
        held.add("/h/bad.jsonl", "invalid JSON skipped", line)
    # (those held, then the count past them in its place: ``toldwarnings``)
    assert len(held.said) == HELD_PER_FILE + 1 and held.said[-1][:3] == ("/h/bad.jsonl", 49_000, 50_001)
