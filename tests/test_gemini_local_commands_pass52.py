"""Slash commands Gemini CLI runs itself are no prompts (pass 52).

A chat with no user message takes its prompts from ``logs.json``, which logs every input as
typed: a session of ``/stats`` then ``/quit`` said 2 prompts.  Claude's are none (parser 32);
Gemini's built-in commands now are none too, a custom command or ``/init`` still is one.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from builders import invoke
from gemini_builders import meta, write_chat

ONLY = "66666666-aaaa-4bbb-8ccc-000000000052"
MIXED = "77777777-aaaa-4bbb-8ccc-000000000052"


def _home(home: Path) -> None:
    (home / ".gemini" / "tmp" / "proj").mkdir(parents=True)
    (home / ".gemini" / "tmp" / "proj" / ".project_root").write_text(str(home / "src"))
    write_chat(home, "proj", "session-2026-05-01T12-00-66666666.jsonl", [meta(ONLY, start="2026-05-01T12:00:00.000Z")])
    write_chat(home, "proj", "session-2026-05-01T13-00-77777777.jsonl", [meta(MIXED, start="2026-05-01T13:00:00.000Z")])
    typed = [(ONLY, "/stats model"), (ONLY, "/quit"),
             (MIXED, "/chat save before"), (MIXED, "/fix-issue 12"), (MIXED, "explain the parser"), (MIXED, "/exit")]
    (home / ".gemini" / "tmp" / "proj" / "logs.json").write_text(json.dumps([
        {"sessionId": session, "messageId": n, "type": "user", "message": text,
         "timestamp": f"2026-05-01T1{2 if session == ONLY else 3}:00:0{n}.000Z"}
        for n, (session, text) in enumerate(typed)]))


def test_a_command_gemini_ran_itself_is_no_prompt(isolated_home: Path) -> None:
    _home(isolated_home)
    for args in ((), (), ("--no-cache",)):
        rows = {row["native_id"]: row for row in orjson.loads(invoke(*args, "list", "--json").stdout)["sessions"]}
        assert (rows[ONLY]["counts"]["prompts"], rows[ONLY]["title"]) == (0, "/stats model")  # (named by it)
        # (a custom command is a prompt: its text is what the model was sent)
        assert (rows[MIXED]["counts"]["prompts"], rows[MIXED]["title"]) == (2, "explain the parser")
    shown = orjson.loads(invoke("show", MIXED, "--json").stdout)["session"]
    assert [prompt["text"] for prompt in shown["prompts"]] == ["/fix-issue 12", "explain the parser"]
    assert orjson.loads(invoke("show", ONLY, "--json").stdout)["session"]["prompts"] == []
    # (``--full`` marks them, as Claude's: no prompt, but what the user did)
    full = invoke("show", ONLY, "--full").stdout
    assert "── /stats model (ran in Gemini CLI)" in full and "── /quit (ran in Gemini CLI)" in full, full


def test_the_commands_marked_are_those_the_kept_prompts_reach(isolated_home: Path) -> None:
    # The rule Claude's follow (``toolkit.localcommands``): none older than the oldest kept
    # prompt, reply or call; every one when the session's first is kept.
    from agentscan.bounds import Bounds
    from agentscan.context import ScanContext
    from agentscan.providers.gemini.provider import GeminiProvider

    _home(isolated_home)
    provider = GeminiProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = [ref for ref in provider.discover(ctx) if ref.native_id == MIXED]
    for prompts, expected in ((5, ["/chat save before", "/exit"]), (1, ["/exit"]), (0, [])):
        detail = provider.detail(ref, ctx, Bounds(prompts=prompts, responses=5, tools=5))
        assert [command.text for command in detail.local_commands] == expected, prompts
