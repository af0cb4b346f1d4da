"""``show --full --redact`` redacts what the user typed after a slash command the agent's CLI
ran itself (``export.redact.redact_detail``): ``── /add-dir /home/me/clients/acme`` was printed
as typed beside prompts replaced by a hash, in a card meant to be pasted."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

SID = "44444444-2222-3333-4444-555555555553"
SECRET_DIR = "/home/me/clients/acme-merger"


def test_a_local_commands_arguments_are_redacted(isolated_home: Path) -> None:
    claude_session_file(isolated_home, SID, [
        claude_user(SID, "2026-10-01T09:59:00.000Z", "<command-name>/add-dir</command-name>\n<command-message>add-dir"
                    f"</command-message>\n<command-args>{SECRET_DIR}</command-args>", uuid="c1"),
        claude_user(SID, "2026-10-01T09:59:30.000Z", "<command-name>/mcp</command-name>\n<command-message>mcp"
                    "</command-message>\n<command-args></command-args>", uuid="c2", parentUuid="c1"),
        claude_user(SID, "2026-10-01T10:00:00.000Z", "Run the tests", uuid="u1", parentUuid="c2"),
        claude_assistant(SID, "2026-10-01T10:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 20),
                         uuid="a1", parentUuid="u1"),
    ])
    plain = invoke("show", SID[:8], "--full").stdout
    assert f"── /add-dir {SECRET_DIR} (ran in Claude Code)" in plain
    redacted = invoke("show", SID[:8], "--full", "--redact").stdout
    assert SECRET_DIR not in redacted and "Run the tests" not in redacted
    assert f"── /add-dir [redacted: {len(SECRET_DIR)} chars, #" in redacted
    assert "── /mcp (ran in Claude Code)" in redacted  # (a bare command: nothing typed to hide)
