"""Recovering the working directory of a Gemini project dir.

Gemini CLI never writes the cwd into a chat.  It names the project dir
either by a slug (≥ v0.29, with the owner path in ``.project_root`` and in
``projects.json``) or by ``sha256(project root)`` (older builds); every chat
also carries ``projectHash`` = that sha256 (docs/providers/gemini.md).  So:

1. ``.project_root`` in the dir;
2. the slug's entry in ``projects.json``;
3. a path whose sha256 equals the dir name or the chat's ``projectHash``,
   among the roots in ``projects.json``, then among the absolute paths the
   chat itself mentions and their parents (``paths.py``), then among the
   cwds every other provider saw (``ctx.cwd_candidates()``, asked only when
   needed), then among the absolute paths written anywhere in the project's
   chat files.

No match means the cwd is unknown (``None``), never a guess.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from pathlib import Path
from typing import Iterable

from agentscan.context import Told, ScanContext, say
from agentscan.bounds import MAX_SIDE_FILE_BYTES
from agentscan.toolkit.fsutil import read_capped
from agentscan.toolkit.jsondoc import load_json_file
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.toolkit.words import plural
from agentscan.providers.gemini.paths import paths_in_chat_files, with_parents

PROJECT_ROOT_FILE = ".project_root"
MARKER_BYTES = 64 * 1024  # a path; far more than any file system allows in one
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
#: C0 controls and DEL, which no path Gemini CLI writes holds
_CONTROL = re.compile("[\x00-\x1f\x7f]")
#: ``C:\work`` or ``C:/work``, and ``\\server\share``: a Windows home read here
_WINDOWS_ABSOLUTE = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\[^\\])")
_MEMO = "gemini.projects"


def project_hash(path: str) -> str:
    """Gemini CLI's ``getProjectHash``: sha256 of the path string, hex."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()


def _by_hash(paths: set[str]) -> dict[str, str]:
    return {project_hash(path): path for path in sorted(paths)}


def registry_slugs(registry: Path, ctx: ScanContext) -> dict[str, str]:
    """The ``slug -> project root`` entries of one ``projects.json`` (``{}``: none, or not read;
    what is wrong with it is a warning)."""
    if not os.path.lexists(registry):
        return {}  # no registry (older Gemini CLI): nothing to say
    with ctx.held_warnings() as held:
        data = load_json_file(registry, ctx, max_bytes=MAX_SIDE_FILE_BYTES)
    say(ctx, held.said)
    if data is None and held.said:
        return {}  # unreadable, empty or not JSON: said
    # Gemini CLI writes ``{"projects": {root: slug}}``; any other shape (an array, a
    # "projects" that is no object) is a damaged file, said as an invalid one is, not read as
    # a registry of no project ("ok" in doctor, and every slug dir's cwd silently unknown).
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        fault = (f"{json_kind(data)}, not an object" if not isinstance(data, dict) else
                 'no "projects" in it' if "projects" not in data else
                 f'its "projects" is {json_kind(projects)}, not an object')
        ctx.warn(registry, f"not a Gemini CLI project registry ({fault}); ignored")
        return {}
    slugs: dict[str, str] = {}
    odd = 0
    for root, slug in projects.items():
        if isinstance(root, str) and root and isinstance(slug, str) and slug:
            slugs.setdefault(slug, root)
        else:
            odd += 1
    if odd:
        ctx.warn(registry, f'{plural(odd, "entry", "entries")} of its "projects" not a folder and a short name; ignored')
    return slugs


def registry_problem(registry: Path, ctx: ScanContext) -> str | None:
    """What is wrong with a ``projects.json`` that can be opened (``invalid JSON: …``, an empty
    file, a shape Gemini CLI never writes), as its read's warning says it (``doctor``'s
    STATUS: not "ok" over that warning)."""
    with ctx.held_warnings() as held:
        registry_slugs(registry, ctx)
    return str(held.said[0][1]) if held.said else None  # (the first: never a count)


