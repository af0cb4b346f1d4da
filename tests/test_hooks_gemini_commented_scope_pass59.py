"""Gemini CLI's settings with comments, judged for a second run of agentscan's hook (pass 59).

Gemini CLI reads settings.json with its comments blanked (``strip-json-comments``) and runs
the equal entries of the user's and the project's files once (``hookPlanner.ts``
``deduplicateHooks``, keyed ``name:command``).  An install refuses to write into a file with
comments, but a file it only reads (the other scope's, where a user wrote a comment after an
install) is read as Gemini CLI reads it.  ``files_run_twice`` parsed it as an install does:
a comment made the same entry "run twice", and installing in the other scope warned of it
(``--strict`` failed).
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
