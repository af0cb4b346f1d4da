"""Pass 43: two different paths never read alike in a path column, when the title has room.

``list`` at 100 columns showed ``…/workspace`` for both ``…/codex/workspace`` and
``…/claude/workspace``: a path column kept only the last folder's name whole
(``tablepaths.named_floors``).  It now takes from the title, above what the title
``wants``, what shows every two paths apart (``tablepaths.apart_width``); when the title
has not that to give, the paths are shown as before.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.tableparts import TITLE_WANTS, Column
from agentscan.cli.tablepaths import apart_width, paths_fitted
from agentscan.cli.term import Terminal
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()

CODEX = "/srv/agent-history-real-agent/codex/workspace"
CLAUDE = "/srv/agent-history-real-agent/claude/workspace"
TITLE = "Summarise the failing checks and propose a fix for each of them"


def _home(home: Path) -> None:
    """Two sessions in two projects whose last folders share a name, and one elsewhere."""
    for number, cwd in enumerate((CODEX, CLAUDE, "/srv/app")):
        native = f"0000000{number}-1111-4222-8333-444444444444"
        ts = f"2026-11-0{number + 1}T09:00:00.000Z"
        claude_session_file(home, native, [
            claude_user(native, ts, TITLE, cwd=cwd),
            claude_assistant(native, ts.replace("09:00", "09:01"), msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(1200, 80), cwd=cwd),
        ], project=f"-p{number}")


def cells(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


def _table(isolated_home: Path, tty, width: int, *args: str) -> tuple[list[str], dict[str, list[str]]]:
    """The header's cells and each row's (by its first cell) of ``agentscan ARGS`` ``width``
    columns wide."""
    _home(isolated_home)
    tty(width, color=False)
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= width for line in lines), lines  # one line a row, fitted
    return cells(lines[0]), {cells(line)[0]: cells(line) for line in lines[1:] if line.startswith("claude:")}


def _shown_paths(header: list[str], rows: dict[str, list[str]]) -> list[str]:
    at = header.index("CWD")
    return sorted(row[at] for row in rows.values())


@pytest.mark.parametrize("width", (100, 110))
def test_list_shows_two_projects_of_one_name_apart(isolated_home: Path, tty, width: int) -> None:
    header, rows = _table(isolated_home, tty, width, "list")
    assert "CWD" in header and header[-1] == "TITLE", header
    # was …/workspace twice
    assert _shown_paths(header, rows) == ["/srv/app", "…/claude/workspace", "…/codex/workspace"]
    # the title still keeps what it wants (it gave only what it had over that)
    assert all(len(row[-1]) >= TITLE_WANTS for row in rows.values()), rows


def test_list_keeps_the_title_when_there_is_no_room_to_tell_them_apart(isolated_home: Path, tty) -> None:
    """At 95 columns the title would be cut below 25 to tell the paths apart (at 96 it
    keeps 25 so): the title keeps what it has (the few columns it has over 25 would tell them
    apart no better), and each path keeps the folder that tells it apart, the rest elided
    (``…/workspace`` twice read as one project)."""
    header, rows = _table(isolated_home, tty, 95, "list")
    assert "CWD" in header and header[-1] == "TITLE", header
    assert _shown_paths(header, rows) == ["/srv/app", "…/claude/…", "…/codex/…"]
    titles = {len(row[-1]) for row in rows.values()}
    # (and what the paths elided leave over: ``…/claude/…`` is narrower than ``…/workspace``)
    assert len(titles) == 1 and TITLE_WANTS < titles.pop() <= TITLE_WANTS + len("claude/")


@pytest.mark.parametrize("width", (108, 131))  # without DATE, and with it
def test_tokens_shows_them_apart_too(isolated_home: Path, tty, width: int) -> None:
    header, rows = _table(isolated_home, tty, width, "tokens")
    assert "CWD" in header and header[-1] == "TITLE", header
    assert _shown_paths(header, rows) == ["/srv/app", "…/claude/workspace", "…/codex/workspace"]


def test_a_pipe_gets_the_paths_whole(isolated_home: Path) -> None:
    _home(isolated_home)
    result = runner.invoke(app, ["list"])
    assert CODEX in result.stdout and CLAUDE in result.stdout


@pytest.mark.parametrize(("paths", "width", "apart"), [
    ([CODEX, CLAUDE], 11, len("…/claude/workspace")),
    # "…/workspace" could be the other one's too: one of them shown so is not enough
    ([CODEX, "/srv/x/claude/workspace"], 11, len("…/claude/workspace")),
    # a path the other ends in is told by showing it whole
    (["/workspace", "/srv/workspace"], 11, 11),
    # differing only at their start: one shown whole
    (["/a/x/workspace", "/bb/x/workspace"], 11, len("/a/x/workspace")),
    (["/srv/one", "/srv/two", "-"], 6, 6),  # nothing alike: as wide as it was
    ([CODEX, CODEX], 11, 11),  # one path twice is one path
    (["C:\\Users\\me\\a\\app", "C:\\Users\\me\\b\\app"], 5, len("…\\a\\app")),
])
def test_apart_width(paths: list[str], width: int, apart: int) -> None:
    assert apart_width(paths, width) == apart


def test_paths_are_told_apart_only_with_what_the_title_has_over_what_it_wants() -> None:
    term = Terminal(tty=True, width=80, color=False)
    columns = [Column("CWD", flex=True, min_width=10, keep_end=True),
               Column("TITLE", flex=True, min_width=12, wants=25)]

    def fitted(title: int) -> list[int]:
        return paths_fitted(columns, ([0, 1], [11, title]), term, lambda index: [CODEX, CLAUDE, TITLE])[1]

    assert fitted(32) == [18, 25]  # 7 to give: takes the 7 it needs
    assert fitted(31) == [11, 31]  # 6 to give: not enough, so none taken
