"""Claude Code 2.1.119 and later copy the API's ``usage.output_tokens_details.thinking_tokens``
into each assistant record (the real 2.1.268 sample holds it).  Those are the part of
``output_tokens`` the model spent thinking (Anthropic's SDK: "output tokens the model generated
as internal reasoning"; billed as output, inside the output count), so they are never added
again: ``output`` is ``output_tokens``, its cost the same as without the field, and Claude's
``reasoning`` stays unreported, as the contract maps Claude (docs/providers/claude.md,
"Thinking tokens").  A guard: no count reads the field."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "c057a7e5-5959-4000-8000-000000000001"


def _home(home: Path, **extra: object) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-10-01T10:00:00.000Z", "think it through"),
        claude_assistant(S, "2026-10-01T10:00:05.000Z", msg_id="msg_1", request_id="req_1", model="claude-sonnet-4-5",
                         usage=claude_usage(2, 499, cache_write=39056, **extra)),
    ])


def test_thinking_tokens_are_part_of_output_never_added_again(isolated_home: Path, tmp_path: Path) -> None:
    _home(isolated_home)
    plain = cli_json("tokens", "--no-cache")
    _home(isolated_home, output_tokens_details={"thinking_tokens": 52})
    detailed = cli_json("tokens", "--no-cache")
    shown = cli_json("show", S, "--no-cache")["session"]
    assert detailed["total"] == plain["total"], (detailed["total"], plain["total"])
    assert detailed["total"]["output"] == 499 and detailed["total"]["total"] == 2 + 39056 + 499
    assert detailed["rows"][0]["cost_usd"] == plain["rows"][0]["cost_usd"]
    assert shown["tokens"]["output"] == 499 and shown["tokens"]["total"] == 39557
    assert detailed["total"]["reasoning"] == plain["total"]["reasoning"] == 0  # (Claude records none apart)
