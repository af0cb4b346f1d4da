"""A resumed Claude session's copies of an earlier session's records: one rule for every reader.

``claude --resume`` writes a new transcript, named by a new session id, that begins with a
copy of the first session's records, each with that session's ``sessionId``.  The row's
pass (``row.summarize``), ``show``'s read from the end (``tail``) and the table's facts
(``tablefacts``) leave those copies out of the session's prompts, replies, tool calls,
title, start and directory alike; their calls are still counted, and credited to the
session they name when it is found (``scan.creditedrows``).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    import mmap

#: a session id as Claude Code names a transcript by it (a UUID)
_SESSION_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
#: records that title a session (``titles``): a copied one still names the conversation (a
#: tuple, not a set: a record's ``type`` may be any JSON value, a list too, never hashed)
_TITLE_KINDS = ("custom-title", "ai-title", "summary")


def named_by_session_id(native_id: str) -> bool:
    """Whether a transcript's name is a session id, as a resumed session's is: a copy kept
    under another name (``<id>-backup.jsonl``, ``<id> (1).jsonl``) names its own session in
    every record, and is never taken for a resumed one."""
    return _SESSION_ID.fullmatch(native_id) is not None


def is_copy(record: dict, own: str) -> bool:
    """Whether ``record``, of the resumed session ``own``'s transcript, is a copy of an earlier
    session's (it names that session).  A title record and a record of a run written inline
    are not taken for one: a copied title still names the conversation, and a copied run
    stays a run of the session, of its kind."""
    named = record.get("sessionId")
    return (named.__class__ is str and bool(named) and named != own and record.get("type") not in _TITLE_KINDS
            and record.get("isSidechain") is not True)


def first_names_another(record: dict, own: str) -> bool | None:
    """Whether the first record of a transcript that names a session (``None``: this one names
    none) names another than ``own``: the file is a resumed session's (``resumedfiles.resumed_from``,
    decided from the records a reader meets first)."""
    named = record.get("sessionId")
    if named.__class__ is not str or not named:
        return None
    return named != own and named.isprintable() and named_by_session_id(own)


#: how a record names its session, as Claude Code writes it (no spaces)
_NAMES = b'"sessionId":"'


def copied_sessions(path: str | os.PathLike[str], own: str) -> list[str] | None:
    """The sessions the records of ``own``'s transcript ``path`` name before its own first, in
    the order they come: the chain of resumes its copies hold (A → B → C: C's file copies A's
    records, then B's), a session whose turn made no call (interrupted) included.  ``None``:
    not read (a compressed transcript, an unreadable one).  (``copied_head``.)"""
    head = copied_head(path, own)
    return None if head is None else head[0]


def copied_head(path: str | os.PathLike[str], own: str) -> tuple[list[str], int | None] | None:
    """``copied_sessions``' chain, and where the line of ``own``'s first record begins (the
    copies end there; ``None``: no record of its own yet).  Found in the bytes, each line's
    own ``"sessionId":"`` (a copied record's text escapes its quotes), decoding a line only
    when an object or array opens before it on the line (``_own_session``)."""
    import mmap

    from agentscan.toolkit.fsutil import open_regular

    if os.fspath(path).endswith(".zst"):
        return None
    found: dict[str, None] = {}
    mine = _NAMES + own.encode() + b'"'
    try:
        with open_regular(path) as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            end, stop = len(data), None
            at = data.find(mine)
            while at >= 0:  # (the first line whose own record is ``own``'s: its copies end there)
                line = data.rfind(b"\n", 0, at) + 1
                close = data.find(b"\n", at)
                close = len(data) if close < 0 else close
                if _own_session(data, line, at, close) == own:
                    end = stop = line
                    break
                at = data.find(mine, close)
            at = data.find(_NAMES, 0, end)
            while at >= 0:
                line = data.rfind(b"\n", 0, at) + 1
                close = data.find(b"\n", at, end)
                close = end if close < 0 else close
                named = _own_session(data, line, at, close)
                if named is not None:
                    found[named] = None
                at = data.find(_NAMES, close, end)  # (the next line's)
    except (OSError, ValueError):
        return None  # (an empty file cannot be mapped)
    found.pop(own, None)
    return list(found), stop


def line_session(data: bytes | mmap.mmap, line: int, close: int) -> str | None:
    """The session the record on the line ``data[line:close]`` names at its top level
    (``None``: none), as ``copied_head`` reads each line."""
    at = data.find(_NAMES, line, close)
    return None if at < 0 else _own_session(data, line, at, close)


def _own_session(data: bytes | mmap.mmap, line: int, at: int, close: int) -> str | None:
    """The session the record on the line ``data[line:close]`` names (its top-level
    ``sessionId``), its first ``"sessionId":"`` at ``at``.  That one is the record's own
    unless an object or array opens before it: an object nested before it names another (a
    ``worktree-state``'s ``worktreeSession`` names the session the worktree was entered in),
    and 2.1.x writes ``message`` before ``sessionId``: then the line is decoded (orjson reads
    one ten times faster than a scan of its strings would skip them)."""
    if data.find(b"{", line + 1, at) < 0 and data.find(b"[", line, at) < 0:
        start = at + len(_NAMES)
        end = data.find(b'"', start, min(start + 256, close))
        return data[start:end].decode("utf-8", "replace") if end > start else None
    try:
        record = orjson.loads(data[line:close])
    except orjson.JSONDecodeError:
        return None  # (a broken line is no record: the readers skip it)
    named = record.get("sessionId") if record.__class__ is dict else None
    return named if named.__class__ is str and named else None
