"""What ``show`` needs from the whole of a huge transcript, gathered on the row's pass.

``show`` of a large session reads its main transcript from the end
(``tail.py``) and stops once the bounds are full, so it never sees the
older part.  A few answers depend on all of it: how many replies and calls
there were (the ``truncated`` counts), how many messages and how many call
summaries were clipped, the newest plan, which subagent each ``Task`` call
started, the newest errors the transcript recorded, the session's token sums (grouped for pricing, so the row's cost needs no second pass).  The row's own full pass (``row.summarize``) gathers them with
``ShowFacts``, which counts exactly what ``detail.TranscriptStream`` and
``toolkit.detail.DetailCollector`` count, and they are kept next to the row
as ``tailfacts.TailFacts`` (the facts' shape, and where they are kept, are
in ``tailfacts``: a row's cost reads them on every ``list`` without this pass).

The counts that depend on the bounds are gathered for the defaults
(``MESSAGE_BYTES``, ``WINDOW``): ``tailfacts`` says when they answer others.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from agentscan.bounds import DEFAULT_BOUNDS, clip_text
from agentscan.providers.claude.errorrecords import is_api_error, is_local_reply, recorded_error
from agentscan.providers.claude.records import (
    as_str,
    content_blocks,
    interruption_text,
    message_of,
    real_prompt_text,
)
from agentscan.providers.claude.factshapes import are_compactions, are_errors, are_interruptions, restored_keys
from agentscan.providers.claude.promptmarks import shown_prompt
from agentscan.providers.claude.queuedprompts import queued_prompt_text
from agentscan.providers.claude.tasklist import PLAN_TOOLS, PlanFold
from agentscan.timeutil import parse_iso, to_iso

#: the bounds the facts are gathered for (``tailfacts.TailFacts.answers``)
MESSAGE_BYTES = DEFAULT_BOUNDS.message_bytes
WINDOW = DEFAULT_BOUNDS.tools


def over(text: str, limit: int) -> bool:
    """Whether ``bounds.clip_text`` would cut ``text`` at ``limit`` bytes (without encoding short text)."""
    if len(text) * 4 <= limit:
        return False
    return len(text) > limit or len(text.encode("utf-8", "replace")) > limit


class ShowFacts:
    """Fed every record of a main transcript, in order (``summarize``'s observer).  What it
    counts, and how, is kept as ``tailfacts.TailFacts``: a change here bumps ``tailfacts.VERSION``."""

    def __init__(self) -> None:
        # Imported here: reading kept facts (a row's cost, on every ``list``) needs neither.
        from agentscan.providers.claude.detail import summary_text
        from agentscan.toolkit.detail import (COMPACTIONS_KEPT, ERROR_BYTES, ERROR_KIND_CHARS, INTERRUPTIONS_KEPT,
                                              SUMMARY_BYTES, TRIGGER_CHARS)
        from agentscan.toolkit.newesterrors import NewestErrors

        self._summary_text, self._summary_bytes = summary_text, SUMMARY_BYTES
        self._error_bytes, self._kind_chars = ERROR_BYTES, ERROR_KIND_CHARS
        self.message_bytes, self.window = MESSAGE_BYTES, WINDOW
        self.prompts = 0
        self.responses = 0  # replies as the stream makes them: runs of one message's records with text
        self.tools = 0
        self.reused = 0  # calls whose id is still among the newest ``window`` calls' keys
        self.clipped = 0  # prompts and replies cut at ``message_bytes`` (``truncated.clipped_messages``)
        self.clipped_tools = 0  # call summaries cut at ``SUMMARY_BYTES`` (``truncated.clipped_tools``)
        self.fold = PlanFold()  # the newest todo list or task list (``tasklist``)
        #: the newest errors as the collector keeps them: ``[text clipped at ERROR_BYTES, ISO time
        #: or None, kind]`` (``errors``: in reading order, which the collector they go to needs
        #: to place equal times as the forward read does)
        self._errors: NewestErrors[list] = NewestErrors()
        #: the newest interruptions as the collector keeps them: ``[text, ISO time or None]``
        self._interruptions: NewestErrors[list] = NewestErrors(INTERRUPTIONS_KEPT)
        #: the newest compactions of the context as the collector keeps them (``add_compaction``):
        #: ``[ISO time or None, trigger or None, tokens before or None]``
        self._compactions: NewestErrors[list] = NewestErrors(COMPACTIONS_KEPT)
        self._trigger_chars = TRIGGER_CHARS
        self.lines = 0  # lines read (set by the pass that fed it: the reader stops at MAX_FILE_LINES)
        self._keys: OrderedDict[object, None] = OrderedDict()
        self._current: str | None = None
        # The open reply's text, left-stripped and kept only as far as ``over`` needs it:
        # a hostile file whose every record continues one reply must not be held whole.
        self._texts: list[str] = []
        self._kept = 0
        self._more = False  # non-blank text past the kept part

    @property
    def plan(self) -> list[list[str]] | None:
        """The newest plan's ``[step, status]`` pairs; ``None``: none was written."""
        plan = self.fold.plan()
        return None if plan is None else [list(step) for step in plan]

    @property
    def errors(self) -> list[list]:
        """The errors kept, in reading order."""
        return self._errors.in_reading_order()

    @property
    def interruptions(self) -> list[list]:
        """The interruptions kept, in reading order."""
        return self._interruptions.in_reading_order()

    @property
    def interrupted(self) -> int:
        """How many interruptions were read: those kept and the older ones that were not."""
        return self._interruptions.seen

    def keep_interruption(self, interruption: list) -> None:
        """One more interruption, read after those kept (``[text, ISO time or None]``)."""
        self._interruptions.add(interruption[1], interruption)

    def join_interruptions(self, second: ShowFacts) -> None:
        """The interruptions of ``second``, read after these (a split pass's second half): its
        kept ones added as the one pass adds them, the rest counted."""
        for interruption in second.interruptions:
            self.keep_interruption(interruption)
        self._interruptions.count_unkept(second.interrupted - len(second.interruptions))

    @property
    def compactions(self) -> list[list]:
        """The compactions kept, in reading order."""
        return self._compactions.in_reading_order()

    @property
    def compacted(self) -> int:
        """How many compactions were read: those kept and the older ones that were not."""
        return self._compactions.seen

    def compaction(self, record: dict) -> None:
        """A ``compact_boundary`` of the main transcript, as ``detail.TranscriptStream`` notes it."""
        meta = record.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        trigger, before = as_str(meta.get("trigger")), meta.get("preTokens")
        self.keep_compaction([to_iso(parse_iso(record.get("timestamp"))),
                              None if trigger is None else trigger[:self._trigger_chars],
                              before if type(before) is int and before >= 0 else None])

    def keep_compaction(self, compaction: list) -> None:
        """One more compaction, read after those kept."""
        self._compactions.add(compaction[0], compaction)

    def join_compactions(self, second: ShowFacts) -> None:
        """The compactions of ``second``, read after these (a split pass's second half)."""
        for compaction in second.compactions:
            self.keep_compaction(compaction)
        self._compactions.count_unkept(second.compacted - len(second.compactions))

    def keep_error(self, error: list) -> None:
        """One more error, read after those kept (``[text, ISO time or None, kind]``)."""
        self._errors.add(error[1], error)

    def reset(self) -> None:
        """Nothing fed yet (a pass that starts again from the file's start: ``halves``)."""
        self.__init__()  # type: ignore[misc]

    def feed(self, record: dict) -> None:
        """One record (``summarize`` passes what it has read of it to ``assistant`` and ``prompt``)."""
        kind = record.get("type")
        if kind == "assistant" and is_api_error(record):
            self.api_error(record)
        elif kind == "assistant" and is_local_reply(record):
            self.end_reply()
        elif kind == "assistant":
            message = message_of(record)
            self.assistant(as_str(message.get("id")) or as_str(record.get("uuid")), content_blocks(message))
        elif kind == "user":
            prompt = real_prompt_text(record)
            if prompt is not None:
                self.prompt(prompt, record=record)
            else:
                self.result(record)
        elif kind == "attachment":
            prompt = queued_prompt_text(record)
            if prompt is not None:
                self.prompt(prompt, folded=True)
        elif kind == "system":
            self.error(record)

    def result(self, record: dict) -> None:
        """A user record that is no prompt (a call's result: a created task's id; an interruption)."""
        self.fold.results(record)
        interrupted = interruption_text(record)
        if interrupted is not None:  # (clipped as the collector clips it: ``add_interruption``)
            self.keep_interruption([clip_text(interrupted, self._error_bytes)[0],
                                    to_iso(parse_iso(record.get("timestamp")))])

    def end_reply(self) -> None:
        """A record that is no reply (``errorrecords.is_local_reply``) ends the one before it."""
        self._flush()

    def api_error(self, record: dict) -> None:
        """An API error Claude Code wrote as a reply: it ends the reply before it, as in
        ``detail.TranscriptStream``, and is an error, no reply."""
        self._flush()
        self.error(record)

    def error(self, record: dict) -> None:
        """A record that may tell of an error (``records.recorded_error``)."""
        found = recorded_error(record)
        if found is not None:
            # Cut as the collector cuts them (``add_error``): a hostile file's word can be any length.
            self.keep_error([clip_text(found[1], self._error_bytes)[0], to_iso(parse_iso(record.get("timestamp"))),
                             found[0][:self._kind_chars]])

    def assistant(self, message_id: str | None, blocks: list[dict]) -> None:
        """An assistant record: its message's id (else its uuid) and its content blocks."""
        if message_id != self._current or message_id is None:
            self._flush()
            self._current = message_id
        for block in blocks:
            block_kind = block.get("type")
            if block_kind == "text" and isinstance(block.get("text"), str):
                self._text(block["text"])
            elif block_kind == "tool_use":
                self._tool(block)

    def prompt(self, text: str, *, folded: bool = False, record: dict | None = None) -> None:
        """A prompt the user typed (``records.real_prompt_text``); ``folded``: typed while a
        reply went on (``queuedprompts.queued_prompt_text``), which goes on after it; ``record``: the
        prompt's, whose images ``show`` marks (``promptmarks.shown_prompt``)."""
        if record is not None:
            text = shown_prompt(record, text)
        if not folded:
            self._flush()
        self.prompts += 1
        self.clipped += over(text, self.message_bytes)

    def _text(self, text: str) -> None:
        if not self._kept:
            text = text.lstrip()
        room = self.message_bytes + 8 - self._kept  # characters: each is a byte or more
        if room > 0:
            self._texts.append(text[:room])
            self._kept += min(len(text), room)
            text = text[room:]
        if text and not self._more and not text.isspace():
            self._more = True

    def _flush(self) -> None:
        if not self._texts and not self._more:
            # Nothing open: half the flushes of a huge transcript's pass (each reply's first
            # record's), which counted nothing and made a new empty list.
            self._current, self._kept = None, 0
            return
        text = "".join(self._texts).strip()
        if self._more:  # longer than the limit in characters, so in bytes too
            self.responses += 1
            self.clipped += 1
        elif text:
            self.responses += 1
            self.clipped += over(text, self.message_bytes)
        self._current, self._texts, self._kept, self._more = None, [], 0, False

    def _tool(self, block: dict) -> None:
        self.tools += 1
        name = block.get("name")
        if not (isinstance(name, str) and name):  # (``as_str``, inline here and below: every call asks)
            name = "tool"
        summary = self._summary_text(name, block.get("input"))
        # (``over``'s first look inline: most summaries are short.)
        if len(summary) * 4 > self._summary_bytes:
            self.clipped_tools += over(summary, self._summary_bytes)
        key: object = block.get("id")
        if not (isinstance(key, str) and key):
            key = ("#", self.tools)  # a call without an id is always new
        keys = self._keys
        if key in keys:
            keys.move_to_end(key)
            self.reused += 1
        else:
            keys[key] = None
            if len(keys) > self.window:
                keys.popitem(last=False)
        if name in PLAN_TOOLS:
            self.fold.call(name, block)

    def finish(self) -> None:
        self._flush()

    # -- a resume state (``rowresume``), taken before ``finish`` ---------------------

    _COUNTS = ("message_bytes", "window", "prompts", "responses", "tools", "reused", "clipped", "clipped_tools", "_kept")

    def to_state(self) -> dict[str, Any]:
        doc: dict[str, Any] = {name: getattr(self, name) for name in self._COUNTS}
        doc.update(fold=self.fold.to_state(), keys=[key if isinstance(key, str) else list(key) for key in self._keys],  # type: ignore[call-overload]
                   current=self._current, texts=self._texts, more=self._more, errors=self.errors,
                   interruptions=self.interruptions, interrupted=self.interrupted,
                   compactions=self.compactions, compacted=self.compacted)
        return doc

    def load_state(self, doc: dict[str, Any]) -> None:
        """Continue from ``to_state``'s point; raises ``ValueError``/``TypeError``/``KeyError`` on an ill-shaped state."""
        from agentscan.toolkit.detail import COMPACTIONS_KEPT, INTERRUPTIONS_KEPT
        from agentscan.toolkit.newesterrors import ERRORS_KEPT, NewestErrors

        counts = [doc[name] for name in self._COUNTS]
        if not all(type(value) is int and value >= 0 for value in counts):
            raise ValueError("ill-shaped show facts state")
        if (counts[0], counts[1]) != (self.message_bytes, self.window):
            raise ValueError("show facts of other bounds")
        keys, current, texts, errors = doc["keys"], doc["current"], doc["texts"], doc["errors"]
        fold = PlanFold.from_state(doc["fold"])  # (a state kept before the task list: ``KeyError``, no state)
        if not (are_errors(errors) and len(errors) <= ERRORS_KEPT):
            raise ValueError("ill-shaped errors")
        interruptions, interrupted = doc["interruptions"], doc["interrupted"]
        if not (are_interruptions(interruptions) and len(interruptions) <= INTERRUPTIONS_KEPT
                and type(interrupted) is int and interrupted >= len(interruptions)):
            raise ValueError("ill-shaped interruptions")
        if not (isinstance(keys, list) and len(keys) <= self.window and (current is None or isinstance(current, str))
                and isinstance(texts, list) and all(isinstance(t, str) for t in texts) and type(doc["more"]) is bool):
            raise ValueError("ill-shaped show facts state")
        restored = restored_keys(keys)
        for name, value in zip(self._COUNTS, counts):
            setattr(self, name, value)
        self.fold, self._keys, self._current, self._texts, self._more = fold, restored, current, texts, doc["more"]
        self._errors = NewestErrors()
        for error in errors:  # (in reading order, as ``to_state`` gives them)
            self.keep_error(list(error))
        self._interruptions = NewestErrors(INTERRUPTIONS_KEPT)
        for interruption in interruptions:
            self.keep_interruption(list(interruption))
        self._interruptions.count_unkept(interrupted - len(interruptions))
        compactions, compacted = doc["compactions"], doc["compacted"]  # (a state kept before them: ``KeyError``)
        if not (are_compactions(compactions) and len(compactions) <= COMPACTIONS_KEPT
                and type(compacted) is int and compacted >= len(compactions)):
            raise ValueError("ill-shaped compactions")
        self._compactions = NewestErrors(COMPACTIONS_KEPT)
        for compaction in compactions:
            self.keep_compaction(list(compaction))
        self._compactions.count_unkept(compacted - len(compactions))
