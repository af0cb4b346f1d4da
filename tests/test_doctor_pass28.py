"""`doctor` as a demanding user read it: a hook installed under a narrower matcher is said to
be narrowed, with the command that widens it; a command agentscan suggests keeps the
``--home`` it was run with (doctor's and ``hooks install``'s); no made-up Codex database
path, no jargon in the roots' notes."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner, Result

from hooks_builders import ok, write_json
from agentscan.hooks.install import CLAUDE_EVENTS, hook_command
from codex_builders import at, index_row, meta, rollout_path, turn_context, user_message, write_rollout, write_state_db

runner = CliRunner()
T1 = "019a0000-0000-7000-8000-0000000000a1"


def claude_group(matcher: str | None = None, command: str | None = None) -> dict:
    group: dict = {"hooks": [{"type": "command", "command": command or hook_command("claude")}]}
    return group if matcher is None else {"matcher": matcher, **group}


def hooks_of(*args: str) -> dict:
    return orjson.loads(ok(*args, "doctor", "--json").stdout)["hooks"]


def suggested(text: str, prefix: str) -> list[str]:
    """The commands in backquotes, starting with ``prefix``, that a line of ``text`` suggests."""
    return [part for line in text.splitlines() for part in line.split("`")[1::2] if part.startswith(prefix)]


def run_suggested(command: str) -> Result:
    argv = shlex.split(command)
    assert argv[0] == "agentscan"
    return ok(*argv[1:])


# --- 1: a hook under a narrower matcher ---------------------------------------------------

def test_an_entry_under_a_bash_matcher_is_installed_but_narrowed(isolated_home: Path) -> None:
    config = {"hooks": {event: [claude_group()] for event in CLAUDE_EVENTS}}
    config["hooks"]["PreToolUse"] = [claude_group("Bash")]
    config["hooks"]["Stop"] = [claude_group("Bash")]  # Claude Code ignores a matcher on Stop: it sees it all
    write_json(isolated_home / ".claude" / "settings.json", config)
    [claude] = hooks_of()["installed"]
    assert claude["events"] == len(CLAUDE_EVENTS)
    assert claude["narrowed"] == [{"event": "PreToolUse", "matchers": ["Bash"]}]
    out = ok("doctor").stdout
    assert f"{len(CLAUDE_EVENTS)}/{len(CLAUDE_EVENTS)} events, 1 narrowed" in out
    [line] = [line for line in out.splitlines() if "narrowed:" in line]
    assert 'on PreToolUse (matcher "Bash") it captures only the tools its matcher names' in line
    # The fix it names is the one that works: after it, nothing is narrowed any more.
    [fix] = suggested(out, "agentscan hooks")
    assert fix == "agentscan hooks install claude"
    run_suggested(fix)
    [claude] = hooks_of()["installed"]
    assert claude["narrowed"] == [] and "narrowed" not in ok("doctor").stdout


def test_an_entry_for_every_tool_beside_a_narrower_one_is_not_narrowed(isolated_home: Path) -> None:
    write_json(isolated_home / ".claude" / "settings.json", {"hooks": {
        "PostToolUse": [claude_group("Edit|Write"), claude_group("*")],
        "PreToolUse": [claude_group("")],
    }})
    [claude] = hooks_of()["installed"]
    assert (claude["events"], claude["narrowed"]) == (2, [])


def test_a_cursor_entry_with_a_matcher_is_narrowed(isolated_home: Path) -> None:
    write_json(isolated_home / ".cursor" / "hooks.json", {"version": 1, "hooks": {
        "preToolUse": [{"command": hook_command("cursor"), "matcher": "Shell"}],
        "stop": [{"command": hook_command("cursor"), "matcher": ""}],
    }})
    [cursor] = hooks_of()["installed"]
    assert cursor["narrowed"] == [{"event": "preToolUse", "matchers": ["Shell"]}]
    [fix] = suggested(ok("doctor").stdout, "agentscan hooks")
    assert fix == "agentscan hooks install cursor"


def test_in_a_project_the_fix_names_the_project_scope(isolated_home: Path, project: Path) -> None:
    write_json(project / ".claude" / "settings.local.json", {"hooks": {"PostToolUse": [claude_group("Bash")]}})
    [fix] = suggested(ok("doctor").stdout, "agentscan hooks")
    assert fix == "agentscan hooks install claude --scope project"
    run_suggested(fix)
    assert all(not config["narrowed"] for config in hooks_of()["configs"])


def test_in_the_shared_settings_an_older_agentscan_wrote_the_fix_cleans_them(isolated_home: Path,
                                                                             project: Path) -> None:
    # An install no longer writes .claude/settings.json in a project: installing again would
    # leave the narrowed entry there, so the fix is an uninstall (which cleans it), then an install.
    shared = write_json(project / ".claude" / "settings.json", {"hooks": {"PreToolUse": [claude_group("Bash")]}})
    [config] = hooks_of()["configs"]
    assert (config["path"], config["legacy"], config["narrowed"]) == (
        str(shared), True, [{"event": "PreToolUse", "matchers": ["Bash"]}])
    fixes = suggested(ok("doctor").stdout, "agentscan hooks")
    assert fixes == ["agentscan hooks uninstall claude --scope project",
                     "agentscan hooks install claude --scope project"]
    for fix in fixes:
        run_suggested(fix)
    assert [(c["path"], c["events"], c["narrowed"]) for c in hooks_of()["installed"]] == [
        (str(project / ".claude" / "settings.local.json"), len(CLAUDE_EVENTS), [])]


def test_a_matcher_with_an_escape_sequence_is_shown_not_obeyed(isolated_home: Path) -> None:
    write_json(isolated_home / ".claude" / "settings.json", {"hooks": {"PreToolUse": [claude_group("Ba\x1b[2Jsh")]}})
    out = ok("doctor").stdout
    assert "\x1b" not in out and "narrowed:" in out


# --- 2: a suggested command keeps --home ----------------------------------------------------

def test_doctor_with_home_suggests_commands_for_that_home(isolated_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other home"
    settings = write_json(other / ".claude" / "settings.json", {"hooks": {"PreToolUse": [claude_group("Bash")]}})
    out = ok("--home", str(other), "doctor").stdout
    [fix] = suggested(out, "agentscan hooks")
    assert fix == f"agentscan hooks install claude --home '{other}'"
    run_suggested(fix)
    groups = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert [group.get("matcher") for group in groups] == [None]  # widened in that home's settings
    assert not (isolated_home / ".claude").exists()  # the real home was left alone
    empty = tmp_path / "empty"
    empty.mkdir()
    commands = [line.strip() for line in ok("--home", str(empty), "doctor").stdout.splitlines()
                if line.strip().startswith("agentscan hooks install")]
    assert commands == [f"agentscan hooks install {agent} --home {empty}" for agent in ("claude", "cursor", "gemini")]


def test_the_other_scope_warning_keeps_home(isolated_home: Path, project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    ok("--home", str(other), "hooks", "install", "--agent", "claude")
    result = ok("hooks", "install", "--agent", "claude", "--scope", "project", "--home", str(other))
    [warning] = result.stderr.splitlines()
    uninstall_user, uninstall_project = suggested(warning, "agentscan hooks uninstall")
    assert uninstall_user == f"agentscan hooks uninstall claude --scope user --home {other}"
    assert uninstall_project == f"agentscan hooks uninstall claude --scope project --home {other}"
    assert f"`{uninstall_project}` in {project} to remove it from {project / '.claude' / 'settings.local.json'}" in warning
    # Run as printed, it removes the copy in that home (without --home it found nothing to do).
    run_suggested(uninstall_user)
    assert not (other / ".claude" / "settings.json").exists()
    assert ok("hooks", "install", "--agent", "claude", "--scope", "project", "--home", str(other)).stderr == ""


# --- 3: the Codex database, the roots' notes -------------------------------------------------

def codex_home(home: Path) -> Path:
    codex = home / ".codex"
    started = at(1_780_000_000)
    write_rollout(rollout_path(codex, T1, started), [meta(T1, started), turn_context(started), user_message(started, "hello")])
    return codex


def test_no_state_db_is_said_as_what_was_looked_for(isolated_home: Path) -> None:
    codex = codex_home(isolated_home)
    report = orjson.loads(ok("doctor", "--json").stdout)
    [database] = [r for p in report["providers"] for r in p["roots"] if r["kind"] == "database" and p["provider"] == "codex"]
    assert database["path"] == str(codex / "state_*.sqlite") and database["problem"] == "none found"
    assert database["note"].startswith(f"no state_*.sqlite in {codex} (Codex's index of its sessions")
    out = ok("doctor").stdout
    assert "state_5.sqlite" not in out
    [row] = [line for line in out.splitlines() if line.strip().startswith("database") and "state_*.sqlite" in line]
    assert row.split()[1:3] == ["none", "found"]


def test_a_state_db_that_appears_after_a_warm_run_is_read(isolated_home: Path) -> None:
    # The missing database's place is no file any more: its appearance must still be noticed.
    codex = codex_home(isolated_home)
    for _ in range(2):
        [row] = orjson.loads(ok("list", "--json").stdout)["sessions"]
        assert row["title"] == "hello"
    rollout = next((codex / "sessions").rglob("rollout-*.jsonl"))
    write_state_db(codex / "state_7.sqlite", [index_row(T1, rollout, created=at(1_780_000_000),  # newer: its title wins
                                                        updated=at(1_780_000_100), title="from the index")])
    [row] = orjson.loads(ok("list", "--json").stdout)["sessions"]
    assert row["title"] == "from the index"
    database = next(r for p in orjson.loads(ok("doctor", "--json").stdout)["providers"] if p["provider"] == "codex"
                    for r in p["roots"] if r["kind"] == "database")
    assert (database["path"], database["readable"], database["note"]) == (str(codex / "state_7.sqlite"), True, None)


def test_the_roots_notes_are_in_plain_words(isolated_home: Path) -> None:
    notes = {root["path"]: root["note"] for provider in orjson.loads(ok("doctor", "--json").stdout)["providers"]
             for root in provider["roots"] if root["note"]}
    registry = notes[str(isolated_home / ".gemini" / "projects.json")]
    assert "slug" not in registry and "working directory" in registry
    chats = notes[str(isolated_home / ".cursor" / "chats")]
    assert "cwd" not in chats and "working directory" in chats


def test_doctor_run_from_the_home_directory_reports_the_user_file_once(isolated_home: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """From ``~``, the old shared project file ``./.claude/settings.json`` is the user's own:
    told as a project's legacy file, its fix would uninstall the user's capture."""
    from agentscan.hooks.status import hooks_report

    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", '
                        '"command": "agentscan hook --agent claude", "timeout": 5}]}]}}')
    monkeypatch.chdir(isolated_home)
    report = hooks_report(home=isolated_home, cwd=isolated_home, env={})
    claude = [config for config in report["configs"] if config["agent"] == "claude"]
    assert [(config["scope"], config["legacy"]) for config in claude] == [("user", False)]


def test_a_matcher_that_is_not_a_string_is_shown_as_json() -> None:
    from agentscan.cli.hookfix_text import narrowed_text as _narrowed_text

    config = {"agent": "claude", "scope": "user", "narrowed": [{"event": "PreToolUse", "matchers": ["Bash", ["Edit"]]}]}
    text = _narrowed_text(config, "")
    assert 'PreToolUse (matcher "Bash", ["Edit"])' in text
