"""The file system as one scan sees it: what it stat'ed and listed, and where it may go.

``ScanContext`` inherits this: discovery, fingerprints and censuses share one
``stat`` of each path per scan (``stat``, ``stats``), a first discovery takes
the directories its census just listed instead of listing them again
(``listed``), and symlinks are followed only into the provider roots
(``admit`` for what is listed, ``outside_roots`` and ``linked_outside`` for
what is found by name: docs/security.md).  Apart from the context's
warnings and environment, so that each half reads on its own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from agentscan.toolkit.paths import is_within


def legible(text: str) -> str:
    """``text`` as valid UTF-8: a file name's undecodable bytes (Python's
    surrogate escapes) become U+FFFD, so a warning naming that file can always
    be printed, cached, and written to JSON, CSV or SQLite."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")


class FileSystemView:
    """Per-scan file-system state and checks, kept in the context's ``memo``."""

    if TYPE_CHECKING:  # provided by ``ScanContext``
        memo: dict[str, Any]

        def warn(self, path: object, message: str, line: int | None = None, *, passing: bool = False) -> None: ...

    def stats(self) -> dict[str, os.stat_result | None]:
        """What ``stat`` took this scan, by path (a census may put its own stats there)."""
        return self.memo.setdefault("_stat", {})  # type: ignore[no-any-return]

    def listings(self) -> dict[str, list[os.DirEntry[str]]]:
        """Directories a census walked this scan, by path: their entries as it listed them
        (``scan.census``), for the discovery that follows it (``listed``)."""
        return self.memo.setdefault("_listing", {})  # type: ignore[no-any-return]

    def take_census_listing(self, path: str | os.PathLike[str]) -> list[os.DirEntry[str]] | None:
        """The census's entries of the directory ``path``, taken once (a later look lists
        it again); ``None``: no census of this scan listed it."""
        kept = self.memo.get("_listing")
        return kept.pop(os.fspath(path), None) if kept else None

    def drop_listings(self, under: Iterable[str] | None = None) -> None:
        """Forget what the censuses listed: the discovery they were taken for has run (a
        heavy user's directories, held until the command ended).  ``under``: only the
        directories at or below these (one provider's roots: the others' discoveries, still
        to run, take theirs)."""
        if under is None:
            self.memo.pop("_listing", None)
            return
        kept = self.memo.get("_listing")
        roots = list(under)
        if kept and roots:
            for path in [path for path in kept if any(is_within(path, root) for root in roots)]:
                del kept[path]

    def listed(self, path: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
        """The entries of the directory ``path``: the census's when it just listed them (a
        first discovery then sees what its stamp describes, without listing 5,000
        directories again), else ``os.scandir``'s.  Raises what ``os.scandir`` raises."""
        entries = self.take_census_listing(path)
        if entries is not None:
            return entries
        with os.scandir(path) as listing:
            return list(listing)

    def stat(self, path: str | os.PathLike[str]) -> os.stat_result | None:
        """``os.stat`` memoised for this scan (discovery and fingerprints share it)."""
        cache = self.stats()
        key = os.fspath(path)
        if key not in cache:
            try:
                cache[key] = os.stat(key)
            except (OSError, ValueError):
                cache[key] = None
        return cache[key]

    def confine_to(self, roots: Iterable[Path]) -> None:
        """Register provider roots: ``admit`` follows a symlink only to a target inside one."""
        confined: set[str] = self.memo.setdefault("_confined_roots", set())
        confined.update(os.path.realpath(root) for root in roots)

    def admit(self, entry: os.DirEntry[str]) -> bool:
        """Whether discovery may use a directory entry; says why not in a warning.

        Skipped: a name that is not UTF-8 (see ``undecodable``); a symlink
        that cannot be followed (a loop, a missing target); and a symlink
        whose target lies outside every registered root, because agentscan
        opens nothing but the provider roots (docs/security.md).
        """
        if self.undecodable(entry.path):
            return False
        try:
            if not entry.is_symlink():
                return True
            os.stat(entry.path)
        except OSError as exc:
            self.warn(entry.path, f"symlink cannot be followed ({exc.strerror or exc}); skipped")
            return False
        if not self._inside_roots(entry.path):
            self.warn(entry.path, "symlink points outside the provider's root; skipped")
            return False
        return True

    def _inside_roots(self, path: str | os.PathLike[str]) -> bool:
        return self.resolved_inside_roots(os.path.realpath(path))

    def resolved_inside_roots(self, target: str) -> bool:
        """Whether the real path ``target`` lies inside a registered root (or none is registered)."""
        confined: set[str] = self.memo.get("_confined_roots", set())
        if not confined:
            return True
        return any(is_within(target, root) for root in confined)

    def outside_roots(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` resolves outside every registered root; warns if so.

        Side files (a subagent's ``meta.json``, Gemini's ``.project_root``)
        are found by name, not walked with ``admit``: this is their check.
        """
        try:
            inside = self._inside_roots(path)
        except (OSError, ValueError):
            inside = False
        if not inside:
            self.warn(path, "points outside the provider's root; skipped")
        return not inside

    def linked_outside(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path``, found by name (not listed with ``admit``), is a symlink out of
        every root (warned): then it is not followed (docs/security.md)."""
        return os.path.islink(path) and self.outside_roots(path)

    def undecodable(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` is not valid UTF-8 (POSIX names may hold any bytes); warns if so.

        Providers skip such a file: its path could not be written to JSON,
        CSV or SQLite, nor an id made from it be typed back.
        """
        text = os.fspath(path)
        if legible(text) is text:
            return False
        self.warn(path, "file name is not valid UTF-8; skipped")
        return True
