"""What people see: tables fitted to 80 and 200 columns, short ids that open, plain pipes.

A terminal is forced through the render layer (``agentscan.cli.term``):
``stdout_is_tty`` is patched and ``COLUMNS`` set, so the same command is
checked as a person at a narrow and a wide terminal sees it, and as a pipe.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app, term
from agentscan.cli.table import render
from agentscan.cli.tableparts import Column
from agentscan.cli.term import Terminal, cut, cut_left, width_of
from agentscan.scan.short_ids import unique_prefixes
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
BASE = 1_780_000_000  # 2026-05-28
BOX = set("─│┌┐└┘├┤┬┴┼━┃╭╮╯╰═║")
WIDTHS = (80, 200)


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def session(home: Path, sid: str, hour: int, title: str, *, cwd: str = "/home/dev/project", tokens: int = 10,
            mtime: float | None = None) -> None:
    ts = iso(BASE + hour * 3600)
    claude_session_file(home, sid, [
        claude_user(sid, ts, title, cwd=cwd),
        claude_assistant(sid, ts, msg_id=f"m-{sid}", request_id=f"r-{sid}", usage=claude_usage(tokens, 1), cwd=cwd),
    ], mtime=BASE + hour * 3600 if mtime is None else mtime)


@pytest.fixture
def home(isolated_home: Path) -> Path:
    long_title = "Refactor the payment reconciliation job so that it retries idempotently, then " * 2
    deep = str(isolated_home / "src" / "clients" / "acme-corporation" / "billing-reconciliation-service")
    # Two sessions share their first 10 characters, as two Codex rollouts of one minute do.
    session(isolated_home, "019ab001-aaaa-4000-8000-000000000001", 1, long_title, cwd=deep, tokens=123_456)
    session(isolated_home, "019ab001-bbbb-4000-8000-000000000002", 2, "Fix the flaky test", tokens=7)
    session(isolated_home, "7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d", 3, "Add a forecast endpoint", tokens=42)
    return isolated_home


def run(*args: str, code: int = 0):
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result


def plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


# --- the table layer -----------------------------------------------------------


COLUMNS = (Column("ID"), Column("N", right=True), Column("CWD", flex=True, min_width=10, keep_end=True),
           Column("TITLE", flex=True, min_width=12, weight=2))
ROWS = [["claude:0123abcd", "1,234,567", "/home/me/src/a-very-long-project-name", "A long title " * 8],
        ["codex:89ab", "5", "/tmp", "short"]]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_terminal_table_fits_its_width_and_keeps_ids_and_numbers_whole(width: int) -> None:
    lines, hidden = render(COLUMNS, ROWS, Terminal(tty=True, width=width, color=False))
    assert hidden == []
    assert all(width_of(line) <= width for line in lines)
    assert lines[1].startswith("claude:0123abcd  1,234,567  ") and lines[2].startswith("codex:89ab               5  ")
    if width == 80:
        assert "…" in lines[1] and "…ng-project-name  " in lines[1]  # a path keeps its end
    else:
        assert "…" not in "".join(lines)
    assert not BOX & set("".join(lines))


def test_a_pipe_gets_every_cell_whole() -> None:
    lines, _ = render(COLUMNS, ROWS, Terminal(tty=False, width=40, color=False))
    assert ROWS[0][3].strip() in lines[1] and ROWS[0][2] in lines[1]
    assert all(line == line.rstrip() for line in lines)


def test_numbers_are_right_aligned() -> None:
    lines, _ = render(COLUMNS, ROWS, Terminal(tty=False, width=80, color=False))
    ends = {line.index(cells[1]) + len(cells[1]) for line, cells in zip(lines[1:], ROWS)}
    assert len(ends) == 1


def test_droppable_columns_go_before_a_row_wraps() -> None:
    columns = (Column("ID"), Column("MODEL", flex=True, min_width=10, drop=1), Column("TITLE", flex=True, min_width=20))
    rows = [["claude:0123abcd", "claude-sonnet-4-5-20250929", "x" * 100]]
    lines, hidden = render(columns, rows, Terminal(tty=True, width=40, color=False))
    assert hidden == ["MODEL"] and all(width_of(line) <= 40 for line in lines)


def test_wide_characters_count_twice() -> None:
    assert width_of("日本語") == 6 and width_of(cut("日本語テキスト", 7)) <= 7
    assert cut_left("/home/me/src/weather-app", 14) == "…/weather-app"
    assert cut("abcdef", 4) == "abc…"


def test_home_is_shown_as_a_tilde(isolated_home: Path) -> None:
    assert term.home_short(str(isolated_home / "src" / "api")) == "~/src/api"
    assert term.home_short(str(isolated_home)) == "~"
    assert term.home_short(str(isolated_home) + "-other/x") == str(isolated_home) + "-other/x"


def test_colour_only_on_a_terminal_without_no_color() -> None:
    lines, _ = render(COLUMNS, ROWS, Terminal(tty=True, width=200, color=True))
    assert "\x1b[" in lines[0]
    lines, _ = render(COLUMNS, ROWS, Terminal(tty=True, width=200, color=False))
    assert "\x1b[" not in "".join(lines)


# --- shortest unique ids -------------------------------------------------------


def test_unique_prefixes_are_like_git() -> None:
    shown = unique_prefixes(["019ab001-aaaa", "019ab001-bbbb", "7f3c9a12-4b8e", "abc", "abcdefgh12", "abcdefgh123"])
    assert shown["019ab001-aaaa"] == "019ab001-a" and shown["019ab001-bbbb"] == "019ab001-b"
    assert shown["7f3c9a12-4b8e"] == "7f3c9a12"
    assert shown["abc"] == "abc"  # shorter than 8: whole
    assert shown["abcdefgh12"] == "abcdefgh12"  # a prefix of another id stays whole (an exact match wins)


@given(st.lists(st.text(alphabet="0123456789abcdef-", min_size=1, max_size=20), min_size=1, max_size=40))
def test_every_prefix_is_unique_and_at_least_8_characters(ids: list[str]) -> None:
    shown = unique_prefixes(ids)
    for native, prefix in shown.items():
        assert native.startswith(prefix) and len(prefix) >= min(8, len(native))
        others = [other for other in shown if other != native and other.startswith(prefix)]
        assert not others or prefix == native


@pytest.mark.parametrize("width", WIDTHS)
def test_every_id_list_shows_opens_with_show(home: Path, tty, width: int) -> None:
    tty(width, stderr=False, color=False)
    lines = run("list").stdout.splitlines()
    ids = [line.split()[0] for line in lines[1:]]
    assert ids == ["claude:7f3c9a12", "claude:019ab001-b", "claude:019ab001-a"]
    for shown in ids:
        document = orjson.loads(run("show", shown, "--json").stdout)
        assert document["session"]["id"].startswith(shown)


@pytest.mark.parametrize("width", WIDTHS)
def test_list_is_one_line_per_row_at_any_width(home: Path, tty, width: int) -> None:
    tty(width, stderr=False, color=False)
    out = run("list").stdout
    lines = out.splitlines()
    assert len(lines) == 4
    assert all(width_of(line) <= width for line in lines), lines
    assert not BOX & set(out)
    if width == 200:
        assert "/billing-reconciliation-service" in out
    else:  # the title is what people read: CWD goes rather than cut it below 25 characters
        assert "CWD" not in lines[0] and "Refactor the payment reco" in out
    assert str(home) not in out
    assert "123,457" in out  # numbers whole, as ``tokens`` prints them
    if width == 80:
        assert "…" in out
    assert ("MODEL" in lines[0]) == (width == 200)


def test_colour_on_a_terminal_honours_no_color(home: Path, tty) -> None:
    tty(200, stderr=False, color=True)
    assert "\x1b[" in run("list").stdout
    tty(200, stderr=False, color=False)
    assert "\x1b[" not in run("list").stdout


def test_a_pipe_gets_whole_ids_paths_and_titles(home: Path) -> None:
    out = run("list").stdout
    assert "claude:019ab001-aaaa-4000-8000-000000000001" in out
    assert str(home / "src" / "clients") in out and "…" not in out and "\x1b[" not in out
    assert "123457" in out  # the exact total, not 123.5k


# (At 80 columns the parts of TOTAL keep their place and the date, project and title go:
# tests/test_tokens_pass28.py.)
@pytest.mark.parametrize("width", (120, 200))
def test_tokens_rows_say_date_project_and_title(home: Path, tty, width: int) -> None:
    tty(width, stderr=False, color=False)
    lines = run("tokens").stdout.splitlines()
    assert all(width_of(line) <= width for line in lines), lines
    assert lines[0].split()[0] == "ID" and lines[-1].startswith("TOTAL")
    row = next(line for line in lines if line.startswith("claude:7f3c9a12"))
    assert "project" in row  # the cwd's end
    header = lines[0]
    total_end, cost_end = header.index("TOTAL") + len("TOTAL"), header.index("COST") + len("COST")
    assert "43" in row[:total_end].split()[-1]  # the total, right-aligned under its header
    assert row[:cost_end].split()[-1].startswith(("$", "<$"))  # the cost after it (TITLE last: pass 40)
    if width == 200:
        assert "DATE" in lines[0] and "TITLE" in lines[0] and "Add a forecast endpoint" in row
        assert datetime.fromtimestamp(BASE + 3 * 3600).strftime("%Y-%m-%d") in row


def test_help_does_not_need_rich_on_the_command_path(home: Path) -> None:
    code = ("import sys; sys.argv = ['agentscan', 'list']\n"
            "from agentscan.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('RICH' if any(m == 'rich' or m.startswith('rich.') for m in sys.modules) else 'NO-RICH')")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60).stdout
    assert out.strip().endswith("NO-RICH"), out
