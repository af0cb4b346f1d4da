"""A ``--cwd`` means the same to the library as to the CLI: relative to here, ``~`` the home,
and a Windows path as it is (a copied Windows home read on Linux)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.scan.cwdmatch import asked_directory
from agentscan.scan.listing import ListFilter


def test_a_relative_or_home_directory_is_taken_as_a_shell_takes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    isolated_home: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert asked_directory(".") == str(tmp_path)
    assert asked_directory("~/src") == str(isolated_home / "src")
    # The library's list filter as the CLI's: ``.`` is here, not a name nothing is.
    assert ListFilter(cwd=".").holds_cwd(str(tmp_path / "app"))
    assert ListFilter(cwd="~").holds_cwd(str(isolated_home / "src"))


def test_a_windows_directory_is_kept_as_given_on_posix() -> None:
    assert asked_directory(r"C:\Users\me\App") == r"C:\Users\me\App"
    assert ListFilter(cwd=r"C:\Users\me\App").holds_cwd("c:/Users/me/App/src")
