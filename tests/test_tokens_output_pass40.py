"""``tokens``' and ``show``'s text output, pass 40.

1. By session, a session that recorded no usage (every current Cursor session) is named
   under the table, as a grouping names it, not given a row of "not recorded" each:
   hundreds of those buried the real rows.  ``--json`` keeps its ``null`` row, and a
   patched table says what a fresh one says.
2. ``show``'s untimed prompts and errors say ``-`` in a time's width: their text lines up
   with the timed ones'.
3. A row of 0 tokens whose key names nothing (``unknown``, ``<synthetic>``) is not named
   under a table: it carried no information.
4. TITLE is the last column of the table by session, as ``list``'s: the numbers come
   before a title of 180 characters, and awk's fields for them are stable.
5. ``--by cwd`` shows its key as ``list`` shows a CWD (``~/…`` on a terminal).
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.show_text import print_detail
from agentscan.cli.term import Terminal, width_of
from agentscan.cli.tokens_text import print_lines, print_report
from agentscan.detailmodel import Prompt, SessionDetail
from agentscan.model import SessionRow, TokenUsage
from agentscan.scan.tokenreport import TokenReport, TokenRow
from builders import cells, claude_assistant, claude_session_file, claude_usage, claude_user, ran
from patch_builders import BASE, IDS, append, null_session, project_session, session, turn

runner = CliRunner()


def tokens(*args: str) -> tuple[str, str]:
    return ran("tokens", *args)


# --- 1. sessions that recorded no usage, by session ---------------------------------------------


def _unrecorded_home(home: Path, count: int) -> list[str]:
    """Two sessions with usage and ``count`` that recorded none (a prompt and no reply),
    newer than both: the ids of those, newest first."""
    session(home, IDS[0], 1, 100)
    session(home, IDS[1], 2, 200)
    ids = [f"{n:08x}-9999-4999-8999-999999999999" for n in range(count)]
    for n, native_id in enumerate(ids):
        null_session(home, native_id, BASE + 3600 + n * 60)
    return [f"claude:{native_id}" for native_id in reversed(ids)]


@pytest.mark.parametrize("width", [None, 80])
def test_sessions_that_recorded_no_usage_are_named_under_the_table_not_as_rows(
        isolated_home: Path, tty: Callable[..., None], width: int | None) -> None:
    if width is not None:
        tty(width, color=False)
    unrecorded = _unrecorded_home(isolated_home, 30)
    out, err = tokens()
    # The line naming them: under the table on a terminal, on stderr in a pipe (pass 42).
    lines = out.splitlines() + (err.splitlines() if width is None else [])
    assert "not recorded" not in out
    rows = [line for line in lines[1:] if line.startswith("claude:")]
    assert [row.split()[0][:15] for row in rows] == [f"claude:{IDS[1]}"[:15], f"claude:{IDS[0]}"[:15]]
    total = next(index for index, line in enumerate(lines) if line.startswith("TOTAL"))
    named = " ".join(line.strip() for line in lines[total + 1:])
    assert named.startswith("(+ 30 sessions that recorded no usage, not counted: ") and named.endswith(" and 25 more)")
    # One rule, a terminal's or a pipe's: the first five, newest first, then how many more
    # (wrapped to a terminal's width, each whole; words, not "…": pass 55).
    ids = named.split(": ", 1)[1].removesuffix(" and 25 more)").split(", ")
    if width is None:
        assert ids == unrecorded[:5] and total == len(lines) - 2
    else:
        assert all(width_of(line) <= width for line in lines[total + 1:]) and len(ids) == 5
        assert all(full.startswith(shown) and len(shown) >= len("claude:") + 8 for shown, full in zip(ids, unrecorded))
    # --json keeps their rows, null.
    document = orjson.loads(tokens("--json")[0])
    rows_by_key = {row["key"]: row["tokens"] for row in document["rows"]}
    assert len(rows_by_key) == 32 and all(rows_by_key[key] is None for key in unrecorded)


def test_the_long_table_note_counts_the_rows_shown_not_those_named(
        capsys: pytest.CaptureFixture[str], tty: Callable[..., None]) -> None:
    """101 sessions that recorded no usage and one that did: one row above, no "102 sessions
    above" note (it counted every session, folded or not)."""
    tty(200, color=False)
    term = Terminal(tty=True, width=200, color=False)
    from agentscan.cli.tableparts import Row
    from agentscan.cli.tokens_columns import session_cells

    shown = [Row(session_cells("claude:1", ["2026-11-01", "~/a", "t"], ["1", "0", "0", "1", "0", "2", "$0.01"]))]
    full = [*([[]] * 101), shown]
    print_lines("session", full, lambda: full, (TokenUsage(1, 0, 0, 1), None, None), [], [], term,
                unrecorded=[f"cursor:{n}" for n in range(101)])
    assert "sessions above" not in capsys.readouterr().err
    print_lines("session", full + [shown] * 101, lambda: full, (TokenUsage(1, 0, 0, 1), None, None), [], [], term)
    assert "102 sessions above" in capsys.readouterr().err  # (the note itself, for rows shown)


