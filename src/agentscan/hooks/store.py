"""The events store: `agentscan hook` appends envelopes, `trace` reads them back.

Layout (see docs/hooks.md)::

    <data dir>/                          0700, platformdirs.user_data_dir("agentscan")
      events/<agent>/<session>.jsonl     one envelope per line, 0600
      hook-errors.log                    diagnostics of the hook command, 0600
      hook-dirs.json                     directories `hooks install` created (``made_dirs``), 0600
      config-backups/                    project configs as they were before `hooks install` (``install``), 0700

One file per session keeps `trace` to a single read and lets `show` answer
"are there hook events for this session?" with one stat.  The writing half of
this module is on the hook's hot path, so it imports only ``os``/``re`` (and ``envelopes``, whose
decoding imports wait until a line is read).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from agentscan.datadir import ENV_VAR as ENV_VAR  # the store's root, re-exported for its callers
from agentscan.datadir import data_dir as data_dir
from agentscan.datadir import ignored as ignored_setting  # noqa: F401 - re-exported: a relative AGENTSCAN_DATA_DIR
from agentscan.filemodes import FILE_MODE
from agentscan.hooks.envelopes import WRITTEN_START as WRITTEN_START  # (re-exported: what the hook writes first)
from agentscan.hooks.envelopes import envelope_reader, legible, line_decoder
from agentscan.filemodes import make_private_dirs as _make_dirs
from agentscan.hooks.lineends import ends_whole, locked

EVENTS_DIR = "events"
DIAGNOSTICS_LOG = "hook-errors.log"
NO_SESSION = "_no-session"
HASHED_PREFIX = "_h-"
SUFFIX = ".jsonl"
MIN_PREFIX = 6

# Ids that can be a file name as they are; anything else is hashed.  A safe
# name starts with an alphanumeric, so it can never collide with "_h-…" or
# "_no-session", nor be "." / "..".
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_AGENT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")

_APPEND_FLAGS = (
    os.O_WRONLY
    | os.O_APPEND
    | os.O_CREAT
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOFOLLOW", 0)  # never follow a link planted in our private store
    | getattr(os, "O_BINARY", 0)  # Windows: no "\n" -> "\r\n" translation
)


def agent_dir_name(agent: str) -> str:
    return agent if _AGENT_NAME.match(agent) else "unknown"


def session_file_name(session_id: str | None) -> str:
    if not session_id:
        return NO_SESSION + SUFFIX
    if _SAFE_NAME.match(session_id):
        return session_id + SUFFIX
    import hashlib

    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return HASHED_PREFIX + digest + SUFFIX


def session_path(root: str, agent: str, session_id: str | None) -> str:
    return os.path.join(root, EVENTS_DIR, agent_dir_name(agent), session_file_name(session_id))


def make_private_dirs(root: str, *subdirs: str) -> None:
    """Create ``root`` and each nested subdir, and any missing parent of ``root``, each 0700
    whatever the umask (existing dirs are left as they are): a parent made world-writable
    (umask 000) would let another user swap ``root`` for a link to their own folder."""
    _make_dirs(os.path.join(root, *subdirs))


def append_event(root: str, agent: str, session_id: str | None, line: bytes) -> str:
    """Append one envelope line to its session's file; returns the file's path.

    The directories are created (0700) only when the first open fails, so the
    common case costs one open, one write and one close.
    """
    path = session_path(root, agent, session_id)
    try:
        append_line(path, line)
    except FileNotFoundError:
        make_private_dirs(root, EVENTS_DIR, agent_dir_name(agent))
        append_line(path, line)
    return path


def append_line(path: str, line: bytes) -> None:
    """Append one line with one ``write()`` on an O_APPEND fd, creating the file 0600.

    Concurrent hooks (parallel tool calls) append to the same file; a single
    write on an O_APPEND descriptor is not interleaved with others on local
    file systems.

    A file not ending in a newline holds the start of a line whose writer stopped (a full
    disk cut its write short, or it was killed): this line then starts a line of its own, not
    glued to that fragment and lost with it.  Looked at under a lock each writer holds while
    it writes: another hook's large line being copied in must not be taken for a fragment.
    """
    try:
        fd = os.open(path, (_APPEND_FLAGS & ~os.O_WRONLY) | os.O_RDWR, FILE_MODE)
        readable = True
    except PermissionError:  # a file made write-only: appended to as ever, unchecked
        fd = os.open(path, _APPEND_FLAGS, FILE_MODE)
        readable = False
    try:
        if readable and locked(fd) and not ends_whole(fd):
            line = b"\n" + line
        written = os.write(fd, line)
        # A short write to a regular file is practically unheard of; finishing
        # the line keeps every later line readable even then.
        view = memoryview(line)[written:]
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)  # (and the lock with it)


# --- reading -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredSession:
    agent: str
    session_id: str
    path: str

    @property
    def id(self) -> str:
        return f"{self.agent}:{self.session_id}"


def stored_sessions(root: str) -> list[StoredSession]:
    """Every session that has an events file, sorted by id."""
    events = os.path.join(root, EVENTS_DIR)
    found: list[StoredSession] = []
    try:
        agents = sorted(os.listdir(events))
    except OSError:
        return []
    for agent in agents:
        folder = os.path.join(events, agent)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(SUFFIX) or name == NO_SESSION + SUFFIX:
                continue
            path = os.path.join(folder, name)
            session_id = name[: -len(SUFFIX)]
            if name.startswith(HASHED_PREFIX):
                session_id = _first_session_id(path) or ""
            if session_id:
                found.append(StoredSession(agent, session_id, path))
    return sorted(found, key=lambda s: s.id)


@dataclass(frozen=True, slots=True)
class StoredSummary:
    """One line of ``trace --list``: a captured session, how many events, when the last came."""

    session: StoredSession
    events: int
    updated_ns: int

    def to_json(self) -> dict[str, Any]:
        from agentscan.hooks.model import iso_ns

        return {"id": self.session.id, "agent": self.session.agent, "session_id": self.session.session_id,
                "path": self.session.path, "events": self.events, "updated_at": iso_ns(self.updated_ns)}


def summaries(root: str) -> list[StoredSummary]:
    """Every captured session, the one whose last event came last first (one pass over each
    file: its envelopes counted, the last one's capture time; the file's mtime only when no
    line gives one: a copied store, the shipped demo's, has every mtime at the copy time)."""
    found = []
    for session in stored_sessions(root):
        try:
            mtime_ns = os.stat(session.path).st_mtime_ns
        except OSError:
            continue
        count, last_ns = _count_and_last(session.path)
        found.append(StoredSummary(session, count, last_ns or mtime_ns))
    return sorted(found, key=lambda s: (s.updated_ns, s.session.id), reverse=True)




def count_envelopes(path: str) -> int:
    """The lines of ``path`` that ``read_events`` takes as envelopes, without decoding most of
    them: a line as the hook writes it (``WRITTEN_START``, a digit, and a closing ``}``) is
    counted as it is; any other non-blank line only when it decodes to an envelope."""
    return _count_and_last(path)[0]


def _count_and_last(path: str) -> tuple[int, int | None]:
    """``count_envelopes``, and the capture time of the last line written as the hook writes it."""
    count = 0
    last_ns = None
    start = len(WRITTEN_START)
    envelope_of = None
    try:
        with open(path, "rb") as handle:
            for line in handle:
                if line.startswith(WRITTEN_START) and line[start:start + 1].isdigit() \
                        and line.endswith((b"}\n", b"}")):
                    count += 1
                    digits = line[start:line.find(b",", start)]
                    last_ns = int(digits) if digits.isdigit() else last_ns
                elif line.strip():
                    envelope_of = envelope_of or envelope_reader()
                    count += envelope_of(line)[1] is None
    except OSError:
        return 0, None
    return count, last_ns


def _first_session_id(path: str) -> str | None:
    """A hashed file name hides its id; the first envelope names it."""
    import json

    try:
        with open(path, "rb") as handle:
            first = handle.readline(64 * 1024 * 1024)
        value = json.loads(first).get("session_id")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(value, str):
        return None
    return legible(value)  # a lone surrogate ("\ud800"): no terminal or JSON takes it as is


def read_events(session: StoredSession) -> tuple[list[Any], list[Any]]:
    """The session's envelopes as ``HookEvent``s, in file order, and warnings for bad lines
    (not for a last line that is not whole yet: the hook writing it has not finished).
    Every payload at once: ``eventstream.in_capture_order`` gives them one at a time."""
    from agentscan.model import ScanWarning
    from agentscan.toolkit.fsutil import open_regular

    events: list[Any] = []
    warnings: list[ScanWarning] = []
    try:
        handle = open_regular(session.path)
    except OSError as exc:
        return [], [ScanWarning(session.path, f"cannot read: {exc.strerror or exc}")]
    decode = line_decoder(session)
    with handle:
        for number, line in enumerate(handle, 1):
            event = decode(line, number, warnings)
            if event is not None:
                events.append(event)
    return events, warnings


def root_of(session: StoredSession) -> str:
    """The data directory whose events store holds ``session`` (``session_path``'s inverse)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(session.path)))
