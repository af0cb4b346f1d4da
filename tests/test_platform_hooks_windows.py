"""`hooks install` on Windows (simulated: ``os.name`` is ``"nt"``): the hook command names the
program with forward slashes, which Git Bash (how Claude Code runs hooks there) does not take
for escapes, and `doctor` says an older install's backslashed command needs a reinstall."""

from __future__ import annotations

import os
import shutil
import sys
import types
from pathlib import Path

import pytest

from hooks_builders import write_json
from agentscan.hooks import configreport, install, program, status
from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS, hook_command, is_ours, shell_word
from agentscan.hooks.status import hooks_report
from agentscan.toolkit import onpath

OLD = r"C:\Users\me\.venv\Scripts\agentscan.exe hook --agent claude"
NEW = "C:/Users/me/.venv/Scripts/agentscan.exe hook --agent claude"


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """``os`` as the installer and ``doctor``'s check see it on Windows: ``os.name`` is ``"nt"``
    in those modules only (for the whole process, pathlib would refuse every ``Path`` here)."""
    nt = types.ModuleType("os")
    nt.__dict__.update(os.__dict__)
    nt.name = "nt"
    monkeypatch.setattr(install, "os", nt)
    monkeypatch.setattr(program, "os", nt)
    monkeypatch.setattr(status, "os", nt)
    monkeypatch.setattr(configreport, "os", nt)  # (one config's check: ``_program``, ``_bash_strips``)
    monkeypatch.setattr(onpath, "os", nt)  # (``program.which``'s walk of ``PATH``)


def claude_config(command: str) -> dict:
    return {"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}] for event in CLAUDE_EVENTS}}


def test_a_windows_path_is_written_with_forward_slashes_and_quoted_only_when_it_must(windows: None) -> None:
    assert shell_word(r"C:\Users\me\.venv\Scripts\agentscan.exe") == "C:/Users/me/.venv/Scripts/agentscan.exe"
    assert shell_word(r"C:\Users\José\agentscan.exe") == "C:/Users/José/agentscan.exe"  # a letter needs no quotes
    # A space: double quotes, which Git Bash and cmd take (PowerShell needs ``&``: docs/cli-hooks.md).
    assert shell_word(r"C:\Users\John Smith\.local\bin\agentscan.exe") == '"C:/Users/John Smith/.local/bin/agentscan.exe"'
    assert shell_word(r"D:\tools,old\agentscan.exe") == '"D:/tools,old/agentscan.exe"'  # cmd splits at a comma
    # What bash would expand inside double quotes goes in single ones.
    assert shell_word(r"C:\Users\me$\agentscan.exe") == "'C:/Users/me$/agentscan.exe'"
    assert shell_word("") == '""'


def test_elsewhere_a_word_is_quoted_as_a_posix_shell_reads_it() -> None:
    assert shell_word("/home/me/my venv/bin/agentscan") == "'/home/me/my venv/bin/agentscan'"
    assert shell_word("/opt/a\\b/agentscan") == "'/opt/a\\b/agentscan'"  # a backslash is a name's own there


def test_the_installed_command_is_the_console_script_s_exe(windows: None, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    # A console script's launcher leaves ``.exe`` out of argv[0]: the program is the .exe beside it.
    exe = tmp_path / "Scripts" / "agentscan.exe"
    exe.parent.mkdir()
    exe.write_bytes(b"MZ")
    monkeypatch.setattr(sys, "argv", [str(exe.with_suffix(""))])
    assert hook_command("claude") == f"{exe} hook --agent claude"


def test_a_program_found_on_path_keeps_the_exe_spelling_agentscan_knows_as_its_own(
        windows: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # shutil.which spells the extension as PATHEXT does (``.EXE``): ``agentscan.EXE hook`` would not
    # be recognised as agentscan's entry by a later install, uninstall or doctor.
    monkeypatch.setattr(sys, "argv", ["python"])
    monkeypatch.setattr(sys, "executable", "")  # an embedded Python: ``PATH``'s is the one guess left
    monkeypatch.setattr(shutil, "which", lambda name: r"C:\Users\me\.venv\Scripts\agentscan.EXE")
    command = hook_command("claude")
    assert command == NEW
    assert is_ours({"command": command})


def test_a_reinstall_replaces_an_older_install_s_backslashed_command(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    write_json(path, claude_config(OLD))
    plan = install.plan("claude", path, install=True, command=NEW)
    assert plan.after is not None and OLD.replace("\\", "\\\\") not in plan.after and NEW in plan.after
    assert {replaced.action for replaced in plan.replaced} == {"updated"}


def test_doctor_says_an_older_install_s_backslashed_claude_command_runs_nothing(
        windows: None, isolated_home: Path) -> None:
    write_json(isolated_home / ".claude" / "settings.json", claude_config(OLD))
    [config] = hooks_report(home=isolated_home, cwd=isolated_home, env={"PATH": ""})["configs"]
    assert config["events"] == len(CLAUDE_EVENTS)  # still agentscan's
    assert config["problem"] == (
        r"the hook runs C:\Users\me\.venv\Scripts\agentscan.exe unquoted, and Git Bash, which Claude Code runs "
        "hooks with on Windows when it is installed, takes its backslashes for escapes and runs nothing; run "
        "`agentscan hooks install claude` again (it writes the path with forward slashes)")


@pytest.mark.parametrize("command", [NEW, '"C:/Users/John Smith/agentscan.exe" hook --agent claude',
                                     r'"C:\Users\John Smith\agentscan.exe" hook --agent claude',
                                     # as docs/cli-hooks.md says to write it for PowerShell
                                     '& "C:/Users/John Smith/agentscan.exe" hook --agent claude'])
def test_doctor_finds_no_problem_in_a_command_its_shell_reads_whole(windows: None, isolated_home: Path,
                                                                    command: str) -> None:
    write_json(isolated_home / ".claude" / "settings.json", claude_config(command))
    [config] = hooks_report(home=isolated_home, cwd=isolated_home, env={"PATH": ""})["configs"]
    assert config["events"] == len(CLAUDE_EVENTS) and config["problem"] is None
    if "/" in command:  # (a backslashed path is a path only where os.sep is one: not on this Linux)
        assert config["note"] is None  # not a program named ``&``


def test_cursor_s_backslashed_command_is_no_problem(windows: None, isolated_home: Path) -> None:
    # Cursor runs its hooks through PowerShell on Windows, which keeps backslashes.
    command = OLD.replace("claude", "cursor")
    write_json(isolated_home / ".cursor" / "hooks.json",
               {"version": 1, "hooks": {event: [{"command": command}] for event in CURSOR_EVENTS}})
    [config] = hooks_report(home=isolated_home, cwd=isolated_home, env={"PATH": ""})["configs"]
    assert config["events"] == len(CURSOR_EVENTS) and config["problem"] is None


def test_an_entry_an_earlier_windows_install_wrote_as_exe_upper_case_is_ours() -> None:
    """``shutil.which`` on Windows spells the extension as PATHEXT does (``.EXE``): an entry an
    earlier install wrote so is agentscan's, to update and to uninstall, not a stranger's."""
    from agentscan.hooks.merging import is_ours

    assert is_ours({"type": "command", "command": r"C:\Users\me\.venv\Scripts\agentscan.EXE hook --agent claude"})
    assert is_ours({"type": "command", "command": "C:/Users/me/.venv/Scripts/agentscan.exe hook --agent claude"})
    assert not is_ours({"type": "command", "command": "C:/tools/notagentscan.EXE hook --agent claude"})
