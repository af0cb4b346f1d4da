"""Gemini CLI samples found after the first three (fixtures/real/SOURCES.md, gemini/).

1. A fourth real legacy chat (2025-10-11, gemini-2.5-pro), with four ``gemini``
   messages whose ``tokens`` are all zeros.  The expected totals were summed by
   hand from the file (a short Python loop over ``messages``, independent of
   agentscan), with the rules of docs/providers/gemini.md:

   ==========  =========  ========  ======  ========  ====  =======
   13 gemini   input      cached    output  thoughts  tool  total
   ==========  =========  ========  ======  ========  ====  =======
   sums        176,179    121,305   851     1,546     0     178,576
   ==========  =========  ========  ======  ========  ====  =======

   so ``input`` = 176,179 − 121,305 + 0 = 54,874, ``cache_read`` = 121,305,
   ``output`` = 851 + 1,546 = 2,397, ``reasoning`` = 1,546 and ``total`` =
   178,576 (Gemini's own ``total`` summed, each message's ``total`` being
   ``input + output + thoughts + tool``).

2. Newer Gemini CLI builds (seen in 0.44.1) record the environment context as a
   ``user`` message in a ``$set.messages`` checkpoint on line 2, before anything
   is typed (id ``d04923d38bb0f6017037e74183378ef4``, text
   ``<session_context>\\nThis is the Gemini CLI. We are setting up…``).  It used
   to become every such session's title and count as a prompt.  The record
   shape is rebuilt here (synthetic), not copied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from agentscan.model import SessionRow
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from gemini_builders import REAL_GEMINI, gemini, meta, set_, tokens, user, write_chat

LEGACY_2025_10_11 = REAL_GEMINI / "session-2025-10-11T13-00-2d9ea14f.json"
LEGACY_ID = "2d9ea14f-1e4e-44f6-8bf5-7a7819cb1cd9"
LEGACY_HASH = "ab14fe397f91d5f283525b3178d2314aef552f761131c42172a21b7bf735e73d"

CONTEXT_ID = "d04923d38bb0f6017037e74183378ef4"  # sha256("environment-context")[:32] in 0.44.1
CONTEXT_TEXT = (
    "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
    "Today's date is Sunday, September 20, 2026 (formatted according to the user's locale).\n"
    "My operating system is: linux\n"
    "The project's temporary directory is: /home/kai/.gemini/tmp/gemini-spike\n"
    "- **Workspace Directories:**\n  - /home/kai/gemini-spike\n"
    "- **Directory Structure:**\n\nShowing up to 200 items (files + folders).\n\n"
    "/home/kai/gemini-spike/\n└───before.txt\n\n\n</session_context>"
)


def _rows(home: Path) -> dict[str, SessionRow]:
    return {row.native_id: row for row in Scanner(home=home, provider_names=["gemini"]).list_sessions()}


def test_real_legacy_2025_10_11_totals(isolated_home: Path) -> None:
    chats = isolated_home / ".gemini" / "tmp" / LEGACY_HASH / "chats"
    chats.mkdir(parents=True)
    shutil.copyfile(LEGACY_2025_10_11, chats / LEGACY_2025_10_11.name)

    row = _rows(isolated_home)[LEGACY_ID]
    assert row.tokens is not None
    assert row.tokens.to_json() == {
        "input": 54874, "cache_read": 121305, "cache_write": 0,
        "output": 2397, "reasoning": 1546, "total": 178576,
    }
    assert row.model == "gemini-2.5-pro"
    assert row.title.startswith("## 任務：將專案描述中的 \"Vibe Coding Tracker\"")
    # 1 prompt; all 13 gemini messages have text; this build recorded no toolCalls
    assert row.counts.to_json() == {"prompts": 1, "responses": 13, "tool_calls": 0}
    assert row.cwd is None  # a hash dir that nothing on this machine names

    report = token_report(Scanner(home=isolated_home, provider_names=["gemini"]))
    assert report.total is not None
    assert (report.total.input, report.total.cache_read, report.total.output, report.total.total) == (54874, 121305, 2397, 178576)


def test_session_context_is_not_a_prompt(isolated_home: Path) -> None:
    session = "63a95ada-876f-483a-bc98-099900d7ee46"
    write_chat(isolated_home, "gemini-spike", "session-2026-09-20T10-18-63a95ada.jsonl", [
        meta(session, start="2026-09-20T10:18:01.708Z"),
        set_(messages=[{"id": CONTEXT_ID, "timestamp": "2026-09-20T10:18:01.710Z", "type": "user",
                        "content": [{"text": CONTEXT_TEXT}]}],
             lastUpdated="2026-09-20T10:18:01.710Z"),
        user("495eefe3-93e3-4359-bf5d-c25557c57f81", "2026-09-20T10:18:01.875Z", "Reply with exactly: pong"),
        set_(lastUpdated="2026-09-20T10:18:01.875Z"),
        gemini("g1", "2026-09-20T10:18:03.000Z", "pong", usage=tokens(100, 1), model="gemini-3-flash-preview"),
    ])

    row = _rows(isolated_home)[session]
    assert row.title == "Reply with exactly: pong"
    assert row.counts.to_json() == {"prompts": 1, "responses": 1, "tool_calls": 0}

    detail = Scanner(home=isolated_home, provider_names=["gemini"]).show(f"gemini:{session}")
    assert [p.text for p in detail.prompts] == ["Reply with exactly: pong"]


def test_a_resume_s_empty_second_file_never_hides_the_conversation(isolated_home: Path) -> None:
    # gemini --resume (0.44) leaves a second .jsonl of the same session holding only its header
    # and the injected context.  The newer file won: in a copied home (every mtime the copy's)
    # the empty one could be newer, and the session showed no prompt and no tokens.
    session = "7e57ab1e-876f-483a-bc98-099900d7ee46"
    orphan = [meta(session, start="2026-09-21T09:00:00.000Z"),
              set_(messages=[{"id": CONTEXT_ID, "timestamp": "2026-09-21T09:00:00.010Z", "type": "user",
                              "content": [{"text": CONTEXT_TEXT}]}])]
    talk = [meta(session, start="2026-09-20T10:18:01.708Z"),
            user("u1", "2026-09-20T10:18:01.875Z", "Reply with exactly: pong"),
            gemini("g1", "2026-09-20T10:18:03.000Z", "pong", usage=tokens(100, 1), model="gemini-3-flash-preview")]
    for orphan_time, talk_time in ((2_000_000_000, 1_900_000_000), (1_900_000_000, 2_000_000_000)):
        write_chat(isolated_home, "gemini-spike", "session-2026-09-21T09-00-7e57ab1e.jsonl", orphan, mtime=orphan_time)
        write_chat(isolated_home, "gemini-spike", "session-2026-09-20T10-18-7e57ab1e.jsonl", talk, mtime=talk_time)
        row = _rows(isolated_home)[session]
        assert row.title == "Reply with exactly: pong", (orphan_time, talk_time)
        assert row.tokens is not None and row.tokens.total == 101
