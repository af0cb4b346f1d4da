"""One Cursor session, assembled from the three stores.

A session is a transcript set (CLI or IDE agent) or an IDE-only composer.
Its facts come, in order of trust, from ``state.vscdb`` (composerHeaders,
composerData, bubbles), the Agent CLI store (``meta.json``/``store.db``) and
the transcript itself; each store is optional, so any of them may be
missing, locked or corrupt without losing the session.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from agentscan.context import ScanContext
from agentscan.providers.cursor.mostused import model_of_calls, most_used
from agentscan.providers.cursor.bubbletimes import last_bubble_time
from agentscan.providers.cursor.chats import ChatMeta, chat_dirs, chat_meta
from agentscan.providers.cursor.composer import BubbleStats, ComposerInfo, HeaderInfo
from agentscan.providers.cursor.discovery import TranscriptSet
from agentscan.providers.cursor.statedb import StateDb, state_db
from agentscan.providers.cursor.workspace import WorkspaceComposer
from agentscan.timeutil import from_epoch, newest

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.providers.cursor.usage import SessionUsage

class StoreSession(NamedTuple):
    """A CLI chat known only by its store (``standalone.py``); a named tuple (see
    ``cli.term.Terminal``)."""

    directory: Path

    @property
    def store(self) -> Path:
        return self.directory / "store.db"


class CursorHint(NamedTuple):
    """``SessionRef.hint``: the transcript files, or ``None`` for a session
    without one: an IDE-only composer, or (``store``/``workspace`` set) a
    CLI store or a composer only a workspace DB lists.  A named tuple (see
    ``cli.term.Terminal``)."""

    transcripts: TranscriptSet | None
    store: StoreSession | None = None
    workspace: WorkspaceComposer | None = None


class StoreFacts(NamedTuple):
    """What the three stores say of a session (a named tuple: see
    ``cli.term.Terminal``)."""

    composer: ComposerInfo | None
    header: HeaderInfo | None
    chat: ChatMeta | None

    def title(self) -> str | None:
        for source in (self.composer, self.header, self.chat):
            if source is not None and source.name:
                return source.name
        return None

    def started(self) -> datetime | None:
        for source in (self.header, self.composer, self.chat):
            if source is not None and source.created is not None:
                return source.created
        return None

    def updated(self) -> datetime | None:
        """The newest update time the stores recorded: the header's and
        composerData's ``lastUpdatedAt``, the header's ``recency`` and the CLI's
        ``meta.json`` ``updatedAtMs`` (a composer's ``lastUpdatedAt`` may stay at its
        creation while its bubbles go on: the row takes them too)."""
        return newest(
            self.header.updated if self.header else None,
            self.header.recency if self.header else None,
            self.composer.updated if self.composer else None,
            self.chat.updated if self.chat else None,
        )

    def archived(self) -> bool:
        """Archived in Cursor's chat list (``isArchived`` of its composer or its header)."""
        return archived_in(self.composer, self.header)

    def model(self) -> str | None:
        if self.composer is not None and self.composer.model:
            return self.composer.model
        return self.chat.model if self.chat is not None else None


def store_facts(native_id: str, ctx: ScanContext) -> StoreFacts:
    db = state_db(ctx)
    return StoreFacts(db.composers().get(native_id), db.headers().get(native_id), chat_meta(native_id, ctx))


def recency(native_id: str, files: TranscriptSet | None, ctx: ScanContext) -> float:
    """The ``list`` sort key: a cheap upper bound of the row's ``updated_at``
    (``scan.listing`` stops reading at the first session whose bound is too old)."""
    db = state_db(ctx)
    facts = StoreFacts(db.composers().get(native_id), db.headers().get(native_id), None)
    # The last live bubble's time too, or the nearest before it with one (read by exact key:
    # ``bubbletimes``): the row's ``updated_at`` takes the bubbles' times.
    updated = newest(facts.updated(), last_bubble_time(db, native_id)) or (None if files else facts.started())
    stamps = [updated.timestamp()] if updated else []
    if files is not None:
        stamps.append(files.newest_mtime)
    elif not stamps and db.unread() is not None:
        # A chat the DB alone holds, listed while it cannot be read (``children``: as its last
        # read kept it): the DB's own writes bound its time (0 sorted it after every other
        # session, and ``list`` stopped at an older one before reaching its kept, newer row).
        from agentscan.toolkit.sqlite_ro import with_wal

        stamps += [stat.st_mtime for path in with_wal(db.path) if (stat := ctx.stat(path)) is not None]
    # The CLI rewrites meta.json when it bumps ``updatedAtMs`` (which the row
    # reads), maybe long after the transcript's last write: its mtime bounds that
    # time without opening it (the census took the stat already).
    directory = chat_dirs(ctx).get(native_id)
    meta = ctx.stat(directory / "meta.json") if directory is not None else None
    if meta is not None:
        stamps.append(meta.st_mtime)
    return max(stamps, default=0.0)


