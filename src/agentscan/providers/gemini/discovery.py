"""Finding Gemini CLI chats and grouping them into sessions.

Layout (docs/providers/gemini.md)::

    <tmp>/<projectId>/chats/session-<utc-minute>-<id8>.json    legacy (≤ v0.38)
    <tmp>/<projectId>/chats/session-<utc-minute>-<id8>.jsonl   append log (≥ v0.39)
    <tmp>/<projectId>/chats/<parentSessionId>/<sessionId>.json  legacy subagent chat (≤ v0.38)
    <tmp>/<projectId>/chats/<parentSessionId>/<sessionId>.jsonl subagent chat
    <tmp>/<projectId>/chats/<sessionId>.json[l]                 subagent chat with no parent id

Identity comes from a bounded header read, never from the file name (which
holds only 8 characters of the id).  On resume Gemini CLI migrates a legacy
``.json`` into a new ``.jsonl`` beside it and leaves the old file in place,
so one session may have two files: the ``.jsonl`` wins.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from agentscan.context import EMPTY_FILE, ScanContext
from agentscan.providers.gemini.chathead import HEADER_BYTES, PROBLEM, jsonl_header, legacy_header
from agentscan.providers.gemini.chatcopies import differs, wins
from agentscan.providers.sessionnames import usable_id
from agentscan.toolkit.jsonl import BOM, read_head
from agentscan.toolkit.roots import Root
from agentscan.toolkit.fsutil import is_dir, is_file, warn_special

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.providers.base import Provider


class ChatFile(NamedTuple):
    """One chat file and the identity its head gives (a named tuple: see ``cli.term.Terminal``)."""

    path: Path
    mtime: float
    legacy: bool  # whole-file JSON rather than the JSONL append log
    project_dir: Path  # <tmp>/<projectId>
    session_id: str | None
    project_hash: str | None
    #: why the head gave no ``session_id`` (it is no object, not JSON), when it says
    problem: str | None = None


class SessionFiles:
    """Every file of one Gemini session, across every root.  A plain class, not a
    dataclass: a dataclass costs about a millisecond to create on import."""

    __slots__ = ("native_id", "main", "shadowed", "subagents", "newest_mtime")

    def __init__(self, native_id: str) -> None:
        self.native_id = native_id
        self.main: ChatFile | None = None
        self.shadowed: list[ChatFile] = []  # older copies the main replaces
        self.subagents: dict[str, ChatFile] = {}
        self.newest_mtime = 0.0

    @property
    def primary(self) -> ChatFile | None:
        """The file that tells where the session ran: its main chat, else a subagent's."""
        if self.main is not None:
            return self.main
        return next(iter(self.subagents.values()), None)

    def paths(self) -> tuple[Path, ...]:
        files = [self.main.path] if self.main else []
        files.extend(chat.path for chat in self.subagents.values())
        files.extend(chat.path for chat in self.shadowed)
        return tuple(files)


