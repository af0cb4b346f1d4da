"""A resumed Claude session's copies of an earlier session's records: one rule for every reader.

``claude --resume`` writes a new transcript, named by a new session id, that begins with a
copy of the first session's records, each with that session's ``sessionId``.  The row's
pass (``row.summarize``), ``show``'s read from the end (``tail``) and the table's facts
(``tablefacts``) leave those copies out of the session's prompts, replies, tool calls,
title, start and directory alike; their calls are still counted, and credited to the
session they name when it is found (``scan.creditedrows``).
"""

from __future__ import annotations

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
