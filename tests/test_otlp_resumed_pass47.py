"""``otlp ID`` of a resumed Claude session sends its own calls, as ``tokens ID`` counts them (pass 47).

The resumed transcript begins with the first session's records, copied with its
``sessionId``: ``otlp ID`` read the resumed session alone and sent those copied calls
again, as chats of its first own turn.  It now reads the session its head names with it,
as ``tokens ID`` does, and sends each copied call once, in the first session.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from otlp_builders import otlp, read_otlp_file

FIRST = "aaaaaaaa-0000-4000-8000-0000000000a7"
RESUMED = "bbbbbbbb-0000-4000-8000-0000000000a7"


def _turn(session: str, n: int, used: int) -> list[dict]:
    return [claude_user(session, f"2026-05-0{n}T10:00:00.000Z", f"step {n}", uuid=f"u{n}"),
            claude_assistant(session, f"2026-05-0{n}T10:00:05.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                             usage=claude_usage(used, 10), parentUuid=f"u{n}", uuid=f"a{n}")]


def _tokens_sent(path: Path) -> int:
    return sum(span.attrs.get("agentscan.usage.total", 0) for spans in read_otlp_file(path) for span in spans
               if "agentscan.usage.total" in span.attrs and span.name.startswith("chat"))


def test_otlp_of_a_resumed_session_sends_its_own_calls(isolated_home: Path, tmp_path: Path) -> None:
    first = _turn(FIRST, 1, 100)
    claude_session_file(isolated_home, FIRST, first)
    claude_session_file(isolated_home, RESUMED, [*first, *_turn(RESUMED, 2, 200)])
    alone = orjson.loads(invoke("tokens", RESUMED, "--json").stdout)["total"]["total"]
    assert alone == 210
    out = tmp_path / "resumed.jsonl"
    result = otlp(RESUMED, "--output", str(out))
    assert result.exit_code == 0, result.output
    assert _tokens_sent(out) == alone
    every = tmp_path / "every.jsonl"
    assert otlp("--output", str(every)).exit_code == 0
    assert _tokens_sent(every) == 110 + 210
