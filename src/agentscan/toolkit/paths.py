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
from pathlib import Path

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


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it, compared as given (resolve both first:
    ``os.path.realpath``); ``/a/bc`` is not below ``/a/b``."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def root_readable(path: Path) -> bool:
    """Whether a provider root can be read: a directory listed, or a file (a state DB) readable."""
    try:
        if path.is_dir():
            os.listdir(path)
            return True
        return path.is_file() and os.access(path, os.R_OK)
    except OSError:
        return False
