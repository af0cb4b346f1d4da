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

Like ``platformdirs``, this reads ``os.environ``.  Stdlib only.
"""

from __future__ import annotations

import os
import posixpath
import sys

APP = "agentscan"

#: the XDG variable of each directory, and where it is when the variable is unset
_XDG = {"cache": ("XDG_CACHE_HOME", "~/.cache"), "data": ("XDG_DATA_HOME", "~/.local/share")}


def user_cache_dir() -> str:
    """``platformdirs.user_cache_dir("agentscan")``."""
    return _short_rule("cache") or _ask_platformdirs("cache")


def user_data_dir() -> str:
    """``platformdirs.user_data_dir("agentscan")``."""
    return _short_rule("data") or _ask_platformdirs("data")


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
