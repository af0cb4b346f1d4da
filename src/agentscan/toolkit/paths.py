"""Path helpers: cheap ``Path`` objects for discovery, and containment of real paths.

Discovery makes a ``Path`` for each file of the home.

``Path(string)`` re-parses the whole string (about 2 µs), and ``str()`` of a
path built with ``/`` joins its parts again; a heavy user's home has tens of
thousands of files, so discovery builds each file's path from its
directory's, which only appends a name, and hands it the string it already
has (``DirEntry.path``).  Python versions without these private shortcuts
take the public way.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

_FAST = hasattr(Path, "_make_child_relpath")


def child_path(parent: Path, name: str, text: str | None = None) -> Path:
    """``parent / name`` for a plain directory entry name (no separators).

    ``text``, when given, must be ``str(parent) + os.sep + name`` (what
    ``os.scandir(str(parent))`` reports as the entry's ``path``).
    """
    if _FAST:
        try:
            child = parent._make_child_relpath(name)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a changed private API: take the public way
            return parent / name
        if text is not None:
            try:
                child._str = text  # the cached str(); saves formatting it again
            except AttributeError:
                pass
        return child
    return parent / name


def under_home(home: Path, value: str) -> Path:
    """``value`` with a leading ``~`` (``~/``, ``~\\``) as ``home``: an agent's setting read the
    way the agent reads it, against the home agentscan was given (``--home``, a library
    ``Scanner(home=…)``).  Never ``Path.expanduser``: it reads the process's ``$HOME``, so
    ``--home /other`` with ``~/x`` would read the real home.  ``~user`` stays as it is (a
    relative path): another user's home is no part of this one."""
    if value == "~":
        return home
    if value.startswith(("~/", "~\\")):
        return home / value[2:]
    return Path(value)


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it, compared as given (resolve both first:
    ``os.path.realpath``); ``/a/bc`` is not below ``/a/b``."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


#: what ``root_problem`` says of a root that is not there (the errors that name such a root
#: say nothing more: "no readable root among …" is what a mistyped setting gives)
MISSING = "no such file or directory"
#: what ``root_problem`` says of a regular file where a folder is expected (a ``sessions`` root,
#: or a setting's entry that should hold roots: ``CODEX_HOME=/x`` naming a file)
A_FILE = "a file, not a directory"
#: what it says of anything else there that is no folder (a FIFO, a device)
NOT_A_DIRECTORY = "not a directory"
#: what it says of a folder where a ``database`` root's file is expected
A_DIRECTORY = "a directory, not a file"


class RootCheck(NamedTuple):
    """What ``root_check`` found of a root: whether it is there, and ``root_problem``'s words."""

    exists: bool
    problem: str | None


def root_problem(path: Path, kind: str = "") -> str | None:
    """Why a provider root of ``kind`` cannot be read; ``None``: it can (``root_check``'s words)."""
    return root_check(path, kind).problem


def root_check(path: Path, kind: str = "") -> RootCheck:
    """Whether a provider root of ``kind`` is there, and why it cannot be read (``None``: it can).

    A ``sessions`` root must be a directory that can be listed, a ``database`` root a
    regular file that can be read; any other (an ``index``: Cursor's ``chats/``, Gemini's
    ``projects.json``) either.  The wrong kind of path says what it is and what was
    expected (``A_FILE``): a setting pointed one level off (``CURSOR_STATE_DB``
    at ``globalStorage``) must fail as a missing one does, not read as an empty root.
    One ``stat`` and, for a directory, one listing opened (not read through).  ``doctor``
    says these words too (``scan.doctor``): one rule, one wording.
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL in it, no such path
        # Under a file (``/x/sessions`` of a ``CODEX_HOME=/x`` that is one) is not there either:
        # what is wrong is the entry, which ``toolkit.roots.entry_problem`` says.
        return RootCheck(False, MISSING)
    except OSError as exc:
        # Its folder could not be looked into (or its link followed): there as far as a link is.
        return RootCheck(os.path.lexists(path), f"cannot be read: {exc.strerror or exc}")
    if stat.S_ISDIR(mode):
        if kind == "database":
            return RootCheck(True, A_DIRECTORY)
        try:
            with os.scandir(path) as entries:
                next(entries, None)
        except OSError as exc:
            return RootCheck(True, f"cannot be listed: {exc.strerror or exc}")
        return RootCheck(True, None)
    if kind == "sessions":
        return RootCheck(True, A_FILE if stat.S_ISREG(mode) else NOT_A_DIRECTORY)
    if not stat.S_ISREG(mode):
        return RootCheck(True, "not a regular file")
    return RootCheck(True, None if os.access(path, os.R_OK) else "cannot be read: permission denied")


def root_readable(path: Path, kind: str = "") -> bool:
    """Whether a provider root of ``kind`` can be read (``root_problem``)."""
    return root_problem(path, kind) is None
