"""Gemini CLI's settings with comments, judged for a second run of agentscan's hook (pass 59).

Gemini CLI reads settings.json with its comments blanked (``strip-json-comments``) and runs
the equal entries of the user's and the project's files once (``hookPlanner.ts``
``deduplicateHooks``, keyed ``name:command``).  An install refuses to write into a file with
comments, but a file it only reads (the other scope's, where a user wrote a comment after an
install) runs the hook all the same: ``installed_elsewhere`` now reads it as Gemini CLI does
(it skipped it before, so its entry was never warned of).  Two reads judge it, and they must
agree: ``installed_elsewhere`` finds the entry, ``files_run_twice`` says whether Gemini CLI
runs it a second time; read as an install reads it there, the comment would make the same
entry "run twice".  The way out it names is one that works: ``hooks uninstall`` refuses a
file with comments too, so the warning says to edit it by hand, naming the file and the entry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import invoke

OURS = "agentscan hook --agent gemini"


def _comment(path: Path) -> None:
    path.write_text("// my own settings; agentscan's hook below\n" + path.read_text())


def test_the_same_entry_in_a_commented_user_file_is_no_second_run(isolated_home: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    _comment(isolated_home / ".gemini" / "settings.json")
    # (both reads take the commented file as Gemini CLI does: the same entry, run once)
    result = invoke("--strict", "hooks", "install", "gemini", "--scope", "project")
    assert result.exit_code == 0, result.stderr
    assert "also installed" not in result.stderr


def test_another_command_in_a_commented_user_file_is_still_a_second_run(isolated_home: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    user = isolated_home / ".gemini" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text('{\n  // an older install\'s entry, no name\n  "hooks": {"AfterTool": [\n'
                    f'    {{"hooks": [{{"type": "command", "command": "/old/bin/{OURS}"}}]}}]}}\n}}\n')
    result = invoke("--strict", "hooks", "install", "gemini", "--scope", "project")
    assert result.exit_code == 1
    assert "also installed in this file" in result.stderr


def test_a_commented_file_is_said_to_be_edited_by_hand(isolated_home: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # ``hooks uninstall --scope user`` refuses a file with comments: the warning's way out must
    # not be that command, but an edit by hand of that file, naming the entry to remove.
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    user = isolated_home / ".gemini" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text('{\n  // an older install\'s entry, no name\n  "hooks": {"AfterTool": [\n'
                    f'    {{"hooks": [{{"type": "command", "command": "/old/bin/{OURS}"}}]}}]}}\n}}\n')
    result = invoke("--strict", "hooks", "install", "gemini", "--scope", "project")
    assert result.exit_code == 1
    (warning,) = [line for line in result.stderr.splitlines() if "also installed in this file" in line]
    assert "uninstall gemini --scope user" not in warning
    # (the one sentence of an edit by hand, ``mendtext.by_hand``: pass 60)
    assert (f"edit {user} by hand to remove agentscan's entry (`/old/bin/{OURS}`) (`agentscan hooks install` and "
            "`uninstall` will not change it: it holds comments, which agentscan cannot write back), "
            f"or run `agentscan hooks uninstall gemini --scope project` in {project} to remove it from "
            f"{project / '.gemini' / 'settings.json'}") in warning
    # and it is so: that uninstall refuses the file, which is left as it was
    before = user.read_text()
    assert invoke("hooks", "uninstall", "gemini", "--scope", "user").exit_code == 1
    assert user.read_text() == before
