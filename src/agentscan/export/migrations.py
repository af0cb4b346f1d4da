"""Versioned schema changes for the SQLite export, the one file users keep for months.

Each ``@migration`` function runs once per database, in the order defined,
and is recorded in ``_agentscan_migrations`` (the pattern of ``llm``'s logs
database) only after it completed.  A migration must never drop or rewrite
user data: add tables, columns and indexes, or backfill new columns.  It must
also be safe to run again (``if not exists``), because sqlite-utils commits
DDL as it goes: one interrupted half way is retried by the next export.
Never edit a migration that has shipped; add a new one.

A database written before migrations existed already holds the tables of
``m001_initial``: that migration creates only what is missing, so it is
recorded without touching the old rows.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from sqlite_utils import Database

MIGRATIONS_TABLE = "_agentscan_migrations"
Migration = Callable[["Database"], None]

#: every migration, in the order it runs
MIGRATIONS: list[Migration] = []


def migration(func: Migration) -> Migration:
    MIGRATIONS.append(func)
    return func


def applied(db: Database) -> list[str]:
    if not db[MIGRATIONS_TABLE].exists():
        return []
    return [row["name"] for row in db.query(f"SELECT name FROM [{MIGRATIONS_TABLE}] ORDER BY rowid")]


def migrate(db: Database) -> list[str]:
    """Apply the migrations this database has not seen; returns their names.

    A database that records a migration this version does not know was written by a newer
    agentscan: ``ExportFailed`` before anything is written.  Writing into it would fill half
    its schema (an older agentscan set every ``cost_usd`` of ``token_days`` to NULL in a
    file migrated after it; a column it does not know stays stale)."""
    from agentscan.errors import ExportFailed

    done = set(applied(db))
    unknown = sorted(done - {func.__name__ for func in MIGRATIONS})
    if unknown:
        raise ExportFailed(f"a newer agentscan wrote it (it records the migration{'s' if len(unknown) > 1 else ''} "
                           f"{', '.join(unknown)}, which this one does not know): export with that agentscan, "
                           "or give another --output")
    if not db[MIGRATIONS_TABLE].exists():
        db.table(MIGRATIONS_TABLE).create({"name": str, "applied_at": str}, pk="name", if_not_exists=True)
    ran = []
    for func in MIGRATIONS:
        if func.__name__ in done:
            continue
        func(db)
        with db.conn:
            db.table(MIGRATIONS_TABLE).insert({"name": func.__name__, "applied_at": _now()})
        ran.append(func.__name__)
    return ran


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


_TOKENS = ("tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total")


@migration
def m001_initial(db: Database) -> None:
    """The schema of agentscan 0.1 (frozen here: later changes are new migrations)."""
    if not db["sessions"].exists():
        columns: dict[str, type] = {
            "id": str, "provider": str, "native_id": str, "path": str, "title": str, "cwd": str, "model": str,
            "git_branch": str, "started_at": str, "updated_at": str,
            **{name: int for name in _TOKENS},
            "prompts": int, "responses": int, "tool_calls": int, "subagents": int, "running": int,
            "first_seen_at": str, "last_seen_at": str, "gone_at": str,
        }
        db.table("sessions").create(columns, pk="id")
    if not db["sessions_fts"].exists() and db.execute("SELECT 1 FROM [sessions] LIMIT 1").fetchone() is None:
        # A new index, or one whose first export was killed in this migration after making
        # ``sessions`` (SQLite commits each table as it is made), no row written yet: made
        # whole.  The next export found ``sessions`` there and recorded this migration without
        # the full-text index (``sessions_fts MATCH`` failed: no such table).  A database from
        # before migrations, rows in it, keeps the tables it has.
        for column in ("updated_at", "provider", "cwd"):
            db.table("sessions").create_index([column], if_not_exists=True)
        for trigger in ("sessions_ai", "sessions_ad", "sessions_au"):
            db.execute(f"DROP TRIGGER IF EXISTS [{trigger}]")
        db.table("sessions").enable_fts(["title", "cwd"], create_triggers=True)
    if not db["subagents"].exists():
        db.table("subagents").create(
            {"session_id": str, "subagent_id": str, **{name: int for name in _TOKENS}},
            pk=("session_id", "subagent_id"),
        )
    if not db["token_days"].exists():
        db.table("token_days").create(
            {"session_id": str, "day": str, "model": str, "subagent_id": str, **{name: int for name in _TOKENS}},
            pk=("session_id", "day", "model", "subagent_id"),
        )
        db.table("token_days").create_index(["day"], if_not_exists=True)


@migration
def m002_cost_usd(db: Database) -> None:
    """``cost_usd`` (REAL, USD) on sessions, subagents and token_days.

    Rows written before it stay NULL (unknown) until an export rewrites them;
    every export rewrites the sessions it exports, so one run fills them.
    """
    for table in ("sessions", "subagents", "token_days"):
        if "cost_usd" not in db.table(table).columns_dict:
            db.table(table).add_column("cost_usd", float)


@migration
def m003_fts_on_text_change(db: Database) -> None:
    """The full-text index follows a session's ``title`` and ``cwd`` only when one of them
    changes.  Every export rewrites every session it writes (``last_seen_at``), and the
    update trigger ``enable_fts`` made indexed each one again: 15,000 a run for a heavy
    user, a tenth of the export.  No row changes: the trigger is replaced by one with a
    ``WHEN``.  Safe to run again: the old one is dropped only if there, and a run stopped
    between the two statements makes it anew next time (the index's table is the guide)."""
    if not db["sessions_fts"].exists():
        return  # a database from before migrations: no full-text index to keep in step
    db.execute("DROP TRIGGER IF EXISTS [sessions_au]")
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS [sessions_au] AFTER UPDATE ON [sessions] "
        "WHEN old.[title] IS NOT new.[title] OR old.[cwd] IS NOT new.[cwd] BEGIN "
        "INSERT INTO [sessions_fts] ([sessions_fts], rowid, [title], [cwd]) VALUES('delete', old.rowid, old.[title], old.[cwd]); "
        "INSERT INTO [sessions_fts] (rowid, [title], [cwd]) VALUES (new.rowid, new.[title], new.[cwd]); "
        "END"
    )


