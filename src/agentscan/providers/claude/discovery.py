"""Finding Claude Code sessions and attaching their subagent transcripts.

Layout (docs/providers/claude.md)::

    <root>/<encoded-cwd>/<sessionId>.jsonl                     main transcript
    <root>/<encoded-cwd>/<sessionId>/subagents/agent-<id>.jsonl (+ .meta.json)
    <root>/<encoded-cwd>/<sessionId>/subagents/workflows/<wf>/agent-<id>.jsonl
    <root>/<encoded-cwd>/agent-<8hex>.jsonl                    legacy sidechain

Subagents are never sessions of their own.  A legacy sibling names its parent
only in its records' ``sessionId``, so it costs one bounded header read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from agentscan.context import ScanContext
from agentscan.toolkit.jsonl import BOM, read_head
from agentscan.toolkit.roots import Root
from agentscan.toolkit.fsutil import is_dir, is_file, warn_special

HEADER_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class SubagentFile:
    agent_id: str
    path: Path
    meta_path: Path | None


@dataclass
class SessionFiles:
    """Everything that belongs to one Claude session, across every root."""

    native_id: str
    main: Path | None = None
    main_mtime: float = 0.0
    subagents: dict[str, SubagentFile] = field(default_factory=dict)
    newest_mtime: float = 0.0

    def paths(self) -> tuple[Path, ...]:
        files = [self.main] if self.main else []
        files.extend(sub.path for sub in self.subagents.values())
        return tuple(files)


def _mtime(path: Path, ctx: ScanContext) -> float | None:
    stat = ctx.stat(path)  # memoised: the fingerprints reuse it
    return None if stat is None else stat.st_mtime


def _scandir(path: Path, ctx: ScanContext, *, report: bool = True) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as entries:
            return [entry for entry in entries if ctx.admit(entry)]
    except FileNotFoundError:
        return []
    except OSError as exc:
        if report:
            ctx.warn(path, f"cannot list directory: {exc.strerror or exc}")
        return []


def discover_sessions(roots: list[Root], ctx: ScanContext) -> dict[str, SessionFiles]:
    ctx.confine_to(root.path for root in roots)
    sessions: dict[str, SessionFiles] = {}
    for root in roots:
        for project in _scandir(root.path, ctx, report=os.path.exists(root.path)):
            if is_dir(project):
                _scan_project(Path(project.path), ctx, sessions)
    return sessions


def _scan_project(project: Path, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    for entry in _scandir(project, ctx):
        name = entry.name
        path = Path(entry.path)
        if name.endswith(".jsonl") and is_file(entry):
            stem = name[: -len(".jsonl")]
            if stem.startswith("agent-"):
                _attach_legacy_sidechain(path, stem, ctx, sessions)
            else:
                _attach_main(path, stem, ctx, sessions)
        elif name.endswith(".jsonl"):
            warn_special(entry, ctx)
        elif is_dir(entry):
            subagents_dir = path / "subagents"
            if os.path.isdir(subagents_dir):
                _attach_subagent_dir(subagents_dir, name, ctx, sessions)


def _session(sessions: dict[str, SessionFiles], native_id: str) -> SessionFiles:
    found = sessions.get(native_id)
    if found is None:
        found = sessions[native_id] = SessionFiles(native_id)
    return found


def _attach_main(path: Path, native_id: str, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    mtime = _mtime(path, ctx)
    if mtime is None:
        return
    session = _session(sessions, native_id)
    # The same session under two roots is listed once: the fresher copy wins.
    if session.main is None or mtime > session.main_mtime:
        session.main, session.main_mtime = path, mtime
    session.newest_mtime = max(session.newest_mtime, mtime)


def _attach_subagent(session: SessionFiles, sub: SubagentFile, ctx: ScanContext) -> None:
    mtime = _mtime(sub.path, ctx)
    if mtime is None:
        return
    existing = session.subagents.get(sub.agent_id)
    if existing is None or mtime > (_mtime(existing.path, ctx) or 0):
        session.subagents[sub.agent_id] = sub
    session.newest_mtime = max(session.newest_mtime, mtime)


def _attach_subagent_dir(directory: Path, native_id: str, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    # Workflow runs nest deeper (subagents/workflows/<wf>/agent-*.jsonl).
    pending = [directory]
    while pending:
        current = pending.pop()
        for entry in _scandir(current, ctx):
            if is_dir(entry) and not entry.is_symlink():
                pending.append(Path(entry.path))
                continue
            name = entry.name
            if not (name.startswith("agent-") and name.endswith(".jsonl")):
                continue
            if not is_file(entry):
                warn_special(entry, ctx)
                continue
            stem = name[: -len(".jsonl")]
            agent_id = stem[len("agent-"):]
            if current != directory:
                agent_id = f"{current.name}/{agent_id}"
            meta = Path(entry.path).with_name(stem + ".meta.json")
            sub = SubagentFile(agent_id, Path(entry.path), meta if os.path.exists(meta) else None)
            _attach_subagent(_session(sessions, native_id), sub, ctx)


def _attach_legacy_sidechain(path: Path, stem: str, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    parent = _header_session_id(path, ctx)
    if parent is None:
        ctx.warn(path, "legacy subagent transcript names no parent sessionId; skipped")
        return
    _attach_subagent(_session(sessions, parent), SubagentFile(stem[len("agent-"):], path, None), ctx)


def _header_field(path: Path, ctx: ScanContext, key: str) -> str | None:
    """The first non-empty string ``key`` within the first 64 KiB of a transcript."""
    try:
        head = read_head(path, HEADER_BYTES)
    except OSError as exc:
        ctx.warn(path, f"cannot read: {exc.strerror or exc}")
        return None
    for line in head.removeprefix(BOM).splitlines():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get(key), str) and record[key]:
            return record[key]
    return None


def _header_session_id(path: Path, ctx: ScanContext) -> str | None:
    return _header_field(path, ctx, "sessionId")


def header_cwd(path: Path, ctx: ScanContext) -> str | None:
    return _header_field(path, ctx, "cwd")


def session_files_at(main: Path, native_id: str, ctx: ScanContext) -> SessionFiles | None:
    """One session's files, found from its main transcript's path (id-index hit)."""
    if not os.path.isfile(main) or main.stem != native_id:
        return None
    sessions: dict[str, SessionFiles] = {}
    _attach_main(main, native_id, ctx, sessions)
    subagents_dir = main.parent / native_id / "subagents"
    if os.path.isdir(subagents_dir):
        _attach_subagent_dir(subagents_dir, native_id, ctx, sessions)
    for entry in _scandir(main.parent, ctx):
        if entry.name.startswith("agent-") and entry.name.endswith(".jsonl") and is_file(entry):
            _attach_legacy_sidechain(Path(entry.path), entry.name[: -len(".jsonl")], ctx, sessions)
    return sessions.get(native_id)
