"""`list --cwd` compares directories as their file system does: a Windows path in either
separator and any case, a macOS one in any case, through the link the directory asked for may
be (``/tmp`` is ``/private/tmp`` on macOS); a Linux one exactly."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json
from agentscan.scan.listing import ListFilter


def holds(wanted: str, *cwds: str) -> list[bool]:
    filters = ListFilter(cwd=wanted)
    return [filters.holds_cwd(cwd) for cwd in cwds]


def test_a_windows_directory_matches_in_either_separator_and_any_case() -> None:
    # Cursor's workspace folder (``c:/…`` from its file URI), Gemini's lower-cased projects.json path.
    assert holds(r"C:\Users\me\My App", "c:/Users/me/My App", r"c:\users\me\my app\api", "C:/USERS/ME/MY APP/",
                 r"C:\Users\me\My App\.\src") == [True, True, True, True]
    assert holds(r"C:\Users\me\My App", "C:/Users/me/My Apps", "c:/users/me", "D:/Users/me/My App",
                 "/Users/me/My App", None) == [False] * 5
    assert holds("C:\\", "c:/x", "C:\\") == [True, True]  # the drive's root holds all of it
    assert holds(r"\\server\share\app", "//SERVER/share/app/x") == [True]


def test_on_windows_every_directory_compares_as_windows_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert holds(r"C:\Users\me\My App", "c:/users/me/my app/src") == [True]


def test_on_macos_a_directory_matches_in_any_case(monkeypatch: pytest.MonkeyPatch) -> None:
    assert holds("/Users/me/Src/App", "/Users/me/src/app/api") == [False]  # Linux: exact
    monkeypatch.setattr(sys, "platform", "darwin")
    assert holds("/Users/me/Src/App", "/Users/me/src/app/api", "/users/me/SRC/APP", "/Users/me/src/apple") == [
        True, True, False]


def test_on_macos_tmp_and_private_tmp_are_one_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert holds("/private/tmp/x", "/tmp/x/y", "/private/tmp/x") == [True, True]


def test_the_directory_asked_for_counts_under_its_resolved_name_and_its_own(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real)
    assert holds(str(link), str(real / "sub"), str(real), str(link / "sub"), str(tmp_path)) == [True, True, True, False]


def test_linux_compares_exactly_and_the_root_holds_everything() -> None:
    assert holds("/home/me/App", "/home/me/app", "/home/me/App/x", "/home/me/Apps") == [False, True, False]
    assert holds("/", "/home/me", "/") == [True, True]


def test_the_directory_is_resolved_once_not_for_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    filters = ListFilter(cwd="/home/me/app")
    calls: list[str] = []
    monkeypatch.setattr(os.path, "realpath", lambda path, **kw: calls.append(path) or path)
    assert [filters.holds_cwd(f"/home/me/app/{n}") for n in range(50)] == [True] * 50
    assert calls == []


def test_list_finds_a_session_through_the_link_it_was_asked_by(isolated_home: Path, tmp_path: Path) -> None:
    real = tmp_path / "projects" / "app"
    real.mkdir(parents=True)
    link = tmp_path / "app-link"
    link.symlink_to(real)
    session = "abcdef01-0000-4000-8000-000000000001"
    claude_session_file(isolated_home, session, [
        claude_user(session, "2026-11-01T09:00:00Z", "hello", cwd=str(real)),
        claude_assistant(session, "2026-11-01T09:00:05Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 5),
                         cwd=str(real)),
    ])
    assert [row["native_id"] for row in cli_json("list", "--cwd", str(link))["sessions"]] == [session]
