"""Who wrote a Claude Code user record: the user, or another sender (docs/providers/claude.md,
"Messages the user did not type").  Apart from ``records``, which asks it of every prompt."""

from __future__ import annotations

import re
from typing import Any

#: an agent team's teammate writing to the lead (``<teammate-message teammate_id="…">…</…>``, its
#: idle notices too): another sender's words, as an ``origin`` says (``sent_by_another``)
TEAMMATE_MESSAGE = "<teammate-message"
#: the whole tag name: ``<teammate-message-format>`` is another word (``teammate_wrapped``)
_TEAMMATE_TAG = re.compile(r"<teammate-message(?:[\s>]|$)")
#: the ``origin`` kinds a person may have typed under (``teammate_wrapped``)
_TYPED_KINDS = ("human", "channel")
#: the ``origin`` kinds that say another sender wrote a user record (``sent_by_another``); others
#: (``channel``: a chat app's, maybe typed by a person; a later build's) are read as typed
OTHER_SENDERS = frozenset({"task-notification", "auto-continuation", "peer", "coordinator", "observer",
                           "observer-activity"})


def teammate_wrapped(text: str, origin: object = None) -> bool:
    """Whether ``text`` is a teammate's message to the lead: it opens with the whole tag name
    (``<teammate-message`` then a space or ``>``), and no ``origin`` says a person typed it
    (one who pastes a teammate's message to ask about it wrote a prompt)."""
    if not text.startswith(TEAMMATE_MESSAGE) or _TEAMMATE_TAG.match(text) is None:
        return False
    return origin.__class__ is not dict or origin.get("kind") not in _TYPED_KINDS  # type: ignore[attr-defined]


def from_a_subagent(record: dict[str, Any]) -> bool:
    """Whether a record is a subagent's own (``isSidechain``, or naming its ``agentId`` should a
    build not mark it a sidechain): its first user record is its task, whoever sent it, so
    neither rule of another sender (``sent_by_another``, ``teammate_wrapped``) applies."""
    return record.get("isSidechain") is True or "agentId" in record


def sent_by_another(origin: object, record: dict[str, Any]) -> bool:
    """Whether a user record's ``origin`` says someone other than the user sent it.

    Claude Code (2.1.24x on) stamps who sent a user message: ``{"kind": "human"}`` if typed,
    else ``task-notification``, ``auto-continuation`` (a turn it resumes itself: after a usage
    limit, a ``/goal``'s ``Goal set: …``), ``peer`` / ``coordinator`` (another agent's), some
    without ``isMeta``.  A subagent's (``isSidechain``, ``agentId``) is exempt: its task, as such,
    whoever sent it.  Such words name a session nothing else names (``titles.note_command``)."""
    if from_a_subagent(record) or origin.__class__ is not dict:
        return False
    kind = origin.get("kind")  # type: ignore[attr-defined]
    return isinstance(kind, str) and kind in OTHER_SENDERS
