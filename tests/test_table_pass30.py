"""A path column cut from its start gives the columns its cut left unused to the title."""

from __future__ import annotations

from agentscan.cli.table import render
from agentscan.cli.tableparts import Column
from agentscan.cli.term import Terminal, width_of

COLUMNS = [Column("ID"), Column("CWD", flex=True, min_width=10, keep_end=True), Column("TITLE", flex=True, min_width=5)]
ROWS = [["a1", "/home/dev/src/project-39", "fix the parser in the tokenizer module today"],
        ["b2", "/home/dev/src/project-38", "add a test for the empty transcript case please"]]


def test_a_path_cut_at_a_separator_leaves_no_blanks_before_the_title() -> None:
    # 40 columns: CWD gets 17, and "…/src/project-39" (cut where a folder starts) takes 16.
    lines, _ = render(COLUMNS, ROWS, Terminal(tty=True, width=40, color=False), fit_paths=True)
    assert lines[1].startswith("a1  …/src/project-39  fix the parser")
    assert [width_of(line) for line in lines[1:]] == [40, 40]  # the column saved went to the title
    assert lines[0].index("TITLE") == lines[1].index("fix")


def test_a_pipe_is_laid_out_as_before() -> None:
    lines, _ = render(COLUMNS, ROWS, Terminal(tty=False, width=40, color=False), fit_paths=True)
    assert lines[1] == "a1  /home/dev/src/project-39  fix the parser in the tokenizer module today"


def test_a_path_column_is_widened_to_show_its_last_folder_whole_while_the_title_can_give() -> None:
    rows = [["a1", "/home/demo/src/weather-app", "Upgrade to Python 3.13 and fix what breaks"],
            ["b2", "/home/demo/src/notes", "Rename tags to labels"]]
    columns = [Column("ID"), Column("CWD", flex=True, min_width=10, keep_end=True),
               Column("TITLE", flex=True, min_width=12, weight=2)]
    term = Terminal(tty=True, width=34, color=False)
    before, _ = render(columns, rows, term)
    assert "…ather-app" in before[1]  # cut inside the project's name: it reads as another project
    lines, _ = render(columns, rows, term, fit_paths=True)
    assert "…/weather-app" in lines[1] and width_of(lines[1]) <= 34
    assert width_of(lines[1].split("weather-app  ")[1]) >= 12  # the title kept its least width
