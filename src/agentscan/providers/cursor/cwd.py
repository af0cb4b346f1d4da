"""Guessing a transcript's working directory from its tool calls.

Transcripts carry no cwd.  When neither the IDE workspace (``fsPath``) nor
the Agent CLI's ``meta.json`` names one, the best evidence is a tool's
``working_directory``, then the deepest directory that holds every absolute
path the tools touched.  Windows paths (``C:\\…``, ``\\\\server\\share``) are
compared with ``ntpath`` so a drive letter is never mistaken for a file.

Where the session's folder is named after its workspace (a transcript's
project slug, a CLI chat's ``md5(cwd)``), the workspace is the directory the
tools touched, or one above it, that gives that name: a search folder
(``Grep`` in ``/src``) or a subfolder a shell ran in is not, and with no such
directory the cwd is unknown rather than invented (contract).
"""

from __future__ import annotations

import hashlib
import ntpath
import posixpath
import re
from typing import Any, Callable

_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\[^\\]+\\[^\\]+)")
_FILE_KEYS = ("path", "file_path", "target_file")
_DIR_KEYS = ("target_directory", "directory")
# Tools whose ``path`` names a directory to search, not a file.
_DIR_TOOLS = frozenset({"grep", "glob", "ls", "listdir", "list_dir", "codebase_search", "semanticsearch"})
# Directories kept to test against the session folder's name: enough for any
# session's projects, and memory stays constant.
_MAX_CANDIDATES = 64
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def _flavor(path: str):
    if _WINDOWS.match(path):
        return ntpath
    if path.startswith("/"):
        return posixpath
    return None


class CwdGuess:
    """Accumulates evidence from tool inputs; memory stays constant."""

    def __init__(self) -> None:
        self.working_directory: str | None = None
        self._common: str | None = None
        self._flavor = None
        self._directories: dict[str, None] = {}  # first seen first, no repeats

    def add(self, tool_input: object, tool_name: str = "") -> None:
        if not isinstance(tool_input, dict):
            return
        searches_dir = tool_name.lower() in _DIR_TOOLS
        workdir = tool_input.get("working_directory")
        if self.working_directory is None and isinstance(workdir, str) and _flavor(workdir):
            self.working_directory = workdir.rstrip("/\\") or workdir
        for key in _FILE_KEYS:
            self._add_path(tool_input.get(key), is_dir=searches_dir)
        for key in _DIR_KEYS:
            self._add_path(tool_input.get(key), is_dir=True)
        paths = tool_input.get("paths")
        if isinstance(paths, list):
            for path in paths[:100]:
                self._add_path(path, is_dir=False)

    def _add_path(self, value: Any, *, is_dir: bool) -> None:
        if not isinstance(value, str) or not value:
            return
        flavor = _flavor(value)
        if flavor is None or (self._flavor is not None and flavor is not self._flavor):
            return  # relative, or another OS's path: says nothing about the cwd
        directory = flavor.normpath(value) if is_dir else flavor.dirname(flavor.normpath(value))
        if len(self._directories) < _MAX_CANDIDATES:
            self._directories[directory] = None
        if self._common is None:
            self._flavor, self._common = flavor, directory
            return
        try:
            self._common = flavor.commonpath([self._common, directory])
        except ValueError:  # different drives
            self._common = ""

    def common_parent(self) -> str | None:
        if not self._common or self._flavor is None:
            return None
        # A drive or filesystem root names no project.
        drive, rest = self._flavor.splitdrive(self._common)
        if rest.strip("/\\") == "":
            return None
        return self._common

    def best(self, names_workspace: Callable[[str], bool] | None = None) -> str | None:
        """The working directory, else the common parent; where the session's folder
        is named after its workspace (``names_workspace``), the directory touched, or
        one above it, that it names, and ``None`` when none does: the tools then
        worked outside the workspace (``Read /etc/hosts``), which stays unknown."""
        if names_workspace is None:
            return self.working_directory or self.common_parent()
        candidates = [self.working_directory] if self.working_directory else []
        for directory in candidates + list(self._directories):
            flavor = _flavor(directory)
            while flavor is not None:
                if names_workspace(directory):
                    return directory
                parent = flavor.dirname(directory)
                if parent == directory:
                    break
                directory = parent
        return None


def _loose_slug(text: str) -> str:
    # Cursor's slug replaces each character that is not a letter or digit with
    # "-"; Windows slugs seen lowercase the drive and fold ":\\" to one "-"
    # (formats.md 4.1). Compared loosely, both ways of writing it agree.
    return _NOT_ALNUM.sub("-", text.lower()).strip("-")


def slug_names(slug: str) -> Callable[[str], bool]:
    """Whether a directory is the one a project folder ``slug`` was named after."""
    wanted = _loose_slug(slug)
    return lambda directory: bool(wanted) and _loose_slug(directory) == wanted


def md5_names(digest: str) -> Callable[[str], bool]:
    """Whether a directory is the one a CLI chat folder ``md5(cwd)`` was named after."""
    wanted = digest.lower()
    return lambda directory: hashlib.md5(directory.encode()).hexdigest() == wanted
