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
    none) names another than ``own``: the file is a resumed session's (``discovery.resumed_from``,
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
    records, then B's), a session whose turn made no call (interrupted) included.  Found in
    the bytes without decoding a record: each line's first ``"sessionId":"`` (a record's own
    comes before its message; a copied record's text escapes its quotes).  ``None``: not read
    (a compressed transcript, an unreadable one)."""
    import mmap

    from agentscan.toolkit.fsutil import open_regular

    if os.fspath(path).endswith(".zst"):
        return None
    found: dict[str, None] = {}
    try:
        with open_regular(path) as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            end = data.find(_NAMES + own.encode() + b'"')
            end = len(data) if end < 0 else end
            at, line = data.find(_NAMES, 0, end), -1
            while at >= 0:
                if at > line:  # (the line's first: a later one on it is a nested record's)
                    start = at + len(_NAMES)
                    close = data.find(b'"', start, start + 256)
                    if close > start:
                        found[data[start:close].decode("utf-8", "replace")] = None
                    line = data.find(b"\n", at, end)
                    line = end if line < 0 else line
                at = data.find(_NAMES, at + 1, end)
    except (OSError, ValueError):
        return None  # (an empty file cannot be mapped)
    found.pop(own, None)
    return list(found)
