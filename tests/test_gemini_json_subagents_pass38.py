"""A subagent chat in the legacy ``.json`` format is rolled into its parent, not dropped.

Up to v0.38 Gemini CLI's chatRecordingService.ts wrote a subagent's chat as
``chats/<parentSessionId>/<subagentSessionId>.json`` (``if (this.kind === 'subagent')
{ filename = `${safeSessionId}.json`; }``): the same whole-file JSON as a session's,
with its own ``sessionId`` and ``kind: "subagent"``.  Only ``.jsonl`` ones were read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from builders import cli_json
from gemini_builders import chats_dir, gemini, meta, tokens, user, write_chat, write_legacy

PARENT = "72d14847-09f0-4562-aa8e-f7b42bf11749"
AGENT = "aaaa1111-cccc-4ddd-8eee-ffff00001111"
ID = f"gemini:{PARENT}"
MAIN_NAME = "session-2026-03-01T10-00-72d14847.json"


def _parent(home: Path) -> Path:
    (chats_dir(home, "demo").parent).mkdir(parents=True, exist_ok=True)
    (chats_dir(home, "demo").parent / ".project_root").write_text("/tmp/demo")
    return write_legacy(home, "demo", MAIN_NAME, {
        **meta(PARENT, start="2026-03-01T10:00:00.000Z"),
        "lastUpdated": "2026-03-01T10:05:00.000Z",
        "messages": [
            user("m1", "2026-03-01T10:00:00.000Z", "Investigate the bug"),
            gemini("m2", "2026-03-01T10:01:00.000Z", "Delegating", usage=tokens(1000, 100)),
        ],
    }, mtime=1_772_000_000)


def _subagent_document(agent: str = AGENT, usage: int = 50_000) -> dict:
    return {
        **meta(agent, start="2026-03-01T10:01:10.000Z", kind="subagent"),
        "lastUpdated": "2026-03-01T10:03:00.000Z",
        "messages": [
            user("s1", "2026-03-01T10:01:10.000Z", "Subtask: read logs"),
            gemini("s2", "2026-03-01T10:02:00.000Z", "Found it", usage=tokens(usage, 100)),
        ],
        "directories": ["/tmp/demo"],  # written after messages, for a subagent only
    }


def _subagent(home: Path, name: str = f"{AGENT}.json", document: dict | None = None) -> Path:
    return write_legacy(home, "demo", f"{PARENT}/{name}", document or _subagent_document(), mtime=1_772_000_100)


def _tokens_row(*extra: str) -> tuple[dict, dict]:
    doc = cli_json("tokens", *extra)
    (row,) = doc["rows"]
    return doc, row


def test_a_legacy_subagent_chat_is_counted_listed_and_shown(isolated_home: Path) -> None:
    _parent(isolated_home)
    _subagent(isolated_home)
    seen = []
    for extra in ((), (), ("--no-cache",)):  # cold, cached, uncached: one answer
        doc, row = _tokens_row(*extra)
        assert doc["warnings"] == []
        assert row["tokens"]["total"] == 51_200
        assert row["own"]["total"] == 1_100
        assert [(part["id"], part["tokens"]["total"]) for part in row["subagents"]] == [(AGENT, 50_100)]
        seen.append(doc["total"])
    assert seen[0] == seen[1] == seen[2]
    (listed,) = cli_json("list")["sessions"]
    assert listed["subagents"] == 1 and listed["tokens"]["total"] == 51_200
    session = cli_json("show", ID)["session"]
    assert [(agent["id"], agent["path"]) for agent in session["subagents"]] == [
        (AGENT, str(chats_dir(isolated_home, "demo") / PARENT / f"{AGENT}.json"))]
    # Its tool calls and conversation are read from the raw document like the parent's.
    assert session["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 0}


def test_a_legacy_subagent_with_no_parent_chat_stands_for_the_session(isolated_home: Path) -> None:
    _subagent(isolated_home)
    (listed,) = cli_json("list")["sessions"]
    assert listed["id"] == ID
    assert listed["title"] == "Subtask: read logs"
    assert listed["tokens"]["total"] == 50_100
    session = cli_json("show", ID)["session"]
    assert session["path"] == str(chats_dir(isolated_home, "demo") / PARENT)
    # ``show`` re-reads the messages from the whole document, as for a legacy session.
    assert [p["text"] for p in session["prompts"]] == ["Subtask: read logs"]
    assert [r["text"] for r in session["responses"]] == ["Found it"]


def test_a_migrated_subagent_jsonl_wins_over_its_legacy_json(isolated_home: Path) -> None:
    """Resumed, a legacy chat is copied into a ``.jsonl`` beside it; the pair is one subagent."""
    _parent(isolated_home)
    legacy = _subagent(isolated_home)
    write_chat(isolated_home, "demo", f"{PARENT}/{AGENT}.jsonl", [
        meta(AGENT, start="2026-03-01T10:01:10.000Z", kind="subagent"),
        user("s1", "2026-03-01T10:01:10.000Z", "Subtask: read logs"),
        gemini("s2", "2026-03-01T10:02:00.000Z", "Found it", usage=tokens(50_000, 100)),
        gemini("s3", "2026-03-01T10:04:00.000Z", "And more", usage=tokens(7_000, 100)),
    ], mtime=1_772_000_050)  # older than the .json: the .jsonl wins all the same
    os.utime(legacy, (1_772_000_200, 1_772_000_200))
    _, row = _tokens_row()
    assert [(part["id"], part["tokens"]["total"]) for part in row["subagents"]] == [(AGENT, 57_200)]
    assert row["tokens"]["total"] == 58_300


def test_a_broken_legacy_subagent_chat_is_a_warning_never_a_crash(isolated_home: Path) -> None:
    _parent(isolated_home)
    _subagent(isolated_home)
    directory = chats_dir(isolated_home, "demo") / PARENT
    (directory / "bbbb2222-0000-4000-8000-000000000001.json").write_text("not json at all")
    (directory / "bbbb2222-0000-4000-8000-000000000002.json").write_text("[1, 2]")
    cut = json.dumps(_subagent_document("bbbb2222-0000-4000-8000-000000000003", 9_000), indent=2)
    (directory / "bbbb2222-0000-4000-8000-000000000003.json").write_text(cut[: cut.index("Found it")])
    os.utime(directory / "bbbb2222-0000-4000-8000-000000000003.json", (1_772_000_000, 1_772_000_000))  # (still since)
    for extra in ((), ("--no-cache",)):
        doc, row = _tokens_row(*extra)
        # The readable subagent still counts; each broken file says why it counts nothing.
        assert row["tokens"]["total"] == 51_200
        by_file = {Path(w["path"]).name: w["message"] for w in doc["warnings"]}
        assert by_file["bbbb2222-0000-4000-8000-000000000001.json"].startswith("invalid JSON")
        assert by_file["bbbb2222-0000-4000-8000-000000000002.json"] == "chat file's JSON is an array, not an object; skipped"
        assert by_file["bbbb2222-0000-4000-8000-000000000003.json"] == (
            "chat file is truncated or corrupt; read the 1 complete message before the damage")
    assert cli_json("show", ID)["session"]["tokens"]["total"] == 51_200
