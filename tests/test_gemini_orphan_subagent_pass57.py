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


MAIN = "eeee5555-cccc-4ddd-8eee-ffff00005555"


def _main_chat(home: Path) -> Path:
    return write_chat(home, "demo", "session-2026-03-01T10-00-eeee5555.jsonl", [
        meta(MAIN, start="2026-03-01T10:00:00.000Z"),
        user("m1", "2026-03-01T10:00:00.000Z", "Fix the parser"),
        gemini("m2", "2026-03-01T10:05:00.000Z", "Fixed", usage=tokens(80_000, 900)),
    ], mtime=1_772_000_000)


def _one_answer(*args: str) -> list[dict]:
    """``tokens --json`` cold, cached and uncached: asserted equal, the first returned."""
    docs = [cli_json("tokens", *args, *extra) for extra in ((), (), ("--no-cache",))]
    assert docs[0] == docs[1] == docs[2]
    return docs[0]


def test_an_orphan_with_a_session_chats_id_never_replaces_that_session(isolated_home: Path) -> None:
    # Named without ``session-``, so met first in ``chats/``, and newer: ranked against the
    # session chat as a migrated copy is, it replaced the whole session with a subagent's chat.
    _project(isolated_home)
    main = _main_chat(isolated_home)
    orphan = write_chat(isolated_home, "demo", f"{MAIN}.jsonl", [
        meta(MAIN, start="2026-03-01T10:01:00.000Z", kind="subagent"),
        user("s1", "2026-03-01T10:01:00.000Z", "Subtask: read logs"),
        gemini("s2", "2026-03-01T10:02:00.000Z", "Found it", usage=tokens(3_000, 40)),
    ], mtime=1_772_000_500)
    doc = _one_answer()
    assert [(row["key"], row["tokens"]["total"]) for row in doc["rows"]] == [(f"gemini:{MAIN}", 80_900)]
    (warning,) = doc["warnings"]
    assert warning["path"] == str(orphan) and str(main) in warning["message"]
    assert "skipped" in warning["message"]
    assert cli_json("show", f"gemini:{MAIN}")["session"]["path"] == str(main)


def test_an_orphan_that_is_also_nested_counts_once(isolated_home: Path) -> None:
    # The orphan's name sorts before its parent's dir: met first, it is still known for a copy.
    _project(isolated_home)
    _main_chat(isolated_home)
    agent = "0aaa1111-cccc-4ddd-8eee-ffff00001111"
    records = [
        meta(agent, start="2026-03-01T10:01:00.000Z", kind="subagent"),
        user("s1", "2026-03-01T10:01:00.000Z", "Subtask: read logs"),
        gemini("s2", "2026-03-01T10:02:00.000Z", "Found it", usage=tokens(3_000, 40)),
    ]
    nested = write_chat(isolated_home, "demo", f"{MAIN}/{agent}.jsonl", records, mtime=1_772_000_100)
    orphan = write_chat(isolated_home, "demo", f"{agent}.jsonl", records, mtime=1_772_000_100)
    doc = _one_answer()
    assert [(row["key"], row["tokens"]["total"]) for row in doc["rows"]] == [(f"gemini:{MAIN}", 83_940)]
    assert doc["total"]["total"] == 83_940
    (warning,) = doc["warnings"]
    assert warning["path"] == str(orphan) and str(nested) in warning["message"]
