"""A hint that tells the user to run agentscan (``doctor``'s, ``hooks status``'s, a reinstall's)
names ``agentscan`` only when that name on ``PATH`` runs this agentscan: one installed in a venv
that is not on ``PATH``, run by its path or as ``python -m agentscan``, is named as it ran
(shell-quoted), since a pasted ``agentscan …`` would fail or run another install.  When it
cannot tell (run from a test, a library), ``agentscan``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hooks_builders import venv, write_json
from agentscan.hooks.install import CLAUDE_EVENTS
from agentscan.hooks.program import agentscan_word
from agentscan.hooks.status import hooks_report


def ran_as(monkeypatch: pytest.MonkeyPatch, bin_dir: Path, *, module: bool = False, path: str = "") -> None:
    argv0 = Path(__file__).parent / "agentscan" / "__main__.py" if module else bin_dir / "agentscan"
    monkeypatch.setattr(sys, "argv", [str(argv0), "doctor"])
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setenv("PATH", path)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX quoting")
def test_a_venv_not_on_path_is_named_by_its_path_quoted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = venv(tmp_path / "my venv")
    ran_as(monkeypatch, bin_dir)
    assert agentscan_word() == f"'{bin_dir / 'agentscan'}'"
    # ``python -m agentscan``: as it was run (pass 57; its venv's console script before, which
    # its ``Try '… --help'`` named under a ``Usage: python -m agentscan``)
    ran_as(monkeypatch, bin_dir, module=True)
    assert agentscan_word() == f"'{bin_dir / 'agentscan'}'"  # (what the hook would run)
    from agentscan.invocation import program_word

    assert program_word() == f"'{bin_dir / 'python'}' -m agentscan"


def test_python_m_without_a_console_script_is_named_with_m(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = venv(tmp_path / "venv", script=False)
    ran_as(monkeypatch, bin_dir, module=True, path=str(venv(tmp_path / "other")))  # another's on PATH
    assert agentscan_word() == f"{bin_dir / 'python'} -m agentscan"


def test_agentscan_on_path_that_is_this_one_stays_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = venv(tmp_path / "venv")
    ran_as(monkeypatch, bin_dir, path=str(bin_dir))
    assert agentscan_word() == "agentscan"
    link_dir = tmp_path / "local-bin"  # pipx / uv tool: a link on PATH into the venv
    link_dir.mkdir()
    (link_dir / "agentscan").symlink_to(bin_dir / "agentscan")
    ran_as(monkeypatch, bin_dir, path=str(link_dir))
    assert agentscan_word() == "agentscan"
    ran_as(monkeypatch, bin_dir, module=True, path=str(link_dir))
    assert agentscan_word() == "agentscan"


def test_cannot_tell_keeps_agentscan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/usr/bin/pytest"])  # a test, a library caller
    monkeypatch.setenv("PATH", "")
    assert agentscan_word() == "agentscan"


def test_doctor_s_reinstall_hint_names_the_program_that_ran(isolated_home: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = venv(tmp_path / "venv")
    config = {"hooks": {event: [{"hooks": [{"type": "command", "command": "agentscan hook --agent claude"}]}]
                        for event in CLAUDE_EVENTS}}
    write_json(isolated_home / ".claude" / "settings.json", config)
    ran_as(monkeypatch, bin_dir)
    [found] = hooks_report(home=isolated_home, cwd=isolated_home, env={"PATH": ""})["configs"]
    # before: "(`agentscan hooks install` again …)", which this shell cannot run
    assert f"run `{bin_dir / 'agentscan'} hooks install claude` again" in found["note"]


def test_the_doctor_command_of_no_sessions_found_names_it_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli.state import doctor_command

    bin_dir = venv(tmp_path / "venv")
    ran_as(monkeypatch, bin_dir)
    assert doctor_command().startswith(f"{bin_dir / 'agentscan'} ")
    ran_as(monkeypatch, bin_dir, path=str(bin_dir))
    assert doctor_command().startswith("agentscan ")


def test_an_empty_list_s_hints_name_it_alike(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app

    bin_dir = venv(tmp_path / "venv")
    ran_as(monkeypatch, bin_dir)
    for command, demo in ((["list"], "--demo list"), (["tokens"], "--demo tokens")):
        result = CliRunner().invoke(app, ["--home", str(isolated_home), *command])
        said = " ".join(result.stderr.split())
        assert f"`{bin_dir / 'agentscan'} --home" in said and f"(or try `{bin_dir / 'agentscan'} {demo}`)" in said


def test_a_script_on_path_run_by_this_python_stays_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3 -m agentscan`` of a system Python, agentscan installed with ``pip install --user``:
    ``~/.local/bin/agentscan`` runs that same Python, so the same agentscan."""
    bin_dir = venv(tmp_path / "usr", script=False)
    user_bin = tmp_path / "local-bin"
    user_bin.mkdir()
    (user_bin / "agentscan").write_text(f"#!{bin_dir / 'python'}\nimport agentscan\n")
    (user_bin / "agentscan").chmod(0o755)
    ran_as(monkeypatch, bin_dir, module=True, path=str(user_bin))
    assert agentscan_word() == "agentscan"
    (user_bin / "agentscan").write_text(f"#!{tmp_path / 'other' / 'python'}\n")  # another Python's
    assert agentscan_word() == f"{bin_dir / 'python'} -m agentscan"
