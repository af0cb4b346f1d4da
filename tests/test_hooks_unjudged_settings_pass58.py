"""Gemini CLI settings files agentscan cannot judge, said rather than raised or passed over.

A settings file nested deeper than ``json`` decodes raised ``RecursionError`` out of ``hooks
status`` (a traceback: ``configjson.parse``, ``geminionce.SettingsFiles.as_read``,
``configreport.config_report``); now it is a refusal (``HookConfigError``) where a file is
written, and "could not be judged" where it is only read.  And ``hooks install gemini`` read the
other settings files Gemini CLI merges with its own and said nothing of one it could not judge,
which ``hooks status`` says (a review, pass 58).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from builders import cli_json
from agentscan.errors import HookConfigError

#: deeper than ``json`` decodes, with a comment first (Gemini CLI reads comments)
DEEP = "// c\n" + '{"a": ' + "[" * 200_000 + "]" * 200_000 + "}"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _gemini(home: Path, project: Path, scope: str) -> dict[str, Any]:
    from agentscan.hooks.status import hooks_report

    (found,) = [config for config in hooks_report(home=home, cwd=project, env=dict(os.environ))["configs"]
                if config["agent"] == "gemini" and config["scope"] == scope]
    return found


@pytest.mark.parametrize("text", [DEEP, DEEP[5:]], ids=["commented", "plain"])
def test_a_settings_file_nested_too_deep_is_refused_not_raised(tmp_path: Path, text: str) -> None:
    from agentscan.hooks.configjson import parse

    path = _write(tmp_path / "settings.json", text)
    with pytest.raises(HookConfigError, match="too deeply"):
        parse(path, text, "gemini")


@pytest.mark.parametrize("text", [DEEP, DEEP[5:]], ids=["commented", "plain"])
def test_hooks_status_says_a_file_nested_too_deep(isolated_home: Path, tmp_path: Path, text: str) -> None:
    project = tmp_path / "project"
    deep = _write(project / ".gemini" / "settings.json", text)
    _write(isolated_home / ".gemini" / "settings.json", "{}")
    assert "too deeply" in (_gemini(isolated_home, project, "project")["problem"] or "")
    user = _gemini(isolated_home, project, "user")  # (the project's file merged with the user's)
    assert user["note"] is not None and user["note"].startswith(f"{deep} nests"), user
    assert "could not be judged" in user["note"]


def test_hooks_install_says_a_file_it_could_not_judge(isolated_home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    unread = _write(project / ".gemini" / "settings.json", '// set by IT\n{"hooksConfig": {"enabled": false},}\n')
    monkeypatch.chdir(project)
    done = cli_json("hooks", "install", "gemini")
    notes = [warning["message"] for warning in done["warnings"] if "could not be judged" in warning["message"]]
    assert len(notes) == 1 and notes[0].startswith(f"{unread} is not valid JSON"), done["warnings"]
