"""Finding a program on ``PATH`` as the shell would, with ``os`` alone.

Its own module so that ``python -m agentscan --help`` (``entry``, which asks whether the
``agentscan`` on ``PATH`` is this Python's) and ``hooks.program`` (which also judges the
script's ``#!`` line, importing ``shlex``, ``re`` and ``stat``) walk ``PATH`` one way, and the
first start pays for none of the latter's imports.
"""

from __future__ import annotations

import os


def which(name: str) -> str | None:
    """``shutil.which(name)``, without importing ``shutil`` on POSIX (with ``bz2`` and ``lzma``:
    1.6 ms of a ``show`` that names a command to copy, ``invocation.program_word``): the
    first executable file of that name in a ``PATH`` folder, as ``shutil`` looks."""
    if os.name == "nt":  # PATHEXT, the current folder first: shutil's rules
        import shutil

        return shutil.which(name)
    path = os.environ.get("PATH")
    if path is None:
        try:
            path = os.confstr("CS_PATH")
        except (AttributeError, ValueError):  # (shutil's own fallback)
            path = os.defpath
    seen: set[str] = set()
    for folder in path.split(os.pathsep) if path else ():
        if folder in seen:
            continue
        seen.add(folder)
        candidate = os.path.join(folder, name)
        if os.path.exists(candidate) and os.access(candidate, os.F_OK | os.X_OK) and not os.path.isdir(candidate):
            return candidate
    return None
