"""Chat compression's fixed reply after its summary is no response (pass 49).

Gemini CLI's ``chatCompressionService`` puts the summary (a ``user`` turn, ``<state_snapshot>``)
and then a fixed ``model`` turn, ``Got it. Thanks for the additional context!``, in place of
the turns it retired.  Nobody's model wrote it: it is not counted, shown, nor the card's last
response.  The same words anywhere else are the model's own.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import invoke
from gemini_builders import gemini, meta, set_, tokens, user, write_chat, write_legacy

S1 = "11111111-aaaa-4bbb-8ccc-000000000049"
S2 = "22222222-aaaa-4bbb-8ccc-000000000049"
ACK = "Got it. Thanks for the additional context!"
SNAPSHOT = "<state_snapshot>\n  <overall_goal>port billing</overall_goal>\n</state_snapshot>"


def _compressed(home: Path, *, then_reply: bool = True) -> None:
    after = [user("k5", "2026-08-02T14:07:00.000Z", "continue with invoices")]
    if then_reply:
        after.append(gemini("k6", "2026-08-02T14:07:20.000Z", "Invoices done.", usage=tokens(300, 10)))
    write_chat(home, "api", "session-2026-08-02T14-00-11111111.jsonl", [
        meta(S1, start="2026-08-02T14:00:00.000Z"),
        user("k1", "2026-08-02T14:00:01.000Z", "port the billing module"),
        gemini("k2", "2026-08-02T14:00:10.000Z", "Working on it.", usage=tokens(2000, 90)),
        set_(messages=[user("s1", "2026-08-02T14:06:00.000Z", SNAPSHOT),
                       gemini("s2", "2026-08-02T14:06:00.000Z", ACK)]),
        *after,
    ])


def _session(*argv: str) -> dict:
    result = invoke("show", S1[:8], "--json", *argv)
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)["session"]


def test_the_ack_after_a_summary_is_no_response(isolated_home: Path) -> None:
    _compressed(isolated_home)
    (row,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert row["counts"]["responses"] == 1  # k6 alone (the ack was counted)
    shown = _session("--full")
    assert [reply["text"] for reply in shown["responses"]] == ["Invoices done."]
    full = invoke("show", S1[:8], "--full")
    assert full.exit_code == 0 and ACK not in full.stdout


def test_the_ack_is_never_the_card_s_last_response(isolated_home: Path) -> None:
    _compressed(isolated_home, then_reply=False)
    assert _session()["responses"] == []
    card = invoke("show", S1[:8])
    assert card.exit_code == 0 and ACK not in card.stdout


def test_the_same_words_elsewhere_are_the_model_s(isolated_home: Path) -> None:
    write_chat(isolated_home, "api", "session-2026-08-03T09-00-22222222.jsonl", [
        meta(S2, start="2026-08-03T09:00:00.000Z"),
        user("u1", "2026-08-03T09:00:01.000Z", "here is more context about the schema"),
        gemini("g1", "2026-08-03T09:00:05.000Z", ACK, usage=tokens(50, 9)),
    ])
    (row,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert row["counts"]["responses"] == 1


def test_a_legacy_chat_s_ack_is_skipped_too(isolated_home: Path) -> None:
    write_legacy(isolated_home, "api", "session-2025-09-01T08-00-11111111.json", {
        "sessionId": S1, "projectHash": "0" * 64,
        "startTime": "2025-09-01T08:00:00.000Z", "lastUpdated": "2025-09-01T08:01:00.000Z",
        "messages": [user("s1", "2025-09-01T08:00:00.000Z", SNAPSHOT), gemini("s2", "2025-09-01T08:00:00.000Z", ACK),
                     user("u1", "2025-09-01T08:00:30.000Z", "go on"),
                     gemini("g1", "2025-09-01T08:01:00.000Z", "Went on.", usage=tokens(10, 2))],
    })
    assert [reply["text"] for reply in _session()["responses"]] == ["Went on."]
