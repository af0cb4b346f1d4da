"""A Gemini ``projects.json`` of a shape Gemini CLI never writes (pass 53).

An array, a ``"projects"`` that is no object, or no ``"projects"`` at all read as a registry
of no project: ``doctor`` said ``index ok`` and nothing warned, while every slug dir's cwd was
silently unknown.  It is now said damaged, as an invalid one is (pass 52), and entries that
are not a folder and its short name are counted in a warning."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from gemini_builders import meta, user, write_chat


def _projects(home: Path, body: str) -> Path:
    write_chat(home, "api", "session-2026-05-01T10-00-9e9e9e9e.jsonl",
               [meta("9e9e9e9e-1111-4222-8333-444444444444"), user("u1", "2026-05-01T10:00:00.000Z", "hi")])
    registry = home / ".gemini" / "projects.json"
    registry.write_text(body)
    return registry


def _root(path: Path) -> dict:
    document = orjson.loads(invoke("doctor", "--json").stdout)
    (gemini,) = [provider for provider in document["providers"] if provider["provider"] == "gemini"]
    (root,) = [root for root in gemini["roots"] if root["path"] == str(path)]
    return root


@pytest.mark.parametrize(("body", "fault"), [
    ('["/work/api"]', "an array, not an object"),
    ('{"projects": ["/work/api"]}', 'its "projects" is an array, not an object'),
    ('{"projects": "api"}', 'its "projects" is a string, not an object'),
    ('{"version": 2}', 'no "projects" in it'),
    ("null", "null, not an object"),
])
def test_a_registry_of_the_wrong_shape_is_damaged(isolated_home: Path, body: str, fault: str) -> None:
    registry = _projects(isolated_home, body)
    said = f"not a Gemini CLI project registry ({fault}); ignored"
    root = _root(registry)
    assert root["readable"] is False and root["problem"] == said, root
    text = invoke("doctor").stdout
    (line,) = [line for line in text.splitlines() if str(registry) in line and line.lstrip().startswith("index")]
    assert " ok " not in line and said in line, line
    listed = orjson.loads(invoke("list", "--json").stdout)
    assert len(listed["sessions"]) == 1  # the chats are still listed
    assert {"path": str(registry), "message": said} in listed["warnings"]


def test_entries_that_are_no_folder_and_name_are_counted(isolated_home: Path) -> None:
    registry = _projects(isolated_home, '{"projects": {"/work/api": "api", "/work/b": 3, "": "c"}}')
    listed = orjson.loads(invoke("list", "--json").stdout)
    assert listed["sessions"][0]["cwd"] == "/work/api"  # the sound entry still names it
    said = '2 entries of its "projects" not a folder and a short name; ignored'
    assert {"path": str(registry), "message": said} in listed["warnings"]
    assert _root(registry)["problem"] == said


def test_a_sound_or_empty_registry_is_ok(isolated_home: Path) -> None:
    registry = _projects(isolated_home, '{"projects": {}}')
    root = _root(registry)
    assert root["readable"] is True and root["problem"] is None
    assert orjson.loads(invoke("list", "--json").stdout)["warnings"] == []
