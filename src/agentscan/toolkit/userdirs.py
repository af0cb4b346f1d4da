"""Where agentscan keeps its cache and its data: ``platformdirs``' answer, on Linux without importing it.

``platformdirs`` (4.14) imports ``tempfile``, ``shutil``, ``random``, ``bz2``
and ``lzma`` on Linux: 5 % of the instructions of a warm ``list`` or
``tokens`` (docs/performance-history.md, "What the twentieth pass changed").  For
the environments a Linux user has (the XDG variable absolute, empty or
unset, ``HOME`` absolute) its rule is one line, so it is followed here; any
other case (another platform, Android, a relative or missing ``HOME``, an
XDG variable set to something not absolute, which ``platformdirs`` before
4.11.8 took as written and later ones ignore) asks ``platformdirs`` itself.
``platformdirs`` stays the authority: ``tests/test_userdirs.py`` holds the
two equal over every case the short rule answers, against the installed
version.

Like ``platformdirs``, this reads ``os.environ``, unless given an ``env`` of its own (a
library ``Scanner(env=…)``): then the directory is the one agentscan run with that
environment would use (``given_env_dir``), not the caller's.  Stdlib only.
"""

from __future__ import annotations

import os
import posixpath
import sys
from typing import Mapping

APP = "agentscan"

#: the XDG variable of each directory, and where it is when the variable is unset
_XDG = {"cache": ("XDG_CACHE_HOME", "~/.cache"), "data": ("XDG_DATA_HOME", "~/.local/share")}


def user_cache_dir(env: Mapping[str, str] | None = None) -> str:
    """``platformdirs.user_cache_dir("agentscan")``; with ``env``, ``given_env_dir``'s."""
    if env is not None and _differs(env, "cache"):
        return given_env_dir("cache", env)
    return _short_rule("cache") or _ask_platformdirs("cache")


def user_data_dir(env: Mapping[str, str] | None = None) -> str:
    """``platformdirs.user_data_dir("agentscan")``; with ``env``, ``given_env_dir``'s."""
    if env is not None and _differs(env, "data"):
        return given_env_dir("data", env)
    return _short_rule("data") or _ask_platformdirs("data")


def _differs(env: Mapping[str, str], kind: str) -> bool:
    """Whether ``env`` names a home or the XDG variable, and says another directory than
    ``os.environ`` might (the CLI's copy of it does not: its answer stays ``platformdirs``').
    An ``env`` that names neither (``env={}``: none of the shell's ``CODEX_HOME`` and the
    like) keeps this user's own directory, where the CLI keeps it."""
    names = ("HOME", _XDG[kind][0])
    return any(env.get(name) for name in names) and any(
        env.get(name) != os.environ.get(name) for name in (*names, "ANDROID_DATA", "ANDROID_ROOT"))


#: where macOS keeps each kind, under the home (platformdirs' rule there)
_MACOS = {"cache": "Library/Caches", "data": "Library/Application Support"}


def given_env_dir(kind: str, env: Mapping[str, str]) -> str:
    """The directory by the rule of Linux (the XDG variable when absolute, else under the
    home) or macOS, read in ``env``, not ``os.environ``: a ``Scanner(env={"HOME": h})`` keeps
    its index under ``h`` as ``HOME=h agentscan`` does, not in the caller's own ``~/.cache``.
    A home ``env`` does not name (only a relative XDG variable) is this process's.  Windows
    keeps its known folder (``platformdirs`` asks the system, not a variable), as Android its own."""
    android = hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in env or "ANDROID_ROOT" in env
    if sys.platform not in ("linux", "darwin") or android:
        return _ask_platformdirs(kind)
    home = env.get("HOME", "")
    if not posixpath.isabs(home):
        home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return posixpath.join(home, _MACOS[kind], APP)
    variable, default = _XDG[kind]
    chosen = env.get(variable, "")
    if posixpath.isabs(chosen):
        return os.path.join(chosen, APP)
    return posixpath.join(home, default.removeprefix("~/"), APP)


def _short_rule(kind: str) -> str | None:
    """The directory by the XDG rule ``platformdirs`` follows on Linux; ``None``: ask it."""
    environ = os.environ
    # platformdirs takes Android's rules on an Android build, or with these two variables set.
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in environ \
            or "ANDROID_ROOT" in environ:
        return None
    variable, default = _XDG[kind]
    chosen = environ.get(variable, "")
    if posixpath.isabs(chosen):
        return os.path.join(chosen, APP)
    if chosen.strip():  # relative: ignored (as the XDG spec says) since platformdirs 4.11.8 only
        return None
    home = environ.get("HOME", "")
    if not posixpath.isabs(home):  # unset or relative: platformdirs has rules of its own
        return None
    return os.path.join(os.path.expanduser(default), APP)


def _ask_platformdirs(kind: str) -> str:
    import platformdirs

    if kind == "cache":
        return platformdirs.user_cache_dir(APP)
    return platformdirs.user_data_dir(APP)
