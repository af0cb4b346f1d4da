"""What pyproject.toml, MANIFEST.in, LICENSE and the README's setup promise about the package."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def requirement(name: str, listed: list[str]) -> Requirement:
    found = [parsed for parsed in map(Requirement, listed) if parsed.name == name]
    assert len(found) == 1, f"{name} is not required once in {listed}"
    return found[0]


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    # The TOML table (`{ text = "MIT" }`) is deprecated: setuptools stops building it in 2027.
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "Copyright (c) 2026 the agentscan authors" in text
    # setuptools refuses a "License ::" classifier beside a license expression.
    assert not [name for name in PROJECT["classifiers"] if name.startswith("License ::")]
    setuptools = requirement("setuptools", PYPROJECT["build-system"]["requires"])
    assert "76.1" not in setuptools.specifier and "77.0" in setuptools.specifier  # (license expressions: 77)


@pytest.mark.parametrize(("version", "works"), [
    ("0.15.4", False),  # pins click < 8.2, whose Context has no _protected_args (typer_app reads it)
    ("0.25.1", False),  # no typer._click (grammar_snapshot reads it); no help printed for arguments
    ("0.26.7", False),  # an unknown option's suggestions printed as a tuple
    ("0.27.1", False),  # no typer.exceptions (tests/test_fastpath.py reads it)
    ("0.27.2", True),
    ("0.28.0", True),
    ("0.29.0", False),  # every option through pydantic: ~60 ms more on each start
])
def test_the_typer_bounds_hold_the_versions_checked(version: str, works: bool) -> None:
    assert (version in requirement("typer", PROJECT["dependencies"]).specifier) is works


def test_the_typer_installed_has_what_agentscan_reads() -> None:
    from importlib.metadata import version

    from typer._click.core import Context  # (cli.grammar_snapshot reads typer._click)
    from typer.core import TyperCommand

    assert version("typer") in requirement("typer", PROJECT["dependencies"]).specifier
    assert Context(TyperCommand("list"))._protected_args == []  # (cli.typer_app reads it)


def test_windows_gets_the_zone_data_zoneinfo_reads() -> None:
    tzdata = requirement("tzdata", PROJECT["dependencies"])
    assert tzdata.marker is not None
    assert tzdata.marker.evaluate({"sys_platform": "win32"}) and not tzdata.marker.evaluate({"sys_platform": "linux"})


def test_the_sdist_carries_what_the_tests_need() -> None:
    # setuptools adds tests/test_*.py by itself, but not conftest.py, the builders, the
    # fixtures the tests read or the docs tests/test_docs.py checks.
    lines = set((REPO / "MANIFEST.in").read_text(encoding="utf-8").splitlines())
    assert {"graft tests", "graft fixtures", "graft docs", "include LICENSE README.md"} <= lines


def test_the_readme_says_where_the_cache_and_the_data_are(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from platformdirs.macos import MacOS
    from platformdirs.unix import Unix

    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    for variable in ("XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(variable)
    for dirs in (Unix("agentscan"), MacOS("agentscan")):
        for where in (dirs.user_cache_dir, dirs.user_data_dir):
            assert f"`{where.replace(str(tmp_path), '~')}`" in readme
    assert "`~/.cache/agentscan` on Linux" in readme


def test_the_readme_says_which_python_and_how_to_work_on_agentscan() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Setup", 1)[1].split("\n## ", 1)[0]
    assert "Python 3.11 or newer" in setup and "brew install python" in setup
    assert "### Working on agentscan" in setup and "pip install -e '.[test]'" in setup
