"""Lay ``fixtures/bad`` out as a home, and make the cases too big or odd to commit.

The committed corpus (see ``fixtures/bad/regenerate.py``) is one small file
per provider and kind of damage; ``manifest.json`` names each case's native
id, the tokens its undamaged lines carry, and whether it must warn.  Here
each file is copied to where its provider looks for sessions, named the way
that provider names them.  The filesystem cases (sparse files, symlinks,
undecodable names, unreadable paths) are built in the test's own tmp dir.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from builders import REPO

BAD = REPO / "fixtures" / "bad"
MANIFEST = json.loads((BAD / "manifest.json").read_text("utf-8"))
SECRET = "PRIVATE-PROMPT"  # in every damaged line; must never be quoted back
PROVIDERS = ("claude", "codex", "gemini", "cursor")
# The warning the Scanner gives when a provider raised (api.internal_error): a bug that
# the Scanner contained, not bad input handled; hardening tests must never see it.
INTERNAL_ERROR = "could not read this session"


def no_internal_errors(warnings: Iterable[object]) -> bool:
    """Whether no warning (a ScanWarning or its JSON) says a provider raised."""
    messages = [w["message"] if isinstance(w, dict) else w.message for w in warnings]
    return not [m for m in messages if INTERNAL_ERROR in m]


@dataclass(frozen=True, slots=True)
class Case:
    provider: str
    name: str
    native_id: str
    expected: int | None  # total tokens of the undamaged lines (hand-chosen in the corpus)
    title: str | None
    warns: bool  # a warning must name the file
    listed: bool  # ``list`` shows its session (not one that recorded nothing: docs/cli.md)
    source: Path
    named: bool = True  # the file names its session (an empty Gemini chat does not): ``export`` has it

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.native_id}"


def all_cases(providers: Iterable[str] = PROVIDERS) -> list[Case]:
    return [
        Case(provider, name, info["id"], info["expected"], info["title"], info["warns"], info["listed"], BAD / info["file"],
             info["named"])
        for provider in providers
        for name, info in MANIFEST[provider].items()
    ]


def case(provider: str, name: str) -> Case:
    (found,) = [c for c in all_cases([provider]) if c.name == name]
    return found


def target(home: Path, item: Case) -> Path:
    """Where the case's file goes in ``home``, named as its provider names sessions."""
    native = item.native_id
    if item.provider == "claude":
        return home / ".claude" / "projects" / "-work-bad-input" / f"{native}.jsonl"
    if item.provider == "codex":
        return home / ".codex" / "sessions" / "2026" / "01" / "03" / f"rollout-2026-01-03T10-00-00-{native}.jsonl"
    if item.provider == "gemini":
        suffix = item.source.suffix  # .json (legacy) or .jsonl
        return home / ".gemini" / "tmp" / "bad-input" / "chats" / f"session-2026-01-04T10-00-{native[:8]}{suffix}"
    return home / ".cursor" / "projects" / "work-bad-input" / "agent-transcripts" / f"{native}.jsonl"


def lay_out(home: Path, cases: Iterable[Case]) -> dict[str, Path]:
    """Copy each case to its place in ``home``; returns session id -> file."""
    placed = {}
    for item in cases:
        path = target(home, item)
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item.source, path)
        placed[item.id] = path
    return placed


def codex_state_db_not_sqlite(home: Path) -> Path:
    path = home / ".codex" / "state_5.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(BAD / "codex" / "state_5.sqlite", path)
    return path


def cursor_state_db_missing_table(home: Path) -> Path:
    """``state.vscdb`` built from the corpus's SQL (a DB is binary: not committed)."""
    path = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript((BAD / "cursor" / "state.vscdb.sql").read_text("utf-8"))
        conn.commit()
    return path


def lay_out_everything(home: Path) -> dict[str, Path]:
    placed = lay_out(home, all_cases())
    placed["codex-db"] = codex_state_db_not_sqlite(home)
    placed["cursor-db"] = cursor_state_db_missing_table(home)
    return placed


# -- made at test time --------------------------------------------------------------

def sparse_file(path: Path, size: int) -> Path:
    """A file of ``size`` NUL bytes that takes no disk space (a hole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def with_hole(path: Path, head: bytes, hole: int, tail: bytes) -> Path:
    """``head``, then ``hole`` NUL bytes that take no disk space, then ``tail``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(head)
        handle.seek(hole, os.SEEK_CUR)
        handle.write(tail)
    return path


def one_line_file(path: Path, size: int, head: bytes = b"", tail: bytes = b"\n") -> Path:
    """``head`` + ``size`` bytes of ``x`` + ``tail``, written in 1 MiB pieces (never held whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    piece = b"x" * (1 << 20)
    with open(path, "wb") as handle:
        handle.write(head)
        left = size
        while left > 0:
            handle.write(piece[: min(left, len(piece))])
            left -= len(piece)
        handle.write(tail)
    return path


def undecodable_name(directory: Path, stem: bytes, suffix: bytes) -> Path:
    """A file whose name is not UTF-8 (Linux allows any bytes but ``/`` and NUL)."""
    directory.mkdir(parents=True, exist_ok=True)
    raw = os.path.join(os.fsencode(directory), stem + suffix)
    return Path(os.fsdecode(raw))


# -- a live writer in another process -------------------------------------------------

_WRITER = r"""
import sqlite3, sys
mode, paths = sys.argv[1], sys.argv[2:]
conns = []
for path in paths:
    conn = sqlite3.connect(path, isolation_level=None, timeout=0)
    if mode == "exclusive":  # rollback journal: readers wait, then give up
        conn.execute("BEGIN EXCLUSIVE")
    else:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")  # keep the committed frame in the -wal
        conn.execute("CREATE TABLE IF NOT EXISTS writer_heartbeat (beat INTEGER)")
        conn.execute("INSERT INTO writer_heartbeat VALUES (1)")
        if mode == "immediate":  # holds the write lock with an uncommitted change
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO writer_heartbeat VALUES (2)")
    conns.append(conn)
print("ready", flush=True)
sys.stdin.readline()
for conn in conns:
    if conn.in_transaction:
        conn.execute("ROLLBACK")
    conn.close()
"""


class LiveWriter:
    """Another process holding SQLite databases open, as Cursor or Codex does.

    It must be another process: within one process SQLite shares a single
    ``-shm`` mapping between connections, which would hide what a reader
    writes there.  ``mode``: ``idle`` (WAL, a committed write, connection
    held), ``immediate`` (WAL, ``BEGIN IMMEDIATE`` with an uncommitted
    write) or ``exclusive`` (rollback journal, ``BEGIN EXCLUSIVE``).
    """

    def __init__(self, mode: str, *paths: Path) -> None:
        import subprocess
        import sys

        self._process = subprocess.Popen(
            [sys.executable, "-c", _WRITER, mode, *map(str, paths)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert self._process.stdout is not None and self._process.stdout.readline().strip() == "ready"

    def __enter__(self) -> LiveWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write("\n")
        self._process.stdin.close()
        self._process.wait(timeout=30)
        self._process.stdout.close()
