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
from typer.testing import CliRunner

from agentscan.bounds import NewestKept
from agentscan.cli import app

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


def test_the_card_says_how_many_replies_were_taken_back(isolated_home: Path) -> None:
    """``show`` counts the replies it does not list: one taken back after it was listed and one
    taken back while it was read (``retracted_replies``, the card's ``replies`` line)."""
    claude_session_file(isolated_home, S, [
        claude_user(S, _at(0), "first", uuid="u0"),
        _reply(1, "a1", "a refused answer", "req_1", (100, 10)),
        claude_user(S, _at(2), "second", uuid="u1", parentUuid="a1"),
        {"type": "system", "subtype": "api_refusal", "sessionId": S, "uuid": "s1", "timestamp": _at(3),
         "retractedMessageUuids": ["a1"], "content": "refused", "cwd": "/tmp"},
        _reply(4, "a2", "a refused partial", "req_2", (200, 20), parentUuid="u1"),
        _reply(5, "a3", "the answer", "req_3", (300, 30), supersedesUuids=["a2"]),
    ])
    shown = cli_json("show", S)["session"]
    assert [response["text"] for response in shown["responses"]] == ["the answer"]
    assert shown["retracted_replies"] == 2 and shown["counts"]["responses"] == 3
    assert "  replies  2 taken back (their tokens still count)" in CliRunner().invoke(app, ["show", S]).output.splitlines()


def test_a_retraction_before_a_rewind_leaves_the_abandoned_branch_out(isolated_home: Path) -> None:
    """A reply taken back keeps its place in the order a rewind counts back through: an edited
    prompt after it takes back the abandoned branch's reply, not one too few."""
    claude_session_file(isolated_home, S, [
        claude_user(S, _at(0), "one", uuid="u1"),
        _reply(1, "a1", "answer one", "r1", (10, 1), parentUuid="u1"),
        claude_user(S, _at(2), "two", uuid="u2", parentUuid="a1"),
        {"type": "system", "subtype": "api_refusal", "sessionId": S, "uuid": "s1", "parentUuid": "u2",
         "timestamp": _at(3), "retractedMessageUuids": ["a1"], "content": "refusal", "cwd": "/tmp"},
        _reply(4, "a2", "answer two (abandoned branch)", "r2", (10, 1), parentUuid="u2"),
        claude_user(S, _at(5), "two, edited", uuid="u2b", parentUuid="a1"),
        _reply(6, "a3", "answer two edited", "r3", (10, 1), parentUuid="u2b"),
    ])
    shown = cli_json("show", S)["session"]
    assert [response["text"] for response in shown["responses"]] == ["answer two edited"]
    assert [prompt["text"] for prompt in shown["prompts"]] == ["one", "two, edited"]
    assert (shown["rewound_messages"], shown["retracted_replies"]) == (2, 1)


def test_a_reply_taken_back_after_a_mark_is_not_taken_back_again() -> None:
    """``NewestKept``: an item taken back (``revise``) keeps its place; a rewind to a mark
    before it forgets it and what came after, never an item before the mark."""
    kept: NewestKept[int] = NewestKept(3)
    kept.add(1)
    mark = kept.position()
    kept.add(2)
    kept.add(3)
    assert kept.revise(lambda item: item == 2, None)
    assert kept.items() == [1, 3]
    assert kept.take_back(kept.position() - mark) == 1  # 2 was taken back already
    assert kept.items() == [1] and kept.dropped == 0
    kept.add(4)
    kept.add(5)
    assert kept.revise(lambda item: item == 4, None)
    kept.add(6)
    kept.add(7)  # pushes 4's place out: no drop (it was taken back), its place still counted
    assert kept.items() == [5, 6, 7] and kept.dropped == 1 and kept.position() == 5
