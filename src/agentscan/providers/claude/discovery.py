"""Finding Claude Code sessions and attaching their subagent transcripts.

Layout (docs/providers/claude.md)::

    <root>/<encoded-cwd>/<sessionId>.jsonl                     main transcript
    <root>/<encoded-cwd>/<sessionId>/subagents/agent-<id>.jsonl (+ .meta.json)
    <root>/<encoded-cwd>/<sessionId>/subagents/workflows/<wf>/agent-<id>.jsonl
    <root>/<encoded-cwd>/agent-<8hex>.jsonl                    legacy sidechain

Subagents are never sessions of their own.  A legacy sibling names its parent
only in its records' ``sessionId``, so it costs one bounded header read, and
that read is remembered across runs until the file changes.

A heavy user has tens of thousands of transcripts, and a warm run must not
grow with them more than it has to: one ``scandir`` per directory, one
``stat`` per file (``DirEntry.stat``), kept for the fingerprints, and one
cheap ``Path`` per file (``toolkit.paths.child_path``).
"""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISDIR, S_ISLNK
from typing import Any, NamedTuple, Sequence

from agentscan.context import ScanContext
from agentscan.providers.claude.copychoice import Copy, choose
from agentscan.providers.claude.headfields import header_field
from agentscan.providers.sessionnames import usable_id
from agentscan.toolkit.fsutil import is_dir, is_file, warn_special
from agentscan.toolkit.paths import child_path
from agentscan.toolkit.roots import Root


class SubagentFile(NamedTuple):
    """A subagent's transcript (a named tuple: see ``cli.term.Terminal``)."""

    agent_id: str
    path: Path
    meta_path: Path | None


class SessionFiles:
    """Everything that belongs to one Claude session, across every root.

    ``stats`` holds each file's ``stat`` from discovery, by path string:
    the fingerprint is made from them without another system call.  A plain
    class: a dataclass costs about a millisecond to create on import.
    """

    __slots__ = ("native_id", "main", "main_mtime", "subagents", "newest_mtime", "stats", "copies")

    def __init__(self, native_id: str) -> None:
        self.native_id = native_id
        self.main: Path | None = None
        self.main_mtime = 0.0
        self.subagents: dict[str, SubagentFile] = {}
        self.newest_mtime = 0.0
        self.stats: dict[str, os.stat_result] = {}
        #: a file found more than once (under two roots), each copy found, by what it is
        #: (``None``: the main transcript; else a subagent's id), until ``_settle`` chooses
        self.copies: dict[str | None, list[Copy[Any]]] | None = None

    def paths(self) -> tuple[Path, ...]:
        files = [self.main] if self.main else []
        files.extend(sub.path for sub in self.subagents.values())
        return tuple(files)

    def main_stat(self, ctx: ScanContext) -> os.stat_result | None:
        """The main transcript's stat as the fingerprint saw it (discovery's), else this scan's."""
        if self.main is None:
            return None
        return self.stats.get(str(self.main)) or ctx.stat(self.main)

    def parts(self) -> list[tuple[Path, str | None]]:
        """The files ``tokens`` reads, in a fixed order: main first, then subagents by id."""
        found: list[tuple[Path, str | None]] = [(self.main, None)] if self.main is not None else []
        found += [(sub.path, agent_id) for agent_id, sub in sorted(self.subagents.items())]
        return found


def admitted_entries(path: str, ctx: ScanContext, *, report: bool = True) -> list[os.DirEntry[str]]:
    """The entries of the folder ``path`` the scan admits (``ctx.admit``), as ``ctx.listed`` lists
    them (the census's listing, when it just took one); none when it is gone, and a warning when
    it cannot be listed and ``report``."""
    try:
        return [entry for entry in ctx.listed(path) if ctx.admit(entry)]
    except FileNotFoundError:
        return []
    except OSError as exc:
        if report:
            ctx.cannot_list(path, exc)
        return []


def cached_stat(entry: os.DirEntry[str], ctx: ScanContext) -> os.stat_result | None:
    """The entry's ``stat`` (following a symlink), shared with ``ctx.stat``: the census
    of a first discovery took it already."""
    stats = ctx.stats()
    stat = stats.get(entry.path)
    if stat is not None:
        return stat
    try:
        stat = entry.stat()
    except OSError:
        return None
    stats[entry.path] = stat
    return stat


#: ``ctx.memo`` flag: this discovery chose between files (a session or subagent found
#: twice, the fresher copy winning) or read a file's head (a legacy sidechain), so
#: its result depends on more than which files exist (``ClaudeProvider.refreshable_discovery``)
CHOSE = "claude.discovery_chose"


def discover_sessions(roots: list[Root], ctx: ScanContext) -> dict[str, SessionFiles]:
    ctx.confine_to(root.path for root in roots)
    ctx.memo[CHOSE] = False
    sessions: dict[str, SessionFiles] = {}
    for root in roots:
        # ``lexists``: a root that is a link loop (``projects -> projects``) is there and
        # cannot be listed, which is said as Codex's and Gemini's roots say it; only one
        # that is not there at all (or a link to nothing, which ``doctor`` shows) is quiet.
        for project in admitted_entries(str(root.path), ctx, report=os.path.lexists(root.path)):
            if is_dir(project):
                _scan_project(child_path(root.path, project.name, project.path), project.path, ctx, sessions)
    _settle(sessions, ctx)
    return sessions


