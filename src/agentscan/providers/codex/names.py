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
blank name, or a rollout event's missing or null one, is no name (Codex's own
readers skip it; a session index line whose ``thread_name`` is null is a bad
line: Codex writes a string), and no source clears another's name (only the
thread index's ``name_state`` says that its own ``name`` is none: ``index``).

``session_index.jsonl`` can grow without bound, so only its last
``INDEX_BYTES`` are read; a name set earlier than that and never again is
not seen there (the rollout and the thread index may still have it).  Its
lines are only decoded as it is read; a name is made (cleaned, its time
parsed) when a thread asks for it (``SessionNames.name_of``).
"""

from __future__ import annotations

import errno
import functools
import io
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple

from agentscan.timeutil import parse_iso
from agentscan.toolkit.paths import is_within

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.codex.discovery import Thread

#: what is read of a session index: its last 4 MiB (some 30,000 renames)
INDEX_BYTES = 4 * 1024 * 1024
#: a rollout's names are kept for this many thread ids at most (those of the ancestors whose
#: history it copied), besides its own thread's: a hostile file cannot make the set grow
MAX_NAMED_THREADS = 64
#: a session index's bad lines said one by one (with their numbers): the rest are counted
SAID_BAD_LINES = 5
#: bad lines read with no good one before a file is taken for no session index at all
NO_ENTRY_LINES = 10_000
#: why a file cannot be read that stays so until someone changes it (``lasting``)
_LASTING = frozenset({errno.ELOOP, errno.EISDIR, errno.ENOTDIR, errno.ENAMETOOLONG})
_MEMO_KEY = "codex.session_names"

#: which source a name came from: on equal times the higher wins
STATE_DB, SESSION_INDEX_FILE, ROLLOUT = 0, 1, 2

#: a rollout's names: (thread id, name, the event's time), the latest event per thread id
RolloutNames = tuple[tuple[str, str, "datetime | None"], ...]
#: a session index entry as decoded: its ``thread_name`` (a string, not blank) and ``updated_at``
RawEntry = tuple[str, Any]


class ThreadName(NamedTuple):
    """One source's name for a thread (a named tuple: see ``cli.term.Terminal``)."""

    name: str
    at: datetime | None
    source: int


class SessionNames(NamedTuple):
    """What every readable session index says (a named tuple: see ``cli.term.Terminal``)."""

    #: each file's last named entry of each thread id (lower-cased), as decoded, in file order
    entries: tuple[Mapping[str, RawEntry], ...] = ()
    #: the files read, and those read only in part (their last ``INDEX_BYTES``): for doctor
    files: tuple[Path, ...] = ()
    partial: tuple[Path, ...] = ()

    def name_of(self, thread_id: str) -> ThreadName | None:
        """A thread's name (its id lower-cased): a file's last named entry for it, of several
        files the newest (``updated_at``), a tie to the later file."""
        best: ThreadName | None = None
        for entries in self.entries:
            raw = entries.get(thread_id)
            name = clean_name(raw[0]) if raw is not None else None
            if raw is None or name is None:  # (only named entries are kept)
                continue
            found = ThreadName(name, parse_iso(raw[1]), SESSION_INDEX_FILE)
            if best is None or _key(found) >= _key(best):
                best = found
        return best

    def has_name(self, thread_id: str) -> bool:
        """Whether a file has a name for the thread (its id lower-cased)."""
        return any(thread_id in entries for entries in self.entries)


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
              timestamp: datetime | None, own: str | None = None) -> None:
    """Keep a ``thread_name_updated`` event in ``names`` (a later one replaces an earlier one).
    ``own``: the id (lower-cased) of the thread the lines are of, whose names are always kept
    (the cap is for the others): ``None`` when the reader does not know it."""
    found = name_event(payload)
    if found is None:
        return
    thread_id, name = found
    if thread_id in names or len(names) < MAX_NAMED_THREADS or thread_id == own:
        names[thread_id] = (name, timestamp)


def frozen(names: Mapping[str, tuple[str, datetime | None]]) -> RolloutNames:
    return tuple((thread_id, name, at) for thread_id, (name, at) in names.items())


def merged(parts: Iterable[RolloutNames]) -> RolloutNames:
    """The names of several files of one thread, in history order: of one thread id the
    newest by time, a later file's on equal or unknown times (an abandoned branch comes
    after the chain's files, and an older rename there must not win over a newer one)."""
    names: dict[str, tuple[str, datetime | None]] = {}
    for part in parts:
        for thread_id, name, at in part:
            kept = names.get(thread_id)
            if kept is None or kept[1] is None or at is None or at >= kept[1]:
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
    """The named entries of every session index among ``paths`` (memoised per scan)."""
    memo = ctx.memo.get(_MEMO_KEY)
    if isinstance(memo, SessionNames):
        return memo
    entries: list[Mapping[str, RawEntry]] = []
    files: list[Path] = []
    partial: list[Path] = []
    for path in paths:
        found = _read(path, ctx)
        if found is None:
            continue
        named, cut = found
        entries.append(named)
        files.append(path)
        if cut:
            partial.append(path)
    result = SessionNames(tuple(entries), tuple(files), tuple(partial))
    ctx.memo[_MEMO_KEY] = result
    return result


