"""The snapshot tools write into a source checkout only, never into an installed copy.

``pip install '.[test]'`` (the README's test setup) puts a copy of agentscan in
site-packages; ``python -m agentscan.cli.help_snapshot`` run there rewrote that copy,
and the contributor's ``src/`` kept the stale snapshot.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.cli import grammar_snapshot, help_snapshot


def installed_copy(tmp_path: Path) -> Path:
    """A package directory laid out as pip installs it (no pyproject.toml above it)."""
    package = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "agentscan"
    (package / "cli").mkdir(parents=True)
    return package


def checkout(tmp_path: Path) -> Path:
    """A package directory as a clone holds it: src/agentscan beside pyproject.toml."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "pyproject.toml").write_text("[project]\nname = 'agentscan'\n")
    package = tmp_path / "repo" / "src" / "agentscan"
    (package / "cli").mkdir(parents=True)
    return package


@pytest.mark.parametrize(("tool", "written"), [(help_snapshot, "static_help.py"),
                                               (grammar_snapshot, "cli/static_grammar.py")],
                         ids=["help_snapshot", "grammar_snapshot"])
def test_a_snapshot_tool_refuses_an_installed_copy(tool, written: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    package = installed_copy(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        tool.main(package_dir=package)
    assert stopped.value.code == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"refusing to write {package / written}" in err
    assert "not a source checkout" in err and "pip install -e '.[test]'" in err
    assert not (package / written).exists()


def test_a_src_folder_without_pyproject_is_no_checkout(tmp_path: Path) -> None:
    package = tmp_path / "src" / "agentscan"
    package.mkdir(parents=True)
    with pytest.raises(SystemExit):
        help_snapshot.checkout_file("static_help.py", "help_snapshot", package)


def test_a_checkout_is_written_to(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = checkout(tmp_path)
    assert help_snapshot.checkout_file("static_help.py", "help_snapshot", package) == package / "static_help.py"
    grammar_snapshot.main(package_dir=package)  # (in-process: grammar() reads the Typer app)
    target = package / "cli" / "static_grammar.py"
    assert target.read_text(encoding="utf-8") == grammar_snapshot.module_source(grammar_snapshot.grammar())
    assert capsys.readouterr().out == f"wrote {target}\n"