def _scandir(path: Path, ctx: ScanContext) -> list[os.DirEntry[str]]:
    try:
        return sorted((entry for entry in ctx.listed(path) if ctx.admit(entry)), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.isfile(path):  # e.g. GEMINI_DATA_DIR naming a file: say so, never silently nothing
            ctx.warn(path, "not a directory; skipped")
        return []
    except OSError as exc:
        ctx.cannot_list(path, exc)
        return []


def project_dirs(roots: list[Root], ctx: ScanContext) -> list[Path]:
    """Every ``<tmp>/<projectId>`` dir under the session roots."""
    ctx.confine_to(root.path for root in roots)
    found = []
    for root in roots:
        for entry in _scandir(root.path, ctx):
            if is_dir(entry):
                found.append(Path(entry.path))
    return found


def discover_sessions(roots: list[Root], ctx: ScanContext) -> dict[str, SessionFiles]:
    sessions: dict[str, SessionFiles] = {}
    orphans: list[ChatFile] = []
    for project in project_dirs(roots, ctx):
        chats = project / "chats"
        if ctx.linked_outside(chats):
            continue
        for entry in _scandir(chats, ctx):
            name = entry.name
            if name.startswith("session-") and name.endswith((".json", ".jsonl")) and not is_file(entry):
                warn_special(entry, ctx)
            elif name.startswith("session-") and name.endswith((".json", ".jsonl")):
                chat = _chat_file(Path(entry.path), project, ctx, legacy=name.endswith(".json"))
                if chat is None:
                    continue
                if chat.session_id is None:
                    ctx.warn(chat.path, _no_id(chat))
                    continue
                if not usable_id(chat.session_id, chat.path, ctx):
                    continue
                _attach_main(_session(sessions, chat.session_id), chat)
            elif is_dir(entry) and not entry.is_symlink():
                _attach_subagent_dir(Path(entry.path), project, ctx, sessions)
            elif name.endswith((".json", ".jsonl")) and is_file(entry):
                chat = _chat_file(Path(entry.path), project, ctx, legacy=name.endswith(".json"))
                if chat is not None and chat.session_id is not None and usable_id(chat.session_id, chat.path, ctx):
                    orphans.append(chat)
    # After every main and nested chat is known, whatever order the walk met them in (a name
    # sorting before ``session-``, another project's dir): an orphan is checked against all.
    _attach_orphans(orphans, sessions, ctx)
    return sessions


def _attach_orphans(orphans: list[ChatFile], sessions: dict[str, SessionFiles], ctx: ScanContext) -> None:
    """Subagent chats Gemini CLI ran with no parent session id: chatRecordingService.ts nests a
    subagent's ``<sessionId>.jsonl`` under ``chats/<parentSessionId>/`` only when it has one,
    else writes it straight into ``chats/``.  No parent is known (none is guessed): each is a
    session of its own, under its ``sessionId``.  A file there whose head gives no
    ``sessionId`` is no chat Gemini CLI writes: left unsaid.  One whose ``sessionId`` is a
    ``session-*`` chat's, or a nested subagent chat's, would count a chat twice or hide one:
    skipped with a word, never ranked against it (``chatcopies.wins`` ranks a legacy ``.json`` and the
    ``.jsonl`` migrated from it, and would let a subagent's chat replace a whole session)."""
    nested = {agent_id: chat for session in sessions.values() for agent_id, chat in session.subagents.items()}
    mains = {native_id: session.main for native_id, session in sessions.items() if session.main is not None}
    #: the copies of each stray chat (an orphan, and a copy attached before it): ranked all, then told
    copies: dict[str, list[ChatFile]] = {}
    for chat in orphans:
        assert chat.session_id is not None  # (kept only with one)
        main = mains.get(chat.session_id)
        if main is not None:
            ctx.warn(chat.path, f"a subagent chat with the sessionId of the session chat {main.path}; "
                                "skipped (that session is counted)")
            continue
        copy = nested.get(chat.session_id)
        if copy is not None:
            ctx.warn(chat.path, f"the same subagent chat as {copy.path}; skipped (that one is counted)")
            continue
        session = _session(sessions, chat.session_id)
        if session.main is not None and chat.session_id not in copies:
            copies[chat.session_id] = [session.main]
        copies.setdefault(chat.session_id, []).append(chat)
        _attach_main(session, chat)
    for native_id, found in copies.items():
        # Stray copies of one chat in several projects (a home copied, a project moved): the one
        # ranked first is counted; one that held something else is said, naming it.  Only once
        # all are ranked: told as each came, a copy named as counted was passed over by a later one.
        kept = sessions[native_id].main
        for left in found:
            if kept is not None and left is not kept and left.project_dir != kept.project_dir \
                    and left.legacy == kept.legacy and differs(left, kept):
                ctx.warn(left.path, f"differs from another copy of its chat in another project, which is counted "
                                    f"instead: {kept.path}")


def _no_id(chat: ChatFile) -> str:
    """Why a chat whose head gave no ``sessionId`` is skipped."""
    if _empty(chat.path):
        return EMPTY_FILE
    if chat.problem is None:
        return "no sessionId in the file's header; skipped"
    if chat.legacy:  # as ``legacy.load_legacy`` would say it
        return f"{chat.problem}; skipped"
    return f"no sessionId: {chat.problem}; skipped"


def _empty(path: Path) -> bool:
    """A chat of 0 bytes: said to be empty, not to lack a ``sessionId`` in its header."""
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def _session(sessions: dict[str, SessionFiles], native_id: str) -> SessionFiles:
    found = sessions.get(native_id)
    if found is None:
        found = sessions[native_id] = SessionFiles(native_id)
    return found


def _attach_main(session: SessionFiles, chat: ChatFile) -> None:
    session.newest_mtime = max(session.newest_mtime, chat.mtime)
    if session.main is None:
        session.main = chat
    elif wins(chat, session.main):
        session.shadowed.append(session.main)
        session.main = chat
    else:
        session.shadowed.append(chat)


def _attach_subagent_dir(directory: Path, project: Path, ctx: ScanContext, sessions: dict[str, SessionFiles]) -> None:
    # The dir is named by the parent's full sessionId, so a subagent whose
    # parent chat is gone still lands under its parent's id.  Up to v0.38 a
    # subagent's chat was the same whole-file JSON as a session's, named
    # ``<sessionId>.json`` (chatRecordingService.ts); later ones are ``.jsonl``.
    parent_id = directory.name
    for entry in _scandir(directory, ctx):
        legacy = entry.name.endswith(".json")
        if not (legacy or entry.name.endswith(".jsonl")):
            continue
        if not is_file(entry):
            warn_special(entry, ctx)
            continue
        if not usable_id(parent_id, directory, ctx):
            return  # said once: the first chat met stops the walk
        chat = _chat_file(Path(entry.path), project, ctx, legacy=legacy)
        if chat is None:
            continue
        agent_id = chat.session_id or Path(entry.name).stem
        if not usable_id(agent_id, chat.path, ctx):
            continue
        session = _session(sessions, parent_id)
        existing = session.subagents.get(agent_id)
        if existing is None:
            session.subagents[agent_id] = chat
        elif wins(chat, existing):  # a subagent's copies are ranked as a session's are
            session.shadowed.append(existing)
            session.subagents[agent_id] = chat
        else:
            session.shadowed.append(chat)
        session.newest_mtime = max(session.newest_mtime, chat.mtime)


def _chat_file(path: Path, project: Path, ctx: ScanContext, *, legacy: bool) -> ChatFile | None:
    """The chat's identity from its head, remembered until the file changes
    (a warm discovery reads no chat)."""
    try:
        stat = path.stat()
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return None
    # /3: a head without a sessionId keeps why (/2: read by laxjson)
    facts = ctx.remembered("gemini.legacy-header/3" if legacy else "gemini.header/3")
    text = str(path)
    fields = facts.get(text, stat)
    if not (isinstance(fields, dict) and all(isinstance(value, str) for value in fields.values())):
        try:
            head = read_head(path, HEADER_BYTES)
        except OSError as exc:
            ctx.cannot_read(path, exc)
            return None
        whole = len(head) < HEADER_BYTES
        head = head.removeprefix(BOM)
        fields = legacy_header(head, whole) if legacy else jsonl_header(head, whole)
        facts.put(text, stat, fields)
    return ChatFile(path, stat.st_mtime, legacy, project, fields.get("sessionId"), fields.get("projectHash"),
                    fields.get(PROBLEM))


#: ``ctx.memo`` key: project dir -> its part of a fingerprint (``cwd_stamp``), and the registries'
_CWD_STAMPS = "gemini-cwd-stamps"
_REGISTRIES = "gemini-registry-stamp"
_SLUGS = "gemini-registered-slugs"


def cwd_stamp(provider: Provider, ref: SessionRef, ctx: ScanContext) -> str:
    """The identity of what settles ``ref``'s cwd besides its chats (``ProjectIndex.cwd_for``):
    its project dir's ``.project_root`` when there is one (it wins), else the registries
    (``projects.json``, which a new project anywhere rewrites: only the rows it may settle
    are renewed; of a dir whose slug it registers, only the root registered counts).  A ``.project_root`` that holds no path (empty, junk: ``projects._one_path``)
    settles nothing, so the registries count beside it.  Memoised per project dir for the
    scan: a stat per dir, not per chat (and a marker's read once per change of it)."""
    project = _project_dir(ref)
    stamps: dict[Path | None, str] = ctx.memo.setdefault(_CWD_STAMPS, {})
    known = stamps.get(project)
    if known is None:
        from agentscan.providers.base import file_identity
        from agentscan.providers.gemini.projects import PROJECT_ROOT_FILE

        marker = project / PROJECT_ROOT_FILE if project is not None else None
        stat = ctx.stat(marker) if marker is not None else None
        if marker is not None and stat is not None:
            known = file_identity(marker, stat)
            if not _marker_settles(provider, marker, stat, ctx):
                known += "\n" + _registry_part(provider, project, ctx)
        else:
            known = f"{marker}\0-\n{_registry_part(provider, project, ctx)}"
        stamps[project] = known
    return known


def _registry_part(provider: Provider, project: Path | None, ctx: ScanContext) -> str:
    """What of the registries settles ``project``'s cwd: the root its slug is registered to,
    when it is (another project's entry, added or gone, changes nothing of it), else the
    registries whole (a hash dir may be any registered root's)."""
    if project is not None:
        root = _registered_slugs(provider, ctx).get(project.name)
        if root is not None:
            return f"registered\0{root}"
    return _registries_stamp(provider, ctx)


def _registered_slugs(provider: Provider, ctx: ScanContext) -> dict[str, str]:
    """``ProjectIndex.slugs`` without building it: each registry's entries remembered until it
    changes, read quietly (a row's pass says what is wrong with one); memoised for the scan."""
    found = ctx.memo.get(_SLUGS)
    if not isinstance(found, dict):
        from agentscan.providers.gemini.projects import registry_slugs
        from agentscan.providers.gemini.roots import registry_files

        facts = ctx.remembered("gemini.registry-slugs/1")
        found = {}
        for registry in registry_files(provider.roots(ctx)):
            stat = ctx.stat(registry)
            if stat is None:
                continue
            slugs = facts.get(str(registry), stat)
            if not (isinstance(slugs, dict) and all(isinstance(v, str) for v in slugs.values())):
                with ctx.held_warnings():
                    slugs = registry_slugs(registry, ctx)
                facts.put(str(registry), stat, slugs)
            for slug, root in slugs.items():
                found.setdefault(slug, root)
        ctx.memo[_SLUGS] = found
    return found


def _registries_stamp(provider: Provider, ctx: ScanContext) -> str:
    """The registries' identity (memoised for the scan)."""
    if _REGISTRIES not in ctx.memo:
        from agentscan.providers.base import file_identity
        from agentscan.providers.gemini.roots import registry_files

        parts = []
        for registry in registry_files(provider.roots(ctx)):
            found = ctx.stat(registry)
            parts.append(file_identity(registry, found) if found is not None else f"{registry}\0-")
        ctx.memo[_REGISTRIES] = "\n".join(parts)
    return str(ctx.memo[_REGISTRIES])


def _marker_settles(provider: Provider, marker: Path, stat: os.stat_result, ctx: ScanContext) -> bool:
    """Whether ``marker`` holds one path (``ProjectIndex.marker`` takes it): remembered until
    the file changes, read quietly (the row's pass says what is wrong with it)."""
    from agentscan.providers.gemini.projects import marker_path

    facts = ctx.remembered("gemini.marker-settles/1")
    text = str(marker)
    settles = facts.get(text, stat)
    if not isinstance(settles, bool):
        ctx.confine_to(root.path for root in provider.roots(ctx))  # a side file: only inside the roots
        with ctx.held_warnings():
            settles = marker_path(marker, ctx) is not None
        facts.put(text, stat, settles)
    return settles


def _project_dir(ref: SessionRef) -> Path | None:
    """``<tmp>/<projectId>`` of ``ref``'s chats: its files' (``SessionFiles.primary``), else
    the dir above the ``chats`` its path lies in (a ref taken from the index)."""
    files = ref.hint
    if isinstance(files, SessionFiles) and files.primary is not None:
        return files.primary.project_dir
    path = ref.path
    while path is not None and path.parent != path:
        if path.name == "chats":
            return path.parent
        path = path.parent
    return None
