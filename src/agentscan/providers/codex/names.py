"""The names users give Codex threads (what ``codex resume`` shows), and which one a row takes.

Codex records a rename in three places at once (docs/providers/codex.md):

* the rollout: an ``event_msg`` of type ``thread_name_updated``
  (``{thread_id, thread_name}``), at the line's ``timestamp``;
* ``<CODEX_HOME>/session_index.jsonl``: an append-only file of
  ``{"id", "thread_name", "updated_at"}`` lines, the last one for an id
  winning (Codex resolves names so);
* the thread index's ``threads.name`` column, at the row's ``updated_at``
  (the row's last change: a rename updates it, so it is never older than
  the name).

Each can be missing or behind (an older build writes no session index, a
``list`` row reads only the last 1 MiB of a rollout, the index lags), so the
row takes the **newest** of the names found, a name of unknown time counting
as the oldest; on equal times the rollout (canonical) beats the session
index, which beats the thread index.  Any name beats the first prompt.  A
blank or null name is no name (Codex's own readers skip it), and no source
clears another's name (only the thread index's ``name_state`` says that its
own ``name`` is none: ``index``).

``session_index.jsonl`` can grow without bound, so only its last
``INDEX_BYTES`` are read; a name set earlier than that and never again is
not seen there (the rollout and the thread index may still have it).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple

from agentscan.timeutil import parse_iso
from agentscan.toolkit.paths import is_within

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.codex.discovery import Thread

#: what is read of a session index: its last 4 MiB (some 30,000 renames)
INDEX_BYTES = 4 * 1024 * 1024
#: a rollout's names are kept for this many thread ids at most (its own, and those of the
#: ancestors whose history it copied): a hostile file cannot make the set grow
MAX_NAMED_THREADS = 64
_MEMO_KEY = "codex.session_names"

#: which source a name came from: on equal times the higher wins
STATE_DB, SESSION_INDEX_FILE, ROLLOUT = 0, 1, 2

#: a rollout's names: (thread id, name, the event's time), the latest event per thread id
RolloutNames = tuple[tuple[str, str, "datetime | None"], ...]


class ThreadName(NamedTuple):
    """One source's name for a thread (a named tuple: see ``cli.term.Terminal``)."""

    name: str
    at: datetime | None
    source: int


class SessionNames(NamedTuple):
    """The names of every readable session index, by thread id (a named tuple: see ``cli.term.Terminal``)."""

    names: Mapping[str, ThreadName]
    #: the files read, and those read only in part (their last ``INDEX_BYTES``): for doctor
    files: tuple[Path, ...] = ()
    partial: tuple[Path, ...] = ()


def window_text() -> str:
    """How much of a session index is read, as doctor and the warnings say it."""
    return f"{INDEX_BYTES / (1024 * 1024):g} MiB"


def clean_name(value: object) -> str | None:
    """A name as a title shows it (whitespace collapsed, 180 characters at most); ``None``
    for no name (not a string, blank)."""
    if not isinstance(value, str) or not value.strip():
        return None
    from agentscan.providers.codex.records import TITLE_CHARS, collapse

    return collapse(value, TITLE_CHARS)


