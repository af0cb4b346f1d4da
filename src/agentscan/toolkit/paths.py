"""Cheap ``Path`` objects for discovery, which makes one per file of the home.

``Path(string)`` re-parses the whole string (about 2 µs); a heavy user's home
has tens of thousands of files, so discovery builds each file's path from its
directory's, which only appends a name.  Python versions without the private
shortcut fall back to ``parent / name``.
"""

from __future__ import annotations

from pathlib import Path

_FAST = hasattr(Path, "_make_child_relpath")


def child_path(parent: Path, name: str) -> Path:
    """``parent / name`` for a plain directory entry name (no separators)."""
    if _FAST:
        try:
            return parent._make_child_relpath(name)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a changed private API: take the public way
            pass
    return parent / name

