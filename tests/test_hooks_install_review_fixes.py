"""`agentscan hooks install|uninstall`: what a review found. ``-q`` keeps a successful
change silent; an entry of ours that sees only some tools is not taken for an install,
and whatever install replaces or removes is said; a second registration in the other
scope (which the agent would run too) is warned about."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import ok, write_json
from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS, hook_command, is_ours

runner = CliRunner()


def claude_group(command: str, matcher: str | None = None) -> dict:
    group: dict = {"hooks": [{"type": "command", "command": command, "timeout": 5}]}
    return group if matcher is None else {"matcher": matcher, **group}


def ours_per_group(groups: list) -> list[tuple[str | None, list[str]]]:
    return [(group.get("matcher"), [h["command"] for h in group["hooks"] if is_ours(h)]) for group in groups]


# --- A: the global -q ------------------------------------------------------------------

@pytest.mark.parametrize("agent", ["claude", "cursor"])
def test_quiet_install_and_uninstall_print_nothing_on_success(isolated_home: Path, agent: str) -> None:
    path = isolated_home / (".claude/settings.json" if agent == "claude" else ".cursor/hooks.json")
    write_json(path, {"model": "opus"} if agent == "claude" else {"version": 1, "hooks": {"stop": [{"command": "x.sh"}]}})
    for args in (["hooks", "install", "--agent", agent, "-q"],  # the result, the backup, "Restart …"
                 ["-q", "hooks", "install", "--agent", agent],  # nothing to change
                 ["hooks", "uninstall", "--agent", agent, "--quiet"]):
        result = ok(*args)
        assert (result.stdout, result.stderr) == ("", ""), args
    assert "agentscan" not in path.read_text()  # uninstalled, silently
    installed = ok("hooks", "install", "--agent", agent, "-q")
    assert installed.stdout == "" and json.loads(path.read_text())["hooks"]  # silent, not skipped


def test_quiet_keeps_the_output_asked_for_and_the_errors(isolated_home: Path) -> None:
    doc = json.loads(ok("-q", "hooks", "install", "--agent", "claude", "--json", "--dry-run").stdout)
    assert doc["schema"] == "agentscan.hooks/1" and doc["changes"][0]["diff"]
    assert ok("-q", "hooks", "install", "--agent", "claude", "--dry-run").stdout.startswith("--- ")
    bad = write_json(isolated_home / ".claude" / "settings.json", {})
    bad.write_text("{not json")
    refused = runner.invoke(app, ["-q", "hooks", "install", "--agent", "claude"])
    assert refused.exit_code == 1 and str(bad) in refused.stderr and refused.stdout == ""


# --- B: only an entry that sees every tool is an installation ------------------------------

#: ours, with an argument the user added, in a "Bash" group (an ``env FOO=1 …`` wrapper was
#: here: since pass 50 a wrapped command is the user's own hook, never moved)
NARROW = hook_command("claude") + " --otlp-endpoint http://127.0.0.1:4318"


def reviewed_settings(home: Path) -> Path:
    """The reviewer's file: ours inside a "Bash" group, and two copies of ours on Stop."""
    return write_json(home / ".claude" / "settings.json", {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "lint.sh"},
            {"type": "command", "command": NARROW}]}],
        "Stop": [claude_group(hook_command("claude")), claude_group("/other/agentscan hook --agent claude")],
    }})


def test_an_entry_in_a_bash_matcher_group_is_moved_to_one_for_every_tool(isolated_home: Path) -> None:
    path = reviewed_settings(isolated_home)
    out = ok("hooks", "install", "--agent", "claude").stdout
    hooks = json.loads(path.read_text())["hooks"]
    # Their Bash hook stays in its group; ours, with the argument the user added, sees every tool, once.
    assert ours_per_group(hooks["PreToolUse"]) == [("Bash", []), (None, [NARROW])]
    assert hooks["PreToolUse"][0]["hooks"] == [{"type": "command", "command": "lint.sh"}]
    assert ours_per_group(hooks["Stop"]) == [(None, [hook_command("claude")])]
    # Everything the install did besides adding is said.
    assert f"agentscan hook added to {len(CLAUDE_EVENTS) - 2} claude events" in out
    [moved] = [line for line in out.splitlines() if "PreToolUse" in line]
    assert '"Bash"' in moved and NARROW in moved
    [removed] = [line for line in out.splitlines() if "/other/agentscan" in line]
    assert removed.startswith("removed a second agentscan entry from Stop")
    assert "nothing to change" in ok("hooks", "install", "--agent", "claude").stdout


def test_the_json_document_names_what_was_replaced(isolated_home: Path) -> None:
    reviewed_settings(isolated_home)
    [change] = json.loads(ok("hooks", "install", "--agent", "claude", "--json").stdout)["changes"]
    assert change["replaced"] == [
        {"event": "PreToolUse", "action": "widened", "command": NARROW, "matcher": "Bash"},
        {"event": "Stop", "action": "removed", "command": "/other/agentscan hook --agent claude", "matcher": None},
    ]
    assert "PreToolUse" not in change["added"] and "Stop" not in change["added"]
    assert set(change["added"]) == set(CLAUDE_EVENTS) - {"PreToolUse", "Stop"}


