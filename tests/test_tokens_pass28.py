"""``tokens`` as a demanding user reads it: the DATE column in the ``--tz`` zone, a note saying
which option left the table empty, sessions that recorded no usage counted under a grouped
table, and, on a narrow terminal, the figures that add up to TOTAL kept before the text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, tablepatch
from agentscan.cli.term import width_of
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_results
from zones import in_each_zone

runner = CliRunner()
#: the demo's sessions, and its two Cursor ones whose build recorded no usage
DEMO_SESSIONS = 11
UNRECORDED = ("cursor:a4b8c2d6-1e3f-4a5b-8c7d-9e0f1a2b3c4d", "cursor:e5f6a7b8-2c3d-4e5f-a6b7-c8d9e0f1a2b3")
LATE = "aaaaaaaa-1111-4222-8333-444444444444"  # its last call at 23:30 UTC: the 30th in Tokyo
EARLY = "bbbbbbbb-1111-4222-8333-444444444444"  # 03:00 UTC: the 28th in Los Angeles


def run(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout, result.stderr


@pytest.fixture
def utc() -> Iterator[None]:
    """The local zone is UTC, whatever the machine's: the dates below are told apart by --tz alone."""
    for _ in in_each_zone(["UTC"]):
        yield


def claude_session(home: Path, native_id: str, stamp: str, *, tokens: int = 100, mtime: float | None = None) -> Path:
    return claude_session_file(home, native_id, [
        claude_user(native_id, stamp, "hello"),
        claude_assistant(native_id, stamp, msg_id=f"m-{native_id}", request_id=f"r-{native_id}",
                         usage=claude_usage(tokens, 10, cache_read=1000)),
    ], mtime=mtime)


def prompt_only(home: Path, native_id: str, mtime: float) -> Path:
    """A session with a prompt and no reply: it recorded no usage (``tokens`` null)."""
    return claude_session_file(home, native_id, [claude_user(native_id, "2026-11-01T10:00:00Z", "hi")], mtime=mtime)


def date_of(out: str, session_id: str) -> str:
    row = next(line for line in out.splitlines() if line.startswith(session_id))
    return row.split()[1]


# --- 1. DATE follows --tz ------------------------------------------------------------------


def test_the_date_column_is_in_the_tz_zone_as_by_day_is(isolated_home: Path, utc: None) -> None:
    claude_session(isolated_home, LATE, "2026-11-29T23:30:00Z")
    claude_session(isolated_home, EARLY, "2026-11-29T03:00:00Z")
    late, early = f"claude:{LATE}", f"claude:{EARLY}"
    out = run("tokens")[0]
    assert (date_of(out, late), date_of(out, early)) == ("2026-11-29", "2026-11-29")  # local: UTC
    for _ in range(2):  # made, then remembered: the same dates
        tokyo = run("tokens", "--tz", "Asia/Tokyo")[0]
        assert date_of(tokyo, late) == "2026-11-30" and date_of(tokyo, early) == "2026-11-29"
    days = run("tokens", "--by", "day", "--tz", "Asia/Tokyo")[0]
    assert [line.split()[0] for line in days.splitlines()[1:-1]] == ["2026-11-29", "2026-11-30"]
    los_angeles = run("tokens", "--tz", "America/Los_Angeles")[0]
    assert date_of(los_angeles, early) == "2026-11-28" and date_of(los_angeles, late) == "2026-11-29"
    assert date_of(run("tokens")[0], late) == "2026-11-29"  # and back to the local zone