class ProjectIndex:
    """What one scan knows about project dirs; built once per scan."""

    def __init__(self, registries: list[Path], ctx: ScanContext) -> None:
        self.slugs: dict[str, str] = {}  # slug -> project root
        for registry in registries:
            for slug, root in registry_slugs(registry, ctx).items():
                self.slugs.setdefault(slug, root)
        self._registered = _by_hash(set(self.slugs.values()))
        self._others: dict[str, str] | None = None
        self._markers: dict[Path, tuple[str | None, tuple[Told, ...]]] = {}
        self._siblings: dict[Path, dict[str, str]] = {}

    def marker(self, project_dir: Path, ctx: ScanContext) -> str | None:
        """The owner path in ``<dir>/.project_root``, if there is one.  What reading it said
        is said at every ask: each row whose cwd it decides keeps it, and one read first for
        ``known_cwds`` (whose warnings are held back: ``ScanContext.cwd_candidates``) is not lost."""
        known = self._markers.get(project_dir)
        if known is None:
            with ctx.held_warnings() as held:
                owner = marker_path(project_dir / PROJECT_ROOT_FILE, ctx)
            known = self._markers[project_dir] = (owner, held.said)
        say(ctx, known[1])
        return known[0]

    def settled_by_dir(self, project_dir: Path, ctx: ScanContext) -> bool:
        """Whether ``cwd_for`` of a chat in ``project_dir`` is settled by the dir alone (its
        ``.project_root``, its slug or hash in the registry), whatever the chat holds: its
        other steps ask every provider's sessions (``_others``)."""
        if self.marker(project_dir, ctx) or project_dir.name in self.slugs:
            return True
        return project_dir.name in self._registered

    def registered_roots(self) -> set[str]:
        return set(self.slugs.values())

    def cwd_for(
        self, project_dir: Path, chat_hash: str | None, ctx: ScanContext, mentioned: Iterable[str] = (),
        *, read_chats: bool = True,
    ) -> str | None:
        """``mentioned``: absolute paths the chat names; one is taken only if its hash matches.
        ``read_chats=False`` skips the scan of the project's chat files (a warm run
        re-resolving a cached row: that scan already found nothing)."""
        owner = self.marker(project_dir, ctx) or self.slugs.get(project_dir.name)
        if owner:
            return owner
        hashes = [h for h in (project_dir.name, chat_hash) if h and _HEX64.match(h)]
        if not hashes:
            return None
        for wanted in hashes:
            if wanted in self._registered:
                return self._registered[wanted]
        wanted_set = set(hashes)
        for candidate in with_parents(sorted(mentioned)):
            if project_hash(candidate) in wanted_set:
                return candidate
        if self._others is None:
            # Asking every provider is the expensive step: only for a real hash dir.
            self._others = _by_hash(set(ctx.cwd_candidates()))
        for wanted in hashes:
            if wanted in self._others:
                return self._others[wanted]
        # Last: any path named anywhere in the project's chats (another chat
        # of the same project may name what this one does not).
        if not read_chats:
            return None
        if project_dir not in self._siblings:
            self._siblings[project_dir] = _by_hash(set(with_parents(sorted(paths_in_chat_files(project_dir, ctx)))))
        for wanted in hashes:
            if wanted in self._siblings[project_dir]:
                return self._siblings[project_dir][wanted]
        return None


def marker_path(path: Path, ctx: ScanContext) -> str | None:
    """A ``.project_root`` file's path: a small regular file inside the roots, else nothing."""
    if not os.path.lexists(path) or ctx.outside_roots(path):
        return None
    try:
        data = read_capped(path, MARKER_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return None
    text, fault = _one_path(data)
    if fault is not None:
        # Taken as it was, junk became the session's cwd (a NUL, U+FFFD, several lines): the
        # cwd is then found the other ways (``cwd_for``), or unknown.
        ctx.warn(path, f"not one absolute path on one line ({fault}); ignored")
    return text


def _one_path(data: bytes) -> tuple[str | None, str | None]:
    """The path a ``.project_root`` holds (Gemini CLI writes it alone, on one line), or
    what is wrong with the file instead; ``(None, None)``: it is empty."""
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        return None, f"it is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
    if not text:
        return None, None
    if "\x00" in text:
        return None, "it holds a NUL byte"
    if "\n" in text or "\r" in text:
        return None, "it holds several lines"
    if _CONTROL.search(text):
        return None, "it holds a control character"
    if not (posixpath.isabs(text) or _WINDOWS_ABSOLUTE.match(text)):
        return None, "it is a relative path"
    return text, None


def project_index(registries: list[Path], ctx: ScanContext) -> ProjectIndex:
    index = ctx.memo.get(_MEMO)
    if not isinstance(index, ProjectIndex):
        index = ctx.memo[_MEMO] = ProjectIndex(registries, ctx)
    return index
