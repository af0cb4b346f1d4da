"""Pass 56: ``hooks install gemini`` and Gemini CLI's hook events in the tree.

The shapes come from Gemini CLI's own sources (google-gemini/gemini-cli):
``docs/hooks/reference.md`` (settings.json ``hooks``: event -> matcher groups of
``{"type": "command", "command", "name", "timeout" (ms)}``; the base input ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, ``timestamp`` (ISO); ``BeforeTool``/``AfterTool``
``tool_name``, ``tool_input``, ``tool_response {llmContent, returnDisplay, error?}``;
``BeforeAgent`` ``prompt``; ``AfterAgent`` ``prompt``, ``prompt_response``; stdout must hold JSON
only), ``packages/cli/src/config/settingsSchema.ts`` (``hooksConfig.enabled``, the event keys)
and ``packages/core/src/hooks/hookPlanner.ts`` (no matcher, ``""`` or ``"*"`` matches all).
No real Gemini payload is published, so they are built here in that shape, as Cursor's are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.hooks import capture, store
from agentscan.hooks.events import GEMINI_EVENTS
from builders import cli_json, invoke
from hooks_builders import BASE_NS, MS, tool_calls, walk

SESSION = "9d2c1f3e-5b6a-4c7d-8e9f-0a1b2c3d4e5f"
OURS = "agentscan hook --agent gemini"


def _settings(home: Path, config: Any, *, raw: str | None = None) -> Path:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(raw if raw is not None else json.dumps(config, indent=2) + "\n")
    return path


USERS = {
    "general": {"vimMode": True},
    "hooks": {"BeforeTool": [{"matcher": "run_shell_command",
                              "hooks": [{"type": "command", "command": "./guard.sh"}]}]},
}


# --- hooks install gemini: the config ---------------------------------------------------------


def test_install_writes_the_documented_shape_and_keeps_the_users_settings(isolated_home: Path) -> None:
    path = _settings(isolated_home, USERS)
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0, result.output
    config = json.loads(path.read_text())
    assert config["general"] == {"vimMode": True}
    assert set(config["hooks"]) == set(GEMINI_EVENTS)
    assert config["hooks"]["BeforeTool"][0] == USERS["hooks"]["BeforeTool"][0]  # the user's group, first, as it was
    for event in GEMINI_EVENTS:
        ours = config["hooks"][event][-1]
        assert set(ours) == {"hooks"}  # no matcher: every tool, every trigger
        (entry,) = ours["hooks"]
        assert entry["type"] == "command" and entry["command"].endswith(OURS)
        assert entry["name"] == "agentscan" and entry["timeout"] == 5000  # milliseconds
    # Not the events run for each model request (or streamed chunk), with the conversation in them.
    assert not {"BeforeModel", "AfterModel", "BeforeToolSelection"} & set(config["hooks"])
    assert "Gemini CLI" in result.stdout


def test_install_again_changes_nothing_and_uninstall_gives_the_file_back(isolated_home: Path) -> None:
    path = _settings(isolated_home, USERS)
    before = path.read_bytes()
    assert invoke("hooks", "install", "gemini").exit_code == 0
    installed = path.read_bytes()
    again = invoke("hooks", "install", "gemini")
    assert again.exit_code == 0 and "nothing to change (already installed)" in again.stdout
    assert path.read_bytes() == installed
    assert invoke("hooks", "uninstall", "gemini").exit_code == 0
    assert path.read_bytes() == before


def test_install_then_uninstall_on_a_home_without_gemini_settings_leaves_nothing(isolated_home: Path) -> None:
    assert invoke("hooks", "install", "gemini").exit_code == 0
    path = isolated_home / ".gemini" / "settings.json"
    assert path.exists() and oct(path.stat().st_mode & 0o777) == "0o600"
    assert invoke("hooks", "uninstall", "gemini").exit_code == 0
    assert not (isolated_home / ".gemini").exists()


# (an object on an event is one more matcher group Gemini CLI runs, written as that group in a
# list: ``test_hooks_pass61``; a string is no group)
@pytest.mark.parametrize("raw", ['{"hooks": {"BeforeTool": [}', '{"hooks": []}', '{"hooks": {"AfterTool": "x"}}',
                                 '{"a": 1, "a": 2}'])
def test_a_broken_config_is_refused_and_left_as_it_is(isolated_home: Path, raw: str) -> None:
    path = _settings(isolated_home, None, raw=raw)
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 1 and "agentscan will not" in result.stderr, result.stderr
    assert path.read_text() == raw
    assert not list(path.parent.glob("*.bak"))


def test_older_settings_inside_hooks_are_kept_and_do_not_stop_an_uninstall(isolated_home: Path) -> None:
    """Before ``hooksConfig``, Gemini CLI kept ``enabled`` and ``disabled`` inside ``hooks``."""
    path = _settings(isolated_home, {"hooks": {"enabled": True, "disabled": ["./old.sh"]}})
    before = path.read_bytes()
    assert invoke("hooks", "install", "gemini").exit_code == 0
    config = json.loads(path.read_text())
    assert config["hooks"]["enabled"] is True and config["hooks"]["disabled"] == ["./old.sh"]
    assert invoke("hooks", "uninstall", "gemini").exit_code == 0
    assert path.read_bytes() == before


def test_an_entry_of_ours_under_a_narrower_matcher_is_widened(isolated_home: Path) -> None:
    path = _settings(isolated_home, {"hooks": {"AfterTool": [
        {"matcher": "read_file", "hooks": [{"type": "command", "command": f"/old/bin/{OURS}"},
                                           {"type": "command", "command": "./mine.sh"}]}]}})
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0
    groups = json.loads(path.read_text())["hooks"]["AfterTool"]
    assert groups[0] == {"matcher": "read_file", "hooks": [{"type": "command", "command": "./mine.sh"}]}
    assert len(groups) == 2 and "matcher" not in groups[1] and groups[1]["hooks"][0]["command"].endswith(OURS)
    assert "widened" in result.stdout or "read_file" in result.stdout


def test_hooks_turned_off_are_warned_of_and_a_problem_in_status(isolated_home: Path) -> None:
    _settings(isolated_home, {"hooksConfig": {"enabled": False}})
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0
    assert '"hooksConfig.enabled": false here turns off every Gemini CLI hook' in result.stderr
    (config,) = [c for c in cli_json("hooks", "status")["configs"] if c["agent"] == "gemini"]
    assert config["events"] == len(GEMINI_EVENTS) and "turns off every Gemini CLI hook" in config["problem"]
    assert invoke("--strict", "hooks", "install", "gemini").exit_code == 1


def test_project_scope_and_gemini_cli_home(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert invoke("hooks", "install", "gemini", "--scope", "project").exit_code == 0
    assert OURS in (project / ".gemini" / "settings.json").read_text()
    other = tmp_path / "gemhome"
    other.mkdir()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(other))
    assert invoke("hooks", "install", "gemini").exit_code == 0
    assert OURS in (other / ".gemini" / "settings.json").read_text()
    assert not (isolated_home / ".gemini").exists()
    agents = {(c["agent"], c["scope"]): c["events"] for c in cli_json("hooks", "status")["configs"]}
    assert agents[("gemini", "user")] == agents[("gemini", "project")] == len(GEMINI_EVENTS)


def test_codex_still_has_no_hooks_to_install() -> None:
    result = invoke("hooks", "install", "codex")
    assert result.exit_code == 2
    assert "codex has no hooks to install" in result.stderr and "gemini" in result.stderr


# --- agentscan hook --agent gemini: the events and the tree ----------------------------------------


def _payload(event: str, at_ms: int, **fields: Any) -> dict[str, Any]:
    from hooks_builders import iso_at

    return {"session_id": SESSION, "transcript_path": f"/h/.gemini/tmp/ab12/chats/session-{SESSION[:8]}.json",
            "cwd": "/work/repo", "hook_event_name": event, "timestamp": iso_at(at_ms), **fields}


def _store(root: Path, payloads: list[dict[str, Any]], agent: str = "gemini") -> None:
    for n, payload in enumerate(payloads):
        capture.capture(str(root), agent, orjson.dumps(payload), BASE_NS + n * MS)


def _turn(root: Path) -> list[dict[str, Any]]:
    shell = {"command": "ls"}
    read = {"absolute_path": "/work/repo/a.txt"}
    failed = {"llmContent": "", "returnDisplay": "", "error": {"message": "exit code 1", "type": "shell"}}
    return [
        _payload("SessionStart", 0, source="startup"),
        _payload("BeforeAgent", 1000, prompt="list the files"),
        _payload("BeforeTool", 2000, tool_name="run_shell_command", tool_input=shell),
        _payload("BeforeTool", 2100, tool_name="read_file", tool_input=read),
        # completions in another order than the requests: paired by name and input (no id is sent)
        _payload("AfterTool", 3000, tool_name="read_file", tool_input=read,
                 tool_response={"llmContent": "x", "returnDisplay": "x"}),
        _payload("AfterTool", 3500, tool_name="run_shell_command", tool_input=shell, tool_response=failed),
        _payload("AfterAgent", 4000, prompt="list the files", prompt_response="done", stop_hook_active=False),
        _payload("SessionEnd", 5000, reason="exit"),
    ]


def test_the_hook_replies_json_and_stores_under_gemini(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    import io
    import sys

    raw = orjson.dumps(_payload("BeforeAgent", 0, prompt="hi"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    capture.run("gemini")
    assert capfdbinary.readouterr().out == b"{}\n"  # Gemini CLI reads stdout as JSON: nothing else
    root = store.data_dir()
    (session,) = store.stored_sessions(root)
    assert (session.agent, session.session_id) == ("gemini", SESSION)


def test_a_gemini_payload_without_agent_is_told_by_its_event_names(isolated_home: Path) -> None:
    root = Path(store.data_dir())
    _store(root, [_payload("BeforeTool", 0, tool_name="read_file", tool_input={})], agent="")
    assert [s.agent for s in store.stored_sessions(str(root))] == ["gemini"]


def test_a_gemini_session_becomes_a_tree(isolated_home: Path) -> None:
    root = Path(store.data_dir())
    _store(root, _turn(root))
    document = cli_json("trace", f"gemini:{SESSION[:8]}")
    session = document["session"]
    assert session["agent"] == "gemini" and session["status"] == "ended" and session["workspace"] == "/work/repo"
    assert session["transcript_session_id"] is None  # the chat it names is not on disk: its id is unknown
    (turn,) = document["turns"]
    assert turn["prompt"] == "list the files" and turn["summary"]["status"] == "completed"
    calls = {call["name"]: call for call in tool_calls(turn["nodes"])}
    assert calls["read_file"]["status"] == "ok" and calls["read_file"]["provenance"] == "inferred"
    assert calls["run_shell_command"]["status"] == "error"
    assert calls["run_shell_command"]["detail"]["error"] == "exit code 1"
    assert not [n for n in walk(turn["nodes"]) if n["provenance"] == "orphan"]
    summary = document["summary"]
    assert (summary["tool_calls"], summary["failures"], summary["shell_commands"], summary["file_reads"]) == (2, 1, 1, 1)
    assert [n["name"] for n in session["nodes"]] == ["SessionStart", "SessionEnd"]
    text = invoke("trace", f"gemini:{SESSION[:8]}").stdout
    assert "tool read_file  /work/repo/a.txt  ok" in text  # (its path under ``absolute_path``)
    assert "tool run_shell_command  ls  error" in text


def test_two_turns_of_a_gemini_session_are_told_apart(isolated_home: Path) -> None:
    root = Path(store.data_dir())
    from hooks_builders import iso_at

    first = _turn(root)[1:-1]  # BeforeAgent … AfterAgent: no turn id, so a derived turn each
    second = [{**p, "timestamp": iso_at(10_000 + n * 100)} for n, p in enumerate(first)]
    _store(root, [*first, *second])
    document = cli_json("trace", f"gemini:{SESSION}")
    assert len(document["turns"]) == 2
    assert [t["summary"]["tool_calls"] for t in document["turns"]] == [2, 2]
