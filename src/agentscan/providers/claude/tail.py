"""``show`` of a huge Claude transcript from its end: the newest items, read newest first.

``detail.TranscriptStream`` reads a transcript forward and its collector
keeps the newest prompts, replies and calls within the bounds; everything
older is read only to be dropped.  ``read_tail`` reads the main transcript
backwards (``toolkit.reverse``) and stops as soon as nothing older can be
kept, leaving the collector as the forward pass would have left it, but for the
replies Claude Code took back (``retractions``: a ``supersedesUuids`` or
``retractedMessageUuids`` names their records, later in the file): the forward read
leaves their text out and counts them (``retracted_replies``), this one lists them
as written and cannot count them (``retracted_replies``: ``None``; an edited prompt is read forward:
``hugeshow.edits_kept``).  Otherwise:

* a reply is the text of a run of one message's records (Claude Code
  writes one record per content block); read backwards, a run is complete
  when an older record of another message, or a prompt, comes;
* a call's status comes from its newest ``tool_result``, which lies after
  it, so it has been read when the call is reached; a call id seen again
  further back is an older call that the newer one replaced;
* a prompt or reply that does not fit the byte budget ends its list (the
  collector fills budgets newest first and stops at the first misfit);
* a slash command Claude Code ran itself is numbered where it stands among the
  items (``toolkit.localcommands`` keeps those no older than the oldest kept item,
  all of which lie in what was read): one read inside a reply's run waits for the
  run's next older record, which says whether the reply began before it; so does a
  compaction (``compact_boundary``: its facts come from the row's pass, its place from
  this read, one older than the read reaches below every item) and a prompt typed while
  the reply went on (``queuedprompts``, which does not end the reply's run);
* totals of the whole file (for ``truncated``), the clipped counts and the
  plan come from ``tailfacts.TailFacts``, gathered on the row's pass.

Items get negative ``seq`` numbers counting down from the end, so they keep
their reading order and stay before the subagents' (numbered from 1 up).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Callable

from agentscan.bounds import Bounds, clip_text
from agentscan.context import ScanContext
from agentscan.detailmodel import Prompt, Response, ToolEvent
from agentscan.providers.claude.detail import tool_summary
from agentscan.providers.claude.errorrecords import is_api_error, is_local_reply
from agentscan.providers.claude.records import (
    as_str,
    content_blocks,
    message_of,
    ran_command_text,
    real_prompt_text,
    tool_result_blocks,
)
from agentscan.providers.claude.promptmarks import shown_prompt
from agentscan.providers.claude.queuedprompts import queued_prompt_text
from agentscan.providers.claude.tailfacts import TailFacts
from agentscan.providers.claude.tooltext import answers_text, error_text, result_status
from agentscan.timeutil import parse_iso
from agentscan.toolkit.detail import COMMANDS_KEPT, COMPACTIONS_KEPT, SUMMARY_BYTES, DetailCollector, answered
from agentscan.toolkit.localcommands import UNREAD
from agentscan.toolkit.reverse import records_newest_first

#: results waiting for their call (read backwards, a result comes first); past this
#: many, the oldest-read waiting one is forgotten (its call then shows "unknown")
MAX_WAITING_RESULTS = 100_000
_NO_RESULT: tuple[str, str | None, str | None] = ("unknown", None, None)


def read_tail(collector: DetailCollector, path: Path, ctx: ScanContext, bounds: Bounds, facts: TailFacts,
              *, own: str | None = None, watch: Callable[[dict], None] | None = None) -> bool:
    """Fill ``collector`` with the main transcript's newest items, as a forward pass would;
    ``own``: the session's id when it is a resumed one, whose copies of another's records
    are skipped (``resumes.is_copy``); ``watch``: sees every record read, newest first
    (``coststate.CostStates``: Claude Code's own count, found in this read).  ``True``: every
    record of the session's own was read (``watch`` saw them all), not only the newest."""
    from agentscan.providers.claude.resumes import is_copy

    tail = _Tail(bounds, facts)
    whole = True
    records = records_newest_first(path, ctx, end=facts.size)
    try:
        for _, record in records:
            if watch is not None:
                watch(record)
            if own is not None and is_copy(record, own):
                # The copies stand at the head, before every record of the session's own:
                # once all its items are read, nothing older than a copy is wanted.
                if tail.read_all():
                    tail.close_run()  # (as at the file's start)
                    break
                continue
            tail.feed(record)
            if tail.done() and not tail.read_all():
                tail.stop()
                whole = False
                break
        else:
            tail.close_run()
    finally:
        records.close()
    collector.restore(tail.prompts.items[::-1], tail.responses.items[::-1], list(tail.tools.values())[::-1],
                      prompts_read=facts.prompts, responses_read=facts.responses, tools_read=facts.tools,
                      tools_dropped=facts.tools_dropped(bounds), clipped_messages=facts.clipped,
                      clipped_tools=facts.clipped_tools, plan=facts.plan or (),
                      first_item=tail.first if tail.read_all() else UNREAD)
    for text, timestamp, seq in reversed(tail.commands):  # (oldest first, as a forward pass adds them)
        collector.add_local_command(text, timestamp, by="Claude Code", seq=seq)
    for (stamp, trigger, before), seq in zip(facts.compactions, tail.compaction_seqs()):
        # (the context's compactions, kept by the row's pass, each where it was read)
        collector.add_compaction(parse_iso(stamp), trigger=trigger, pre_tokens=before, seq=seq)
    collector.count_unkept_compactions(facts.compacted - len(facts.compactions))
    return whole


class _Tail:
    def __init__(self, bounds: Bounds, facts: TailFacts) -> None:
        self.bounds, self.facts = bounds, facts
        self.seq = 0
        self.prompts = _Newest(bounds.prompts, bounds.prompt_bytes, bounds.message_bytes)
        self.responses = _Newest(bounds.responses, bounds.response_bytes, bounds.message_bytes)
        self.tools: dict[object, ToolEvent] = {}
        self.tools_seen = 0
        # The slash commands Claude Code ran itself within the window read (``show --full``
        # marks them), newest first, the newest ``COMMANDS_KEPT``, with their ``seq``.
        self.commands: list[tuple[str, datetime | None, int]] = []
        self.commands_read = self.compactions_read = 0
        # The ``seq`` of each compaction read (``compact_boundary``), newest first, the newest
        # ``COMPACTIONS_KEPT``: ``show`` places one of no time by it, as a forward pass numbers it.
        self.compactions: list[int] = []
        # What was read while a reply's run was open, newest first, waiting for its number
        # (``_number_waiting``): a command (its text and time), a compaction (``None``), a
        # prompt typed while the reply went on (its index in ``prompts.items``, -1: not kept).
        self.waiting: list[tuple[str, datetime | None] | int | None] = []
        #: the ``seq`` of the oldest prompt, reply or call read (``None``: none yet)
        self.first: int | None = None
        # call id -> status of its newest result, the user's answer (a question's) and a failed
        # call's error, until the call is read (oldest-read first)
        self.results: OrderedDict[str, tuple[str, str | None, str | None]] = OrderedDict()
        # The reply being put together: its records' texts, newest first; its time and
        # model are its first (oldest) record's.
        self.run_open = False
        self.run_id: str | None = None
        self.run_texts: list[str] = []
        self.run_meta: tuple = (None, None)

    def done(self) -> bool:
        facts = self.facts
        return ((self.prompts.full or self.prompts.seen >= facts.prompts)
                and (self.responses.full or self.responses.seen >= facts.responses)
                and (len(self.tools) >= self.bounds.tools or self.tools_seen >= facts.tools))

    def read_all(self) -> bool:
        """Whether every prompt, reply and call of the file has been read: then it is read
        to its start, for the commands before the first (``toolkit.localcommands``)."""
        facts = self.facts
        return (self.prompts.seen >= facts.prompts and self.responses.seen >= facts.responses
                and self.tools_seen >= facts.tools)

    def _item(self, seq: int) -> None:
        # (read newest first, each older than the last; but a reply is numbered before what
        # waited inside its run, older: ``close_run``)
        self.first = seq if self.first is None else min(self.first, seq)

    def _next_seq(self) -> int:
        self.seq -= 1
        return self.seq

    def feed(self, record: dict) -> None:
        kind = record.get("type")
        if kind == "assistant" and (is_api_error(record) or is_local_reply(record)):
            # An API error written as a reply is no reply; it parts the replies either side of
            # it, as the forward pass does (its errors come from the facts: ``hugeshow``).
            self.close_run()
        elif kind == "assistant":
            message = message_of(record)
            message_id = as_str(message.get("id")) or as_str(record.get("uuid"))
            # The newer record began a run of its own unless it continues this message.
            if self.run_open and (self.run_id is None or message_id != self.run_id):
                self.close_run()
            else:  # (the reply goes on before a command read in its run: it began before it)
                self._number_waiting()
            self.run_open, self.run_id = True, message_id
            timestamp = parse_iso(record.get("timestamp"))
            self.run_meta = (timestamp, as_str(message.get("model")))
            blocks = content_blocks(message)
            texts = [block["text"] for block in blocks if block.get("type") == "text" and isinstance(block.get("text"), str)]
            if texts:
                self.run_texts.append("".join(texts))
            for block in reversed(blocks):
                if block.get("type") == "tool_use":
                    self._tool(block, timestamp)
        elif kind == "user":
            prompt = real_prompt_text(record)
            if prompt is not None:
                self.close_run()
                self._prompt(shown_prompt(record, prompt), parse_iso(record.get("timestamp")))
                return
            self._command(record)
            for block in reversed(tool_result_blocks(record)):
                tool_id = block.get("tool_use_id")
                if isinstance(tool_id, str) and tool_id not in self.results and tool_id not in self.tools:
                    status = result_status(record, block)
                    self._wait(tool_id, status, answers_text(record), error_text(block) if status == "error" else None)
        elif kind == "attachment":
            prompt = queued_prompt_text(record)  # folded into the reply going on: not closed
            if prompt is not None:
                self._prompt(prompt, parse_iso(record.get("timestamp")), queued=True)
        elif kind == "system":
            self._command(record)

    def _command(self, record: dict) -> None:
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            self._compaction()
            return
        text = ran_command_text(record)
        if text is None or self.commands_read >= COMMANDS_KEPT:
            return
        self.commands_read += 1
        if self.run_open:
            # Inside a reply's run, read newest first: the reply stands after the command
            # (forward, a reply is numbered at its first record) unless the run goes on
            # before it; which, its next older record says.
            self.waiting.append((text, parse_iso(record.get("timestamp"))))
        else:
            self.commands.append((text, parse_iso(record.get("timestamp")), self._next_seq()))

    def _compaction(self) -> None:
        """A ``compact_boundary``, numbered as a command is (its facts come from the row's pass)."""
        if self.compactions_read >= COMPACTIONS_KEPT:
            return  # (older than every one kept: ``compaction_seqs``)
        self.compactions_read += 1
        if self.run_open:  # (as a command inside a reply's run: ``_command``)
            self.waiting.append(None)
        else:
            self.compactions.append(self._next_seq())

    def _number_waiting(self) -> None:
        for waiting in self.waiting:
            seq = self._next_seq()
            if waiting is None:
                self.compactions.append(seq)
            elif isinstance(waiting, int):
                self._item(seq)
                if waiting >= 0:
                    self.prompts.items[waiting] = replace(self.prompts.items[waiting], seq=seq)
            else:
                self.commands.append((*waiting, seq))
        self.waiting = []

    def stop(self) -> None:
        """The read ends inside a reply's run: what waits is older than every item numbered (the
        reply, begun before or after it, is none of those kept: ``done``)."""
        self._number_waiting()

    def compaction_seqs(self) -> list[int]:
        """A ``seq`` for each of the kept facts' compactions (``TailFacts.compactions``, in reading
        order): those read here (the newest: the read goes back from the end) where they were
        read; the older ones below every item read, in their order.  (Past ``COMPACTIONS_KEPT``
        the facts keep the newest by time: taken for the newest read.)"""
        kept = len(self.facts.compactions)
        seqs = self.compactions[:kept]
        return sorted([*seqs, *(self.seq - 1 - n for n in range(kept - len(seqs)))])

    def _wait(self, tool_id: str, status: str, answer: str | None, error: str | None) -> None:
        if len(self.tools) >= self.bounds.tools:
            return  # no older call can be kept any more
        self.results[tool_id] = (status, answer, error)
        if len(self.results) > MAX_WAITING_RESULTS:
            self.results.popitem(last=False)

    def close_run(self) -> None:
        if not self.run_open:
            return
        seq = self._next_seq()  # the forward pass numbers a reply when its first record comes
        self._number_waiting()  # (read inside the run but before its first record: older)
        text = "".join(reversed(self.run_texts)).strip()
        timestamp, model = self.run_meta
        self.run_open, self.run_id, self.run_texts = False, None, []
        if not text:
            return
        self._item(seq)
        clipped = self.responses.offer(text)
        if clipped is not None:
            self.responses.keep(Response(clipped, timestamp, model, seq))

    def _prompt(self, text: str, timestamp, *, queued: bool = False) -> None:
        if queued and self.run_open:
            # Typed while a reply went on, read inside its run: numbered as a command there is
            # (``_command``: the reply stands after it unless the run goes on before it).
            clipped = self.prompts.offer(text)
            self.waiting.append(-1 if clipped is None else len(self.prompts.items))
            if clipped is not None:
                self.prompts.keep(Prompt(clipped, timestamp, 0))  # (its ``seq``: ``_number_waiting``)
            return
        seq = self._next_seq()
        self._item(seq)
        clipped = self.prompts.offer(text)
        if clipped is not None:
            self.prompts.keep(Prompt(clipped, timestamp, seq))

    def _tool(self, block: dict, timestamp) -> None:
        seq = self._next_seq()
        self._item(seq)
        self.tools_seen += 1
        if len(self.tools) >= self.bounds.tools:
            return
        call_id = as_str(block.get("id"))
        key: object = call_id if call_id is not None else ("#", self.tools_seen)
        if key in self.tools:
            return  # an older call with the same id: the newer one took its place
        name = as_str(block.get("name")) or "tool"
        summary, paths = tool_summary(name, block.get("input"))
        summary, _ = clip_text(summary, SUMMARY_BYTES)
        status, answer, error = self.results.pop(call_id, _NO_RESULT) if call_id is not None else _NO_RESULT
        if answer:  # as ``DetailCollector.finish_tool`` adds it
            summary = answered(summary, answer)
        self.tools[key] = ToolEvent(name=name, summary=summary, status=status, paths=paths, timestamp=timestamp,
                                    call_id=call_id, subagent=None, seq=seq, error=error)


class _Newest:
    """Prompts or replies read newest first, kept as the forward pass keeps them
    (``bounds.fill_newest_first``): until the count or the byte budget is reached.
    Every one is counted (``seen``)."""

    __slots__ = ("items", "seen", "full", "_used", "_count", "_budget", "_message_bytes")

    def __init__(self, count: int, budget: int, message_bytes: int) -> None:
        self.items: list = []  # newest first
        self.seen = 0
        self.full = count <= 0
        self._used = 0
        self._count, self._budget, self._message_bytes = count, budget, message_bytes

    def offer(self, text: str) -> str | None:
        """Count one; its clipped text when it is to be kept (then ``keep`` it)."""
        self.seen += 1
        if self.full:
            return None
        clipped, _ = clip_text(text, self._message_bytes)
        cost = len(clipped.encode())
        if self._used + cost > self._budget:
            self.full = True
            return None
        self._used += cost
        return clipped

    def keep(self, item: object) -> None:
        self.items.append(item)
        self.full = len(self.items) >= self._count