@migration
def m004_gone_runs(db: Database) -> None:
    """``gone_at`` on ``subagents`` and ``token_days``: set when a run's transcript left the disk
    while its session stayed (Claude Code's cleanup deleted a subagent's file before its
    session's); its rows are kept, not rewritten away (``export.children``).  Every row
    written before it stays NULL: its run was on disk when it was written."""
    for table in ("subagents", "token_days"):
        if "gone_at" not in db.table(table).columns_dict:
            db.table(table).add_column("gone_at", str)


@migration
def m005_workspace_folders(db: Database) -> None:
    """``workspace_folders`` (TEXT, a JSON array) on ``sessions``: every folder of a multi-root
    Cursor workspace, of which ``cwd`` holds only the first, so ``WHERE cwd LIKE …`` missed a
    chat of the workspace's other folders (``json_each`` finds it: docs/cron.md).  Rows written
    before it stay NULL until an export rewrites them; every export rewrites the sessions it
    exports, so one run fills them."""
    if "workspace_folders" not in db.table("sessions").columns_dict:
        db.table("sessions").add_column("workspace_folders", str)


@migration
def m006_archived(db: Database) -> None:
    """``archived`` (INTEGER, 0 or 1) on ``sessions``: a session the user archived (a Codex
    thread in ``archived_sessions/``, a Cursor chat archived), which ``list`` marks.  Rows written before it stay NULL
    until an export rewrites them; every export rewrites the sessions it exports."""
    if "archived" not in db.table("sessions").columns_dict:
        db.table("sessions").add_column("archived", int)
