"""A Cursor call's ``paths`` name a Glob's (or LS's) ``target_directory`` and a ``paths``
list, as they name ``path``/``file_path``/``target_file`` (``transcript.tool_summary``)."""

from __future__ import annotations

from agentscan.providers.cursor.transcript import tool_summary


def test_a_glob_names_its_target_directory() -> None:
    assert tool_summary({"glob_pattern": "**/*.ts", "target_directory": "/src"}) == ("**/*.ts", ("/src",))


def test_a_paths_list_is_named_too() -> None:
    summary, paths = tool_summary({"paths": ["/a.py", "/b.py", 3, ""], "target_directory": "/src"})
    assert paths == ("/src", "/a.py", "/b.py")