@pytest.mark.parametrize("width", [None, 150])
def test_a_patched_table_names_them_as_a_fresh_one(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None],
        width: int | None) -> None:
    if width is not None:
        tty(width, color=False)
    paths = [session(isolated_home, native_id, index + 1, 100 * (index + 1)) for index, native_id in enumerate(IDS[:3])]
    null_session(isolated_home, IDS[3], BASE + 7000)
    first = tokens()
    assert "(+ 1 session that recorded no usage, not counted: claude:" in "".join(first)
    append(paths[1], turn(IDS[1], 30, 100), BASE + 9000)  # as wide as before: printed from the kept text
    made = tokens()
    assert table_ways[-1] == "patched" and table_splices[-1] is True
    assert made == tokens("--no-cache")
    assert "(+ 1 session that recorded no usage, not counted: claude:" in "".join(made)
    null_session(isolated_home, IDS[4], BASE + 9050)  # a new one that records nothing: named too
    made = tokens()
    assert table_ways[-1] == "patched"
    assert made == tokens("--no-cache")
    assert "(+ 2 sessions that recorded no usage, not counted: claude:" in "".join(made)
    append(paths[2], turn(IDS[2], 31, 123_456_789), BASE + 9100)  # wider: laid out again
    made = tokens()
    assert table_ways[-1] == "patched" and table_splices[-1] is False
    assert made == tokens("--no-cache")
    assert "(+ 2 sessions that recorded no usage, not counted: claude:" in "".join(made)


def test_a_session_that_starts_recording_gets_its_row_in_a_patched_table(
        isolated_home: Path, table_ways: list[str]) -> None:
    session(isolated_home, IDS[0], 1, 100)
    path = null_session(isolated_home, IDS[3], BASE + 7000)
    tokens()
    append(path, turn(IDS[3], 40, 77), BASE + 9500)
    made = tokens()
    assert table_ways[-1] == "patched"
    assert made == tokens("--no-cache")
    assert "recorded no usage" not in "".join(made)
    assert any(line.startswith(f"claude:{IDS[3]}") for line in made[0].splitlines())


# --- 2. show: an untimed prompt or error lines up with a timed one -----------------------------


def test_untimed_prompts_and_errors_line_up_with_timed_ones(capsys: pytest.CaptureFixture[str]) -> None:
    timed = datetime(2025, 12, 16, 0, 0, tzinfo=timezone.utc)
    detail = SessionDetail(
        row=SessionRow(provider="cursor", native_id="c0ffee00-0000-4000-8000-000000000001", path=None),
        prompts=(Prompt("Hello", timed, seq=1), Prompt("[trimmed] again", None, seq=2)),
        extra={"errors": [{"text": "Provider Error: early", "timestamp": "2025-12-16T00:01:00Z"},
                          {"text": "Provider Error: late", "timestamp": None}]})
    for term in (Terminal(tty=False, width=80, color=False), Terminal(tty=True, width=80, color=False)):
        print_detail(detail, term, zone=timezone.utc)
        lines = capsys.readouterr().out.splitlines()
        prompts = lines[lines.index("prompts (2)") + 1:][:2]
        assert prompts == ["  2025-12-16 00:00  Hello", "  -                 [trimmed] again"]
        errors = lines[lines.index("errors (2)") + 1:][:2]
        assert errors == ["  2025-12-16 00:01  Provider Error: early", "  -                 Provider Error: late"]


# --- 3. zero rows that name nothing ----------------------------------------------------------------


