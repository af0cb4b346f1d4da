"""Finding Cursor agent transcripts (docs/providers/cursor.md).

Layout under ``<home>/.cursor/projects/<slug>/agent-transcripts/``::

    <id>.jsonl                      Agent CLI (flat)
    <id>/<id>.jsonl                 IDE agent (nested)
    <id>/subagents/<child>.jsonl    delegated runs (Task) of <id>
    <id>.txt (or <id>/<id>.txt)     the older plain-text transcript

When one id has both a ``.jsonl`` and a ``.txt``, the ``.jsonl`` wins.

Only parents are sessions.  The same composer id can appear under several
slugs: Cursor leaves a stale fork in ``empty-window`` when a window later
opens a folder, so a copy outside ``empty-window`` wins, then the newer one.
Discovery costs stat calls only; no transcript is opened here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import NamedTuple

from agentscan.context import ScanContext
from agentscan.providers.sessionnames import usable_id
from agentscan.toolkit.fsutil import describe_mode, warn_special
from agentscan.toolkit.roots import Root

EMPTY_WINDOW = "empty-window"
_SUFFIX = ".jsonl"
_SUFFIXES = (".jsonl", ".txt")


# A .txt is a transcript only when named by a conversation id (a uuid): notes
# and terminal dumps live beside the transcripts too.
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _stem(name: str) -> str | None:
    """The id a transcript file name stands for (``None``: not a transcript)."""
    if name.endswith(_SUFFIX) and len(name) > len(_SUFFIX):
        return name[: -len(_SUFFIX)]
    if name.endswith(".txt") and _UUID.match(name[:-4]):
        return name[:-4]
    return None


class SubagentFile(NamedTuple):
    """A delegated run's transcript (a named tuple: see ``cli.term.Terminal``)."""

    agent_id: str  # the child composer id (= file stem)
    path: Path
    mtime: float


class TranscriptSet(NamedTuple):
    """Every transcript file of one session, from the copy that won (a named tuple: see
    ``cli.term.Terminal``)."""

    native_id: str
    main: Path | None  # None: only subagent files survive (parent deleted)
    project: str  # the slug dir the winning copy lives in
    subagents: tuple[SubagentFile, ...] = ()
    main_mtime: float = 0.0

    @property
    def newest_mtime(self) -> float:
        # A subagent still running makes the session fresh although the
        # parent file has not been written for a while.
        return max([self.main_mtime, *(sub.mtime for sub in self.subagents)])

    @property
    def in_empty_window(self) -> bool:
        return self.project == EMPTY_WINDOW

    def paths(self) -> tuple[Path, ...]:
        files = [self.main] if self.main else []
        return tuple(files + [sub.path for sub in self.subagents])


class _Copy:
    """One project's copy of a session's files, filled in as they are found.  A plain
    class, not a dataclass: a dataclass costs about a millisecond to create on import."""

    __slots__ = ("native_id", "project", "main", "main_mtime", "subagents")

    def __init__(self, native_id: str, project: str) -> None:
        self.native_id = native_id
        self.project = project
        self.main: Path | None = None
        self.main_mtime = 0.0
        self.subagents: dict[str, SubagentFile] = {}

    def rank(self) -> tuple[bool, bool, float]:
        newest = max([self.main_mtime, *(s.mtime for s in self.subagents.values())])
        return (self.main is not None, self.project != EMPTY_WINDOW, newest)


def _mtime(path: Path, ctx: ScanContext) -> float | None:
    stat = ctx.stat(path)  # a first discovery's census took it already (``ScanContext.stats``)
    return None if stat is None else stat.st_mtime


def _found_file(path: Path, ctx: ScanContext) -> bool:
    """Whether a transcript found by name (not listed with ``admit``) may be read: a regular
    file (``os.path.isfile``, from the scan's stats: ``_mtime``), not a link out of the roots.
    One that is there but is none is skipped with the warning a listed one gets (a FIFO, a
    link to ``/dev/zero`` or a loop: docs/security.md), not silently."""
    stat = ctx.stat(path)
    if stat is not None and S_ISREG(stat.st_mode):
        return not ctx.linked_outside(path)
    if stat is None:
        if os.path.islink(path):  # there, but it cannot be followed (a loop, a missing target)
            _warn_unfollowed(path, ctx)
        return False
    if not ctx.linked_outside(path) and not S_ISDIR(stat.st_mode):
        ctx.warn(path, f"not a regular file ({describe_mode(stat.st_mode)}); skipped")
    return False


