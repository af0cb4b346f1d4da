"""Pass 49 (a script author's report): a Claude Code or Cursor root that is a link loop is
said as Codex's and Gemini's are (``cannot list directory``, which ``--strict`` fails on), not
skipped silently; doctor says a root that is a link to nothing is one."""

from __future__ import annotations

import os
from types import SimpleNamespace
from pathlib import Path

import orjson
import pytest

from builders import invoke


@pytest.mark.parametrize("root", [".claude/projects", ".cursor/projects", ".codex/sessions", ".gemini/tmp"])
def test_a_root_that_is_a_link_loop_is_warned_and_fails_strict(isolated_home: Path, root: str) -> None:
    path = isolated_home / root
    path.parent.mkdir(parents=True)
    os.symlink(path.name, path)  # ``projects -> projects``: there, and never listed (ELOOP)
    result = invoke("--strict", "list", "--json")
    warnings = orjson.loads(result.stdout)["warnings"]
    assert [(w["path"], w["message"].split(":")[0]) for w in warnings] == [(str(path), "cannot list directory")], warnings
    assert result.exit_code == 1, result.output


def test_a_root_that_is_a_link_to_nothing_is_quiet_and_doctor_names_its_target(isolated_home: Path) -> None:
    path = isolated_home / ".claude" / "projects"
    path.parent.mkdir(parents=True)
    os.symlink("/nonexistent-target", path)
    result = invoke("--strict", "list", "--json")
    assert result.exit_code == 0 and orjson.loads(result.stdout)["warnings"] == [], result.output
    report = orjson.loads(invoke("doctor", "--json").stdout)
    (claude,) = [p for p in report["providers"] if p["provider"] == "claude"]
    problems = {root["path"]: root["problem"] for root in claude["roots"]}
    assert problems[str(path)] == "does not exist (a symlink to /nonexistent-target)", problems
    assert problems[str(isolated_home / ".config/claude/projects")] == "does not exist", problems
    assert "does not exist (a symlink to /nonexistent-target)" in invoke("doctor").stdout


# --- HOME="": the account's home, not / ------------------------------------------------------

@pytest.fixture
def account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user database's home for this uid, a temporary one: the real one is never read."""
    import pwd

    home = tmp_path / "account"
    (home / ".claude" / "projects").mkdir(parents=True)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: SimpleNamespace(pw_dir=str(home)))
    return home


@pytest.mark.parametrize("env", [{"HOME": ""}, {}, {"HOME": "", "USERPROFILE": ""}])
def test_no_home_variable_is_the_account_s_home(account: Path, env: dict[str, str]) -> None:
    from agentscan.context import ScanContext

    ctx = ScanContext.create(env=env)
    assert (ctx.home, ctx.home_source) == (account, "passwd")


def test_doctor_says_an_empty_home_variable_gave_the_account_s_home(account: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "")
    report = orjson.loads(invoke("doctor", "--json").stdout)
    assert (report["home"], report["home_source"]) == (str(account), "passwd")
    (claude,) = [p for p in report["providers"] if p["provider"] == "claude"]
    assert claude["roots"][0]["path"] == str(account / ".claude" / "projects")
    assert f"home: {account} (from passwd: HOME is empty)" in invoke("doctor").stdout
