"""``doctor``'s STATUS of a Gemini ``projects.json`` that is not valid JSON (pass 52).

It said ``index ok`` with the "invalid JSON" warning right under it; it now says what is
wrong, as a damaged database's STATUS does (``readable`` false, the ``problem`` in --json)."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import invoke
from gemini_builders import meta, user, write_chat


def _projects(home: Path) -> Path:
    write_chat(home, "api", "session-2026-05-01T10-00-9e9e9e9e.jsonl",
               [meta("9e9e9e9e-1111-4222-8333-444444444444"), user("u1", "2026-05-01T10:00:00.000Z", "hi")])
    return home / ".gemini" / "projects.json"


def _root(path: Path) -> dict:
    document = orjson.loads(invoke("doctor", "--json").stdout)
    (gemini,) = [provider for provider in document["providers"] if provider["provider"] == "gemini"]
    (root,) = [root for root in gemini["roots"] if root["path"] == str(path)]
    return root


def test_a_projects_json_cut_short_is_not_ok(isolated_home: Path) -> None:
    registry = _projects(isolated_home)
    registry.write_text('{"projects": {"/work/api": "api",')
    root = _root(registry)
    assert root["readable"] is False and root["problem"].startswith("invalid JSON"), root
    text = invoke("doctor").stdout
    (line,) = [line for line in text.splitlines() if str(registry) in line and line.lstrip().startswith("index")]
    assert " ok " not in line and "invalid JSON" in line, line
    assert "1 session" in text  # the chats are still listed


def test_a_sound_projects_json_is_ok(isolated_home: Path) -> None:
    registry = _projects(isolated_home)
    registry.write_text('{"projects": {"/work/api": "api"}}')
    root = _root(registry)
    assert root["readable"] is True and root["problem"] is None