def _read(path: Path, ctx: ScanContext) -> tuple[dict[str, RawEntry], bool] | None:
    """The file's last named entry of each thread id, raw, and whether the file was read only
    in part; ``None``: none there (no file is normal: older builds write none) or unreadable
    (a warning)."""
    import orjson

    from agentscan.settling import unfinished_line
    from agentscan.toolkit.fsutil import read_tail
    from agentscan.toolkit.jsonl import BOM

    if not os.path.lexists(path) or ctx.undecodable(path):
        return None
    if links_out(path):
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
        if lasting(exc):
            # Not ``passing``: read again next run, it would fail again, and a passing warning
            # keeps any discovery from being stored (every warm run discovered afresh).
            from agentscan.context import CANNOT_READ

            ctx.warn(path, f"{CANNOT_READ}{exc.strerror or exc}")
        else:
            ctx.cannot_read(path, exc)  # an I/O error, a permission: may be read next time
        return None
    if cut:
        newline = data.find(b"\n")  # the window starts mid-line: not a line of its own
        data = data[newline + 1:] if newline >= 0 else b""
    elif data.startswith(BOM):
        data = data[len(BOM):]
    bad = _BadLines(path, ctx, cut)
    named: dict[str, RawEntry] = {}
    loads, invalid = orjson.loads, orjson.JSONDecodeError
    # Only decoded and checked here: a name is cleaned, and its time parsed, when a thread
    # asks for it (``SessionNames.name_of``): doing so for each of 30,000 lines cost 200 ms.
    # Line by line from a stream of the bytes read: a list of a window's lines would take
    # 60 MB for a file of a million short ones.
    stopped = False
    for number, line in enumerate(io.BytesIO(data), 1):
        if number > NO_ENTRY_LINES and not named and bad.said + bad.more >= NO_ENTRY_LINES:
            # No session index: each bad line costs a failed decode, and a window of a million
            # of them took seconds each time discovery ran.
            stopped = True
            break
        try:
            record = loads(line)  # JSON's own whitespace (the newline) is allowed around it
        except invalid as exc:
            chunk = line.strip()
            if not chunk:
                continue
            if not line.endswith(b"\n"):  # the last line, with no newline yet: maybe still being written
                ctx.warn(path, unfinished_line(chunk), None if cut else number)
            else:
                # Worded only if said: a million bad lines cost seconds to word, five are said.
                # The line as decoded, unstripped: the decoder's column is a place in it.
                bad.add(number, functools.partial(_invalid, bad.where, exc, line))
            continue
        if isinstance(record, dict):
            thread_id, name = record.get("id"), record.get("thread_name")
            # A null ``thread_name`` is a bad line too: Codex writes a string (blank for none).
            if isinstance(thread_id, str) and isinstance(name, str) and (key := thread_id.strip().lower()):
                if name and not name.isspace():  # a blank name is no name (Codex skips it too)
                    named[key] = (name, record.get("updated_at"))
                continue
        bad.add(number, lambda: 'not a thread name entry ({"id", "thread_name", "updated_at"}): skipped')
    bad.close()
    if stopped:
        ctx.warn(path, f"no thread name entry in its first {NO_ENTRY_LINES:,} lines read: "
                       "not read further (not a session index?)")
    return named, cut


def _invalid(where: str, exc: Exception, line: bytes) -> str:
    from agentscan.toolkit.jsonerrors import short_json_error

    return f"invalid JSON skipped{where}: {short_json_error(exc, line)}"


class _BadLines:
    """A session index's bad lines: the first ``SAID_BAD_LINES`` said with their numbers, the
    rest counted and said as one warning.  Each said warning costs a call and, while a result
    is computed, a place among the warnings stored with it: a file of a million bad lines
    took seconds a run, and its discovery was never stored (too many warnings to keep)."""

    __slots__ = ("path", "ctx", "cut", "said", "more")

    def __init__(self, path: Path, ctx: ScanContext, cut: bool) -> None:
        self.path, self.ctx, self.cut = path, ctx, cut
        self.said = self.more = 0

    @property
    def where(self) -> str:
        return f" in the last {window_text()}" if self.cut else ""

    def add(self, number: int, message: Callable[[], str]) -> None:
        # A window's lines are not the file's: no number to give, so one is said (the others
        # would read the same and be told as one) and the rest counted.
        if self.said < (1 if self.cut else SAID_BAD_LINES):
            self.said += 1
            self.ctx.warn(self.path, message(), None if self.cut else number)
        else:
            self.more += 1

    def close(self) -> None:
        if self.more:
            from agentscan.toolkit.andmore import and_more

            self.ctx.warn(self.path, f"… {and_more(self.more, 'bad line')}{self.where or ' in this file'} skipped")


def links_out(path: Path) -> bool:
    """Whether a session index is a symlink that leads out of the folder holding it (its Codex
    home): never read, and never watched itself (``provider._census_path``)."""
    return os.path.islink(path) and not is_within(os.path.realpath(path), os.path.realpath(path.parent))


def lasting(exc: OSError) -> bool:
    """Whether a file could not be read for a reason that stays until someone changes it (not a
    regular file, a symlink loop), unlike an I/O error or a permission."""
    from agentscan.toolkit.fsutil import NotRegularFile

    return isinstance(exc, NotRegularFile) or exc.errno in _LASTING