def _warn_unfollowed(path: Path, ctx: ScanContext) -> None:
    """``admit``'s warning for a listed link that cannot be followed."""
    try:
        os.stat(path)
    except OSError as exc:
        ctx.warn(path, f"symlink cannot be followed ({exc.strerror or exc}); skipped")


def _scandir(path: Path, ctx: ScanContext, *, report: bool = True) -> list[os.DirEntry[str]]:
    try:
        return [entry for entry in ctx.listed(path) if ctx.admit(entry)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        if report:
            ctx.cannot_list(path, exc)
        return []


def _is(entry: os.DirEntry[str], kind: str) -> bool:
    try:
        return entry.is_dir() if kind == "dir" else entry.is_file()
    except OSError:
        return False


def discover_transcripts(roots: list[Root], ctx: ScanContext) -> dict[str, TranscriptSet]:
    """Every session under the ``projects/`` roots, one per config dir (``transcripts_roots``):
    an id found under two is one session, its copies weighed as within one root."""
    ctx.confine_to([each.path for each in roots])
    copies: dict[str, list[_Copy]] = {}
    for each in roots:
        # ``lexists``: a root that is a link loop is there and cannot be listed, and says so
        # (``claude.discovery.discover_sessions``); a missing one is quiet.
        for project in _scandir(each.path, ctx, report=os.path.lexists(each.path)):
            transcripts = Path(project.path) / "agent-transcripts"
            if _is(project, "dir") and os.path.isdir(transcripts) and not ctx.linked_outside(transcripts):
                for copy in _scan_project(transcripts, project.name, ctx):
                    copies.setdefault(copy.native_id, []).append(copy)
    return {native_id: _pick(found) for native_id, found in copies.items()}


def _scan_project(directory: Path, project: str, ctx: ScanContext) -> list[_Copy]:
    found: dict[str, _Copy] = {}

    def copy_of(native_id: str) -> _Copy:
        return found.setdefault(native_id, _Copy(native_id, project))

    for entry in _scandir(directory, ctx):
        path = Path(entry.path)
        stem = _stem(entry.name)
        if stem is not None and _is(entry, "file"):
            if usable_id(stem, path, ctx):
                _set_main(copy_of(stem), path, ctx)
        elif stem is not None:
            warn_special(entry, ctx)
        elif _is(entry, "dir"):
            nested = [path / (entry.name + suffix) for suffix in _SUFFIXES]
            nested = [candidate for candidate in nested if _found_file(candidate, ctx)]
            subagents = _subagents(path / "subagents", ctx)
            if (nested or subagents) and usable_id(entry.name, path, ctx):
                copy = copy_of(entry.name)
                for candidate in nested:
                    _set_main(copy, candidate, ctx)
                copy.subagents.update(subagents)
    # A file that vanished after the listing leaves a copy with nothing in it.
    return [copy for copy in found.values() if copy.main is not None or copy.subagents]


def _set_main(copy: _Copy, path: Path, ctx: ScanContext) -> None:
    # Flat and nested copies of one id in one project: a .jsonl beats the older
    # .txt form, then the fresher one wins.
    mtime = _mtime(path, ctx)
    if mtime is None:
        return
    if copy.main is None or (path.suffix == _SUFFIX, mtime) > (copy.main.suffix == _SUFFIX, copy.main_mtime):
        copy.main, copy.main_mtime = path, mtime


def _subagents(directory: Path, ctx: ScanContext) -> dict[str, SubagentFile]:
    subs: dict[str, SubagentFile] = {}
    if ctx.linked_outside(directory):
        return subs
    for entry in _scandir(directory, ctx):
        stem = _stem(entry.name)
        if stem is not None and not _is(entry, "file"):
            warn_special(entry, ctx)
        elif stem is not None and usable_id(stem, entry.path, ctx):
            mtime = _mtime(Path(entry.path), ctx)
            known = subs.get(stem)
            if mtime is not None and (known is None or (entry.name.endswith(_SUFFIX), mtime) > (known.path.suffix == _SUFFIX, known.mtime)):
                subs[stem] = SubagentFile(stem, Path(entry.path), mtime)
    return subs


def _pick(copies: list[_Copy]) -> TranscriptSet:
    """The winning copy; children only the losers know are kept (no tokens lost)."""
    ordered = sorted(copies, key=_Copy.rank, reverse=True)
    best = ordered[0]
    subagents = dict(best.subagents)
    for other in ordered[1:]:
        for agent_id, sub in other.subagents.items():
            subagents.setdefault(agent_id, sub)
    return TranscriptSet(
        native_id=best.native_id,
        main=best.main,
        project=best.project,
        subagents=tuple(sorted(subagents.values(), key=lambda s: s.agent_id)),
        main_mtime=best.main_mtime,
    )
