"""A slash command Claude Code runs itself is no prompt; one it sends the model is.

Claude Code writes a command it runs locally (``/clear``, ``/compact``, ``/model``, ``/mcp``)
name first, ``<command-name>/clear</command-name><command-message>clear</command-message>``,
a ``<local-command-stdout>`` record after it; a command it expands into a prompt for the model
(a custom command, a skill, ``/init``) message first, its expansion (``isMeta``) and the
model's reply after it (the real samples: agentlogs-compact-boundary-v2.0.13.jsonl and
spotter-short-v2.1.38.jsonl).  ``counts.prompts`` and the prompts listed agree, in
``list``, ``show`` and ``export``; a local command still names a session that holds nothing
else (docs/providers/claude.md).
"""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, lay_out_real_claude_sample

COMPACT = "0e26ec2f-937e-482c-b889-bc126f996913"
S = "5a5a5a5a-1111-4222-8333-444444444444"


def _cli(*args: str) -> dict:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def _compact_sample(home: Path) -> None:
    lay_out_real_claude_sample(home, "agentlogs-compact-boundary-v2.0.13.jsonl", COMPACT, "-Users-philipp-dev-studio")


def test_clear_and_compact_are_no_prompts_of_the_real_session(isolated_home: Path) -> None:
    _compact_sample(isolated_home)
    shown = _cli("show", COMPACT[:8], "--json")["session"]
    assert [prompt["text"] for prompt in shown["prompts"]] == ["how are you doing"]
    assert shown["counts"]["prompts"] == 1
    (row,) = _cli("list", "--json")["sessions"]
    assert row["counts"]["prompts"] == 1 and row["title"] == "how are you doing"
    exported = [orjson.loads(line) for line in CliRunner().invoke(app, ["export", "-f", "jsonl"]).stdout.splitlines()]
    assert [record["counts"]["prompts"] for record in exported] == [1]


def _command(name: str, args: str, *, prompt: bool) -> str:
    message = f"<command-message>{name}</command-message>"
    named = f"<command-name>/{name}</command-name>"
    return (message + "\n" + named if prompt else named + "\n" + message) + f"\n<command-args>{args}</command-args>"


def _model_then_a_prompt_command(home: Path, name: str, args: str, expansion: str) -> None:
    """Session S: ``/model opus`` run in Claude Code (its stdout record after it), then
    ``/<name> <args>`` sent to the model as ``expansion`` (``isMeta``), and the model's reply."""
    claude_session_file(home, S, [
        claude_user(S, "2026-11-01T10:00:00.000Z", _command("model", "opus", prompt=False), uuid="u0"),
        claude_user(S, "2026-11-01T10:00:01.000Z", "<local-command-stdout>Set model to opus</local-command-stdout>",
                    uuid="u1", parentUuid="u0"),
        claude_user(S, "2026-11-01T10:00:02.000Z", _command(name, args, prompt=True), uuid="u2", parentUuid="u1"),
        claude_user(S, "2026-11-01T10:00:02.000Z", expansion, uuid="u3", parentUuid="u2", isMeta=True),
        claude_assistant(S, "2026-11-01T10:00:03.000Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1),
                         uuid="a1", parentUuid="u3"),
    ])


def test_a_command_sent_to_the_model_is_a_prompt_and_a_local_one_only_a_title(isolated_home: Path) -> None:
    _model_then_a_prompt_command(isolated_home, "fix-issue", "123", "Fix issue 123 following our standards.")
    shown = _cli("show", S[:8], "--json")["session"]
    assert [prompt["text"] for prompt in shown["prompts"]] == ["/fix-issue 123"]
    assert shown["counts"]["prompts"] == 1 and shown["title"] == "/fix-issue 123"


def test_a_session_of_local_commands_alone_is_named_by_the_first(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", _command("model", "opus", prompt=False)),
        claude_user(S, "2026-11-01T10:00:01Z", "<local-command-stdout>Set model to opus</local-command-stdout>"),
        claude_user(S, "2026-11-01T10:00:02Z", _command("cost", "", prompt=False)),
    ])
    (row,) = _cli("list", "--json")["sessions"]
    assert row["title"] == "/model opus" and row["counts"]["prompts"] == 0


def test_a_command_said_to_be_running_is_a_prompt_whatever_its_tags_order(isolated_home: Path) -> None:
    # (``<command-message>foo is running…`` is what Claude Code writes of a command it sends the
    # model; a build that wrote the name first still sent it)
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "<command-name>/code</command-name>\n<command-message>code is running…"
                    "</command-message>\n<command-args>fix the login redirect</command-args>"),
        claude_user(S, "2026-11-01T10:00:01Z", "<command-name>/clear</command-name>\n<command-message>clear"
                    "</command-message>\n<command-args></command-args>"),
    ])
    shown = _cli("show", S[:8], "--json")["session"]
    assert [prompt["text"] for prompt in shown["prompts"]] == ["/code fix the login redirect"]


def test_a_prompt_command_names_the_session_over_a_local_one_before_it(isolated_home: Path) -> None:
    # ``/model`` then ``/init`` (no words typed): ``/init`` was what the model was sent, the
    # session's one prompt; the ``/model`` before it took the title.
    _model_then_a_prompt_command(isolated_home, "init", "", "Please analyze this codebase and create a CLAUDE.md file.")
    for flags in ((), ("--no-cache",)):
        (row,) = _cli(*flags, "list", "--json")["sessions"]
        assert row["title"] == "/init" and row["counts"]["prompts"] == 1
        assert _cli(*flags, "show", S[:8], "--json")["session"]["title"] == "/init"
    # (``tokens``' cold table: its title read from the file's head, not the row's pass: ``tablefacts``)
    from agentscan.providers.claude.provider import ClaudeProvider
    from agentscan.scan.scanner import Scanner

    with Scanner(use_cache=False) as scanner:
        (ref,) = scanner.refs_by_id([f"claude:{S}"])
        facts = ClaudeProvider().table_facts(ref, scanner.ctx)
    assert facts is not None and facts.title == "/init"
