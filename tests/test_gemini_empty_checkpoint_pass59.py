"""An empty ``$set.messages`` clears the conversation (pass 59; pass 57 kept it).

Gemini CLI builds that sync the model's history as ``{"$set": {"messages": [...]}}``
(``updateMessagesFromHistory``) write ``[]`` when a turn is cancelled before the model
answered (a third-party reader's test of Gemini CLI 0.61.0 pins ``user``, ``info "Request
cancelled."``, ``$set.messages: []``).  Gemini CLI's loaders (``loadConversationRecord`` in
``chatRecordingService.ts``) differ on it: one clears its conversation on any ``$set.messages``
list and rebuilds it from the list ("Checkpoint: clear and rebuild", ``Array.isArray``), then
adds the message lines after it; another (commit 016443b5) takes the last non-empty list
alone (``metadataMessages.length > 0 ? metadataMessages : …``), over every message line, so
an empty one clears nothing there.  agentscan follows the first (parser 26): it is the rule it
keeps for a non-empty checkpoint, whose later message lines count (the second build would drop
them).  Pass 57 followed the second for the empty list alone: the cancelled prompt stayed in
``counts`` and ``show``.  Other builds record the same cancelled turn as ``$rewindTo`` the
prompt, which takes it out too.  Messages taken out are still billed (the spend keeps every id)
and a first prompt taken out still titles the session, as a compression's does.
"""

from __future__ import annotations

from pathlib import Path

from builders import cli_json
from gemini_builders import gemini, meta, rewind, set_, tokens, user, write_chat

S = "57575757-aaaa-4bbb-8ccc-000000000001"
T0 = "2026-11-01T10:00:0"
NAME = "session-2026-11-01T10-00-57575757.jsonl"


def _info(message_id: str, ts: str, text: str) -> dict[str, object]:
    return {"id": message_id, "timestamp": ts, "type": "info", "content": text}


def _cancelled_first_turn(home: Path, last: dict[str, object]) -> None:
    write_chat(home, "proj", NAME, [
        meta(S, start=T0 + "0.000Z"),
        user("u1", T0 + "1.000Z", "cancel me"),
        _info("i1", T0 + "2.000Z", "Request cancelled."),
        last,
    ])


def test_a_cancelled_first_turn_synced_empty_leaves_no_prompt(isolated_home: Path) -> None:
    _cancelled_first_turn(isolated_home, set_(messages=[], lastUpdated=T0 + "2.000Z"))
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["counts"]["prompts"] == 0 and row["title"] == "cancel me"
    shown = cli_json("show", S)["session"]
    assert shown["prompts"] == [] and shown["counts"]["prompts"] == 0


def test_the_newest_builds_record_of_that_turn_counts_alike(isolated_home: Path) -> None:
    _cancelled_first_turn(isolated_home, rewind("u1"))
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["counts"] == {"prompts": 0, "responses": 0, "tool_calls": 0}
    assert cli_json("show", S)["session"]["prompts"] == []


def test_a_later_empty_history_clears_the_conversation_not_its_spend(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", NAME, [
        meta(S, start=T0 + "0.000Z"),
        user("u1", T0 + "1.000Z", "first"),
        gemini("g1", T0 + "2.000Z", "an answer", usage=tokens(1000, 100, cached=400, thoughts=50)),
        user("u2", T0 + "3.000Z", "second"),
        set_(messages=[], lastUpdated=T0 + "4.000Z"),
        user("u3", T0 + "5.000Z", "third"),
    ])
    shown = cli_json("show", S)["session"]
    assert [p["text"] for p in shown["prompts"]] == ["third"]
    assert shown["counts"] == {"prompts": 1, "responses": 0, "tool_calls": 0}
    assert shown["title"] == "first"
    assert shown["tokens"] == {"input": 600, "cache_read": 400, "cache_write": 0, "output": 150, "reasoning": 50,
                               "total": 1150}
    assert cli_json("tokens", "--all")["total"]["total"] == 1150