def name_event(payload: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(thread id, name)`` of a ``thread_name_updated`` event's payload; ``None`` without a
    thread id or a name.  The id says whose name it is: a fork's or a subagent's rollout
    copies its parent's history, its renames included, and those name the parent."""
    thread_id = payload.get("thread_id")
    name = clean_name(payload.get("thread_name"))
    if not isinstance(thread_id, str) or not thread_id.strip() or name is None:
        return None
    return thread_id.strip().lower(), name


def note_name(names: dict[str, tuple[str, datetime | None]], payload: Mapping[str, Any],
              timestamp: datetime | None) -> None:
    """Keep a ``thread_name_updated`` event in ``names`` (a later one replaces an earlier one)."""
    found = name_event(payload)
    if found is None:
        return
    thread_id, name = found
    if thread_id in names or len(names) < MAX_NAMED_THREADS:
        names[thread_id] = (name, timestamp)


def frozen(names: Mapping[str, tuple[str, datetime | None]]) -> RolloutNames:
    return tuple((thread_id, name, at) for thread_id, (name, at) in names.items())


def merged(parts: Iterable[RolloutNames]) -> RolloutNames:
    """The names of several files of one thread, in history order: a later file's win."""
    names: dict[str, tuple[str, datetime | None]] = {}
    for part in parts:
        for thread_id, name, at in part:
            names[thread_id] = (name, at)
    return frozen(names)


def chosen_name(thread: Thread, rollout: RolloutNames) -> ThreadName | None:
    """The name a row shows for ``thread``: the newest of its rollout's (``rollout``: the names
    its files' read parts recorded), its session index's and its thread index's."""
    candidates = [thread.session_index_name]
    own = thread.thread_id.lower()
    for thread_id, name, at in rollout:
        if thread_id == own:
            candidates.append(ThreadName(name, at, ROLLOUT))
    row = thread.indexed
    if row is not None and row.name is not None:
        candidates.append(ThreadName(row.name, row.updated_at, STATE_DB))
    return newest(candidates)


def newest(candidates: Iterable[ThreadName | None]) -> ThreadName | None:
    best: ThreadName | None = None
    for candidate in candidates:
        if candidate is not None and (best is None or _key(candidate) > _key(best)):
            best = candidate
    return best


def _key(name: ThreadName) -> tuple[bool, float, int]:
    return (name.at is not None, name.at.timestamp() if name.at is not None else 0.0, name.source)


# -- session_index.jsonl ------------------------------------------------------------


def load_session_names(ctx: ScanContext, paths: Iterable[Path]) -> SessionNames:
    """The names of every session index among ``paths`` (memoised per scan): of one id, the
    last entry of a file, and of several files the newest (``updated_at``), a tie to the later file."""
    memo = ctx.memo.get(_MEMO_KEY)
    if isinstance(memo, SessionNames):
        return memo
    names: dict[str, ThreadName] = {}
    files: list[Path] = []
    partial: list[Path] = []
    for path in paths:
        found = _read(path, ctx)
        if found is None:
            continue
        entries, cut = found
        files.append(path)
        if cut:
            partial.append(path)
        for thread_id, entry in entries.items():
            current = names.get(thread_id)
            if current is None or _key(entry) >= _key(current):
                names[thread_id] = entry
    result = SessionNames(names, tuple(files), tuple(partial))
    ctx.memo[_MEMO_KEY] = result
    return result


def _read(path: Path, ctx: ScanContext) -> tuple[dict[str, ThreadName], bool] | None:
    """The file's names by thread id and whether it was read only in part; ``None``: none
    there (no file is normal: older builds write none) or unreadable (a warning)."""
    import orjson

    from agentscan.settling import unfinished_line
    from agentscan.toolkit.jsonl import BOM, read_tail, short_json_error

    if not os.path.lexists(path) or ctx.undecodable(path):
        return None
    if os.path.islink(path) and not is_within(os.path.realpath(path), os.path.realpath(path.parent)):
        # Another program's file, found by name: a link out of its Codex home is not followed
        # (``/proc/self/environ`` reads as a regular file).
        ctx.warn(path, "points outside its Codex home; skipped")
        return None
    try:
        # Read-only, a regular file only (``open_regular``), and bounded: the file only grows.
        data, cut = read_tail(path, INDEX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return None
    if cut:
        newline = data.find(b"\n")  # the window starts mid-line: not a line of its own
        data = data[newline + 1:] if newline >= 0 else b""
    elif data.startswith(BOM):
        data = data[len(BOM):]
    names: dict[str, ThreadName] = {}
    chunks = data.split(b"\n")
    for position, chunk in enumerate(chunks):
        chunk = chunk.strip()
        if not chunk:
            continue
        line = None if cut else position + 1  # a window's lines are not the file's: no number to give
        try:
            record = orjson.loads(chunk)
        except orjson.JSONDecodeError as exc:
            if position == len(chunks) - 1:  # no newline after it: maybe still being written
                ctx.warn(path, unfinished_line(chunk), line)
            else:
                where = f" in the last {window_text()}" if cut else ""
                ctx.warn(path, f"invalid JSON skipped{where}: {short_json_error(exc)}", line)
            continue
        entry = _entry(record)
        if entry is None:
            ctx.warn(path, "not a thread name entry ({\"id\", \"thread_name\", \"updated_at\"}): skipped", line)
        elif entry[1] is not None:  # a blank name is no name (Codex skips it too)
            names[entry[0]] = entry[1]
    return names, cut


def _entry(record: object) -> tuple[str, ThreadName | None] | None:
    if not isinstance(record, dict):
        return None
    thread_id, name = record.get("id"), record.get("thread_name")
    if not isinstance(thread_id, str) or not thread_id.strip() or not isinstance(name, str):
        return None
    cleaned = clean_name(name)
    at = parse_iso(record.get("updated_at"))
    return thread_id.strip().lower(), ThreadName(cleaned, at, SESSION_INDEX_FILE) if cleaned else None
