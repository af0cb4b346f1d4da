"""``hooks install`` / ``uninstall`` given the product name of an agent that has no hooks to
install (``Codex_CLI``, ``codex-cli``: what the README's table calls it) say so, as the
bare ``codex`` does, rather than list the choices with no word of why.  (Gemini CLI has hooks
since pass 56: ``gemini-cli`` is read as ``gemini``, tests/test_hooks_gemini_pass56.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


@pytest.mark.parametrize("command", ["install", "uninstall"])
@pytest.mark.parametrize(("typed", "provider"), [("codex-cli", "codex"), ("Codex_CLI", "codex"),
                                                 ("codex", "codex")])
def test_a_product_name_without_hooks_is_said_so(command: str, typed: str, provider: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "fake-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    result = runner.invoke(app, ["hooks", command, typed])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {provider} has no hooks to install: agentscan reads its sessions "
                                    "from its files; hooks are for cursor, claude, gemini\n")
    assert list(home.iterdir()) == []  # nothing written


@pytest.mark.parametrize(("typed", "said"), [
    ("claude-code", "error: unknown AGENT 'claude-code' (did you mean claude?)"),
    ("anysphere", "error: unknown AGENT 'anysphere' (did you mean cursor?)"),
    ("openai", "(OpenAI's models run in codex and cursor sessions: hooks install names the agent)"),
])
def test_other_names_are_answered_as_before(typed: str, said: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(app, ["hooks", "install", typed])
    assert result.exit_code == 2 and said in result.stderr
