"""Ids as a script passes them (pass 48): a provider's name is no id prefix (`show gemini`
opened a home's one Gemini chat), and an `AGENTSCAN_DATA_DIR` that is a file is said to be
one, not "no hook events have been captured yet" (docs/cli.md, the id section; docs/hooks.md)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.errors import ProviderNotId
from agentscan.hooks import capture
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from gemini_builders import gemini, meta, user, write_chat
from hooks_builders import BASE_NS

runner = CliRunner()
GEMINI_ID = "5e1f0c2a-7d3b-4a9e-b1c6-2f8e0d4a6c13"
TS = "2026-05-01T10:00:00.000Z"


def _one_gemini_chat(home: Path) -> None:
    write_chat(home, "proj", "session-2026-05-01T10-00-5e1f0c2a.jsonl",
               [meta(GEMINI_ID), user("u1", TS, "hello"), gemini("g1", TS, "hi")])


def _claude(home: Path, native: str) -> None:
    claude_session_file(home, native, [
        claude_user(native, TS, "a prompt"),
        claude_assistant(native, TS, msg_id="m1", request_id="r1", usage=claude_usage(3, 1)),
    ])


@pytest.mark.parametrize("command", [["show"], ["tokens"], ["otlp", "--output", "{out}"]])
@pytest.mark.parametrize("query", ["gemini", "Gemini", "gemini:"])
def test_a_provider_name_opens_no_session_of_a_home_with_one(isolated_home: Path, tmp_path: Path,
                                                             command: list[str], query: str) -> None:
    _one_gemini_chat(isolated_home)
    assert runner.invoke(app, ["show", "5e1f0c"]).exit_code == 0  # a real prefix still opens it
    args = [part.replace("{out}", str(tmp_path / "out.json")) for part in command]
    result = runner.invoke(app, [*args, query])
    assert result.exit_code == 1
    said = ("hint: `agentscan tokens -p gemini` adds up its sessions' tokens" if command == ["tokens"]  # (pass 53)
            else "hint: `agentscan list -p gemini` lists its sessions")
    assert result.stderr.splitlines() == [f"error: {query!r} is a provider, not a session id", said]


@pytest.mark.parametrize("query", ["claude", "codex", "cursor", "codex:"])
def test_a_provider_name_is_said_to_be_one_not_too_short_nor_ambiguous(isolated_home: Path, query: str) -> None:
    for index in range(2):
        _claude(isolated_home, f"abcdef{index:02x}-0000-4000-8000-{index:012x}")
    with pytest.raises(ProviderNotId) as raised:
        Scanner().resolve(query)
    assert str(raised.value) == f"{query!r} is a provider, not a session id"
    assert raised.value.provider == query.rstrip(":")


def test_the_hint_names_the_home_read(isolated_home: Path) -> None:
    result = runner.invoke(app, ["--demo", "show", "claude"])
    assert result.exit_code == 1
    assert "hint: `agentscan --demo list -p claude` lists its sessions" in result.stderr


def test_a_native_id_that_begins_with_a_provider_name_still_opens_by_prefix(isolated_home: Path) -> None:
    _claude(isolated_home, "cursor-notes-claude-01")
    _claude(isolated_home, "example-session-claude-01")
    assert Scanner().resolve("cursor").id == "claude:cursor-notes-claude-01"
    assert Scanner().resolve("exampl").id == "claude:example-session-claude-01"
    assert Scanner().resolve("claude:exampl").id == "claude:example-session-claude-01"


def test_trace_says_a_provider_name_is_one(isolated_home: Path) -> None:
    data = os.environ["AGENTSCAN_DATA_DIR"]
    capture.capture(data, "claude", orjson.dumps({"session_id": "abcdef12-3456", "prompt_id": "p"}), BASE_NS)
    for query in ("claude", "gemini"):
        result = runner.invoke(app, ["trace", query])
        assert result.exit_code == 1
        assert result.stderr.splitlines()[0] == (
            f"error: {query!r} is a provider, not a session id (`agentscan trace --list` shows the ids)")


@pytest.mark.parametrize("args", [["trace", "--json", "abcdef"], ["trace", "--list"], ["trace", "--list", "--json"],
                                  ["hooks", "install", "claude"]])
def test_a_data_dir_that_is_a_file_is_said_to_be_one(isolated_home: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    file = tmp_path / "not-a-dir"
    file.write_text("")
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(file))
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: AGENTSCAN_DATA_DIR {file}: not a directory"]
    assert not (isolated_home / ".claude" / "settings.json").exists()  # nothing installed that could record nothing
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(file / "sub"))
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: AGENTSCAN_DATA_DIR {file / 'sub'}: {file} is not a directory"]
