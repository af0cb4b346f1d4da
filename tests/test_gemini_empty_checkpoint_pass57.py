"""An empty ``$set.messages`` clears nothing (pass 57).

Gemini CLI's ``updateMessagesFromHistory`` writes the model's whole history as
``{"$set": {"messages": [...]}}``; when a turn is cancelled before the model
answered, that history can be empty (a third-party reader's test of Gemini CLI
0.61.0 pins ``user``, ``info "Request cancelled."``, ``$set.messages: []``).
Gemini CLI's own loader (``loadConversationRecord`` in
``packages/core/src/services/chatRecordingService.ts``) takes the last
``$set.messages`` only when it is non-empty, else the message lines: the
prompt the terminal showed is still the session's.  agentscan cleared its
live conversation there: the session said 0 prompts, ``show`` listed none.
"""

from __future__ import annotations

from pathlib import Path

from builders import cli_json
from gemini_builders import gemini, meta, set_, tokens, user, write_chat

S = "57575757-aaaa-4bbb-8ccc-000000000001"
T0 = "2026-11-01T10:00:0"


def _info(message_id: str, ts: str, text: str) -> dict[str, object]:
    return {"id": message_id, "timestamp": ts, "type": "info", "content": text}


def test_a_cancelled_first_turn_keeps_its_prompt(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-11-01T10-00-57575757.jsonl", [
        meta(S, start=T0 + "0.000Z"),
        user("u1", T0 + "1.000Z", "cancel me"),
        _info("i1", T0 + "2.000Z", "Request cancelled."),
        set_(messages=[], lastUpdated=T0 + "2.000Z"),
    ])
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["counts"]["prompts"] == 1 and row["title"] == "cancel me"
    shown = cli_json("show", S)["session"]
    assert [p["text"] for p in shown["prompts"]] == ["cancel me"]


def test_a_later_empty_history_keeps_the_conversation_and_its_spend(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-11-01T10-00-57575757.jsonl", [
        meta(S, start=T0 + "0.000Z"),
        user("u1", T0 + "1.000Z", "first"),
        gemini("g1", T0 + "2.000Z", "an answer", usage=tokens(1000, 100, cached=400, thoughts=50)),
        user("u2", T0 + "3.000Z", "second"),
        set_(messages=[], lastUpdated=T0 + "4.000Z"),
        user("u3", T0 + "5.000Z", "third"),
    ])
    shown = cli_json("show", S)["session"]
    assert [p["text"] for p in shown["prompts"]] == ["first", "second", "third"]
    assert shown["counts"]["responses"] == 1
    assert shown["tokens"] == {"input": 600, "cache_read": 400, "cache_write": 0, "output": 150, "reasoning": 50,
                               "total": 1150}
