"""A Cursor session's cwd, guessed from its tool calls, checked against the name of
the folder Cursor keeps it in: a transcript's project slug, a CLI chat's ``md5(cwd)``.

Without the check, the guess is the deepest folder every tool touched: a search
folder (``Grep`` in ``…/src``) or a subfolder a shell ran in passed for the project.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from agentscan.providers.cursor.cwd import CwdGuess, md5_names, slug_names
from agentscan.scan.scanner import Scanner
from cursor_builders import add_store_messages, assistant, tool, user, write_chat_store, write_transcript

S = "5e551011-0000-4000-8000-00000000c0d1"


def _row_cwd(home: Path) -> str | None:
    (row,) = Scanner(home=home, provider_names=["cursor"]).list_sessions()
    return row.cwd


def test_a_search_folder_inside_the_project_gives_way_to_the_folder_the_slug_names(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-me-weather-app", S, [
        user("find the cache"),
        assistant(None, tool("Grep", pattern="cache", path="/home/me/weather-app/src"),
                  tool("Glob", glob_pattern="*.py", target_directory="/home/me/weather-app/src/api")),
    ])
    assert _row_cwd(isolated_home) == "/home/me/weather-app"


def test_a_shell_s_working_directory_below_the_project_gives_way_too(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-me-weather-app", S, [
        user("run the tests"), assistant(None, tool("Shell", command="pytest", working_directory="/home/me/weather-app/tests")),
    ])
    assert _row_cwd(isolated_home) == "/home/me/weather-app"


@pytest.mark.parametrize("touched", [
    {"path": "/etc/hosts"},  # Read: the only folder touched is outside the workspace
    {"path": "/src", "pattern": "x"},  # a search folder
    {"working_directory": "/tmp/build", "command": "make"},
])
def test_with_no_folder_of_the_slug_s_name_the_cwd_is_unknown_not_invented(isolated_home: Path, touched: dict) -> None:
    name = "Shell" if "command" in touched else "Grep" if "pattern" in touched else "Read"
    write_transcript(isolated_home, "Users-me-proj", S, [user("look"), assistant(None, tool(name, **touched))])
    assert _row_cwd(isolated_home) is None


def test_an_empty_window_s_session_keeps_the_tools_folder(isolated_home: Path) -> None:
    write_transcript(isolated_home, "empty-window", S, [
        user("look"), assistant(None, tool("Read", path="/empty/window/notes.md")),
    ])
    assert _row_cwd(isolated_home) == "/empty/window"  # no workspace: the slug names none


def test_a_cli_chat_s_cwd_is_the_folder_whose_md5_names_its_directory(isolated_home: Path) -> None:
    directory = write_chat_store(isolated_home, "/home/me/api", S, store={"agentId": S, "name": "Store chat"})
    add_store_messages(directory, [
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\nsearch\n</user_query>"}]},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "t1", "toolName": "Grep",
                                           "args": {"pattern": "x", "path": "/home/me/api/src/handlers"}}]},
    ])
    assert _row_cwd(isolated_home) == "/home/me/api"


@pytest.mark.parametrize(("slug", "touched", "expected"), [
    ("Users-me-proj", "/Users/me/proj/src/a.py", "/Users/me/proj"),
    ("home-me-my-proj", "/home/me/my.proj/lib/x.py", "/home/me/my.proj"),  # "." is written "-" too
    ("d-1-yuyu-proj-cursor-history", r"D:\1\yuyu\proj\cursor-history\src\a.py", r"D:\1\yuyu\proj\cursor-history"),
    # a workspace reached another way (WSL, a remote): the slug ends with the path's
    ("wsl-ubuntu-home-me-proj", "/home/me/proj/src/a.py", "/home/me/proj"),
])
def test_slugs_are_compared_as_cursor_writes_them(slug: str, touched: str, expected: str) -> None:
    guess = CwdGuess(slug_names(slug))
    guess.add({"path": touched}, "Read")
    assert guess.best() == expected


@pytest.mark.parametrize(("slug", "touched"), [
    ("Users-me-proj", "/proj/a.py"),  # "proj": too short an ending to tell
    ("home-me-my-app", "/my-app/src/x.py"),  # one folder, though its name has a dash
])
def test_a_name_ending_like_one_folder_alone_names_nothing(slug: str, touched: str) -> None:
    guess = CwdGuess(slug_names(slug))
    guess.add({"path": touched}, "Read")
    assert guess.best() is None


def test_an_exact_name_beats_an_ending_met_first() -> None:
    guess = CwdGuess(slug_names("home-me-proj"))
    guess.add({"path": "/me/proj/x.py"}, "Read")  # "me-proj" ends the name
    guess.add({"path": "/home/me/proj/a.py"}, "Read")
    assert guess.best() == "/home/me/proj"


def test_the_workspace_is_found_after_many_folders_outside_it() -> None:
    # Tested as each folder comes, not from a bounded list kept for the end.
    guess = CwdGuess(slug_names("home-me-proj"))
    for n in range(500):
        guess.add({"path": f"/usr/lib/python3/site-packages/pkg{n}/mod.py"}, "Read")
    guess.add({"path": "/home/me/proj/src/a.py"}, "Read")
    assert guess.best() == "/home/me/proj"


def test_a_name_no_folder_gives_leaves_the_cwd_unknown() -> None:
    touched = [{"path": "/w/proj/src/a.py"}, {"path": "/w/proj/src/b.py"}]
    for names, expected in ((md5_names("0" * 32), None), (md5_names(hashlib.md5(b"/w/proj").hexdigest()), "/w/proj"),
                            (None, "/w/proj/src")):  # no folder name to check against: the deepest common folder
        guess = CwdGuess(names)
        for tool_input in touched:
            guess.add(tool_input, "Read")
        assert guess.best() == expected
