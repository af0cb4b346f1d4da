"""Pass 58: replies Claude Code took back (``providers/claude/retractions``).  An ``assistant``
record's ``supersedesUuids`` names the records it replaces (a reply aborted mid-stream, written
again; a refused partial stitched into the fallback model's reply), and a ``system`` record's
``retractedMessageUuids`` (``model_refusal_fallback``, ``api_refusal``) names a refused partial's
records.  ``show`` does not list a taken-back reply as the answer; the calls behind it were billed,
so the token sums keep them.  Shapes as the schema catalog in ``fixtures/real/claude`` (lines
19-20) and public readers of 2.1.19x transcripts write them."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "5e7ac7ed-5858-4000-8000-000000000001"


def _at(second: int) -> str:
    return f"2026-07-12T20:00:{second:02d}.000Z"


def _reply(second: int, uuid: str, text: str, request: str, used: tuple[int, int], **extra: object) -> dict:
    return claude_assistant(S, _at(second), msg_id=f"msg_{request}", request_id=request, usage=claude_usage(*used),
                            blocks=[{"type": "text", "text": text}], uuid=uuid, **extra)


def _responses() -> list[str]:
    return [response["text"] for response in cli_json("show", S)["session"]["responses"]]


def test_a_refusal_fallback_takes_back_the_partial_it_retracted(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, _at(0), "first", uuid="u0"),
        _reply(1, "a1", "a first answer", "req_1", (100, 10)),
        claude_user(S, _at(2), "second", uuid="u1"),
        _reply(3, "a2", "a refused partial", "req_2", (200, 20), parentUuid="u1"),
        {"type": "system", "subtype": "model_refusal_fallback", "sessionId": S, "uuid": "s1", "timestamp": _at(4),
         "level": "warning", "trigger": "refusal", "direction": "retry", "originalModel": "claude-fable-5",
         "fallbackModel": "claude-opus-4-8", "apiRefusalCategory": "cyber", "refusedUserMessageUuid": "u1",
         "retractedMessageUuids": ["a2"], "content": "Switched", "cwd": "/tmp"},
        _reply(5, "a3", "the answer after the fallback", "req_3", (300, 30), supersedesUuids=["a2"]),
    ])
    assert _responses() == ["a first answer", "the answer after the fallback"]
    # the refused partial was billed: the sums keep its call
    assert cli_json("tokens")["total"]["input"] == 600


def test_an_aborted_reply_superseded_by_its_rewrite_is_not_listed(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, _at(0), "go", uuid="u0"),
        # one message of two records: the second is taken back, the first stays
        _reply(1, "a1", "kept part. ", "req_1", (100, 10)),
        _reply(2, "a2", "aborted part", "req_1", (100, 12)),
        _reply(3, "a3", "written again", "req_2", (150, 15), isAbortedMidStream=True, supersedesUuids=["a2"]),
    ])
    assert _responses() == ["kept part.", "written again"]


def test_a_refusal_retracting_the_reply_being_read_leaves_no_reply(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, _at(0), "go", uuid="u0"),
        _reply(1, "a1", "a refused partial", "req_1", (100, 10)),
        {"type": "system", "subtype": "api_refusal", "sessionId": S, "uuid": "s1", "timestamp": _at(2),
         "apiRefusalCategory": "policy", "apiRefusalExplanation": "Refused for policy reasons.",
         "retractedMessageUuids": ["a1"], "content": "refusal", "cwd": "/tmp"},
    ])
    shown = cli_json("show", S)["session"]
    assert shown["responses"] == []
    assert [error["kind"] for error in shown["errors"]] == ["api_refusal"]
    assert cli_json("tokens")["total"]["input"] == 100
