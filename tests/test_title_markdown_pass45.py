"""A title written in Markdown (``## Task: **read** the files``) is shown without its
heading marks and bold stars in the tables and on ``show``'s card; ``--json`` keeps it
as recorded, and ``--grep`` finds either form."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.cli.term import title_text
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, ran

SESSION = "5e55a0a0-0000-4000-8000-000000000045"
PROMPT = "## Task: **read** the files\n\n### Steps\n1. fix #123 in C# code"
SHOWN = "Task: read the files Steps 1. fix #123 in C# code"


@pytest.mark.parametrize(("recorded", "shown"), [
    (PROMPT, SHOWN),
    ("# Title\n\nbody **x** and **y**", "Title body x and y"),
    ("fix #123 in C# code", "fix #123 in C# code"),  # no heading: '#' with no space after
    ("###not a heading", "###not a heading"),
    ("a ** b ** c", "a ** b ** c"),  # stars around spaces mark nothing
    ("2 ** 10 is **1024**", "2 ** 10 is 1024"),
    ("#", ""),
    (None, ""),
    # Stars inside words or paths and one '#' further in are no Markdown: the words stay.
    ("compute 2**10 and 3**4", "compute 2**10 and 3**4"),
    ("Delete build/**/cache and dist/**/cache", "Delete build/**/cache and dist/**/cache"),
    ("use the # key", "use the # key"),
])
def test_title_text_drops_headings_and_bold_only(recorded: str | None, shown: str) -> None:
    assert title_text(recorded) == shown


def _markdown_session(home: Path) -> None:
    claude_session_file(home, SESSION, [
        claude_user(SESSION, "2026-11-20T10:00:00.000Z", PROMPT),
        claude_assistant(SESSION, "2026-11-20T10:00:05.000Z", msg_id="msg_1", request_id="req_1",
                         usage=claude_usage(input=10, output=5)),
    ])


def test_tables_and_card_show_the_title_without_markdown(isolated_home: Path) -> None:
    _markdown_session(isolated_home)
    listed, _ = ran("list")
    assert SHOWN in listed and "##" not in listed and "**" not in listed
    tokens, _ = ran("tokens")
    assert SHOWN in tokens and "**" not in tokens
    card, _ = ran("show", SESSION[:8])
    (title_line,) = [line for line in card.splitlines() if line.strip().startswith("title")]
    assert title_line.split(None, 1)[1] == SHOWN


def test_json_and_grep_keep_the_title_as_recorded(isolated_home: Path) -> None:
    _markdown_session(isolated_home)
    (row,) = cli_json("list")["sessions"]
    assert row["title"] == " ".join(PROMPT.split())
    assert [s["id"] for s in cli_json("list", "--grep", "**read**")["sessions"]] == [row["id"]]


def test_grep_finds_a_title_as_the_table_prints_it(isolated_home: Path) -> None:
    _markdown_session(isolated_home)
    (row,) = cli_json("list")["sessions"]
    assert [s["id"] for s in cli_json("list", "--grep", "task: read the")["sessions"]] == [row["id"]]
    assert cli_json("list", "--grep", "task: read the files steps 2")["sessions"] == []
