"""The home on Windows (simulated: ``sys.platform`` is ``"win32"``) is ``USERPROFILE``, as Claude
Code and Gemini CLI (Node's ``os.homedir``), Codex and Python's ``expanduser`` take it; a
``HOME`` there is often another program's (MSYS2, Cygwin, Git Bash's own)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.toolkit.roots import platform_dir


@pytest.fixture
def two_homes(tmp_path: Path) -> dict[str, str]:
    profile, msys = tmp_path / "Users" / "me", tmp_path / "msys64" / "home" / "me"
    profile.mkdir(parents=True)
    msys.mkdir(parents=True)
    return {"USERPROFILE": str(profile), "HOME": str(msys)}


def test_on_windows_the_home_is_userprofile_before_home(monkeypatch: pytest.MonkeyPatch, two_homes: dict) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    ctx = ScanContext.create(env=two_homes)
    assert (ctx.home, ctx.home_source) == (Path(two_homes["USERPROFILE"]), "USERPROFILE")
    ctx = ScanContext.create(env={"HOME": two_homes["HOME"]})  # no USERPROFILE: HOME still serves
    assert (ctx.home, ctx.home_source) == (Path(two_homes["HOME"]), "HOME")


def test_elsewhere_the_home_is_home_before_userprofile(two_homes: dict) -> None:
    ctx = ScanContext.create(env=two_homes)
    assert (ctx.home, ctx.home_source) == (Path(two_homes["HOME"]), "HOME")


def test_doctor_says_the_home_came_from_userprofile(monkeypatch: pytest.MonkeyPatch, two_homes: dict) -> None:
    from agentscan.scan.doctor import diagnose
    from agentscan.scan.scanner import Scanner

    monkeypatch.setattr(sys, "platform", "win32")
    with Scanner(env=two_homes) as scanner:
        report = diagnose(scanner)
    assert (report["home"], report["home_source"]) == (two_homes["USERPROFILE"], "USERPROFILE")


def test_under_home_an_appdata_in_the_profile_is_read_in_the_given_home(monkeypatch: pytest.MonkeyPatch,
                                                                        two_homes: dict, tmp_path: Path) -> None:
    # Cursor's database is under APPDATA, inside the login's profile: a copied home's own is read.
    monkeypatch.setattr(sys, "platform", "win32")
    appdata = str(Path(two_homes["USERPROFILE"]) / "AppData" / "Roaming")
    ctx = ScanContext.create(home=tmp_path / "copy", env={**two_homes, "APPDATA": appdata})
    found = platform_dir(ctx, "APPDATA")
    assert found is not None and found[:2] == (tmp_path / "copy" / "AppData" / "Roaming", "--home")
