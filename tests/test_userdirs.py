"""agentscan's cache and data directories: ``platformdirs``' answer, found on Linux without importing it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from agentscan.toolkit import userdirs
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

#: values of HOME and of an XDG variable, each kind a user (or a broken login) may have
HOMES = ["/home/me", "/home/me/", "/", "//srv/me", "/home/with space", "relative/home", "", None]
XDGS = [None, "", "/x/cache", "/x/cache/", "/", "relative/cache", "~/cache", " /x", "/x/ünicode"]

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="the short rule is Linux's")


def _set(monkeypatch: pytest.MonkeyPatch, name: str, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(name, raising=False)
    else:
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize("home", HOMES)
@pytest.mark.parametrize("xdg", XDGS)
@pytest.mark.parametrize("kind", ["cache", "data"])
def test_the_answer_is_platformdirs_answer(monkeypatch: pytest.MonkeyPatch, kind: str, home: str | None,
                                           xdg: str | None) -> None:
    _set(monkeypatch, "HOME", home)
    _set(monkeypatch, "XDG_CACHE_HOME" if kind == "cache" else "XDG_DATA_HOME", xdg)
    ours = userdirs.user_cache_dir if kind == "cache" else userdirs.user_data_dir
    theirs = platformdirs.user_cache_dir if kind == "cache" else platformdirs.user_data_dir
    try:
        expected = theirs("agentscan")
    except RuntimeError as exc:  # platformdirs refuses a home it cannot make absolute
        with pytest.raises(RuntimeError, match=str(exc)[:20]):
            ours()
        return
    assert ours() == expected


@linux_only
@pytest.mark.parametrize("home", [h for h in HOMES if h and h.startswith("/")])
@pytest.mark.parametrize("xdg", [x for x in XDGS if not x or x.startswith("/")])
def test_the_short_rule_answers_every_absolute_home(monkeypatch: pytest.MonkeyPatch, home: str, xdg: str | None) -> None:
    """The cases above with an absolute HOME, and the XDG variable absolute, empty or unset,
    are answered by the short rule, not by asking platformdirs (else the equality would hold
    whatever the rule said)."""
    _set(monkeypatch, "HOME", home)
    for kind, variable in (("cache", "XDG_CACHE_HOME"), ("data", "XDG_DATA_HOME")):
        _set(monkeypatch, variable, xdg)
        assert userdirs._short_rule(kind) is not None


@linux_only
@pytest.mark.parametrize("xdg", ["relative/cache", "~/cache", " /x", "."])
def test_an_xdg_variable_not_absolute_asks_platformdirs(monkeypatch: pytest.MonkeyPatch, xdg: str) -> None:
    """platformdirs before 4.11.8 (``platformdirs>=4`` allows it) took such a value as
    written; later ones ignore it: whichever is installed answers."""
    monkeypatch.setenv("HOME", "/home/me")
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert userdirs._short_rule("cache") is None
    assert userdirs.user_cache_dir() == platformdirs.user_cache_dir("agentscan")


@linux_only
@pytest.mark.parametrize("variable", ["ANDROID_DATA", "ANDROID_ROOT"])
def test_an_android_environment_asks_platformdirs(monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    monkeypatch.setenv(variable, "/data" if variable == "ANDROID_DATA" else "/system")
    assert userdirs._short_rule("cache") is None
    assert userdirs.user_cache_dir() == platformdirs.user_cache_dir("agentscan")


@linux_only
def test_a_list_without_overrides_does_not_import_platformdirs(isolated_home: Path) -> None:
    """The point of the short rule: a user with no AGENTSCAN_* variable pays no
    ``platformdirs`` import (nor its ``tempfile``, ``shutil``, ``bz2``, ``lzma``), though
    the row's cost has ``list`` look for fetched prices in the data directory."""
    session = "0b6c1c36-1111-4111-8111-000000000001"
    claude_session_file(isolated_home, session, [claude_user(session, "2026-11-01T10:00:00Z", "hello"),
                                                 claude_assistant(session, "2026-11-01T10:00:05Z", msg_id="m1",
                                                                  request_id="r1", usage=claude_usage(10, 5))])
    env = {k: v for k, v in os.environ.items()
           if k not in ("AGENTSCAN_CACHE_DIR", "AGENTSCAN_DATA_DIR", "XDG_CACHE_HOME", "XDG_DATA_HOME")}
    script = ("import sys, runpy\n"
              "sys.argv = ['agentscan', 'list']\n"
              "try:\n    runpy.run_module('agentscan', run_name='__main__')\n"
              "except SystemExit:\n    pass\n"
              "print('LOADED', sorted(m for m in ('platformdirs', 'tempfile', 'lzma', 'bz2') if m in sys.modules),"
              " 'agentscan.toolkit.userdirs' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert "LOADED [] True" in done.stderr  # it did look for both directories
    assert session[:8] in done.stdout
    # It kept its index where platformdirs says it should.
    assert (isolated_home / ".cache" / "agentscan" / "index.sqlite").is_file()
