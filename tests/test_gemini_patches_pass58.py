"""A Gemini chat's ``$patch`` lines are read as Gemini CLI's own loader reads them (pass 58).

Newer Gemini CLI builds sync a JSONL chat with the model's history by appending
``{"$patch": {"updates": [{"id", "content"?, "toolCalls"?: [{"id", "result"}]}], "removeIds": [...],
"orderIds": [...]}}`` (``ChatRecordingService.updateMessagesFromHistory``), or a single
``{"$patch": {"id", ...}}``; its loader (``createJsonlRecordAccumulator`` in
``packages/core/src/services/chatRecordingService.ts``) applies them to the live messages: an
update replaces a message's ``content`` and its tool calls' ``result``, ``removeIds`` takes
messages out, ``orderIds`` moves the messages it names after the others.  agentscan skipped
them: ``show`` displayed a masked tool output in full and the reply before its patch, and a
removed message still counted.  A patch never changes ``tokens``: the spend is the last copy of
every message id (a removed one was billed all the same).  The chats are shaped like upstream's
writer's lines; no real patched chat is public.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builders import cli_json
from gemini_builders import call, gemini, meta, rewind, tokens, user, write_chat

S = "58585858-aaaa-4bbb-8ccc-000000000001"
T = "2026-11-01T10:00:"
NAME = "session-2026-11-01T10-00-58585858.jsonl"
G1, G2 = tokens(1000, 100, cached=400, thoughts=20), tokens(2000, 200, cached=1500, tool=30)


def _spent(*usages: dict[str, int]) -> dict[str, int]:
    total = {key: sum(u[key] for u in usages) for key in usages[0]}
    return {"input": total["input"] - total["cached"] + total["tool"], "cache_read": total["cached"],
            "cache_write": 0, "output": total["output"] + total["thoughts"], "reasoning": total["thoughts"],
            "total": total["total"]}


def _conversation() -> list[dict[str, Any]]:
    failed = call("t1", "run_shell_command", {"command": "make"}, status="error")
    failed["result"] = [{"functionResponse": {"id": "t1", "name": "run_shell_command",
                                              "response": {"error": "a long build log"}}}]
    return [
        meta(S, start=T + "00.000Z"),
        user("u1", T + "01.000Z", "first"),
        gemini("g1", T + "02.000Z", "an answer", calls=[failed]),
        gemini("g1", T + "02.000Z", "an answer", usage=G1, calls=[failed]),  # its tokens arrive
        user("u2", T + "03.000Z", "second"),
        gemini("g2", T + "04.000Z", "another answer", usage=G2),
    ]


def _patch(**payload: Any) -> dict[str, Any]:
    return {"$patch": payload}


def _masked(call_id: str) -> list[dict[str, Any]]:
    return [{"functionResponse": {"id": call_id, "name": "run_shell_command", "response": {"error": "[masked]"}}}]


def _shown(home: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
    write_chat(home, "proj", NAME, records)
    runs = [cli_json("show", S, *args)["session"] for args in ((), (), ("--no-cache",))]  # cold, warm, no index
    assert runs[0] == runs[1] == runs[2]
    rows = [cli_json("list", "--all", *args)["sessions"] for args in ((), ("--no-cache",))]
    assert rows[0] == rows[1]
    assert rows[0][0]["counts"] == runs[0]["counts"] and rows[0][0]["tokens"] == runs[0]["tokens"]
    assert rows[0][0]["title"] == runs[0]["title"]
    return runs[0]


def test_an_update_replaces_content_and_a_tool_result_never_tokens(isolated_home: Path) -> None:
    shown = _shown(isolated_home, [*_conversation(), _patch(updates=[
        {"id": "g1", "content": [{"text": "a shorter answer"}], "toolCalls": [{"id": "t1", "result": _masked("t1")}]},
        {"id": "g2", "content": ""},  # its reply text gone: no response
    ])])
    assert [r["text"] for r in shown["responses"]] == ["a shorter answer"]
    assert shown["counts"] == {"prompts": 2, "responses": 1, "tool_calls": 1}
    assert [t["error"] for t in shown["tools"]] == ["[masked]"]
    assert shown["tokens"] == _spent(G1, G2)
    assert cli_json("tokens", S)["total"] == _spent(G1, G2)


def test_a_single_update_and_patches_in_turn(isolated_home: Path) -> None:
    shown = _shown(isolated_home, [*_conversation(),
                                   _patch(id="u2", content=[{"text": "second, edited"}]),
                                   _patch(updates=[{"id": "g1", "toolCalls": [{"id": "t1", "result": _masked("t1")}]}]),
                                   _patch(id="g1", content="patched twice")])
    assert [p["text"] for p in shown["prompts"]] == ["first", "second, edited"]
    # the second content patch keeps the tool result the first patch of g1 brought
    assert [r["text"] for r in shown["responses"]] == ["patched twice", "another answer"]
    assert [t["error"] for t in shown["tools"]] == ["[masked]"]


def test_removed_messages_leave_the_counts_not_the_spend(isolated_home: Path) -> None:
    shown = _shown(isolated_home, [*_conversation(), _patch(removeIds=["u1", "g1"])])
    assert [p["text"] for p in shown["prompts"]] == ["second"]
    assert shown["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 0}
    assert shown["title"] == "first"  # typed all the same (as a prompt compression took out)
    assert shown["tokens"] == _spent(G1, G2) and shown["rewound_messages"] == 0


def test_order_ids_move_the_named_messages_after_the_others(isolated_home: Path) -> None:
    shown = _shown(isolated_home, [*_conversation(), _patch(orderIds=["u1", "g1", "u1"])])
    assert [p["text"] for p in shown["prompts"]] == ["second", "first"]
    assert [r["text"] for r in shown["responses"]] == ["another answer", "an answer"]


def test_a_patch_of_a_message_not_live_is_passed_over_and_a_new_copy_wins(isolated_home: Path) -> None:
    shown = _shown(isolated_home, [*_conversation(), rewind("u2"), _patch(id="g2", content="ghost"),
                                   _patch(id="g1", content="patched"),
                                   gemini("g1", T + "02.000Z", "written again", usage=G1),
                                   _patch(id="u1", content=[{"text": "first, patched"}])])
    assert [r["text"] for r in shown["responses"]] == ["written again"]
    assert [p["text"] for p in shown["prompts"]] == ["first, patched"]
    assert shown["tokens"] == _spent(G1, G2)
