"""The read-only fast path: Codex's own thread index (``state_<n>.sqlite``).

The index is a rebuildable cache that Codex keeps beside the rollouts; the
rollouts stay canonical.  Its schema differs by build and lineage (CLI vs.
Desktop numbering), so we select only columns ``PRAGMA table_info`` shows.
Anything wrong with it (missing, not SQLite, locked, corrupt, unfamiliar)
is a warning, and the older generation beside it that can be read is used
instead (a stale one only fills gaps: its rows are older than the rollouts
they name), else an empty index, so the caller lists from the rollouts.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from agentscan.context import ScanContext
from agentscan.providers.codex.names import clean_name
from agentscan.providers.codex.records import TITLE_CHARS, clean_prompt, collapse, link_of
from agentscan.providers.codex.roots import codex_roots, in_archived_sessions, database_roots, older_state_dbs, session_place
from agentscan.toolkit.roots import Root
from agentscan.errors import DatabaseUnavailable
from agentscan.toolkit.sqlite_ro import (
    BRIEF_BUSY_MS, BUSY_TIMEOUT_MS, WAL_UNREAD, has_table, readonly, table_columns, unread_wal,
)
from agentscan.timeutil import from_epoch

_MEMO_KEY = "codex.index"
#: path -> (its rows, or why it could not be read): each database is read once a scan
_READS_KEY = "codex.index.reads"
#: ``load_index(brief=True)``'s own (``_MEMO_KEY``'s and ``_READS_KEY``'s, for another provider)
_BRIEF_MEMO_KEY = "codex.index.brief"
_BRIEF_READS_KEY = "codex.index.brief_reads"

# Columns we use when present.  Title candidates come in order of preference: Codex's
# title, the preview, the first message; a name the user gave the thread (``name``)
# is one of the thread's names, which beat them all (``names.chosen_name``).
_WANTED = (
    "id",
    "rollout_path",
    "name",
    "name_state",
    "title",
    "preview",
    "first_user_message",
    "cwd",
    "model",
    "tokens_used",
    "created_at",
    "updated_at",
    "created_at_ms",
    "updated_at_ms",
    "archived",
    "git_branch",
    "source",
    "parent_thread_id",
    "agent_role",
    "agent_nickname",
)
_TITLE_COLUMNS = ("title", "preview", "first_user_message")


class IndexRow(NamedTuple):
    """One thread of the index (a named tuple: see ``cli.term.Terminal``)."""

    thread_id: str
    rollout_path: Path | None
    title: str | None = None
    cwd: str | None = None
    model: str | None = None
    git_branch: str | None = None
    tokens_used: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    archived: bool | None = None
    spawn_parent: str | None = None
    agent_type: str | None = None
    knows_source: bool = False  # whether ``spawn_parent`` is known (a source column exists)
    subagent: bool = False  # the source says subagent, with or without a parent
    name: str | None = None  # the name the user gave the thread (``names``)


def names_file(row: IndexRow, paths: tuple[Path, ...]) -> bool:
    """Whether ``row`` names one of ``paths`` (or no file): the same path, or the same place in
    a Codex home's session tree (``sessions/…`` or ``archived_sessions/…``, its file name
    included), under another home: a home copied, restored or moved since Codex wrote the
    index, which names the old place.  A row naming another place (a stale one: the file's
    old place in ``archived_sessions/`` while it is back in ``sessions/``) names another file."""
    named = row.rollout_path
    if named is None or named in paths:
        return True
    tail = session_place(str(named))
    return tail is not None and any(session_place(str(path)) == tail for path in paths)


def archived_at(path: Path, thread_id: str, ctx: ScanContext) -> bool:
    """Whether Codex archived the thread ``thread_id`` whose rollout is ``path``, without its
    discovery: the file is in ``archived_sessions/`` (where archiving moves it), or the thread's
    index row says so and names it (``row.archived``)."""
    if in_archived_sessions(path):  # (discovery's rule)
        return True
    row = thread_index(ctx).get(thread_id)
    return bool(row and row.archived and names_file(row, (path,)))


class ThreadIndex(NamedTuple):
    """The union of the readable indexes (a named tuple: see ``cli.term.Terminal``)."""

    databases: tuple[Path, ...]
    rows: Mapping[str, IndexRow]
    #: each database's and its WAL's path, size and mtime, taken *before* it was read: a
    #: row's cache key (``CodexProvider.fingerprint``), so Codex writing it while this scan
    #: reads (an agent at work) makes the next run read the rows again, not keep these
    identity: tuple[str, ...] = ()

    def get(self, thread_id: str) -> IndexRow | None:
        return self.rows.get(thread_id)


def thread_index(ctx: ScanContext) -> ThreadIndex:
    """The scan's thread index of the Codex homes (``load_index`` of their databases): the one
    already read, else read now.  Asked per session (``archived_at``), so the roots, which list
    the state folder, are taken only when nothing has read it yet."""
    index = ctx.memo.get(_MEMO_KEY)
    return index if isinstance(index, ThreadIndex) else load_index(ctx, database_roots(codex_roots(ctx)))


def load_index(ctx: ScanContext, roots: list[Root], *, brief: bool = False) -> ThreadIndex:
    """The union of every readable index among ``roots`` (memoised per scan).  ``brief``: for
    another provider's question alone (``known_cwds``): a database locked by Codex is not
    waited for (``BRIEF_BUSY_MS``), and what was read so is not the scan's own (a Codex pass
    later in the scan reads, and waits, as it always does)."""
    memo = ctx.memo.get(_MEMO_KEY)
    if isinstance(memo, ThreadIndex):
        return memo
    if brief:
        memo = ctx.memo.get(_BRIEF_MEMO_KEY)
        if isinstance(memo, ThreadIndex):
            return memo
    rows: dict[str, IndexRow] = {}
    used: list[Path] = []
    identity: list[str] = []
    for root in roots:
        if not os.path.lexists(root.path) or ctx.undecodable(root.path):
            continue  # no index is normal (older Codex): nothing to warn about
        identity.extend(_identity(root.path))
        found, problem = _read(root.path, ctx, brief)
        database = root.path
        if problem is not None:
            # The newest generation cannot be read: an older one beside it may (Codex keeps them).
            for older in older_state_dbs(root.path):
                if ctx.undecodable(older):
                    continue
                before = _identity(older)
                found, _ = _read(older, ctx, brief)
                if found is not None:
                    database = older
                    identity.extend(before)
                    break
            instead = "listing from rollouts instead" if found is None else f"using {database.name} instead"
            ctx.warn(root.path, f"thread index unreadable, {instead}: {problem}", passing=True)
        if found is None:
            continue
        if database == root.path and unread_wal(database):
            # Read from its main file alone: the rows its -wal changed since are older, or missing.
            ctx.warn(database, f"thread index read from its main file alone: {WAL_UNREAD} (Codex makes "
                               "it again when it next opens the index)", passing=True)
        used.append(database)
        for row in found:
            current = rows.get(row.thread_id)
            if current is None or _newer(row, current):
                rows[row.thread_id] = row
    index = ThreadIndex(tuple(used), rows, tuple(identity))
    ctx.memo[_BRIEF_MEMO_KEY if brief else _MEMO_KEY] = index
    return index


def _identity(database: Path) -> list[str]:
    parts = []
    for path in (database, database.with_name(database.name + "-wal")):
        try:
            stat = os.stat(path)
        except OSError:
            continue
        parts.append(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return parts


def _newer(row: IndexRow, current: IndexRow) -> bool:
    if row.updated_at is None:
        return False
    return current.updated_at is None or row.updated_at > current.updated_at


def database_problem(path: Path, ctx: ScanContext) -> str | None:
    """Why ``path`` cannot serve as the thread index, ``None`` when it can (doctor's STATUS of a
    ``database`` root); read once a scan, as ``load_index`` reads it."""
    return _read(path, ctx)[1]


def _read(path: Path, ctx: ScanContext, brief: bool = False) -> tuple[list[IndexRow] | None, str | None]:
    """``path``'s rows, or why it could not be read (said by the caller); ``brief``: ``load_index``'s."""
    reads = ctx.memo.setdefault(_READS_KEY, {})
    if path in reads:
        return reads[path]
    if brief:
        kept = ctx.memo.setdefault(_BRIEF_READS_KEY, {})
        if path not in kept:
            kept[path] = _read_database(path, BRIEF_BUSY_MS)
        return kept[path]
    reads[path] = _read_database(path)
    return reads[path]


def _read_database(path: Path, busy_ms: int = BUSY_TIMEOUT_MS) -> tuple[list[IndexRow] | None, str | None]:
    rows, problem = _read_rows(path, busy_ms)
    if problem is not None and unread_wal(path):
        # The main file alone holds no table yet (a database whose every change is still in
        # its WAL): "no threads table (unfamiliar schema)" would send the user the wrong way.
        return None, WAL_UNREAD
    return rows, problem


def _read_rows(path: Path, busy_ms: int = BUSY_TIMEOUT_MS) -> tuple[list[IndexRow] | None, str | None]:
    try:
        with readonly(path, busy_ms=busy_ms) as conn:
            if not has_table(conn, "threads"):
                raise DatabaseUnavailable("no threads table (unfamiliar schema)")
            columns = table_columns(conn, "threads")
            if "id" not in columns or "rollout_path" not in columns:
                raise DatabaseUnavailable("threads table lacks id/rollout_path (unfamiliar schema)")
            selected = [name for name in _WANTED if name in columns]
            sql = "SELECT " + ", ".join(f'"{name}"' for name in selected) + " FROM threads"
            raw_rows = [dict(zip(selected, values)) for values in conn.execute(sql)]
            edges = _spawn_edges(conn)
    except (DatabaseUnavailable, sqlite3.Error) as exc:
        return None, _reason(exc, path)
    knows_source = "source" in columns or bool(edges)
    return [row for row in (_row(raw, edges, knows_source) for raw in raw_rows) if row is not None], None


def _reason(exc: Exception, path: Path) -> str:
    text = str(exc)
    prefix = f"{path}: "
    return text[len(prefix):] if text.startswith(prefix) else text


def _spawn_edges(conn: sqlite3.Connection) -> dict[str, str]:
    """child thread id -> parent thread id, from ``thread_spawn_edges`` when present."""
    if not has_table(conn, "thread_spawn_edges"):
        return {}
    columns = table_columns(conn, "thread_spawn_edges")
    if "parent_thread_id" not in columns or "child_thread_id" not in columns:
        return {}
    edges = {}
    for parent, child in conn.execute("SELECT parent_thread_id, child_thread_id FROM thread_spawn_edges"):
        if isinstance(parent, str) and isinstance(child, str) and parent and child:
            edges[child] = parent
    return edges


def _text(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _time(raw: Mapping[str, Any], key: str) -> datetime | None:
    # *_ms columns are exact; the plain ones are seconds in most builds, ms in some.
    for column in (f"{key}_ms", key):
        value = raw.get(column)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return from_epoch(value)
    return None


def _row(raw: Mapping[str, Any], edges: Mapping[str, str], knows_source: bool) -> IndexRow | None:
    thread_id = _text(raw, "id")
    if thread_id is None:
        return None
    rollout = _text(raw, "rollout_path")
    title = None
    for column in _TITLE_COLUMNS:
        cleaned = clean_prompt(raw.get(column))
        if cleaned:
            title = collapse(cleaned, TITLE_CHARS)
            break
    link = link_of({"source": raw.get("source"), "parent_thread_id": raw.get("parent_thread_id")})
    tokens = raw.get("tokens_used")
    archived = raw.get("archived")
    return IndexRow(
        thread_id=thread_id,
        rollout_path=Path(rollout) if rollout else None,
        title=title,
        cwd=_text(raw, "cwd"),
        model=_text(raw, "model"),
        git_branch=_text(raw, "git_branch"),
        tokens_used=tokens if isinstance(tokens, int) and tokens >= 0 else None,
        created_at=_time(raw, "created_at"),
        updated_at=_time(raw, "updated_at"),
        archived=bool(archived) if isinstance(archived, int) else None,
        spawn_parent=edges.get(thread_id) or link.spawn_parent,
        agent_type=_text(raw, "agent_role") or _text(raw, "agent_nickname") or link.agent_type,
        knows_source=knows_source,
        subagent=link.subagent or thread_id in edges,
        # Newer builds say whether the name is one (``name_state``): not when it was cleared.
        name=None if raw.get("name_state") in ("unnamed", "cleared") else clean_name(raw.get("name")),
    )