def top_model(stats: BubbleStats) -> str | None:
    """The model most of its calls ran (its bubbles with tokens, as its usage sums count them:
    ``mostused.calls_model``, the rule while the state DB is locked), a tie to the first by name;
    with no call naming one, the model most of its live replies name."""
    return model_of_calls((item.model, 1) for item in stats.usage) or most_used(stats.models)


def mtime_time(files: TranscriptSet | None) -> datetime | None:
    return from_epoch(files.newest_mtime) if files and files.newest_mtime else None


def display_path(files: TranscriptSet | None, db: StateDb) -> str:
    if files is None:
        return str(db.path)  # IDE-only: the composer lives in state.vscdb
    if files.main is not None:
        return str(files.main)
    return str(Path(files.subagents[0].path).parent.parent)


def child_model(child: str, usage: SessionUsage, db: StateDb) -> str | None:
    """A sub-composer's model as a session's is found: its composer's, else the one most
    of its bubbles name (``None`` for a transcript-only child: Cursor writes none there)."""
    composer = db.composers().get(child)
    if composer is not None and composer.model:
        return composer.model
    stats = usage.children.get(child)
    return top_model(stats) if stats is not None else None


def workspace_folder(native_id: str, ctx: ScanContext) -> str | None:
    from agentscan.providers.cursor.workspace import workspace_composers

    composer = workspace_composers(ctx).get(native_id)
    return composer.folder if composer is not None else None


def header_folder(facts: StoreFacts, ctx: ScanContext) -> str | None:
    """The folder of the workspace a ``composerHeaders`` row names (``workspaceId``)."""
    from agentscan.providers.cursor.workspace import folder_by_id

    return folder_by_id(facts.header.workspace_id, ctx) if facts.header is not None else None


def workspace_folders(native_id: str, facts: StoreFacts, cwd: str | None, ctx: ScanContext) -> tuple[str, ...]:
    """Every folder of the multi-root workspace the session ran in, when its ``cwd`` is one
    of them (the first, as ``workspace_folder`` / ``header_folder`` give it, or the one its
    composer names): ``()`` for a window on one folder."""
    from agentscan.providers.cursor.workspace import folders_by_id, folders_of, workspace_composers

    composer = workspace_composers(ctx).get(native_id)
    found = folders_of(composer.db.parent, ctx) if composer is not None else ()
    if not found and facts.header is not None:
        found = folders_by_id(facts.header.workspace_id, ctx)
    return found if len(found) > 1 and cwd in found else ()


def archived_in(*sources: Any) -> bool:
    """Whether any of a chat's ``sources`` (its composer, its header; ``None`` where the DB has
    none) says Cursor archived it: the one rule of a row and of ``archived_unread``."""
    return any(source is not None and source.archived for source in sources)


def archived_of(ref: SessionRef, ctx: ScanContext) -> bool | None:
    """Whether the user archived ``ref``'s chat, its row not read (``Provider.archived_unread``):
    as the row tells it (``StoreFacts.archived``, ``standalone``), from what discovery read: its
    composer and header (``recency`` read both for every session), or the workspace entry of a
    composer only a workspace DB lists.  A ref the index remembered (a warm windowed
    ``tokens``: no discovery) reads the two maps once for the whole scan.  With the state DB
    locked or corrupt, the mark of the row the index keeps (``keptrow.kept_archived``), else
    ``None``: not known (``list`` says ``archived_unknown``)."""
    from agentscan.memohint import is_memo_ref

    if not is_memo_ref(ref):
        if ref.hint.workspace is not None:
            return bool(ref.hint.workspace.archived)
        if ref.hint.store is not None:
            return False  # an Agent CLI chat records no such flag (``store_row``)
    db = state_db(ctx)
    header, composer = db.headers().get(ref.native_id), db.composers().get(ref.native_id)
    archived = archived_in(header, composer)
    if header is None and composer is None and ref.path is None and not ref.files:
        # Not in the global DB, and no file of its own: a composer only a workspace DB lists
        # (``standalone.workspace_ref``).  Its flag is in that DB's entry, as its row took it;
        # the window's JSON dropped it while its table said ``(archived)``.  Those DBs are read
        # once a scan, and only for such a ref (a transcript or an Agent CLI chat never asks).
        from agentscan.providers.cursor.workspace import workspace_composers

        entry = workspace_composers(ctx).get(ref.native_id)
        archived = entry is not None and entry.archived
    if db.unread() is not None and not archived:
        # The row kept from a run that read the DB, which a row built now takes its facts
        # from (``keptrow.with_kept``): its mark is the DB's as last read, as its name is.
        from agentscan.providers.cursor.keptrow import kept_archived

        return kept_archived(ref, ctx)
    return archived
