"""Each ``$patch`` line of a Gemini chat is parsed at most once a pass (pass 58 review).

A sync (``updateMessagesFromHistory``) appends one ``$patch`` that updates every message.  The
replay read again, for each message it updated, every patch line of that message since its last
copy, and ``show`` did the same for each message it displayed: a chat of 800 turns and two
syncs took 7.5 CPU-s for 0.4.  Now the replay applies the update it holds (no patch line read
again) and ``show`` reads each patch line once for all the messages it updates.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from builders import cli_json
from gemini_builders import call, gemini, meta, tokens, user, write_chat

S = "58585858-aaaa-4bbb-8ccc-000000000003"
T = "2026-11-01T10:00:"
NAME = "session-2026-11-01T10-00-58585858.jsonl"
TURNS = 12


def _chat() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [meta(S, start=T + "00.000Z")]
    for i in range(TURNS):
        records.append(user(f"u{i}", T + "01.000Z", f"question {i}"))
        records.append(gemini(f"g{i}", T + "02.000Z", f"answer {i}", usage=tokens(1000, 100),
                              calls=[call(f"t{i}", "run_shell_command", {"command": "make"}, status="error")]))
    masked = [{"functionResponse": {"id": "t0", "name": "run_shell_command", "response": {"error": "[masked]"}}}]
    records.append({"$patch": {"updates": [{"id": "g0", "toolCalls": [{"id": "t0", "result": masked}]}]}})
    for sync in range(2):
        records.append({"$patch": {"updates": [{"id": f"g{i}", "content": [{"text": f"sync {sync} of {i}"}]}
                                               for i in range(TURNS)]}})
    return records


def test_each_patch_line_parsed_once_a_pass(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.gemini import chatlog, chatpatch

    write_chat(isolated_home, "proj", NAME, _chat())
    reads: Counter[int] = Counter()
    original = chatpatch.record_at

    def counted(handle: Any, offset: int) -> dict[str, Any]:
        record = original(handle, offset)
        if "$patch" in record:
            reads[offset] += 1
        return record

    monkeypatch.setattr(chatpatch, "record_at", counted)
    monkeypatch.setattr(chatlog, "record_at", counted)
    shown = cli_json("show", S, "--no-cache")["session"]
    # the three patch lines, once each (by show's re-read: the replay holds the line it applies)
    assert sorted(reads.values()) == [1, 1, 1]
    assert [r["text"] for r in shown["responses"]] == [f"sync 1 of {i}" for i in range(TURNS)]
    assert shown["tools"][0]["error"] == "[masked]"  # the earlier patch's result kept
    reads.clear()
    row = cli_json("list", "--all", "--no-cache")["sessions"][0]
    assert not reads and row["counts"] == shown["counts"]
