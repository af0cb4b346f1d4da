"""Every hint that names a command to run names the program that ran when bare ``agentscan``
on ``PATH`` would not run it (a venv not on ``PATH``, run by its path): ``list -p``'s and
``--grep``'s suggestions, ``show``'s and ``trace``'s commands to copy, ``trace``'s errors,
``trace --list``'s empty note and click's "Try '… --help'".  The program is worked out once
per run (``invocation.program_word``), not once per hint."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import claude_sessions
from hooks_builders import venv
from agentscan import invocation
from agentscan.cli import app


def ran_as(monkeypatch: pytest.MonkeyPatch, bin_dir: Path) -> str:
    monkeypatch.setattr(sys, "argv", [str(bin_dir / "agentscan"), "list"])
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setenv("PATH", "")
    return str(bin_dir / "agentscan")


def said(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    return " ".join((result.stdout + result.stderr).split())


@pytest.fixture
def program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    return ran_as(monkeypatch, venv(tmp_path / "venv"))


def test_list_p_and_grep_suggestions(isolated_home: Path, program: str) -> None:
    claude_sessions(isolated_home, 1)
    assert f"`{program} --home" in said(["--home", str(isolated_home), "show", "gemini"])  # list -p gemini
    text = said(["--home", str(isolated_home), "show", "99999999"])
    assert f"`{program} --home" in text and "list --grep TEXT`" in text
    assert "`agentscan " not in text


def test_show_and_trace_commands_to_copy(program: str) -> None:
    shown = said(["--demo", "show", "7f3c9a12"])
    assert f"{program} --demo trace claude:7f3c9a12" in shown
    traced = said(["--demo", "trace", "7f3c9a12"])
    assert f"{program} --demo show claude:7f3c9a12" in traced
    assert f"`{program} --demo trace --list`" in said(["--demo", "trace"])


def test_trace_errors_and_empty_list(program: str) -> None:
    from agentscan.errors import NoHookEvents

    assert f"see `{program} hooks install`" in said(["trace", "abcdef12"])
    assert f"(and `{program} trace --list` for the sessions captured)" in str(
        NoHookEvents("abcdef12", store_empty=False))  # a store with events, none of that id
    assert f"see `{program} hooks install`" in said(["trace", "--list"])
    assert f"`{program} --demo trace --list` shows the demo's sessions" in said(["--demo", "trace", "abcdef12"])


def test_a_usage_error_s_help_line(program: str) -> None:
    assert f"Try '{program} list --help' for help." in said(["list", "--bogus"])


def test_a_library_caller_is_told_agentscan(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.errors import NoHookEvents

    monkeypatch.setattr(sys, "argv", ["/usr/bin/pytest"])
    assert "see `agentscan hooks install`" in str(NoHookEvents("x", store_empty=True))


def test_the_program_is_worked_out_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counted() -> str:
        calls.append(1)
        return "prog"

    monkeypatch.setattr("agentscan.hooks.program.agentscan_word", counted)
    ran_as(monkeypatch, venv(tmp_path / "venv"))
    assert [invocation.command("doctor") for _ in range(50)] == ["prog doctor"] * 50
    assert len(calls) == 1
    monkeypatch.setenv("PATH", str(tmp_path))  # another PATH (a test, a library caller): asked again
    invocation.program_word()
    assert len(calls) == 2


def test_usage_errors_and_messages_name_it_too(program: str) -> None:
    from agentscan.errors import SessionUnreadable

    # (with the home the failed command read: pass 57; ``{program} export -f sqlite`` of $HOME before)
    assert f"`{program} --demo export -f sqlite`" in said(["--demo", "tokens", "--by", "day", "--by", "cwd"])
    assert f"Try: {program} tokens --by day" in said(["daily"])
    assert f"Try: {program} --demo list" in said(["--demo"])
    assert f"`{program} doctor`" in str(SessionUnreadable("claude:x", "gone"))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX lookup (Windows asks shutil itself)")
def test_which_finds_what_shutil_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from agentscan.hooks.program import which

    plain, script, folder = tmp_path / "plain", tmp_path / "script", tmp_path / "folder"
    for where in (plain, script, folder):
        where.mkdir()
    (plain / "agentscan").write_text("not executable")
    (script / "agentscan").write_text("#!/bin/sh\n")
    (script / "agentscan").chmod(0o755)
    (folder / "agentscan").mkdir()
    for path in ("", str(plain), f"{folder}:{plain}:{script}", f"{script}:{script}", None):
        if path is None:
            monkeypatch.delenv("PATH")
        else:
            monkeypatch.setenv("PATH", path)
        assert which("agentscan") == shutil.which("agentscan"), path
