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

import enum
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
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
#: folders remembered as tested against the session folder's name: memory stays bounded
_TESTED_KEPT = 4096


def _flavor(path: str):
    if _WINDOWS.match(path):
        return ntpath
    if path.startswith("/"):
        return posixpath
    return None


class CwdGuess:
    """Accumulates evidence from tool inputs; memory stays constant.

    ``names_workspace``: given where the session's folder is named after its workspace
    (``slug_names``, ``md5_names``); each directory the tools touch, and those above it,
    is tested as it comes, and the first it recognises is the workspace."""

    def __init__(self, names_workspace: Callable[[str], Naming] | None = None) -> None:
        self.working_directory: str | None = None
        self._common: str | None = None
        self._flavor = None
        self._names = names_workspace
        self._workspace: str | None = None  # the first directory the name is exactly
        self._ends_like: str | None = None  # else the first the name ends with (``Naming``)
        self._tested: set[str] = set()  # (a session touches the same folders over and over)

    def add(self, tool_input: object, tool_name: str = "") -> None:
        if not isinstance(tool_input, dict):
            return
        searches_dir = tool_name.lower() in _DIR_TOOLS
        workdir = tool_input.get("working_directory")
        if isinstance(workdir, str) and _flavor(workdir):
            if self.working_directory is None:
                self.working_directory = workdir.rstrip("/\\") or workdir
            self._test(workdir.rstrip("/\\") or workdir)
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
        self._test(directory)
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

    def _test(self, directory: str) -> None:
        """``directory`` and those above it, against the folder's name, until one is it (or
        one was tested already: those above it were too)."""
        if self._names is None or self._workspace is not None:
            return
        flavor = _flavor(directory)
        while flavor is not None:
            if directory in self._tested:
                return
            if len(self._tested) < _TESTED_KEPT:
                self._tested.add(directory)
            naming = self._names(directory)
            if naming is Naming.EXACTLY:
                self._workspace = directory
                return
            if naming is Naming.ENDS_LIKE and self._ends_like is None:
                self._ends_like = directory
            parent = flavor.dirname(directory)
            if parent == directory:
                return
            directory = parent

    def best(self) -> str | None:
        """The working directory, else the common parent; where the session's folder is
        named after its workspace, the directory touched, or one above it, that it names,
        and ``None`` when none does: the tools then worked outside the workspace
        (``Read /etc/hosts``), which stays unknown."""
        if self._names is None:
            return self.working_directory or self.common_parent()
        return self._workspace or self._ends_like


class Naming(enum.Enum):
    """How a folder's name speaks of a directory."""

    NOT = 0
    EXACTLY = 1
    #: the name ends with the directory's slug, after a prefix: a workspace Cursor reached
    #: another way (a remote or WSL one), whose slugs are not known exactly (formats.md 4.1)
    ENDS_LIKE = 2


def _depth(directory: str) -> int:
    """How many folders ``directory`` names below its root (``/home/me``: 2)."""
    flavor = _flavor(directory)
    if flavor is None:
        return 0
    rest = flavor.splitdrive(directory)[1]
    return len([part for part in rest.replace("\\", "/").split("/") if part])


def _loose_slug(text: str) -> str:
    # Cursor's slug replaces each character that is not a letter or digit with
    # "-"; Windows slugs seen lowercase the drive and fold ":\\" to one "-"
    # (formats.md 4.1). Compared loosely, both ways of writing it agree.
    return _NOT_ALNUM.sub("-", text.lower()).strip("-")


def slug_names(slug: str) -> Callable[[str], Naming]:
    """How a project folder ``slug`` speaks of a directory."""
    wanted = _loose_slug(slug)

    def naming(directory: str) -> Naming:
        have = _loose_slug(directory)
        if not have or not wanted:
            return Naming.NOT
        if have == wanted:
            return Naming.EXACTLY
        # Two folders at least (``/home/me/app``): one folder's name (``app``, ``my-app``)
        # ends too many slugs.
        if wanted.endswith("-" + have) and _depth(directory) >= 2:
            return Naming.ENDS_LIKE
        return Naming.NOT

    return naming


def md5_names(digest: str) -> Callable[[str], Naming]:
    """How a CLI chat folder ``md5(cwd)`` speaks of a directory: exactly or not at all."""
    wanted = digest.lower()
    return lambda directory: Naming.EXACTLY if hashlib.md5(directory.encode()).hexdigest() == wanted else Naming.NOT
