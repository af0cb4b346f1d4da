"""``tokens`` by session on a narrow terminal keeps a readable title (pass 40).

At 80 and 100 columns the table showed session ids and numbers only: nobody could tell
which session was which.  Now the title goes only before CACHE READ, and the columns that
go before it (REASONING, DATE, CWD, then CACHE WRITE...) give it the 16 characters it wants.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.term import width_of

runner = CliRunner()


def cells(line: str) -> list[str]:
    """A line's cells (two blanks at least part them; ``CACHE READ`` has one inside)."""
    return re.split(r" {2,}", line.strip())


def demo_titles() -> dict[str, str]:
    result = runner.invoke(app, ["--demo", "list", "--all", "--json"])
    assert result.exit_code == 0, result.output
    # An archived thread's title cell begins with the mark ``list`` gives it too.
    return {
        row["id"]: ("(archived) " if row.get("archived") else "") + row["title"]
        for row in json.loads(result.stdout)["sessions"]
    }


@pytest.mark.parametrize(("width", "gone"), [
    (80, ["REASONING", "DATE", "CWD", "CACHE WRITE"]),
    (100, ["REASONING", "DATE", "CWD"]),
])
def test_the_demo_shows_each_session_s_title_at_80_and_100_columns(tty, width: int, gone: list[str]) -> None:
    titles = demo_titles()
    tty(width, color=False)
    result = runner.invoke(app, ["--demo", "tokens"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(width_of(line) <= width for line in lines), lines
    header = cells(lines[0])
    assert header[-1] == "TITLE" and not set(gone) & set(header), header
    rows = [cells(line) for line in lines if re.match(r"[a-z]+:", line)]
    assert len(rows) == 9  # every session with usage (the two without are named under the table)
    for row in rows:
        (title,) = [whole for key, whole in titles.items() if key.startswith(row[0])]
        shown = row[-1]
        if shown != title:  # cut: no fewer than 16 of its characters, then "…"
            assert shown.endswith("…") and title.startswith(shown[:-1]) and len(shown) - 1 >= 16, (title, shown)
    said = " ".join(result.stderr.split())
    assert said.startswith(f"left out to fit {width} columns: {', '.join(gone)};"), said