def _printed(report: TokenReport) -> list[str]:
    """The table and the lines naming its folded rows (on stderr in a pipe: pass 42)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        print_report(report, Terminal(tty=False, width=200, color=False), rows_of=lambda key: None, short_ids={})
    return out.getvalue().splitlines() + err.getvalue().splitlines()


ZERO = TokenUsage(0, 0, 0, 0)
SPENT = TokenUsage(100, 0, 0, 10)


def test_a_zero_row_that_names_nothing_is_not_named_under_a_table() -> None:
    by_model = TokenReport("model", (TokenRow("gpt-5", SPENT, SPENT), TokenRow("<synthetic>", ZERO, ZERO),
                                     TokenRow("default", ZERO, ZERO), TokenRow("gpt-4.1", ZERO, ZERO)), SPENT)
    lines = _printed(by_model)
    # A real model of 0 tokens is still named: that it was used and cost nothing is news.
    assert lines[-1] == "(+ 1 model with 0 tokens: gpt-4.1)"
    assert "<synthetic>" not in "\n".join(lines) and "default" not in "\n".join(lines)
    by_day = TokenReport("day", (TokenRow("2026-11-01", SPENT, SPENT), TokenRow("unknown", ZERO, ZERO)), SPENT)
    lines = _printed(by_day)
    assert lines[-1].startswith("TOTAL") and "unknown" not in "\n".join(lines)
    by_cwd = TokenReport("cwd", (TokenRow("/w/app", SPENT, SPENT), TokenRow("unknown", ZERO, ZERO),
                                 TokenRow("/w/idle", ZERO, ZERO)), SPENT)
    assert _printed(by_cwd)[-1] == "(+ 1 directory with 0 tokens: /w/idle)"  # was "1 period"


def test_with_no_table_such_a_row_is_still_named() -> None:
    """Nothing else to say: the line is all the output (an empty one said nothing at all)."""
    report = TokenReport("model", (TokenRow("<synthetic>", ZERO, ZERO),), ZERO)
    assert _printed(report) == ["(+ 1 model with 0 tokens: <synthetic>)"]


def test_a_day_of_calls_with_no_time_and_0_tokens_is_not_named(isolated_home: Path) -> None:
    """Through the command: Claude Code's ``<synthetic>`` notices (0 tokens) and by day a
    period ``unknown`` of 0 tokens."""
    native = IDS[0]
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-01T10:00:00Z", "go"),
        claude_assistant(native, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10)),
        claude_assistant(native, None, msg_id="m2", request_id="r2", usage=claude_usage(0, 0), model="<synthetic>"),
    ], mtime=BASE)
    by_model = tokens("--by", "model")[0]
    assert "<synthetic>" not in by_model and "with 0 tokens" not in by_model
    by_day = tokens("--by", "day")[0]
    assert "unknown" not in by_day and by_day.splitlines()[-1].startswith("TOTAL")


# --- 4. TITLE last ------------------------------------------------------------------------------------


def test_title_is_the_last_column_and_the_numbers_fields_are_stable_in_a_pipe(isolated_home: Path) -> None:
    titles = ["short", "A prompt " * 18 + "end", "日本語のタイトル " * 6]
    for index, title in enumerate(titles):
        project_session(isolated_home, IDS[index], f"/home/dev/src/p{index}", title, index + 1, tokens=100 * (index + 1))
    lines = tokens()[0].splitlines()
    header = cells(lines[0])
    assert header[:3] == ["ID", "DATE", "CWD"] and header[-3:] == ["TOTAL", "COST", "TITLE"]
    rows = [line for line in lines[1:] if line.startswith("claude:")]
    # awk's fields: id, date, cwd, five parts, reasoning, total, cost, then the title's words.
    totals = orjson.loads(tokens("--json")[0])["rows"]
    assert sorted(row.split()[8] for row in rows) == sorted(str(row["tokens"]["total"]) for row in totals)
    assert all(row.split()[9].startswith(("$", "<$")) for row in rows)
    total_at = lines[0].index("TOTAL") + len("TOTAL")
    assert all(row[:total_at].split()[-1] == row.split()[8] for row in rows)  # every total ends under its header
    assert {row.split(maxsplit=10)[10] for row in rows} == {" ".join(title.split()) for title in titles}


def test_title_is_the_last_column_on_a_terminal(tty: Callable[..., None]) -> None:
    tty(200, color=False)
    lines = runner.invoke(app, ["--demo", "tokens"]).stdout.splitlines()
    assert cells(lines[0])[-1] == "TITLE"
    row = next(line for line in lines if line.startswith("claude:7f3c9a12"))
    assert row.endswith("Add a 5-day forecast endpoint to the API and cover it with tests")


# --- 5. --by cwd ----------------------------------------------------------------------------------


def test_by_cwd_shows_its_key_as_list_shows_a_cwd(isolated_home: Path, tty: Callable[..., None]) -> None:
    app_dir = str(isolated_home / "src" / "weather-app")
    project_session(isolated_home, IDS[0], app_dir, "a title", 1)
    project_session(isolated_home, IDS[1], "/srv/elsewhere", "another", 2, tokens=50)
    piped = tokens("--by", "cwd")[0].splitlines()
    assert cells(piped[0])[0] == "CWD"
    assert [cells(line)[0] for line in piped[1:3]] == [app_dir, "/srv/elsewhere"]  # whole in a pipe
    assert {row["key"] for row in orjson.loads(tokens("--by", "cwd", "--json")[0])["rows"]} == {app_dir, "/srv/elsewhere"}
    tty(120, color=False)
    shown = tokens("--by", "cwd")[0].splitlines()
    assert cells(shown[0])[0] == "CWD"
    assert [cells(line)[0] for line in shown[1:3]] == ["~/src/weather-app", "/srv/elsewhere"]


def test_by_cwd_on_a_narrow_terminal_cuts_the_path_before_a_figure(isolated_home: Path, tty: Callable[..., None]) -> None:
    """As ``list``'s CWD: cut from its start, its last folder's name whole, rather than a
    number column left out for it."""
    long_dir = "/home/dev/" + "deeply/nested/" * 6 + "billing-service"
    project_session(isolated_home, IDS[0], long_dir, "a title", 1)
    for width in (80, 100):
        tty(width, color=False)
        out, err = tokens("--by", "cwd")
        lines = out.splitlines()
        path = cells(lines[1])[0]
        assert path.startswith("…/") and path.endswith("/billing-service") and long_dir.endswith(path[1:])
        assert all(width_of(line) <= width for line in lines)
        # Every part of the total kept (REASONING, a part of OUTPUT, may go first, as ever).
        assert all(name in lines[0] for name in ("INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "TOTAL", "COST"))
