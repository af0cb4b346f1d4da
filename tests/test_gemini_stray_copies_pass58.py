"""Stray Gemini chats (``chats/<sessionId>.jsonl``, a subagent Gemini CLI ran with no parent id)
of one sessionId (pass 58).

* Two copies in two projects (a home copied, a project moved) were ranked as a session's copies
  are (``chatcopies.wins``: the newer counted) without a word, though the one left out may hold
  turns the other does not.  Now a copy left out that differs from the one counted (neither the
  same bytes nor the start of them: an append log copied before it grew says nothing) is a
  warning on its path naming the one counted, as Codex's copies of a thread are.
* A stray chat whose sessionId names a folder of subagent chats (``chats/<parentSessionId>/``)
  with no ``session-*`` chat is that folder's session's main chat: Gemini CLI nests a subagent
  under the id of the session that ran it, so those are its subagents (pinned).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builders import cli_json
from gemini_builders import chats_dir, gemini, meta, tokens, user, write_chat

AGENT = "dddd4444-cccc-4ddd-8eee-ffff00004444"
CHILD = "eeee5555-cccc-4ddd-8eee-ffff00005555"


def _records(*turns: tuple[str, str, int]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [meta(AGENT, start="2026-03-01T10:01:00.000Z", kind="subagent")]
    for index, (prompt, reply, spent) in enumerate(turns):
        records.append(user(f"u{index}", f"2026-03-01T10:0{index + 1}:10.000Z", prompt))
        records.append(gemini(f"g{index}", f"2026-03-01T10:0{index + 1}:20.000Z", reply, usage=tokens(spent, 10)))
    return records


def _projects(home: Path) -> None:
    for project in ("one", "two"):
        chats_dir(home, project).mkdir(parents=True, exist_ok=True)
        (chats_dir(home, project).parent / ".project_root").write_text(f"/tmp/{project}")


def _answers() -> dict[str, Any]:
    runs = [cli_json("tokens", *extra) for extra in ((), (), ("--no-cache",))]  # cold, warm, no index
    assert runs[0] == runs[1] == runs[2]
    return runs[0]


def test_a_differing_copy_left_out_is_said_naming_both(isolated_home: Path) -> None:
    _projects(isolated_home)
    older = write_chat(isolated_home, "one", f"{AGENT}.jsonl",
                       _records(("Subtask: read logs", "Found it", 1_000), ("and the rest", "Done", 2_000)),
                       mtime=1_772_000_100)
    newer = write_chat(isolated_home, "two", f"{AGENT}.jsonl",
                       _records(("Subtask: read logs", "Found it", 1_000), ("something else", "Other", 500)),
                       mtime=1_772_000_900)
    doc = _answers()
    assert [(row["key"], row["tokens"]["total"]) for row in doc["rows"]] == [(f"gemini:{AGENT}", 1_520)]
    (warning,) = doc["warnings"]
    assert warning["path"] == str(older) and str(newer) in warning["message"]
    assert "differs" in warning["message"]
    assert cli_json("show", f"gemini:{AGENT}")["session"]["path"] == str(newer)
    assert [w["path"] for w in cli_json("list", "--all")["warnings"]] == [str(older)]


def test_a_copy_that_only_grew_since_or_the_same_says_nothing(isolated_home: Path) -> None:
    _projects(isolated_home)
    first = _records(("Subtask: read logs", "Found it", 1_000))
    write_chat(isolated_home, "one", f"{AGENT}.jsonl", first, mtime=1_772_000_100)  # copied before it grew
    write_chat(isolated_home, "two", f"{AGENT}.jsonl",
               _records(("Subtask: read logs", "Found it", 1_000), ("and the rest", "Done", 2_000)),
               mtime=1_772_000_900)
    doc = _answers()
    assert doc["warnings"] == [] and doc["total"]["total"] == 3_020
    write_chat(isolated_home, "one", f"{AGENT}.jsonl", first, mtime=1_772_000_100)
    write_chat(isolated_home, "two", f"{AGENT}.jsonl", first, mtime=1_772_000_900)
    assert _answers()["warnings"] == []


def test_a_stray_chat_named_as_a_subagent_folder_is_its_main_chat(isolated_home: Path) -> None:
    _projects(isolated_home)
    main = write_chat(isolated_home, "one", f"{AGENT}.jsonl", _records(("Subtask: plan it", "Planned", 4_000)),
                      mtime=1_772_000_100)
    write_chat(isolated_home, "one", f"{AGENT}/{CHILD}.jsonl", [
        meta(CHILD, start="2026-03-01T10:03:00.000Z", kind="subagent"),
        user("c1", "2026-03-01T10:03:00.000Z", "Subtask: read logs"),
        gemini("c2", "2026-03-01T10:03:30.000Z", "Found it", usage=tokens(1_000, 10)),
    ], mtime=1_772_000_200)
    doc = _answers()
    assert doc["warnings"] == []
    assert [(row["key"], row["tokens"]["total"]) for row in doc["rows"]] == [(f"gemini:{AGENT}", 5_020)]
    (row,) = cli_json("list", "--all")["sessions"]
    assert (row["title"], row["subagents"], row["path"]) == ("Subtask: plan it", 1, str(main))
    shown = cli_json("show", f"gemini:{AGENT}")["session"]
    assert [p["text"] for p in shown["prompts"]] == ["Subtask: plan it"]
    assert [agent["id"] for agent in shown["subagents"]] == [CHILD] and "parent_missing" not in shown