def test_a_patched_table_dates_its_new_session_in_the_tz_zone(isolated_home: Path, utc: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    ways = record_results(monkeypatch, tablepatch, "patched", lambda done: "patched" if done else "whole")
    claude_session(isolated_home, EARLY, "2026-11-29T03:00:00Z", mtime=1_790_000_000)
    run("tokens", "--tz", "Asia/Tokyo")  # whole: keeps the basis a patch starts from
    claude_session(isolated_home, LATE, "2026-11-29T23:30:00Z", mtime=1_790_000_600)
    patched = run("tokens", "--tz", "Asia/Tokyo")
    assert ways[-1] == "patched"
    assert date_of(patched[0], f"claude:{LATE}") == "2026-11-30"
    assert patched == run("--no-cache", "tokens", "--tz", "Asia/Tokyo")


# --- 2. an empty table says why --------------------------------------------------------------


def test_no_session_at_all_is_told_apart_from_a_provider_with_none(isolated_home: Path) -> None:
    out, err = run("tokens")
    assert out == ""  # no header over a TOTAL of 0: the note is all there is to say
    assert err.startswith("no sessions found;") and "agentscan doctor" in err and len(err.splitlines()) == 1
    assert run("tokens") == (out, err)  # remembered: the note with it
    session = claude_session(isolated_home, LATE, "2026-11-29T23:30:00Z")
    out, err = run("tokens", "-p", "cursor")
    assert err.startswith("no Cursor sessions found;") and len(err.splitlines()) == 1
    assert run("tokens")[1] == ""  # a table with rows needs no note
    session.unlink()  # the last session gone: the table made from the one kept says why it is empty
    assert run("tokens")[1].startswith("no sessions found;")


def test_an_id_the_provider_filter_leaves_out_is_named(isolated_home: Path) -> None:
    out, err = run("--demo", "tokens", "7f3c9a12", "-p", "codex")
    assert err == ("claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d is a Claude Code session: --provider codex leaves it "
                   "out; nothing is left to total\n")
    assert out == ""
    # One of two left: the other is still named, and the table has the one left.
    out, err = run("--demo", "tokens", "7f3c9a12", "019ab7c1", "-p", "codex")
    assert "claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d is a Claude Code session" in err and "nothing is left" not in err
    assert "codex:019ab7c1" in out


def test_json_keeps_its_shape_and_says_nothing_on_stderr(isolated_home: Path) -> None:
    full = orjson.loads(run("--demo", "tokens", "--json")[0])
    out, err = run("--demo", "tokens", "7f3c9a12", "-p", "codex", "--json")
    empty = orjson.loads(out)
    assert list(empty) == list(full) and empty["rows"] == [] and empty["total"]["total"] == 0
    assert err == ""


@pytest.mark.parametrize(("options", "said"), [
    (("--since", "2031-01-01"), f"no usage since 2031-01-01 00:00: none of the {DEMO_SESSIONS} sessions made a call"),
    (("--until", "2020-01-01", "--by", "day", "--tz", "Asia/Tokyo"),
     f"no usage before 2020-01-02 00:00: none of the {DEMO_SESSIONS} sessions made a call"),
    (("7f3c9a12", "--since", "2031-01-01", "--until", "2031-02-01"),
     "no usage between 2031-01-01 00:00 and 2031-02-02 00:00: the session asked for made no call"),
])
def test_a_window_with_no_call_is_named(isolated_home: Path, options: tuple[str, ...], said: str) -> None:
    out, err = run("--demo", "tokens", *options)
    assert err.startswith(said) and len(err.splitlines()) == 1, err
    assert out == ""


# --- 3. sessions that recorded no usage, under a grouped table ---------------------------------


@pytest.mark.parametrize("by", ("day", "week", "month", "model", "provider"))
def test_a_grouped_table_counts_the_sessions_that_recorded_no_usage(isolated_home: Path, by: str) -> None:
    out, err = run("--demo", "tokens", "--by", by)
    # The table's rows on stdout, the line naming the others on stderr in a pipe (pass 42).
    assert out.splitlines()[-1].startswith("TOTAL")
    assert err.splitlines()[-1] == f"(+ 2 sessions that recorded no usage, not counted: {UNRECORDED[0]}, {UNRECORDED[1]})"
    document = orjson.loads(run("--demo", "tokens", "--by", by, "--json")[0])
    # --json: no line of its own; a period's ``window`` says the zone its rows were cut in (pass 52),
    # and a model's or provider's rows have none (exact: ``- {"window"}`` passed either way)
    keys = {"schema", "by", "rows", "total", "cost_usd", "cost_usd_priced", "unpriced_models", "unreadable", "prices",
            "warnings"}
    assert set(document) == keys | ({"window"} if by in ("day", "week", "month") else set())


def test_the_table_by_session_names_them_as_a_grouping_does(isolated_home: Path) -> None:
    """Pass 40: a row each buried the others (current Cursor builds record no usage)."""
    text, err = run("--demo", "tokens")
    out = text.splitlines()
    assert out[-1].startswith("TOTAL") and not any("not recorded" in line for line in out)
    assert err.splitlines()[-1] == ("(+ 2 sessions that recorded no usage, not counted: cursor:a4b8c2d6-1e3f-4a5b-8c7d-9e0f1a2b3c4d, "
                       "cursor:e5f6a7b8-2c3d-4e5f-a6b7-c8d9e0f1a2b3)")


def test_on_a_terminal_they_are_named_by_their_short_ids(isolated_home: Path, tty) -> None:
    tty(200)
    out = run("--demo", "tokens", "--by", "provider")[0].splitlines()
    assert out[-1] == "(+ 2 sessions that recorded no usage, not counted: cursor:a4b8c2d6, cursor:e5f6a7b8)"


def test_in_a_window_only_the_sessions_changed_in_it_are_counted(isolated_home: Path) -> None:
    in_window, before = 1_790_000_000, 1_700_000_000  # 2026-09-21, 2023-11-14
    claude_session(isolated_home, LATE, "2026-09-21T10:00:00Z", mtime=in_window)
    prompt_only(isolated_home, "cccccccc-1111-4222-8333-444444444444", in_window)
    prompt_only(isolated_home, "dddddddd-1111-4222-8333-444444444444", before)
    err = run("tokens", "--by", "day")[1].splitlines()
    assert err[-1].startswith("(+ 2 sessions that recorded no usage")  # no window: both (on stderr: a pipe)
    for options in (("--by", "day"), ("--by", "session")):  # a window leaves them out by session too
        out, err = run("tokens", "--since", "2026-09-01", *options)
        assert out.splitlines()[-1].startswith("TOTAL")
        assert err.splitlines() == ["(+ 1 session that recorded no usage, not counted: "
                                    "claude:cccccccc-1111-4222-8333-444444444444)"]
    # Every session asked for recorded none: said so (pass 53), no note blames the window.
    # (pass 60: said once; the "(+ 1 session …)" line said it again)
    out, err = run("tokens", "cccccccc", "--since", "2026-09-01")
    assert out == "" and len(err.splitlines()) == 1 and err.startswith(
        "no usage: the session asked for recorded none (its tokens are not recorded, as `")
    assert err.rstrip().endswith(" show claude:cccccccc-1111-4222-8333-444444444444` says)"), err


# --- 4. a narrow terminal keeps the figures of TOTAL before the text ------------------------------


#: the columns of the table by session, the first to go on a narrow terminal first (pass 40:
#: the title outlasts every figure but CACHE READ, most of a Claude or Codex total)
DROP_ORDER = ["REASONING", "DATE", "CWD", "CACHE WRITE", "CACHE READ", "TITLE", "OUTPUT", "INPUT", "COST"]


def headers(line: str) -> list[str]:
    """A header line's headers (two blanks at least part them; ``CACHE READ`` has one inside)."""
    return re.split(r" {2,}", line.strip())


@pytest.mark.parametrize("width", range(40, 181, 10))
def test_columns_go_in_the_documented_order(isolated_home: Path, tty, width: int) -> None:
    tty(width)
    out, err = run("--demo", "tokens")
    lines = out.splitlines()
    assert all(width_of(line) <= width for line in lines), lines  # one line per row, fitted
    shown = headers(lines[0])
    left_out = [header for header in DROP_ORDER if header not in shown]
    assert left_out == DROP_ORDER[:len(left_out)], (width, shown)
    if left_out:  # said on stderr, in the order they went
        said = " ".join(err.split()).split("columns: ")[1].split(";")[0].split(", ")
        assert said == left_out, err


def test_at_60_columns_input_and_output_stay(isolated_home: Path, tty) -> None:
    """Pass 57: INPUT and OUTPUT, what a table of tokens is read for, go last of TOTAL's parts
    (ccusage's narrow table keeps Input and Output, and leaves its cache columns out); at 60
    columns the cache's parts and then the title go (pass 40 kept CACHE READ and the title,
    and left INPUT and OUTPUT out), and the numbers left are exact."""
    tty(60)
    out, err = run("--demo", "tokens")
    lines = out.splitlines()
    assert headers(lines[0]) == ["ID", "INPUT", "OUTPUT", "TOTAL", "COST"]
    claude = next(line for line in lines if line.startswith("claude:7f3c9a12"))
    assert headers(claude) == ["claude:7f3c9a12", "40", "893", "75,433", "$0.05"]
    assert "numbers rounded" not in err
    said = " ".join(err.split()).split("columns: ")[1].split(";")[0].split(", ")
    assert said == ["REASONING", "DATE", "CWD", "CACHE WRITE", "CACHE READ", "TITLE"], err
    assert "TOTAL still counts CACHE READ and CACHE WRITE" in " ".join(err.split())


def test_at_80_columns_a_title_stays_with_input_cache_read_and_output(isolated_home: Path, tty) -> None:
    """Pass 40: at 80 columns the table showed ids and numbers only; now CACHE WRITE (Claude's
    alone) goes to give the title the 16 characters it wants, and the note says so."""
    tty(80)
    out, err = run("--demo", "tokens")
    lines = out.splitlines()
    assert headers(lines[0]) == ["ID", "INPUT", "CACHE READ", "OUTPUT", "TOTAL", "COST", "TITLE"]
    claude = next(line for line in lines if line.startswith("claude:7f3c9a12"))
    assert headers(claude) == ["claude:7f3c9a12", "40", "66,200", "893", "75,433", "$0.05", "Add a 5-day fore…"]
    assert " ".join(err.split()).startswith("left out to fit 80 columns: REASONING, DATE, CWD, CACHE WRITE;"), err


@pytest.mark.parametrize("by", ("model", "day"))
def test_a_grouped_table_at_60_columns_keeps_input_and_output(isolated_home: Path, tty, by: str) -> None:
    tty(60)
    lines = run("--demo", "tokens", "--by", by)[0].splitlines()
    shown = headers(lines[0])
    assert "INPUT" in shown and "OUTPUT" in shown and "REASONING" not in shown and "CACHE WRITE" not in shown
    assert all(width_of(line) <= 60 for line in lines)


@pytest.mark.parametrize("width", [60, 80, 100])
def test_the_line_under_a_narrow_table_names_whole_ids_only(isolated_home: Path, tty, width: int) -> None:
    tty(width)
    lines = run("--demo", "tokens", "--by", "model")[0].splitlines()
    start = max(index for index, line in enumerate(lines) if line.startswith("(+ "))
    named = " ".join(line.strip() for line in lines[start:])
    assert named == "(+ 2 sessions that recorded no usage, not counted: cursor:a4b8c2d6, cursor:e5f6a7b8)"
    assert all(width_of(line) <= width for line in lines[start:])


def test_numbers_are_not_rounded_to_keep_a_title(isolated_home: Path, tty) -> None:  # noqa: ANN001
    """Exact figures without TITLE fit 60 columns: the table drops the title rather than
    round every number to keep a cut one (rounding is only to keep a figure of the total;
    rounded, SESSION, INPUT, OUTPUT, TOTAL, COST and a 12-column title would fit)."""

    session = "5a5a5a5a-0000-4000-8000-0000000000e1"
    claude_session_file(isolated_home, session, [
        claude_user(session, "2026-11-20T10:00:00Z", "Refactor the billing reconciliation service " * 3),
        claude_assistant(session, "2026-11-20T10:00:01Z", msg_id="m-big", request_id="r-big",
                         usage=claude_usage(input=58_783_471, output=3_447_042, cache_read=58_739_758)),
    ])
    tty(60, color=False)
    result = CliRunner().invoke(app, ["tokens"])
    assert result.exit_code == 0, result.output
    header, row = result.stdout.splitlines()[:2]
    assert "TITLE" not in header and "58,783,471" in row and "120,970,271" in row and "M" not in row
    assert "rounded" not in result.stderr and "TITLE" in result.stderr
    tty(74, color=False)  # fourteen more: a 12-column title fits beside the exact figures, and stays
    header, row = CliRunner().invoke(app, ["tokens"]).stdout.splitlines()[:2]
    assert headers(header)[-1] == "TITLE" and "58,783,471" in row and headers(row)[-1].startswith("Refactor")


def test_one_session_asked_for_twice_is_one_session(isolated_home: Path) -> None:
    result = CliRunner().invoke(app, ["--demo", "tokens", "7f3c9a12", "claude:7f3c9a12", "--since", "2031-01-01"])
    assert result.exit_code == 0
    assert "the session asked for made no call in that range" in result.stderr, result.stderr
