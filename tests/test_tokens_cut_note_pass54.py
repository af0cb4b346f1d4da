"""``tokens``' note under its table tells a chat read only up to its damage from one that
could not be read (pass 54).

A legacy Gemini chat caught half rewritten, cut before its first usage, is read (its card
opens: ``show``), but its usage is not known: ``tokens`` counts it in no row.  Its note said
"(+ 1 session that could not be read, not counted …)", lumping it with a transcript denied
to agentscan; ``--json``'s ``unreadable`` reason said the truth (``truncated or corrupt;
read the 1 complete message before the damage``).  The note says it now.
"""

from __future__ import annotations

import os
from pathlib import Path

from builders import invoke
from gemini_builders import legacy_chat

CUT = "b5400000-0000-4000-8000-000000000002"


def test_a_chat_read_up_to_its_damage_is_no_unreadable_one(isolated_home: Path) -> None:
    chats = isolated_home / ".gemini/tmp/proj/chats"
    cut = legacy_chat(isolated_home / "a", CUT)
    data = cut.read_bytes()
    chats.mkdir(parents=True)
    chat = chats / "session-2025-09-01T08-00-b5400000.json"
    chat.write_bytes(data[:data.index(b"renamed")])  # before any usage
    for settled in (False, True):  # its warning worded as a file still written to, then as one long still
        if settled:
            os.utime(chat, (1e9, 1e9))
        result = invoke("tokens")
        assert result.exit_code == 0, result.stderr
        said = " ".join((result.stdout + result.stderr).split())
        assert ("chat file is truncated or corrupt" in said) is settled, said
        assert f"(+ 1 session read only up to its damage, before any usage, not counted: gemini:{CUT})" in said, said
        assert f"could not be read, not counted: gemini:{CUT}" not in said, said
