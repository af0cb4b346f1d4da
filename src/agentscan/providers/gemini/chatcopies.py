"""Which of two files of one Gemini chat is read: a legacy ``.json`` and the ``.jsonl`` Gemini
CLI migrated from it on resume, or two ``.jsonl`` of one session (``discovery`` ranks a
session's, and a subagent's, copies with it); and whether the one left out held something
else (``differs``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.toolkit import laxjson
from agentscan.toolkit.appendcopies import DIFFERENT, LONGER, SAME, compare_copies

if TYPE_CHECKING:
    from agentscan.providers.gemini.discovery import ChatFile


def wins(new: ChatFile, old: ChatFile) -> bool:
    # The migrated .jsonl holds everything the .json held and more.
    if new.legacy != old.legacy:
        return not new.legacy
    if not new.legacy:
        # ``gemini --resume`` (0.44) leaves a second file of the same session holding only
        # its header and the injected context: newer on a live machine only by chance, and
        # in a copied home (every mtime the copy's) it hid the whole conversation.
        new_talks, old_talks = holds_conversation(new.path), holds_conversation(old.path)
        if new_talks != old_talks:
            return new_talks
    return new.mtime > old.mtime


#: how far a chat is read for a message before it is taken to hold one (a file this large does)
_CONVERSATION_PROBE = 1 << 20


def holds_conversation(path: Path) -> bool:
    """Whether a JSONL chat holds a message beyond its header and the injected context: a
    prompt or a reply (also inside a ``$set`` of ``messages``).  Read only when two files
    claim one session; a file that cannot be read counts as holding one (no opinion)."""
    import orjson

    from agentscan.providers.gemini.records import prompt_text

    try:
        with path.open("rb") as handle:
            head = handle.read(_CONVERSATION_PROBE + 1)
    except OSError:
        return True
    if len(head) > _CONVERSATION_PROBE:
        return True
    for line in head.splitlines()[1:]:
        try:
            record = laxjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        messages = record["$set"].get("messages") if isinstance(record.get("$set"), dict) else [record]
        for message in messages if isinstance(messages, list) else ():
            if isinstance(message, dict) and (message.get("type") == "gemini" or
                                              (message.get("type") == "user" and prompt_text(message) is not None)):
                return True
    return False


def differs(left: ChatFile, kept: ChatFile) -> bool:
    """Whether ``left`` (a copy ranked below ``kept``) held something ``kept`` does not: their
    bytes differ, but where a JSONL ``left``'s are the start of ``kept``'s (an append log copied
    before it grew: a stale snapshot, its content all in the counted one).  A ``kept`` that is
    the start of a longer ``left`` is the stale one: said (a newer mtime ranked it first).
    Compared as every append log's copies are (``toolkit.appendcopies``); a legacy ``.json``,
    rewritten whole, differs unless both are the same.  Unreadable: no word (``False``)."""
    relation = compare_copies(left.path, kept.path)
    if relation is None:
        return False
    return relation != SAME if left.legacy else relation in (LONGER, DIFFERENT)
