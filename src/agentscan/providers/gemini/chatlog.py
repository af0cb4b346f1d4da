"""Replaying a Gemini chat file into its live conversation and its spend.

The JSONL log (docs/providers/gemini.md) is not a list of messages: a
message id is appended again whenever the message changes, ``{"$set": …}``
updates the metadata (``$set.messages`` replaces the whole list), and
``{"$rewindTo": id}`` drops that message and everything after it, and
``{"$patch": …}`` changes, removes or reorders messages (``chatpatch``).  Summing
every line double-counts.  So one pass keeps two views:

* ``live``: what ``show`` displays: the last copy of each id, in first-seen
  order, after every rewind and checkpoint;
* ``spend``: what ``tokens`` counts: the last copy of every id ever seen,
  rewound or not, because those calls were billed.

Only small ``MessageFacts`` are kept, never message text: ``locate`` says
where each message's last copy lives, so ``show`` re-reads just the
messages it displays and memory stays bounded whatever the file's size.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Iterable, NamedTuple

from agentscan.context import ScanContext
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonl import iter_json_lines
from agentscan.toolkit.valuewarnings import tallied
from agentscan.model import TokenUsage
from agentscan.providers.gemini.chatpatch import (PatchAt, apply_update, message_in, patch_all, record_at,
                                                  removed_ids, reorder, updates_of)
from agentscan.providers.gemini.logs import LoggedPrompt
from agentscan.providers.gemini.legacy import MessageLines, load_legacy
from agentscan.providers.gemini.paths import MAX_CANDIDATES, paths_in_message, paths_in_metadata
from agentscan.providers.gemini.records import (
    as_str,
    collapse,
    is_compression_ack,
    is_slash_command,
    is_snapshot_message,
    prompt_text,
    response_text,
    usage_of,
)
from agentscan.timeutil import parse_iso

PREVIEW_CHARS = 180


class Locator(NamedTuple):
    """Where a message's last copy is: a line (by byte offset) or a legacy index.

    ``item`` is the index inside a ``$set.messages`` checkpoint (JSONL) or
    inside the legacy file's ``messages`` list.  A named tuple (see
    ``cli.term.Terminal``).
    """

    offset: int | None
    item: int | None = None


class MessageFacts(NamedTuple):
    """What a row or a report reads of one message (a named tuple: see ``cli.term.Terminal``)."""

    id: str
    kind: str | None  # user | gemini | info | error | warning
    timestamp: datetime | None
    model: str | None
    tokens: TokenUsage | None
    prompt: str | None  # collapsed preview of what the user typed; None if not a prompt
    slash: bool  # the prompt is a slash command (/init), not a title
    has_text: bool  # a gemini message with reply text
    tool_calls: int
    locator: Locator


class Conversation:
    """One chat file replayed.  A plain class: a dataclass costs about a millisecond to
    create on import."""

    __slots__ = ("path", "legacy", "meta", "live", "spend", "rewound", "raw", "paths", "taken",
                 "snapshot_last", "acks", "damage", "patches", "_reader", "_read")

    def __init__(self, path: Path, legacy: bool) -> None:
        self.path = path
        self.legacy = legacy
        self.meta: dict[str, Any] = {}
        self.live: OrderedDict[str, MessageFacts] = OrderedDict()
        self.spend: dict[str, MessageFacts] = {}
        self.rewound = 0  # messages dropped from the live conversation by $rewindTo
        self.raw: list[Any] | None = None  # a legacy file's messages, kept only for ``show``
        #: absolute paths the chat mentions: candidates for its project root (paths.py)
        self.paths: set[str] = set()
        #: ids of the prompts a checkpoint or a patch took out of the live conversation:
        #: compression summed them up, but they were typed, and the first names the session
        #: (``row.typed_prompts``: ``spend`` keeps their last copy, in file order)
        self.taken: set[str] = set()
        #: the newest live message is a compression summary (``records.is_snapshot_message``)
        self.snapshot_last = False
        #: ids of the fixed replies compression put after its summaries: no responses
        self.acks: set[str] = set()
        #: a legacy file read only up to its damage: the salvage's warning (``legacy``)
        self.damage: str | None = None
        #: the ``$patch`` updates of each live message since its last copy (``chatpatch``)
        self.patches: dict[str, list[PatchAt]] = {}
        self._reader: BinaryIO | None = None  # the file, opened again to patch a message's copy
        self._read: tuple[int, dict[str, Any]] | None = None  # the line it read last (a checkpoint's)

    def note_paths(self, paths: Iterable[str]) -> None:
        for path in paths:
            if len(self.paths) >= MAX_CANDIDATES:
                return
            self.paths.add(path)

    def add(self, record: dict[str, Any], locator: Locator) -> None:
        self.patches.pop(record["id"], None)  # a whole copy again: the patches before are in it
        self._store(record, locator)

    def _store(self, record: dict[str, Any], locator: Locator) -> None:
        facts = facts_of(record, locator)
        self.note_paths(paths_in_message(record))
        # Compression's fixed "Got it. …" after its summary is no reply of the model's: not
        # counted, nor shown (nor the card's last response).  Only right after a summary: the
        # same words from the model anywhere else are its own.
        follows = self.snapshot_last and facts.id not in self.live
        if facts.has_text and (follows or facts.id in self.acks) and is_compression_ack(record):
            facts = facts._replace(has_text=False)
            self.acks.add(facts.id)
        # Assigning an existing key keeps its position: first-seen order.
        self.live[facts.id] = facts
        self.spend[facts.id] = facts
        if next(reversed(self.live)) == facts.id:
            # (a summary is no prompt: a message that is one is read no further)
            self.snapshot_last = facts.prompt is None and is_snapshot_message(record)

    def _taken_out(self, facts: MessageFacts) -> None:
        """``facts`` left the live conversation by a checkpoint or a patch, not a rewind: a
        prompt it was was typed all the same, and may name the session (``row.title_of``)."""
        if facts.prompt is not None:
            self.taken.add(facts.id)

    def checkpoint(self, messages: list[Any], offset: int) -> None:
        kept = {as_str(message.get("id")) for message in messages if isinstance(message, dict)}
        for facts in self.live.values():
            if facts.id not in kept:
                self._taken_out(facts)
        self.live.clear()
        self.patches.clear()
        self.snapshot_last = False
        for index, message in enumerate(messages):
            if isinstance(message, dict) and as_str(message.get("id")):
                self.add(message, Locator(offset, index))

    def rewind_to(self, message_id: str) -> None:
        ids = list(self.live)
        # Gemini CLI clears everything when the id is unknown; so do we.
        cut = ids.index(message_id) if message_id in self.live else 0
        for dropped in ids[cut:]:
            del self.live[dropped]
            self.patches.pop(dropped, None)
        self.rewound += len(ids) - cut
        self.snapshot_last = False  # (whether the message now last is a summary is not kept)

    def patch(self, payload: dict[str, Any], offset: int, ctx: ScanContext) -> None:
        """A ``$patch`` line at ``offset``, applied as Gemini CLI's loader applies it
        (``chatpatch``): to live messages alone, their tokens never changed (no call is billed
        twice, nor a billed one lost: ``spend`` keeps the last copy of every id)."""
        for index, update in updates_of(payload):
            facts = self.live.get(update["id"])
            if facts is None:
                continue  # (a message not live: the loader passes it over too)
            self.patches.setdefault(facts.id, []).append(PatchAt(offset, index))
            if "content" in update:
                record = self._copy_of(facts, ctx)
                if record is not None:
                    # The update in hand, on the last whole copy: the patches before it change no
                    # fact but the content it replaces (``facts_of`` reads no tool call's
                    # ``result``), and reading their lines again made a sync of every message
                    # quadratic (800 turns and two syncs: 7.5 CPU-s for 0.4).
                    self._store(apply_update(record, update), facts.locator)
        for removed in removed_ids(payload):
            facts = self.live.pop(removed, None)
            if facts is not None:
                self.patches.pop(removed, None)
                self._taken_out(facts)
                self.snapshot_last = False
        if reorder(self.live, payload):
            self.snapshot_last = False  # (whether the message now last is a summary is not kept)

    def _copy_of(self, facts: MessageFacts, ctx: ScanContext) -> dict[str, Any] | None:
        """The last whole copy of a live message, read again (its text was not kept)."""
        if self._reader is None:
            try:
                self._reader = open_regular(self.path)
            except OSError as exc:
                ctx.cannot_read(self.path, exc)
                return None
        offset = facts.locator.offset or 0
        if self._read is None or self._read[0] != offset:
            self._read = (offset, record_at(self._reader, offset))
        record = message_in(self._read[1], facts.locator.item)
        return record if record is not None and record.get("id") == facts.id else None

    def done(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = self._read = None

    @property
    def messages(self) -> list[MessageFacts]:
        return list(self.live.values())


def facts_of(record: dict[str, Any], locator: Locator) -> MessageFacts:
    kind = as_str(record.get("type"))
    prompt = prompt_text(record)
    tool_calls = record.get("toolCalls") if kind == "gemini" else None
    return MessageFacts(
        id=record["id"],
        kind=kind,
        timestamp=parse_iso(record.get("timestamp")),
        model=as_str(record.get("model")) if kind == "gemini" else None,
        tokens=usage_of(record.get("tokens")) if kind == "gemini" else None,
        prompt=collapse(prompt, PREVIEW_CHARS) if prompt is not None else None,
        slash=prompt is not None and is_slash_command(prompt),
        has_text=kind == "gemini" and bool(response_text(record)),
        tool_calls=sum(1 for call in tool_calls if isinstance(call, dict)) if isinstance(tool_calls, list) else 0,
        locator=locator,
    )


def read_conversation(path: Path, ctx: ScanContext, *, legacy: bool, keep_raw: bool = False) -> Conversation:
    conversation = Conversation(path, legacy)
    if legacy:
        _replay_legacy(conversation, ctx, keep_raw)
    else:
        _replay_jsonl(conversation, ctx)
    return conversation


def _replay_legacy(conversation: Conversation, ctx: ScanContext, keep_raw: bool) -> None:
    damage: list[str] = []
    document = load_legacy(conversation.path, ctx, damage)
    conversation.damage = damage[0] if damage else None
    if document is None:
        return
    conversation.meta = {key: value for key, value in document.items() if key != "messages"}
    conversation.note_paths(paths_in_metadata(conversation.meta))
    messages = document.get("messages")
    if not isinstance(messages, list):
        ctx.warn(conversation.path, "legacy chat has no messages list")
        return
    # A bad token count or time is told once for the file, as a JSONL chat's reader tells it
    # (``valuewarnings``), at the line its message starts on: each message is a place of its
    # own (two messages of one bad value are two values), numbered only when one is noted.
    with tallied(conversation.path, ctx) as tally:
        tally.locate = MessageLines(conversation.path).line_of
        for index, message in enumerate(messages):
            if isinstance(message, dict) and as_str(message.get("id")):
                tally.position = index
                conversation.add(message, Locator(None, index))
    if keep_raw:
        conversation.raw = messages


def _replay_jsonl(conversation: Conversation, ctx: ScanContext) -> None:
    try:
        _replay_lines(conversation, ctx)
    finally:
        conversation.done()


def _replay_lines(conversation: Conversation, ctx: ScanContext) -> None:
    for line in iter_json_lines(conversation.path, ctx):
        record = line.record
        if isinstance(record.get("$rewindTo"), str):
            conversation.rewind_to(record["$rewindTo"])
        elif "$patch" in record:
            # (a line holding ``$patch`` is no message, whatever else it holds: the loader's rule)
            if isinstance(record["$patch"], dict):
                conversation.patch(record["$patch"], line.offset, ctx)
        elif as_str(record.get("id")):
            conversation.add(record, Locator(line.offset))
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            conversation.meta.update({key: value for key, value in update.items() if key != "messages"})
            conversation.note_paths(paths_in_metadata(update))
            # Any list is a checkpoint, an empty one too (a turn cancelled before any reply syncs
            # ``[]``), and message lines after it add to it.  Gemini CLI's loaders differ: one
            # clears and rebuilds on any list ("Checkpoint: clear and rebuild"); another (016443b5)
            # takes the last non-empty list alone, over every message line, an empty one clearing
            # nothing.  The first is followed: its rule is the one kept for a non-empty checkpoint
            # (later message lines count), and the second's would drop them.
            if isinstance(update.get("messages"), list):
                conversation.checkpoint(update["messages"], line.offset)
        elif as_str(record.get("sessionId")):
            conversation.meta.update(record)
            conversation.note_paths(paths_in_metadata(record))
        # Anything else is a record kind this build does not know: skipped.


def fetch_messages(conversation: Conversation, wanted: Iterable[MessageFacts], ctx: ScanContext) -> dict[str, dict[str, Any]]:
    """The full records of ``wanted`` messages, re-read from where they live."""
    found: dict[str, dict[str, Any]] = {}
    if conversation.raw is not None:
        for facts in wanted:
            if facts.locator.item is not None and facts.locator.item < len(conversation.raw):
                _keep(found, facts, conversation.raw[facts.locator.item])
        return found
    by_offset: dict[int, list[MessageFacts]] = {}
    for facts in wanted:
        if facts.locator.offset is not None:
            by_offset.setdefault(facts.locator.offset, []).append(facts)
    if not by_offset:
        return found
    try:
        handle = open_regular(conversation.path)
    except OSError as exc:
        ctx.cannot_read(conversation.path, exc)
        return found
    with handle:
        for offset in sorted(by_offset):
            record = record_at(handle, offset)
            for facts in by_offset[offset]:
                target = message_in(record, facts.locator.item)
                if not _keep(found, facts, target):
                    ctx.warn(conversation.path, "file changed while it was read; a message was skipped")
        patch_all(handle, found, {key: conversation.patches[key] for key in found if conversation.patches.get(key)})
    return found


def _keep(found: dict[str, dict[str, Any]], facts: MessageFacts, record: object) -> bool:
    if isinstance(record, dict) and record.get("id") == facts.id:
        found[facts.id] = record
        return True
    return False


class SessionChats:
    """The replayed chats of one session: its main chat and its subagents'.  A plain
    class: a dataclass costs about a millisecond to create on import."""

    __slots__ = ("native_id", "main", "subagents", "logged")

    def __init__(self, native_id: str, main: Conversation | None, subagents: dict[str, Conversation]) -> None:
        self.native_id = native_id
        self.main = main
        self.subagents = subagents
        self.logged: list[LoggedPrompt] = []  # logs.json prompts, when main has none

    def everything(self) -> list[tuple[str | None, Conversation]]:
        chats: list[tuple[str | None, Conversation]] = [(None, self.main)] if self.main else []
        chats.extend(sorted(self.subagents.items()))
        return chats
