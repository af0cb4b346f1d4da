"""``tokens``' CWD (PROJECT before pass 39) keeps a project's last folder's name whole.

At 120 and 130 columns the demo showed ``…nventory-api`` and ``…ling-service``: the title
gave a path's name only what it had over its least width (16 columns), 0 to 1 there.  A
title now keeps 12 columns (``list``'s title's least width), and since pass 39 a path
column is no narrower than its names (``tablepaths.named_floors``) or left out; a name
longer than ``NAMED_CAP`` takes what it needs from the title.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.tableparts import Column
from agentscan.cli.tablepaths import paths_fitted
from agentscan.cli.term import Terminal
from patch_builders import IDS, project_session

runner = CliRunner()


def cells(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


def invoke(*args: str) -> list[str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@pytest.mark.parametrize("width", (120, 125, 130))
def test_the_demo_keeps_every_project_s_last_folder_whole(tty, width: int) -> None:
    tty(width, color=False)
    lines = invoke("--demo", "tokens")
    header = cells(lines[0])
    # the title last, as list's; DATE goes before CWD (at 120 columns: SESSION, CWD, INPUT...)
    project_at = 2 if "DATE" in header else 1
    assert header[project_at] == "CWD" and header[-1] == "TITLE", header
    projects = {cells(line)[project_at] for line in lines if re.match(r"[a-z]+:", line)}
    # (cli-tool and notes: the sessions that recorded no usage, named under the table since pass 40)
    names = {"weather-app", "recipe-api", "inventory-api", "billing-service"}
    assert {project.rsplit("/", 1)[-1] for project in projects} == names, projects  # was …ling-service
    assert all(project.startswith(("…/", "/")) for project in projects), projects
    assert all(len(line) <= width for line in lines)


def test_a_project_goes_rather_than_cut_a_title_below_what_it_wants(tty) -> None:
    """Pass 40: CWD goes before TITLE, and gives it the 16 characters it ``wants``: at 111
    columns ``…/billing-service`` fits beside a 16-character title; at 110 it would leave
    15, so CWD is left out (the title used to go, at 114, by its least width)."""
    tty(111, color=False)
    lines = invoke("--demo", "tokens")
    assert cells(lines[0])[:2] == ["ID", "CWD"] and cells(lines[0])[-1] == "TITLE"
    claude = next(cells(line) for line in lines if line.startswith("claude:7f3c9a12"))
    assert claude[1] == "…/src/weather-app" and claude[-1] == "Add a 5-day for…"
    tty(110, color=False)
    lines = invoke("--demo", "tokens")
    assert "CWD" not in cells(lines[0]) and cells(lines[0])[-1] == "TITLE"
    claude = next(cells(line) for line in lines if line.startswith("claude:7f3c9a12"))
    assert len(claude[-1]) > 16 and claude[-1].startswith("Add a 5-day forecast")


def test_a_name_longer_than_the_cap_takes_from_the_title_down_to_what_it_wants() -> None:
    """``list``'s title keeps the 25 columns it ``wants`` (pass 39); a title that wants
    nothing gives down to its least width."""
    term = Terminal(tty=True, width=80, color=False)
    path = "/home/dev/src/a-very-long-project-name-xx"  # its name needs 29 columns, past NAMED_CAP
    for wants, widths in ((0, [29, 17]), (20, [22, 24])):  # the least width 14 leaves 10 to give
        columns = [Column("CWD", flex=True, min_width=10, keep_end=True),
                   Column("TITLE", flex=True, min_width=14, wants=wants)]
        assert paths_fitted(columns, ([0, 1], [22, 24]), term, lambda index: [path, "a title"])[1] == widths


TITLE = "A prompt long enough to be cut in any table narrower than this"


def test_a_patched_table_gives_a_new_project_s_name_the_title_s_room_as_a_whole_one(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None]) -> None:
    # 130 columns: every column but REASONING's was kept before pass 40 too; since, DATE and
    # REASONING go before TITLE, and the title gives a name its room down to the 16 it wants.
    tty(130, color=False)
    project_session(isolated_home, IDS[0], "/home/dev/src/zzzzzzzzzzzzzzzzzzzzzzzzzzzz/app", TITLE, 0)
    before = invoke("tokens")
    assert cells(before[0])[-1] == "TITLE" and cells(before[1])[2] == "…/app"
    assert len(cells(before[1])[-1]) > 16
    project_session(isolated_home, IDS[1], "/home/dev/src/zzzzzzzzzzzzzzzzzzzzzzzz/billing-service", TITLE, 1)
    patched = invoke("tokens")
    assert table_ways[-1] == "patched"
    assert patched == invoke("tokens", "--no-cache")  # byte for byte
    assert cells(patched[1])[2] == "…/billing-service", patched
    assert cells(patched[0])[:3] == ["ID", "DATE", "CWD"], patched  # nothing else went for it
    assert len(cells(patched[1])[-1]) == 16  # the title gave it its room, down to what it wants
