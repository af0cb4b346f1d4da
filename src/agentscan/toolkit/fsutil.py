"""Directory-entry checks that never raise.

``DirEntry.is_dir()``/``is_file()`` can raise ``OSError`` (a permission or a
vanished entry); during discovery that must mean "not one", never a crash.
"""

from __future__ import annotations

import os


def is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