def _scan_project(project: Path, project_str: str, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    for entry in admitted_entries(project_str, ctx):
        name = entry.name
        if name.endswith(".jsonl") and is_file(entry):
            stem = name[: -len(".jsonl")]
            if not usable_id(stem.removeprefix("agent-"), entry.path, ctx):
                continue
            if stem.startswith("agent-"):
                _attach_legacy_sidechain(entry, child_path(project, name, entry.path), stem, ctx, sessions)
            else:
                _attach_main(entry, child_path(project, name, entry.path), stem, ctx, sessions)
        elif name.endswith(".jsonl"):
            warn_special(entry, ctx)
        elif is_dir(entry):
            subagents = os.path.join(entry.path, "subagents")
            if _subagents_dir(subagents, entry.path, ctx) and usable_id(name, entry.path, ctx):
                _attach_subagent_dir(child_path(child_path(project, name, entry.path), "subagents", subagents), subagents, name, ctx, sessions)


def _subagents_dir(path: str, session_dir: str, ctx: ScanContext) -> bool:
    """Whether a session's ``subagents`` directory is there to walk.  Found by name, not
    listed with ``admit``: a symlink out of every root is skipped (with a warning) like any
    other, else discovery would read files the census of the roots never sees.  Looked
    up in the census's listing of the session's directory when there is one (two
    ``stat`` calls a session saved: a heavy user has thousands)."""
    seen = ctx.take_census_listing(session_dir)
    try:
        if seen is None:
            mode = os.lstat(path).st_mode
            linked, directory = S_ISLNK(mode), S_ISDIR(mode)
        else:
            entry = next((entry for entry in seen if entry.name == "subagents"), None)
            if entry is None:
                return False
            linked, directory = entry.is_symlink(), entry.is_dir(follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        # There, but not to be looked at (its session directory cannot be searched): listing
        # it says why (``cannot_list``), as it does when a census's listing named it.
        return True
    if linked:  # followed (a dangling link is no directory), and only into the roots
        return os.path.isdir(path) and not ctx.outside_roots(path)
    return directory


def _session(sessions: dict[str, SessionFiles], native_id: str) -> SessionFiles:
    found = sessions.get(native_id)
    if found is None:
        found = sessions[native_id] = SessionFiles(native_id)
    return found


def _attach_main(entry: os.DirEntry[str], path: Path, native_id: str, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    stat = cached_stat(entry, ctx)
    if stat is None:
        return
    mtime = stat.st_mtime
    session = _session(sessions, native_id)
    if session.main is not None:  # the same session under another root: chosen among (``_settle``)
        _another_copy(session, None, Copy(entry.path, path, stat), ctx)
    else:
        session.main, session.main_mtime = path, mtime
        session.stats[entry.path] = stat
    session.newest_mtime = max(session.newest_mtime, mtime)


def _attach_subagent(session: SessionFiles, sub: SubagentFile, path_str: str, stat: os.stat_result,
                     ctx: ScanContext) -> None:
    existing = session.subagents.get(sub.agent_id)
    if existing is not None:
        _another_copy(session, sub.agent_id, Copy(path_str, sub, stat), ctx)
    else:
        session.subagents[sub.agent_id] = sub
        session.stats[path_str] = stat
    session.newest_mtime = max(session.newest_mtime, stat.st_mtime)


def _another_copy(session: SessionFiles, key: str | None, copy: Copy[Any], ctx: ScanContext) -> None:
    """``copy`` of a file ``session`` holds one of already (found under another root)."""
    ctx.memo[CHOSE] = True
    copies = session.copies = session.copies if session.copies is not None else {}
    if key not in copies:
        first: Any = session.main if key is None else session.subagents[key]
        path = str(first if key is None else first.path)
        copies[key] = [Copy(path, first, session.stats[path])]
    copies[key].append(copy)


def _settle(sessions: dict[str, SessionFiles], ctx: ScanContext) -> None:
    """Each file found more than once: the copy read (``copychoice.choose``), chosen among
    all of them at once, whatever the roots' order."""
    for session in [session for session in sessions.values() if session.copies is not None]:
        for key, copies in (session.copies or {}).items():
            kept = choose(copies, ctx)
            for copy in copies:
                session.stats.pop(copy.path, None)
            session.stats[kept.path] = kept.stat
            if key is None:
                session.main, session.main_mtime = kept.item, kept.stat.st_mtime
            else:
                session.subagents[key] = kept.item
        session.copies = None


def _attach_subagent_dir(directory: Path, directory_str: str, native_id: str, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    # Workflow runs nest deeper (subagents/workflows/<wf>/agent-*.jsonl).
    pending = [(directory, directory_str)]
    while pending:
        current, current_str = pending.pop()
        entries = admitted_entries(current_str, ctx)
        names = {entry.name for entry in entries}
        for entry in entries:
            name = entry.name
            transcript = name.startswith("agent-") and name.endswith(".jsonl")
            if not transcript and is_dir(entry) and not entry.is_symlink():
                pending.append((child_path(current, name, entry.path), entry.path))
                continue
            if not transcript:
                continue
            if not is_file(entry):
                warn_special(entry, ctx)
                continue
            stat = cached_stat(entry, ctx)
            if stat is None:
                continue
            stem = name[: -len(".jsonl")]
            own_id = stem[len("agent-"):]
            agent_id = own_id if current_str == directory_str else f"{current.name}/{own_id}"
            if not usable_id(own_id, entry.path, ctx):  # (``agent_id`` holds it whole)
                continue
            meta = child_path(current, stem + ".meta.json") if stem + ".meta.json" in names else None
            _attach_subagent(_session(sessions, native_id), SubagentFile(agent_id, child_path(current, name, entry.path), meta),
                             entry.path, stat, ctx)


def _attach_legacy_sidechain(
    entry: os.DirEntry[str], path: Path, stem: str, ctx: ScanContext, sessions: dict[str, SessionFiles]
) -> None:
    ctx.memo[CHOSE] = True
    stat = cached_stat(entry, ctx)
    if stat is None:
        return
    parent = header_field(path, ctx, "sessionId", stat)
    if parent is None:
        ctx.warn(path, "legacy subagent transcript names no parent sessionId; skipped")
        return
    _attach_subagent(_session(sessions, parent), SubagentFile(stem[len("agent-"):], path, None), entry.path, stat, ctx)


def project_folders(main: Path, roots: Sequence[Path]) -> list[Path]:
    """``main``'s project folder under each of ``roots`` (in their order; a discovery finds one
    session's copies there) when it is under one of them, else its own folder."""
    return [root / main.parent.name for root in roots] if main.parent.parent in roots else [main.parent]


def parentless_path(native_id: str, files: Sequence[Path]) -> str | None:
    """The path of a session whose main transcript is gone (``files``: its subagents'): its
    ``<sessionId>`` directory when one of them is in it (``<sessionId>/subagents/…``), else
    (only legacy ``agent-<8hex>.jsonl`` files in the project's directory, whose parent is no
    session directory) the first of them by path."""
    for file in files:
        for folder in file.parents:
            if folder.name == "subagents" and folder.parent.name == native_id:
                return str(folder.parent)
    return str(min(files, key=str)) if files else None


def session_files_at(main: Path, native_id: str, ctx: ScanContext, roots: Sequence[Path] = ()) -> SessionFiles | None:
    """One session's files, found from its main transcript's path (id-index hit).  Its
    project's folder under each of ``roots`` is looked in too, in their order, as a discovery
    finds the session's copies there (``_settle``): ``show`` reads the copies ``list`` does."""
    if main.name != f"{native_id}.jsonl" or not os.path.isfile(main):
        return None
    folders = project_folders(main, roots)
    folders += _held_elsewhere(native_id, roots, folders, ctx)  # (read as a discovery reads every folder)
    sessions: dict[str, SessionFiles] = {}
    for parent in folders:
        entries = admitted_entries(str(parent), ctx, report=parent == main.parent)
        if not entries:
            continue  # (the project not under that root: most homes have one root)
        for entry in entries:
            name = entry.name
            if name == main.name and is_file(entry):
                _attach_main(entry, child_path(parent, name, entry.path), native_id, ctx, sessions)
            elif name.startswith("agent-") and name.endswith(".jsonl") and is_file(entry):
                _attach_legacy_sidechain(entry, child_path(parent, name, entry.path), name[: -len(".jsonl")], ctx, sessions)
        subagents = parent / native_id / "subagents"
        # ``<id>/`` joined by name (a discovery lists it with ``admit``): not followed out of the roots.
        if not ctx.linked_outside(parent / native_id) and _subagents_dir(str(subagents), str(parent / native_id), ctx):
            _attach_subagent_dir(subagents, str(subagents), native_id, ctx, sessions)
    _settle(sessions, ctx)
    found = sessions.get(native_id)
    return found if found is not None and found.main is not None else None


def _held_elsewhere(native_id: str, roots: Sequence[Path], folders: Sequence[Path], ctx: ScanContext) -> list[Path]:
    """The project folders under ``roots`` but ``folders`` (the transcript's) that hold a file of
    the session: its subagents (``<id>/subagents``: a run Claude Code wrote under the folder it
    ran in) or a copy of its transcript.  A discovery joins them to it, so one session's files
    found from its transcript's folder alone lacked them: a cached ``show`` priced no such run,
    and a warm one left it out.  A look per project folder, as ``show`` asks it once.  Not a
    legacy ``agent-<8hex>.jsonl`` of the session there alone (only its header names the
    session: a read of every such file of every folder): a discovery joins it, this does not."""
    found = []
    for root in roots:
        for project in admitted_entries(str(root), ctx, report=False):
            folder = root / project.name
            if folder not in folders and is_dir(project) and (
                    os.path.lexists(os.path.join(project.path, native_id, "subagents"))
                    or os.path.lexists(os.path.join(project.path, native_id + ".jsonl"))):
                found.append(folder)
    return found
