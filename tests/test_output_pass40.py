"""Terminal output, pass 40: ``list``'s UPDATED shortened before its title is cut below what
it wants, ``show --full``'s legend of ``?``, a ``tokens`` table whose every row is folded,
and one Claude model named alike whichever agent recorded it."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app, render
from agentscan.cli.list_text import compact_time
from agentscan.cli.render import model_text
from agentscan.cli.term import Terminal, width_of
from builders import claude_assistant, claude_session_file, claude_usage
from patch_builders import BASE as PATCH_BASE, IDS, session
from test_cli_behaviour import BASE, sid, write_session

runner = CliRunner()
TTY = Terminal(tty=True, width=120, color=False)
PIPE = Terminal(tty=False, width=120, color=False)


def run(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


# --- list: UPDATED shortened before the title is cut below 25 -----------------------------

def pinned_today(monkeypatch: pytest.MonkeyPatch, day: date) -> None:
    monkeypatch.setattr(render, "today", lambda zone: day)


def test_a_60_column_list_shortens_updated_to_give_the_title_its_room(tty, monkeypatch: pytest.MonkeyPatch) -> None:
    pinned_today(monkeypatch, date(2026, 12, 1))
    tty(60)
    out, err = run("--demo", "list", "--tz", "UTC")
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "TOKENS", "TITLE"]
    # Every demo time is of the last six months: its day and minute, the year known.
    assert "claude:c2d4e6f8  11-29 16:30    5,429  Upgrade to Python 3.…" in lines
    gemini = next(line for line in lines if line.startswith("gemini:9b7d3e41  10-14 08:34   33,539  Why does"))
    assert width_of(gemini) == 60  # the title cut to 21 characters, not the 16 the whole time left it
    assert "2026-" not in out and all(width_of(line) <= 60 for line in lines)
    assert "left out to fit 60 columns: MODEL, CWD, COST" in err


def test_updated_stays_whole_where_the_title_keeps_what_it_wants(tty, monkeypatch: pytest.MonkeyPatch) -> None:
    pinned_today(monkeypatch, date(2026, 12, 1))
    for width in (70, 80):
        tty(width)
        out = run("--demo", "list", "--tz", "UTC")[0]
        assert "claude:c2d4e6f8  2026-11-29 16:30    5,429" in out, width


def test_a_pipe_gets_the_whole_time(monkeypatch: pytest.MonkeyPatch) -> None:
    pinned_today(monkeypatch, date(2026, 12, 1))
    monkeypatch.setenv("COLUMNS", "60")  # a pipe is never fitted, whatever it says
    assert "  2026-11-29 16:30  " in run("--demo", "list", "--tz", "UTC")[0]


def test_a_shorter_updated_keeps_the_column_the_whole_one_lost(tty, monkeypatch: pytest.MonkeyPatch) -> None:
    pinned_today(monkeypatch, date(2026, 12, 1))
    tty(40)
    lines = run("--demo", "list", "--tz", "UTC")[0].splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "TOKENS"]  # whole, UPDATED went: 41 columns
    assert lines[1] == "claude:c2d4e6f8  11-29 16:30    5,429"


def test_an_old_time_is_given_by_its_date_and_a_remembered_list_by_its_day(tty, monkeypatch: pytest.MonkeyPatch) -> None:
    tty(60)
    pinned_today(monkeypatch, date(2026, 12, 1))
    assert "10-14 08:34" in run("--demo", "list", "--tz", "UTC")[0]
    # Half a year on, the same rows (unchanged files: a remembered answer) read by their dates.
    pinned_today(monkeypatch, date(2027, 5, 1))
    out = run("--demo", "list", "--tz", "UTC")[0]
    assert "gemini:9b7d3e41  2026-10-14  " in out and "11-29 16:30" in out


def test_compact_time_of_recent_old_and_future_times() -> None:
    today = date(2026, 12, 5)
    at = datetime(2026, 11, 28, 9, 2, tzinfo=timezone.utc)
    assert compact_time(at, timezone.utc, today) == "11-28 09:02"
    assert compact_time(datetime(2026, 6, 6, 1, 0, tzinfo=timezone.utc), timezone.utc, today) == "06-06 01:00"
    assert compact_time(datetime(2026, 6, 5, 23, 0, tzinfo=timezone.utc), timezone.utc, today) == "2026-06-05"
    assert compact_time(datetime(2026, 12, 6, 23, 0, tzinfo=timezone.utc), timezone.utc, today) == "12-06 23:00"
    assert compact_time(datetime(2027, 1, 1, tzinfo=timezone.utc), timezone.utc, today) == "2027-01-01"
    assert compact_time(None, timezone.utc, today) == "-"


# --- show --full: what "?" means -------------------------------------------------------

LEGEND = "? = no result recorded: how the call ended is not known"


def test_show_full_says_what_a_question_mark_means(tty) -> None:
    piped = run("--demo", "show", "cursor:7c0a1e55", "--full")[0].splitlines()
    assert piped.count(LEGEND) == 1
    assert piped.index(LEGEND) < next(i for i, line in enumerate(piped) if line.endswith("  ?"))
    tty(40)
    lines = run("--demo", "show", "cursor:7c0a1e55", "--full", "--no-pager")[0].splitlines()
    at = lines.index("? = no result recorded: how the call")
    assert lines[at + 1] == "    ended is not known" and lines[at + 2] == ""


def test_show_full_says_nothing_of_it_when_every_call_ended_known() -> None:
    out = run("--demo", "show", "claude:7f3c9a12", "--full")[0]
    assert "  ok" in out and "no result recorded" not in out


# --- tokens: every row folded --------------------------------------------------------

def test_a_tokens_table_of_only_zero_token_rows_prints_only_the_line_naming_them(isolated_home: Path, tty) -> None:
    write_session(isolated_home, 2, 2, tokens=(0, 0), model="<synthetic>", title="zero")
    tty(80)
    for args, named in ((["tokens"], "(+ 1 session with 0 tokens: claude:00000002)"),
                        (["tokens", "--by", "model"], "(+ 1 model with 0 tokens: <synthetic>)"),
                        (["tokens", "--by", "day", "--tz", "UTC"], "(+ 1 period with 0 tokens: 2026-05-28)")):
        out, err = run(*args)
        assert out == named + "\n", args
        assert "left out to fit" not in err, args
    assert run("tokens", "--json")[0].count('"key"') == 1  # --json keeps its row


def test_a_tokens_table_of_sessions_that_recorded_nothing_prints_no_header(isolated_home: Path, tty) -> None:
    # another session's summary (a stub Claude Code leaves); an empty transcript is said by its
    # warning alone, as ``list`` leaves it out (pass 49)
    claude_session_file(isolated_home, sid(3), [{"type": "summary", "summary": "Elsewhere", "leafUuid": "x"}],
                        mtime=BASE)
    claude_session_file(isolated_home, sid(4), [], mtime=BASE)
    tty(80)
    out, err = run("tokens")
    assert out == "(+ 1 session that recorded nothing: claude:00000003)\n"
    assert "warning: 1 empty file (" in err
    tty(80, stderr=False)
    out = run("tokens", "--no-cache")[0]
    assert "TOTAL" not in out and "DATE" not in out


def test_a_patched_table_whose_rows_all_fold_prints_no_header(isolated_home: Path, table_ways: list[str],
                                                             table_splices: list[bool]) -> None:
    spent = session(isolated_home, IDS[0], 1, 100)
    zero = claude_assistant(IDS[1], "2026-11-01T10:00:01Z", msg_id="zero", request_id="r-zero", usage=claude_usage(0, 0))
    claude_session_file(isolated_home, IDS[1], [zero], mtime=PATCH_BASE + 120)
    assert "TOTAL" in run("tokens")[0]
    spent.unlink()
    made = run("tokens")
    # Patched, but not from the kept text (its ID column narrowed to TOTAL's): laid out again.
    assert table_ways[-1] == "patched" and table_splices == [False]
    # No row to print; the line naming it on stderr in a pipe (pass 42).
    assert made == ("", f"(+ 1 session with 0 tokens: claude:{IDS[1]})\n")
    assert run("tokens", "--no-cache") == made


# --- one model, one name on a terminal ----------------------------------------------------

@pytest.mark.parametrize(("recorded", "shown"), [
    ("claude-sonnet-4-5-20250929", "sonnet-4.5"),
    ("claude-4.5-sonnet", "sonnet-4.5"),  # Cursor's spelling of the same model
    ("claude-opus-4-1-20250805", "opus-4.1"),
    ("claude-haiku-4-5-20251001", "haiku-4.5"),
    ("claude-sonnet-4-20250514", "sonnet-4"),  # the date is no minor version
    ("claude-sonnet-4", "sonnet-4"),
    ("claude-3-5-sonnet-20241022", "sonnet-3.5"),
    ("claude-3-7-sonnet", "sonnet-3.7"),
    ("claude-3-opus-20240229", "opus-3"),
    ("claude-opus-4-8-fast", "opus-4.8-fast"),
    ("claude-4.5-opus-high-thinking", "opus-4.5-high-thinking"),
    ("claude-sonnet-4-20250514-thinking", "sonnet-4-20250514-thinking"),  # a date left in: not 4.20250514
    ("claude-opus-4-1m", "opus-4-1m"),  # 1m is no version
    ("claude-instant-1.2", "instant-1.2"),
    ("claude-2.1", "claude-2.1"),
    ("gpt-5.1-codex", "gpt-5.1-codex"),
])
def test_a_terminal_names_a_claude_model_by_family_and_dotted_version(recorded: str, shown: str) -> None:
    assert model_text(recorded, TTY) == shown
    assert model_text(recorded, PIPE) == recorded  # a pipe: as recorded


def test_list_names_claude_code_s_and_cursor_s_sonnet_alike(tty) -> None:
    tty(200)
    lines = run("--demo", "list")[0].splitlines()
    claude = next(line for line in lines if line.startswith("claude:7f3c9a12"))
    cursor = next(line for line in lines if line.startswith("cursor:7c0a1e55"))
    assert "  sonnet-4.5  " in claude and "  sonnet-4.5  " in cursor and "sonnet-4-5" not in claude


def test_tokens_by_model_keeps_two_recorded_spellings_apart_on_a_terminal(tty) -> None:
    """A row of ``--by model`` is a model as recorded: the two spellings of one model are two
    rows, which must not read as one (``tokens_models.model_names``); the others are dotted.
    Since pass 46 the two are named by the agents that recorded them (``cli.tokens_models``)."""
    tty(120)
    keys = [line.split("  ")[0] for line in run("--demo", "tokens", "--by", "model")[0].splitlines()[1:]]
    assert "sonnet-4.5 (claude)" in keys and "sonnet-4.5 (cursor)" in keys
    assert "haiku-4.5 (1 run)" in keys and "opus-4.5" in keys
