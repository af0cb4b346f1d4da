"""The program `hooks install` writes runs later from any ``PATH``: an agentscan run as
``python -m agentscan`` from a venv that is not on ``PATH`` writes its venv's console script (or
that Python with ``-m agentscan``), never ``agentscan`` by name; one run from uvx's or pipx run's
cache is warned about at install and noted by ``doctor``; ``doctor``'s "another agentscan" note
takes a console script and ``python -m agentscan`` of the same venv for the same install."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hooks_builders import venv, write_json
from agentscan.hooks.install import CLAUDE_EVENTS, hook_command, is_ours
from agentscan.hooks.program import temporary_place
from agentscan.hooks.status import hooks_report


def module_run(monkeypatch: pytest.MonkeyPatch, bin_dir: Path) -> None:
    """``<bin_dir>/python -m agentscan …``, with an empty ``PATH``."""
    monkeypatch.setattr(sys, "argv", [str(Path(__file__).parent / "agentscan" / "__main__.py"), "hooks"])
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setenv("PATH", "")


def test_python_m_writes_the_console_script_beside_its_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = venv(tmp_path / "my venv")
    module_run(monkeypatch, bin_dir)
    command = hook_command("claude")
    assert command == f"'{bin_dir / 'agentscan'}' hook --agent claude"  # not ``agentscan`` by name
    assert is_ours({"command": command})


def test_python_m_without_a_console_script_writes_that_python_with_m(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = venv(tmp_path / "venv", script=False)
    module_run(monkeypatch, bin_dir)
    command = hook_command("cursor")
    assert command == f"{bin_dir / 'python'} -m agentscan hook --agent cursor"
    assert is_ours({"command": command})  # the last helper's rule: only what install writes is ours
    for python in ("python3.13t", "pypy3"):
        assert is_ours({"command": f"/v/bin/{python} -m agentscan hook --agent cursor"})


def claude_config(command: str) -> dict:
    return {"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}] for event in CLAUDE_EVENTS}}


def note(home: Path) -> str | None:
    [config] = hooks_report(home=home, cwd=home, env={"PATH": ""})["configs"]
    assert config["problem"] is None
    return config["note"]


def test_doctor_takes_a_script_and_python_m_of_one_venv_for_the_same_agentscan(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours, other = venv(tmp_path / "venv", script=False), venv(tmp_path / "old")
    module_run(monkeypatch, ours)
    write_json(isolated_home / ".claude" / "settings.json", claude_config(hook_command("claude")))
    assert note(isolated_home) is None  # before: "the hook runs …/venv/bin/python, not this agentscan"
    (ours / "agentscan").write_text("#!/bin/sh\n")  # doctor run as the console script of that same venv
    (ours / "agentscan").chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(ours / "agentscan"), "doctor"])
    assert note(isolated_home) is None
    monkeypatch.setattr(sys, "argv", [str(other / "agentscan"), "doctor"])  # another venv's: said
    # ``agentscan`` on this PATH is not that venv's (PATH is empty): the hint names the program that ran
    assert note(isolated_home) == (f"the hook runs {ours / 'python'} -m agentscan, not this agentscan "
                                   f"({other / 'agentscan'}); to capture with this one, run "
                                   f"`{other / 'agentscan'} hooks install claude`")
    monkeypatch.setenv("PATH", str(other))  # that venv on PATH: the short name runs it
    assert (note(isolated_home) or "").endswith("run `agentscan hooks install claude`")


@pytest.mark.parametrize(("where", "says"), [
    ("home/.cache/uv/archive-v0/Ab12/bin/agentscan", "uv's cache"),
    ("elsewhere/uv-cache/archive-v0/Ab12/bin/agentscan", "uv's cache"),  # UV_CACHE_DIR moved it
    ("home/.local/share/pipx/.cache/0f3a/bin/agentscan", "pipx's cache"),
    ("home/.local/pipx/.cache/0f3a/bin/agentscan", "pipx's cache"),
    ("home/.cache/something/bin/agentscan", "a cache directory"),
    ("home/.local/bin/agentscan", None),  # uv tool install's, pipx install's link: it stays
    ("home/project/.venv/bin/agentscan", None),
])
def test_a_program_in_a_tool_runner_s_cache_is_told(tmp_path: Path, where: str, says: str | None) -> None:
    place = temporary_place(str(tmp_path / where), {"HOME": str(tmp_path / "home")})
    assert (place or "").startswith(says or "") and (place is None) == (says is None)


def test_install_from_uvx_s_cache_warns_and_doctor_notes_it(isolated_home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          ) -> None:
    from hooks_builders import ok

    bin_dir = venv(tmp_path / "cache" / "uv" / "archive-v0" / "Xy9")
    monkeypatch.setattr(sys, "argv", [str(bin_dir / "agentscan"), "hooks", "install", "claude"])
    monkeypatch.setenv("PATH", "")
    result = ok("hooks", "install", "claude")
    assert f"warning: {bin_dir / 'agentscan'}: the hook runs agentscan from uv's cache" in result.stderr
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert settings["hooks"]["Stop"][0]["hooks"][0]["command"] == f"{bin_dir / 'agentscan'} hook --agent claude"
    assert (note(isolated_home) or "").startswith(f"the hook runs {bin_dir / 'agentscan'}, in uv's cache")


def test_doctor_run_by_uvx_does_not_tell_to_move_the_hook_to_uvx_s_copy(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = venv(tmp_path / "venv")
    write_json(isolated_home / ".claude" / "settings.json", claude_config(f"{kept / 'agentscan'} hook --agent claude"))
    uvx = venv(tmp_path / "uv" / "archive-v0" / "Q1")
    monkeypatch.setattr(sys, "argv", [str(uvx / "agentscan"), "doctor"])
    assert note(isolated_home) is None  # before: "… not this agentscan (…/archive-v0/…); run hooks install"
