"""Leftovers of pass 53.

* ``show`` named a Claude subagent by the model most of its messages used, a sidechain
  replay of a parent's message (``usage`` rule 4: no call of its own) among them: a run
  with one replay and one call of its own was shown on the parent's model while ``tokens
  --by model`` put its tokens under the run's own.
* With the Cursor state DB corrupt, an Agent CLI chat known by its ``store.db`` alone (its
  store records no tokens on any run) was named among the sessions that "could not be
  read", and the warning said every chat's tokens were not known: only those the DB holds are.
* While the Cursor state DB was locked (Cursor writing), the IDE chats only it holds left
  ``list`` with nothing to say so: its warning now says they are left out, and how many were
  listed from it on the last run that read it.
* A legacy Gemini chat cut before its first usage (caught half rewritten: every message
  after the damage is lost) was a session that "recorded no usage" while its warning said
  the file was cut: its usage is not known, and ``tokens`` names it among the sessions that
  could not be read.  One whose salvage kept some usage counts it, as before.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from agentscan.bounds import Bounds
from bad_corpus import LiveWriter
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke, write_jsonl
from claude_events import cli_json_at, forward_and_from_end
from gemini_builders import legacy_chat
from cursor_builders import break_schema, bubble, composer_data, make_state_db, state_db_path, write_chat_store

# -- a subagent's model: a replay of a parent's message is none of its own ----------

SESSION = "e5300000-0000-4000-8000-000000000005"
AGENT = "ab53cd34"
PARENT_MODEL, OWN_MODEL = "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"


def _replaying_run(home: Path) -> None:
    task = {"type": "tool_use", "id": "toolu_1", "name": "Task",
            "input": {"subagent_type": "general-purpose", "description": "dig", "prompt": "dig in"}}
    result = claude_user(SESSION, "2026-10-01T10:00:09.000Z", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "dug"}],
                         uuid="u2", parentUuid="a1")
    result["toolUseResult"] = {"agentId": AGENT, "status": "completed"}
    claude_session_file(home, SESSION, [
        claude_user(SESSION, "2026-10-01T10:00:00.000Z", "delegate it", uuid="u1"),
        claude_assistant(SESSION, "2026-10-01T10:00:01.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10),
                         uuid="a1", parentUuid="u1", model=PARENT_MODEL, blocks=[task]),
        result,
        claude_assistant(SESSION, "2026-10-01T10:00:10.000Z", msg_id="m2", request_id="r2", usage=claude_usage(200, 20),
                         uuid="a2", parentUuid="u2", model=PARENT_MODEL)])
    write_jsonl(home / ".claude/projects/-home-dev-project" / f"agent-{AGENT}.jsonl", [
        claude_user(SESSION, "2026-10-01T10:00:02.000Z", "dig in", sidechain=True, agentId=AGENT, uuid="s1"),
        # The parent's message m1 replayed under another request: no call of the run's.
        claude_assistant(SESSION, "2026-10-01T10:00:03.000Z", msg_id="m1", request_id="rX", usage=claude_usage(100, 10),
                         sidechain=True, agentId=AGENT, uuid="s2", model=PARENT_MODEL),
        claude_assistant(SESSION, "2026-10-01T10:00:04.000Z", msg_id="sm1", request_id="sr1", usage=claude_usage(300, 30),
                         sidechain=True, agentId=AGENT, uuid="s3", model=OWN_MODEL)])


def test_a_subagent_s_replay_of_a_parent_message_does_not_name_its_model(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _replaying_run(tmp_path / "home")
    [sub] = cli_json_at(tmp_path, monkeypatch, "show", SESSION[:8])["session"]["subagents"]
    assert (sub["id"], sub["model"]) == (AGENT, OWN_MODEL)
    rows = {row["key"]: row for row in cli_json_at(tmp_path, monkeypatch, "tokens", "--by", "model")["rows"]}
    assert rows[OWN_MODEL]["tokens"]["total"] == 330  # the run's tokens, on the model show names


def test_a_subagent_s_replay_names_no_model_from_a_huge_transcript_s_end_either(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider as claude_provider

    home = tmp_path / "home"
    _replaying_run(home)
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    forward, tail, _ = forward_and_from_end(home, Bounds())
    assert [(sub.id, sub.model) for sub in forward.subagents] == [(AGENT, OWN_MODEL)]
    assert tail is not None and tail.subagents == forward.subagents


# -- a corrupt Cursor DB: an Agent CLI store chat's usage is no less known -----------

CLI_CHAT = "a5300000-0000-4000-8000-0000000000c3"
IDE_CHAT = "a5300000-0000-4000-8000-0000000000a1"


def test_a_corrupt_cursor_db_leaves_a_cli_store_chat_recorded_no_usage(isolated_home: Path) -> None:
    db = make_state_db(state_db_path(isolated_home), composers=[composer_data(IDE_CHAT, name="ide chat", bubbles=["u"])],
                       bubbles={IDE_CHAT: [bubble("u", 1, "hello", tokens=(10, 20))]})
    write_chat_store(isolated_home, "/work/cli", CLI_CHAT, meta={"name": "cli chat", "cwd": "/work/cli"},
                     store={"name": "cli chat"})
    break_schema(db)
    result = invoke("tokens", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert f"cursor:{CLI_CHAT}" not in json.dumps(doc["unreadable"]), doc["unreadable"]
    assert "the tokens it holds not known" in json.dumps(doc["warnings"])
    assert "their tokens not known" not in json.dumps(doc["warnings"])
    listed = json.loads(invoke("list", "--json").stdout)["sessions"]
    [cli] = [row for row in listed if row["id"] == f"cursor:{CLI_CHAT}"]
    assert cli["tokens"] is None and not cli.get("tokens_unknown")
    text = invoke("tokens")
    # (pass 60: the only session, said once: "recorded none", its ``show`` named whole)
    said = " ".join((text.stdout + text.stderr).split())
    assert "recorded none (its tokens are not recorded" in said and f"show cursor:{CLI_CHAT}` says)" in said, said


# -- a locked Cursor DB: the chats only it holds are said to be left out ------------

ONLY_IN_DB = ("a5300000-0000-4000-8000-0000000000e1", "a5300000-0000-4000-8000-0000000000e2")


@pytest.mark.usefixtures("short_sqlite_wait")
def test_a_locked_cursor_db_says_the_chats_only_it_holds_are_left_out(isolated_home: Path) -> None:
    db = make_state_db(state_db_path(isolated_home),
                       composers=[composer_data(chat, name=f"ide chat {n}", bubbles=["u"]) for n, chat in enumerate(ONLY_IN_DB)],
                       bubbles={chat: [bubble("u", 1, "hello", tokens=(10, 20))] for chat in ONLY_IN_DB})
    write_chat_store(isolated_home, "/work/cli", CLI_CHAT, meta={"name": "cli chat", "cwd": "/work/cli"},
                     store={"name": "cli chat"})
    read = json.loads(invoke("list", "--json").stdout)
    assert {row["id"] for row in read["sessions"]} >= {f"cursor:{chat}" for chat in ONLY_IN_DB}
    assert "left out" not in json.dumps(read["warnings"])
    with closing(sqlite3.connect(db)) as conn:  # Cursor writes (the census changes), then holds it
        conn.execute("INSERT INTO ItemTable VALUES ('workbench.ui.state', 'x')")
        conn.commit()
    with LiveWriter("exclusive", db):
        locked = invoke("list")
    assert locked.exit_code == 0, locked.stderr
    assert not any(chat in locked.stdout for chat in ONLY_IN_DB)  # no row made up for them
    said = " ".join(locked.stderr.split())
    assert ("Cursor state DB not used (database is locked by Cursor or another program); chats are listed "
            "without it, those only it holds left out (2 were listed from it on the last run that read it), "
            "the tokens it holds not known but for sessions unchanged since its last read (try again in a moment, or close Cursor)") in said, said
    # Read again, they are back, and nothing is said.
    again = invoke("list")
    assert all(chat in again.stdout for chat in ONLY_IN_DB) and "left out" not in again.stderr


# -- a legacy Gemini chat cut before any usage: not known, not "recorded no usage" ----

CUT_EARLY = "b5300000-0000-4000-8000-000000000002"
CUT_LATE = "b5300000-0000-4000-8000-000000000001"


def test_a_legacy_gemini_chat_cut_before_any_usage_is_not_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    early = legacy_chat(home / "a", CUT_EARLY)
    data = early.read_bytes()
    early.write_bytes(data[:data.index(b"renamed")])  # inside the first reply: no usage kept
    late = legacy_chat(home / "b", CUT_LATE, cut_mid_reply=True)  # its first reply's usage kept
    (home / ".gemini/tmp/proj/chats").mkdir(parents=True)
    early.rename(home / ".gemini/tmp/proj/chats" / "session-2025-09-01T08-00-aaaaaaaa.json")
    late.rename(home / ".gemini/tmp/proj/chats" / "session-2025-09-01T08-00-bbbbbbbb.json")
    for _ in range(2):  # cold, then with the rows (and their warnings) from the index
        doc = cli_json_at(tmp_path, monkeypatch, "tokens")
        assert [row["key"] for row in doc["rows"]] == [f"gemini:{CUT_LATE}"]
        assert doc["rows"][0]["tokens"]["total"] == 990  # what the salvage recovered counts
        assert [item["id"] for item in doc["unreadable"]] == [f"gemini:{CUT_EARLY}"]
        listed = {row["id"]: row for row in cli_json_at(tmp_path, monkeypatch, "list")["sessions"]}
        assert listed[f"gemini:{CUT_EARLY}"]["tokens_unknown"] is True
        assert not listed[f"gemini:{CUT_LATE}"].get("tokens_unknown")
