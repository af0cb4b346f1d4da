"""Slash commands Gemini CLI ran itself in a chat that has prompts of its own (pass 53).

Its chat file records no local command (``/stats``, ``/model``, ``/quit``); only
``logs.json`` does, and it was read only for a chat of no user message, so ``show --full`` of
an ordinary chat never marked them.  ``show`` now reads it (once a scan; ``list`` and
``tokens`` never do) and marks each where it stood, by the rule Claude's follow
(``toolkit.localcommands``): those the kept prompts, replies and calls reach."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from builders import invoke
from gemini_builders import gemini, meta, tokens, user, write_chat

S = "88888888-aaaa-4bbb-8ccc-000000000053"


def _home(home: Path) -> None:
    project = home / ".gemini" / "tmp" / "proj"
    project.mkdir(parents=True)
    (project / ".project_root").write_text(str(home / "src"))
    write_chat(home, "proj", "session-2026-05-01T12-00-88888888.jsonl", [
        meta(S, start="2026-05-01T12:00:00.000Z"),
        user("u1", "2026-05-01T12:00:10.000Z", "explain the parser"),
        gemini("g1", "2026-05-01T12:00:20.000Z", "It reads lines.", usage=tokens(100, 10)),
        user("u2", "2026-05-01T12:01:10.000Z", "and the cache?"),
        gemini("g2", "2026-05-01T12:01:20.000Z", "It keys rows.", usage=tokens(200, 20)),
    ])
    typed = [("2026-05-01T12:00:05.000Z", "/model"), ("2026-05-01T12:00:10.000Z", "explain the parser"),
             ("2026-05-01T12:00:30.000Z", "/stats"), ("2026-05-01T12:01:10.000Z", "and the cache?"),
             ("2026-05-01T12:01:30.000Z", "/quit")]
    (project / "logs.json").write_text(json.dumps([
        {"sessionId": S, "messageId": n, "type": "user", "message": text, "timestamp": stamp}
        for n, (stamp, text) in enumerate(typed)]))


def test_show_marks_the_commands_of_a_chat_with_prompts(isolated_home: Path) -> None:
    _home(isolated_home)
    full = invoke("show", S, "--full").stdout
    for command in ("/model", "/stats", "/quit"):
        assert f"── {command} (ran in Gemini CLI)" in full, full
    # each where it stood: /stats between the first reply and the second prompt
    assert full.index("It reads lines.") < full.index("/stats (ran") < full.index("and the cache?") < full.index("/quit (ran")
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert [prompt["text"] for prompt in shown["prompts"]] == ["explain the parser", "and the cache?"]  # no more
    row = orjson.loads(invoke("list", "--json").stdout)["sessions"][0]
    assert (row["counts"]["prompts"], row["title"]) == (2, "explain the parser")  # the row is its chat's


def test_only_the_commands_the_kept_messages_reach(isolated_home: Path) -> None:
    from agentscan.bounds import Bounds
    from agentscan.context import ScanContext
    from agentscan.providers.gemini.provider import GeminiProvider

    _home(isolated_home)
    provider = GeminiProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(ctx)
    for prompts, responses, expected in ((5, 5, ["/model", "/stats", "/quit"]), (1, 1, ["/quit"])):
        detail = provider.detail(ref, ctx, Bounds(prompts=prompts, responses=responses, tools=5))
        assert [command.text for command in detail.local_commands] == expected, (prompts, responses)
