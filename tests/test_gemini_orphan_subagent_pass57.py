"""A subagent chat Gemini CLI wrote with no parent session id is counted (pass 57).

google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts``
(``initialize``): a subagent's chat is nested under ``chats/<parentSessionId>/`` only
``if (this.kind === 'subagent' && this.context.parentSessionId)``; its file name is
``${safeSessionId}.jsonl`` either way (``.json`` up to v0.38).  With no parent id the file
lands straight in ``chats/``, where only ``session-*`` names were read: its tokens were
skipped without a word.  No parent is guessed: it is a session of its own.
"""

from __future__ import annotations

from pathlib import Path

from builders import cli_json
from gemini_builders import chats_dir, gemini, meta, tokens, user, write_chat, write_legacy

AGENT = "bbbb2222-cccc-4ddd-8eee-ffff00002222"
LEGACY = "cccc3333-cccc-4ddd-8eee-ffff00003333"


def _project(home: Path) -> None:
    chats_dir(home, "demo").mkdir(parents=True, exist_ok=True)
    (chats_dir(home, "demo").parent / ".project_root").write_text("/tmp/demo")


def test_a_subagent_chat_with_no_parent_id_is_a_session_of_its_own(isolated_home: Path) -> None:
    _project(isolated_home)
    path = write_chat(isolated_home, "demo", f"{AGENT}.jsonl", [
        meta(AGENT, start="2026-03-01T10:01:10.000Z", kind="subagent"),
        user("s1", "2026-03-01T10:01:10.000Z", "Subtask: read logs"),
        gemini("s2", "2026-03-01T10:02:00.000Z", "Found it", usage=tokens(50_000, 100)),
    ], mtime=1_772_000_100)
    totals = []
    for extra in ((), (), ("--no-cache",)):  # cold, cached, uncached: one answer
        doc = cli_json("tokens", *extra)
        assert doc["warnings"] == []
        (row,) = doc["rows"]
        assert row["key"] == f"gemini:{AGENT}" and row["tokens"]["total"] == 50_100
        totals.append(doc["total"])
    assert totals[0] == totals[1] == totals[2]
    (listed,) = cli_json("list")["sessions"]
    assert (listed["id"], listed["title"], listed["tokens"]["total"]) == (f"gemini:{AGENT}", "Subtask: read logs", 50_100)
    session = cli_json("show", f"gemini:{AGENT}")["session"]
    assert session["path"] == str(path)
    assert [r["text"] for r in session["responses"]] == ["Found it"]


def test_a_legacy_one_too_and_a_file_that_is_no_chat_says_nothing(isolated_home: Path) -> None:
    _project(isolated_home)
    write_legacy(isolated_home, "demo", f"{LEGACY}.json", {
        **meta(LEGACY, start="2025-09-01T10:01:10.000Z", kind="subagent"),
        "lastUpdated": "2025-09-01T10:03:00.000Z",
        "messages": [
            user("s1", "2025-09-01T10:01:10.000Z", "Subtask: list files"),
            gemini("s2", "2025-09-01T10:02:00.000Z", "Done", usage=tokens(2_000, 50)),
        ],
    }, mtime=1_757_000_000)
    (chats_dir(isolated_home, "demo") / "notes.json").write_text('{"not": "a chat"}')
    doc = cli_json("tokens")
    assert doc["warnings"] == []
    assert [(row["key"], row["tokens"]["total"]) for row in doc["rows"]] == [(f"gemini:{LEGACY}", 2_050)]
