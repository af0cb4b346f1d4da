"""Finding Codex threads: rollouts on disk, united with the thread index.

Layout (docs/providers/codex.md)::

    <home>/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl[.zst]
    <home>/sessions/rollout-<date>-<uuid>.jsonl          very old, flat
    <home>/archived_sessions/rollout-…jsonl[.zst]        archived threads

One thread id can have several copies; the one that counts is one that no
other copy extends (begins with its bytes and goes on: it is a stale, shorter
snapshot), then the active (not archived) one, then the plain (not ``.zst``)
one, then the newest; a copy left out that differs otherwise is warned of
(``copies.choose_copy``).  The
list is the union of the rollouts and the index rows whose rollout exists and is
their thread's (``indexpaths``); an index row whose rollout is gone is counted as an
orphan, not listed, and one that names another thread's rollout is ignored.
Subagent threads are not sessions: they join their top-level ancestor.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from agentscan.context import ScanContext
from agentscan.providers.sessionnames import usable_id
from agentscan.toolkit.fsutil import warn_special
from agentscan.toolkit.paths import child_path
from agentscan.providers.codex.copies import choose_copy
from agentscan.providers.codex.header import RolloutHeader, read_header
from agentscan.providers.codex.index import IndexRow, ThreadIndex, load_index
from agentscan.providers.codex.indexpaths import ROLLOUT_NAME, index_paths
from agentscan.providers.codex.names import SessionNames, ThreadName, load_session_names
from agentscan.providers.codex.roots import (
    codex_roots, database_roots, in_archived_sessions, session_index_paths, session_roots,
)

_NAME = ROLLOUT_NAME
_MAX_DEPTH = 3  # YYYY/MM/DD below sessions/
_MAX_CHAIN = 32  # subagents of subagents: a bound against cycles
_MEMO_KEY = "codex.discovery"
_UNNAMED_MEMO_KEY = "codex.discovery.unnamed"
_BRIEF_MEMO_KEY = "codex.discovery.brief"
ORPHANS_MEMO_KEY = "codex.orphan_index_rows"


class RolloutFile(NamedTuple):
    """One rollout file of a thread (a named tuple: see ``cli.term.Terminal``)."""

    path: Path
    archived: bool
    mtime: float

    @property
    def compressed(self) -> bool:
        return self.path.name.endswith(".zst")

    def rank(self) -> tuple[bool, bool, float]:
        # Active beats archived, plain beats .zst (it may still be written), then newest.
        return (not self.archived, not self.compressed, self.mtime)


class Segment(NamedTuple):
    """An earlier file of a thread split over several (``history_mode: paginated``).

    ``live_bytes``: how much of it the thread's live history still builds on
    (the next segment's ``history_base.end_byte_offset``); 0 when the live
    history left it (a reverted branch: its calls were billed all the same).
    A named tuple (see ``cli.term.Terminal``).
    """

    rollout: RolloutFile
    live_bytes: int | None = None  # None: the whole file


class Thread(NamedTuple):
    """One Codex thread (a named tuple: see ``cli.term.Terminal``)."""

    thread_id: str
    rollout: RolloutFile  # the live (latest) file of the thread
    indexed: IndexRow | None = None  # its row in the thread index (``index`` would hide ``tuple.index``)
    spawn_parent: str | None = None
    header: RolloutHeader | None = None  # when discovery already had to read it
    #: a paginated thread's other files: the live chain root first, then branches left behind
    segments: tuple[Segment, ...] = ()
    #: its name in ``session_index.jsonl`` (``names``), carried here for the passes that
    #: read the row in another process (``row_travels``)
    session_index_name: ThreadName | None = None

    def files(self) -> tuple[Path, ...]:
        return tuple(segment.rollout.path for segment in self.segments) + (self.rollout.path,)

    @property
    def first(self) -> RolloutFile:
        """The file the thread's history starts in (its title is there)."""
        return self.segments[0].rollout if self.segments else self.rollout


class CodexSession(NamedTuple):
    """Everything that belongs to one listed session: ``SessionRef.hint`` (a named tuple:
    see ``cli.term.Terminal``)."""

    native_id: str
    main: Thread | None
    children: tuple[Thread, ...] = ()
    recency: float = 0.0

    def threads(self) -> tuple[Thread, ...]:
        return ((self.main,) if self.main else ()) + self.children


class Discovery(NamedTuple):
    """What a Codex discovery found (a named tuple: see ``cli.term.Terminal``)."""

    sessions: dict[str, CodexSession]
    threads: dict[str, Thread]
    thread_index: ThreadIndex  # (``index`` would hide ``tuple.index``)
    orphan_index_rows: int = 0
    outside_index_rows: int = 0  # rows whose rollout_path leads out of the session roots
    session_names: SessionNames = SessionNames()  # ``session_index.jsonl``
    foreign_index_rows: int = 0  # rows whose rollout_path names another thread's rollout (``indexpaths``)


def discover(ctx: ScanContext, *, names: bool = True, brief: bool = False) -> Discovery:
    """Every Codex session of this scan (memoised: the list, tokens and cwds share it).
    ``names``: with the threads' names in ``session_index.jsonl`` (``Thread.session_index_name``);
    without (``False``), that file is not read at all: another provider that only borrows the
    sessions' directories (``known_cwds``) has no use for it, nor for what it warns of.
    ``brief`` (and no names): for such a provider of a run that did not ask for Codex, whose
    thread index, locked by Codex, is not waited for (``index.load_index``): not the scan's own."""
    memo = ctx.memo.get(_MEMO_KEY)
    if isinstance(memo, Discovery):
        return memo
    unnamed = ctx.memo.get(_UNNAMED_MEMO_KEY)
    if not isinstance(unnamed, Discovery) and brief and not names:
        unnamed = ctx.memo.get(_BRIEF_MEMO_KEY)
        if not isinstance(unnamed, Discovery):
            unnamed = ctx.memo[_BRIEF_MEMO_KEY] = _discover(ctx, brief=True)
        return unnamed
    if not isinstance(unnamed, Discovery):
        unnamed = ctx.memo[_UNNAMED_MEMO_KEY] = _discover(ctx)
    if not names:
        return unnamed
    result = _named(unnamed, load_session_names(ctx, session_index_paths(codex_roots(ctx))))
    ctx.memo[_MEMO_KEY] = result
    return result


def _discover(ctx: ScanContext, *, brief: bool = False) -> Discovery:
    roots = codex_roots(ctx)
    ctx.confine_to(root.path for root in session_roots(roots))
    index = load_index(ctx, database_roots(roots), brief=brief)
    copies: dict[str, list[RolloutFile]] = {}
    read: dict[Path, RolloutHeader] = {}  # the headers read to find a thread's id, by file
    for root in session_roots(roots):
        for path in _walk(root.path, ctx):
            _consider(path, in_archived_sessions(path), ctx, copies, read)
    best = {tid: found[0] if len(found) == 1 else choose_copy(found, ctx) for tid, found in copies.items()}
    headers = {tid: read[rollout.path] for tid, rollout in best.items() if rollout.path in read}
    # The index's rows of threads no walked file is of, whose rollout it names (``indexpaths``).
    indexed = index_paths(index, best, {rollout.path for rollout in best.values()}, session_roots(roots), ctx)
    for thread_id, path in indexed.taken.items():
        row = index.rows[thread_id]
        archived = bool(row.archived) or in_archived_sessions(path)
        best[thread_id] = RolloutFile(path, archived, _mtime(path, ctx) or 0.0)
    threads = {tid: _thread(tid, rollout, index.get(tid), headers.get(tid), ctx) for tid, rollout in best.items()}
    _join_segments(threads, index, ctx)
    if not brief:  # (the scan's own discovery's, for ``doctor``)
        ctx.memo[ORPHANS_MEMO_KEY] = indexed.orphans
    return Discovery(_group(threads, index), threads, index, indexed.orphans, indexed.outside, foreign_index_rows=indexed.foreign)


def _named(found: Discovery, names: SessionNames) -> Discovery:
    """``found`` with each thread's name in the session indexes (made only for these threads)."""
    threads = dict(found.threads)
    for thread_id, thread in found.threads.items():
        name = names.name_of(thread_id.lower())  # kept lower-cased, as ids in file names are
        if name is not None:
            threads[thread_id] = thread._replace(session_index_name=name)
    if threads == found.threads:  # no name (no session index, the usual case): nothing to rebuild
        return found._replace(session_names=names)
    sessions = {
        native_id: session._replace(
            main=threads[session.main.thread_id] if session.main else None,
            children=tuple(threads[child.thread_id] for child in session.children))
        for native_id, session in found.sessions.items()
    }
    return found._replace(sessions=sessions, threads=threads, session_names=names)


def _walk(directory: Path, ctx: ScanContext, depth: int = 0) -> list[Path]:
    try:
        listed = ctx.listed(directory)
    except FileNotFoundError:
        return []
    except OSError as exc:
        ctx.cannot_list(directory, exc)
        return []
    found: list[Path] = []
    for entry in listed:
        name = entry.name
        if not ctx.admit(entry):
            continue
        try:
            if name.startswith("rollout-") and name.endswith((".jsonl", ".jsonl.zst")):
                if entry.is_file():
                    found.append(child_path(directory, name, entry.path))
                else:
                    warn_special(entry, ctx)
            elif depth < _MAX_DEPTH and entry.is_dir() and not entry.is_symlink():
                found.extend(_walk(child_path(directory, name, entry.path), ctx, depth + 1))
        except OSError:
            continue
    return found


def _mtime(path: Path, ctx: ScanContext) -> float | None:
    stat = ctx.stat(path)  # memoised: the header read and the fingerprints reuse it
    return None if stat is None else stat.st_mtime


def _consider(
    path: Path, archived: bool, ctx: ScanContext, copies: dict[str, list[RolloutFile]], read: dict[Path, RolloutHeader]
) -> None:
    mtime = _mtime(path, ctx)
    if mtime is None:
        return
    match = _NAME.match(path.name)
    header = None
    if match:
        thread_id = match.group(1).lower()
    else:
        # No uuid in the name: the id lookup reads the first 64 KiB.
        header = read_header(path, ctx, None, ctx.stat(path))
        if header.thread_id is None:
            return  # read_header said why (empty, unreadable, no session_meta)
        if not usable_id(header.thread_id, path, ctx):
            return
        thread_id = header.thread_id
    copies.setdefault(thread_id, []).append(RolloutFile(path, archived, mtime))
    if header is not None:
        read[path] = header


def _thread(
    thread_id: str, rollout: RolloutFile, row: IndexRow | None, header: RolloutHeader | None, ctx: ScanContext
) -> Thread:
    # The index tells us a thread's parent without opening it; otherwise (or when
    # it says "subagent" but names no parent) one header read.
    if row is not None and row.knows_source and header is None and (row.spawn_parent or not row.subagent):
        return Thread(thread_id, rollout, row, row.spawn_parent)
    if header is None:
        header = read_header(rollout.path, ctx, thread_id, ctx.stat(rollout.path), quiet=True)
        if not header.found_own_meta:
            # What the read found wrong (an empty file, no meta of its own) is this session's:
            # its passes read the header again (``row.thread_header``: none is kept here) and say
            # it, and a list or a ``show`` of another session does not.  What could not be read
            # this time was said (``quiet`` keeps that): a discovery that met it is not kept.
            return Thread(thread_id, rollout, row, row.spawn_parent if row else None)
    parent = header.link.spawn_parent or (row.spawn_parent if row else None)
    return Thread(thread_id, rollout, row, parent, header)


def _join_segments(threads: dict[str, Thread], index: ThreadIndex, ctx: ScanContext) -> None:
    """Fold the later segments of paginated threads into the thread they continue.

    A segment's file name carries its own rollout id while its meta names the
    thread (``history_base`` names the segment it continues, and where).  The
    live file is the one no other segment continues (the newest, if several);
    the chain from it back to the first file is the live history, and any
    other segment is a branch left behind by a revert.
    """
    by_owner: dict[str, list[Thread]] = {}
    for rollout_id, thread in list(threads.items()):
        header = thread.header
        if header is None or header.history_base is None or not header.thread_id or header.thread_id == rollout_id:
            continue
        by_owner.setdefault(header.thread_id.lower(), []).append(threads.pop(rollout_id))
    for owner, later in by_owner.items():
        original = threads.get(owner)
        if original is not None and any(t.rollout.path == original.rollout.path for t in later):
            original = None  # the index pointed the thread id at a later segment's file
        nodes: dict[str, tuple[RolloutFile, tuple[str, int] | None]] = {
            _rollout_id(t): (t.rollout, t.header.history_base if t.header else None) for t in later
        }
        if original is not None:
            nodes[owner] = (original.rollout, None)
        continued = {base[0]: base[1] for _, base in nodes.values() if base is not None}
        leaves = sorted((rid for rid in nodes if rid not in continued), key=lambda rid: nodes[rid][0].mtime)
        live = leaves[-1] if leaves else max(nodes, key=lambda rid: nodes[rid][0].mtime)
        chain: list[str] = []
        current: str | None = live
        while current is not None and current in nodes and current not in chain and len(chain) < _MAX_CHAIN:
            chain.append(current)
            base = nodes[current][1]
            current = base[0] if base else None
        chain.reverse()  # root first
        limits = {base[0]: base[1] for rid in chain if (base := nodes[rid][1]) is not None}
        segments = [Segment(nodes[rid][0], limits.get(rid) or None) for rid in chain[:-1]]
        segments += [Segment(nodes[rid][0], 0) for rid in sorted(nodes, key=lambda r: nodes[r][0].mtime) if rid not in chain]
        base_thread = original or next(t for t in later if _rollout_id(t) == live)
        header = next((t.header for t in later if _rollout_id(t) == live), None) if original is None else original.header
        threads[owner] = Thread(
            owner, nodes[live][0], base_thread.indexed or index.get(owner),
            base_thread.spawn_parent, header, tuple(segments),
        )


def _rollout_id(thread: Thread) -> str:
    match = _NAME.match(thread.rollout.path.name)
    return match.group(1).lower() if match else thread.thread_id


def _group(threads: dict[str, Thread], index: ThreadIndex) -> dict[str, CodexSession]:
    mains: dict[str, Thread | None] = {}
    children: dict[str, list[Thread]] = {}
    for thread in threads.values():
        top = _top_ancestor(thread, threads)
        if top == thread.thread_id:
            mains[top] = thread
        else:
            mains.setdefault(top, None)
            children.setdefault(top, []).append(thread)
    sessions = {}
    for native_id, main in mains.items():
        kids = tuple(sorted(children.get(native_id, ()), key=lambda t: t.rollout.mtime))
        recency = max(
            [t.rollout.mtime for t in ((main,) if main else ()) + kids]
            + [seg.rollout.mtime for t in ((main,) if main else ()) + kids for seg in t.segments],
            default=0.0,
        )
        row = index.get(native_id)
        if main is not None and row is not None and row.updated_at is not None:
            # The index may know of activity the rollout's mtime does not show.
            recency = max(recency, row.updated_at.timestamp())
        sessions[native_id] = CodexSession(native_id, main, kids, recency)
    return sessions


def _top_ancestor(thread: Thread, threads: dict[str, Thread]) -> str:
    """The listed session a thread belongs to: itself, or its top-level ancestor."""
    current = thread.thread_id
    seen = {current}
    for _ in range(_MAX_CHAIN):
        known = threads.get(current)
        parent = known.spawn_parent if known else None
        if parent is None:
            return current
        if parent in seen:
            return thread.thread_id  # a cycle: nobody's child, listed on its own
        seen.add(parent)
        current = parent
        if parent not in threads:
            return parent  # the parent's rollout is gone: a session with no main transcript
    return current