def test_a_stale_command_updated_in_place_is_said(isolated_home: Path) -> None:
    path = write_json(isolated_home / ".claude" / "settings.json", {"hooks": {
        event: [claude_group("/old/venv/bin/agentscan hook --agent claude")] for event in CLAUDE_EVENTS}})
    out = ok("hooks", "install", "--agent", "claude").stdout
    assert "added to" not in out
    assert f"updated agentscan's command in {len(CLAUDE_EVENTS)} events (it was /old/venv/bin/agentscan" in out
    assert all(ours_per_group(groups) == [(None, [hook_command("claude")])]
               for groups in json.loads(path.read_text())["hooks"].values())


@pytest.mark.parametrize("matcher", ["", "*"])
def test_a_match_all_group_is_an_installation(isolated_home: Path, matcher: str) -> None:
    # "*", "" and no matcher at all match every tool; and on Stop a matcher is ignored.
    config = {"hooks": {event: [claude_group(hook_command("claude"), matcher)] for event in CLAUDE_EVENTS}}
    config["hooks"]["Stop"] = [claude_group(hook_command("claude"), "Bash")]
    path = write_json(isolated_home / ".claude" / "settings.json", config)
    before = path.read_text()
    assert "nothing to change" in ok("hooks", "install", "--agent", "claude").stdout
    assert path.read_text() == before


def test_an_entry_in_a_narrower_group_and_one_for_every_tool_keeps_the_latter(isolated_home: Path) -> None:
    path = write_json(isolated_home / ".claude" / "settings.json", {"hooks": {"PostToolUse": [
        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt.sh"},
                                            {"type": "command", "command": hook_command("claude")}]},
        claude_group(hook_command("claude")),
    ]}})
    out = ok("hooks", "install", "--agent", "claude").stdout
    groups = json.loads(path.read_text())["hooks"]["PostToolUse"]
    assert ours_per_group(groups) == [("Edit|Write", []), (None, [hook_command("claude")])]
    assert 'removed a second agentscan entry from PostToolUse (under the matcher "Edit|Write")' in out


def test_a_cursor_entry_of_ours_with_a_matcher_loses_it(isolated_home: Path) -> None:
    path = write_json(isolated_home / ".cursor" / "hooks.json", {"version": 1, "hooks": {
        "preToolUse": [{"command": hook_command("cursor"), "matcher": "Shell", "timeout": 9}]}})
    out = ok("hooks", "install", "--agent", "cursor").stdout
    assert json.loads(path.read_text())["hooks"]["preToolUse"] == [{"command": hook_command("cursor"), "timeout": 9}]
    assert 'removed the matcher "Shell" from agentscan\'s entry in preToolUse' in out
    assert f"added to {len(CURSOR_EVENTS) - 1} cursor events" in out


# --- C: installed for the user and in the project ------------------------------------------

@pytest.mark.parametrize("agent", ["claude", "cursor"])
def test_installing_in_the_other_scope_warns_of_the_double_registration(isolated_home: Path, project: Path,
                                                                       agent: str) -> None:
    user = isolated_home / (".claude/settings.json" if agent == "claude" else ".cursor/hooks.json")
    local = project / (".claude/settings.local.json" if agent == "claude" else ".cursor/hooks.json")
    assert ok("hooks", "install", "--agent", agent).stderr == ""  # nothing elsewhere yet
    result = ok("hooks", "install", "--agent", agent, "--scope", "project")
    assert local.is_file()  # warned, not refused
    [warning] = result.stderr.splitlines()
    assert warning.startswith(f"warning: {user}: agentscan's hook is also installed in this file")
    assert f"agentscan hooks uninstall {agent} --scope user" in warning
    # And the other way round, also when there is nothing to change; --json carries it.
    doc = json.loads(ok("hooks", "install", "--agent", agent, "--json").stdout)
    [entry] = doc["warnings"]
    assert entry["path"] == str(local) and f"--scope project` in {project}" in entry["message"]
    assert ok("-q", "hooks", "install", "--agent", agent).stderr == ""  # --quiet: no warnings on stderr


def test_the_shared_project_settings_an_older_agentscan_wrote_count_too(isolated_home: Path, project: Path) -> None:
    shared = write_json(project / ".claude" / "settings.json", {"hooks": {"Stop": [claude_group(hook_command("claude"))]}})
    result = ok("hooks", "install", "--agent", "claude", "--scope", "project")
    [warning] = result.stderr.splitlines()
    assert warning.startswith(f"warning: {shared}: agentscan's hook is also installed in this file (1 claude event)")


def test_no_warning_for_the_same_file_or_one_that_cannot_be_read(isolated_home: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(isolated_home)  # the project is the home: one file, not two
    ok("hooks", "install", "--agent", "cursor")
    assert ok("hooks", "install", "--agent", "cursor", "--scope", "project").stderr == ""
    broken = write_json(isolated_home / ".claude" / "settings.local.json", {})
    broken.write_text("{not json")
    assert ok("hooks", "install", "--agent", "claude").stderr == ""
