"""Streaming a rollout into the bounded ``show`` detail.

Codex writes the conversation twice: ``event_msg`` (``user_message``,
``agent_message``, or from 0.145 on ``item_completed`` ``UserMessage`` and
``AgentMessage`` items: what the user typed and read) and ``response_item``
(what the model saw, injected context included); some builds write both kinds
of event.  Per stretch of lines (between two ``turn_context`` lines, or up to a
prompt item after a reply: ``messages.ends_stretch``) we show the messages
``messages.add_kind`` counts: the larger of the two kinds of event, else the
items (``messages.source``), so a thread resumed by another build shows every
turn once and a message written as both kinds of event is shown once.  Tool calls
are ``response_item`` entries (``records.TOOL_ITEMS``: ``function_call``,
``custom_tool_call`` such as ``apply_patch``, ``local_shell_call``, and the hosted
``web_search_call``, ``tool_search_call``, ``image_generation_call``) matched to
their outputs by ``call_id``; their status comes from the exit code, or a hosted
call's own ``status``.  Each item is one call, as ``counts.tool_calls`` counts it: a
``call_id`` written again is another call, and a later output settles the newest.

A ``thread_rolled_back`` event (Esc-Esc backtrack, ``thread/rollback``) takes
back the main thread's last ``num_turns`` user turns, as Codex's replay does:
``show`` drops their prompts, replies, tool calls and plan (``rewound``).  The
counts still hold them and their calls' tokens still count (they were billed),
as for Claude's edited prompts and Gemini's rewinds.

A compaction of the context (``/compact``, or an automatic one) writes a
``compacted`` line and, from the builds that emit it, a ``context_compacted``
event on the next line (codex-rs ``compact.rs``, ``compact_remote.rs``: the record
is persisted, then the compaction item completes); a build writes one or both.
Each such pair, or a lone one, is one compaction ``show`` marks (``add_compaction``),
as Claude's ``compact_boundary``; the context it held is the latest call's
``last_token_usage.total_tokens`` before it (what Codex measures its context by),
when a call since the previous compaction reported one (not the estimate of what
is left that a compaction writes just before its line).  No line says whether it
was ``/compact`` or automatic: its trigger is unknown.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from agentscan.bounds import NewestKept, shorten_kept
from agentscan.toolkit.detail import DetailCollector
from agentscan.detailmodel import PlanStep, Prompt, Response, ToolEvent
from agentscan.model import Counts
from agentscan.providers.codex.facts import LineFacts
from agentscan.providers.codex.messages import TOOL_KINDS, ends_stretch, source, turn_prompt, turn_response
from agentscan.providers.codex.records import (as_count, as_dict, as_str, event_prompt, item_prompt, item_response,
                                              plan_steps)
from agentscan.providers.codex.tools import (TOOL_SEARCH_OUTPUTS, event_error, event_status, hosted_status, output_error,
                                            output_status, tool_call, tool_summary)

#: the newest live user turns a rollback can go back to (as many as Claude's edits,
#: ``claude.detail.MAX_BRANCH_POINTS``): one reaching further goes back to the oldest kept
MAX_TURNS = 65_536


#: the ``turn_aborted`` reasons that are the user's interruption (codex-rs ``TurnAbortReason``)
_INTERRUPTED = frozenset({"interrupted", "replaced"})


def error_event(payload: Mapping[str, Any]) -> tuple[str, str]:
    """``(kind, text)`` of an ``error`` event: its ``codex_error_info`` (``usage_limit_exceeded``,
    or the one key of ``{"http_connection_failed": {…}}``), else ``error``; and its message."""
    info = payload.get("codex_error_info")
    if isinstance(info, dict) and len(info) == 1:
        info = next(iter(info))
    label = info if isinstance(info, str) and info else "error"
    message = as_str(payload.get("message"))
    return label, message.strip() if message and message.strip() else label.replace("_", " ")


#: where a message line counts in ``TranscriptReader._stretch`` (``line_kind``'s kinds): prompts,
#: then replies, each as legacy events, ``item_completed`` items, ``response_item`` messages
#: (``messages.PROMPT_KINDS``, ``REPLY_KINDS``: ``source`` picks one of each)
_STRETCH = {"event_prompt": 0, "turn_prompt": 1, "item_prompt": 2, "event_response": 3, "turn_response": 4,
            "item_response": 5}
_READ = {"event_prompt": event_prompt, "turn_prompt": turn_prompt, "item_prompt": item_prompt,
         "turn_response": turn_response, "item_response": item_response}


@dataclass
class TranscriptReader:
    """Fed one rollout's records in order; fills ``collector`` (for a subagent: its
    pool of subagent prompts and replies, and the tools ``finish`` returns)."""

    collector: DetailCollector
    subagent: str | None = None
    #: a subagent whose parent rollout is gone speaks for the session (its
    #: prompts, replies and plan are the conversation ``show`` displays)
    conversation: bool = False
    facts: LineFacts = field(default_factory=LineFacts)
    _sink: DetailCollector = field(init=False)
    #: the open stretch's messages by ``_STRETCH`` place, each with its place in the stretch:
    #: held until it closes (``source`` chooses then), flushed in file order
    _held: list[NewestKept[tuple[int, Prompt | Response]]] = field(init=False)
    _place: int = 0
    _settled: set[str] = field(default_factory=set)
    #: a call id written again (``_call_key``) -> the collector's key of its newest call
    _renamed: dict[str, str] = field(default_factory=dict)
    _repeats: int = 0
    #: the main thread's live user turns: the collector's mark before each (a rollback goes back there)
    _turns: deque[tuple] = field(default_factory=lambda: deque(maxlen=MAX_TURNS))
    #: the open stretch's prompts, each with its ``_STRETCH`` place, the stretch's messages of
    #: each place before it and the collector's mark past its messages (settled as it closes)
    _open_turns: list[tuple[int, tuple[int, ...], tuple]] = field(default_factory=list)
    #: the open stretch's messages of each ``_STRETCH`` place so far
    _stretch: list[int] = field(default_factory=lambda: [0] * 6)
    #: the collector's prompts and replies when the open stretch began
    _stretch_base: tuple[int, int] = (0, 0)
    #: the kind of compaction line (``compacted``, ``context_compacted``) the line just fed was,
    #: whose other line, if next, is the same compaction's (one writes both: ``_compaction``)
    _unpaired: str | None = None
    #: the tokens the context held after the latest call (``last_token_usage.total_tokens``)
    _context: int | None = None

    def __post_init__(self) -> None:
        self._sink = self.collector if self.subagent is None else self.collector.child()
        self._held = self._fresh()
        self._stretch_base = self._said()

    @property
    def own(self) -> bool:
        """Whether this rollout's prompts, replies and plan are the session's."""
        return self.subagent is None or self.conversation

    @property
    def model(self) -> str | None:
        return self.facts.model

    @property
    def last_ts(self) -> datetime | None:
        return self.facts.last_ts

    @property
    def rate_limits(self) -> dict[str, Any] | None:
        return self.facts.rate_limits

    def feed(self, record: Mapping[str, Any]) -> None:
        timestamp, kind, rtype, payload = self.facts.note(record)
        paired, self._unpaired = self._unpaired, None
        if (kind == "turn" or kind == "item_prompt") and ends_stretch(kind, any(self._stretch[3:])):
            self._flush()
        if kind == "turn":
            return
        if rtype == "compacted":
            self._compaction("compacted", paired, timestamp)
            return
        if kind in _STRETCH:
            self._hold(kind, payload, timestamp)
            return
        if rtype == "event_msg":
            if payload.get("type") == "thread_rolled_back":
                self._roll_back(payload)
                return
            self._event(payload, timestamp, paired)
        elif rtype == "response_item":
            self._item(payload, kind, timestamp)

    def _event(self, payload: Mapping[str, Any], timestamp: datetime | None, paired: str | None = None) -> None:
        if payload.get("type") == "token_count":
            # Rate limits are noted by LineFacts, usage counted by ``usage.py``: only the
            # context's size here.
            # A compaction's own estimate of what it left (codex-rs ``recompute_token_usage``: no
            # input, only ``total_tokens``) is written just before its ``compacted`` line: not a call's.
            last = as_dict(as_dict(payload.get("info")).get("last_token_usage"))
            held, sent = last.get("total_tokens"), last.get("input_tokens")
            if type(held) is int and held > 0 and type(sent) is int and sent > 0:
                self._context = held
            return
        if payload.get("type") == "context_compacted":
            self._compaction("context_compacted", paired, timestamp)
            return
        if payload.get("type") == "error":
            # A turn that failed (a stream cut off, a usage limit): ``show``'s errors.  A
            # ``turn_aborted`` is not one: the user interrupted the turn, or replaced it.
            label, text = error_event(payload)
            self._sink.add_error(text, timestamp, kind=label, subagent=self.subagent)
        elif payload.get("type") == "turn_aborted":
            # The user stopped the turn (``interrupted``) or sent a prompt in its place
            # (``replaced``); a review's end is no interruption.
            reason = as_str(payload.get("reason")) or "interrupted"
            if reason in _INTERRUPTED:
                self._sink.add_interruption(f"turn aborted: {reason}", timestamp, subagent=self.subagent)
        else:
            status = event_status(payload)
            call_id = as_str(payload.get("call_id"))
            if status is not None and call_id is not None:
                self._settled.add(call_id)
                self._finish(call_id, status, event_error(payload) if status == "error" else None)

    def _item(self, payload: Mapping[str, Any], kind: str | None, timestamp: datetime | None) -> None:
        ptype = payload.get("type")
        if kind in TOOL_KINDS:
            self._tool_call(payload, timestamp)
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            call_id = as_str(payload.get("call_id"))
            if call_id is not None and call_id not in self._settled:
                output = payload.get("output")
                status = output_status(output)
                self._finish(call_id, status, output_error(output) if status == "error" else None)
        elif ptype in TOOL_SEARCH_OUTPUTS:
            call_id = as_str(payload.get("call_id"))
            if call_id is not None and call_id not in self._settled:
                self._finish(call_id, hosted_status(payload, "ok") or "ok")

    def _compaction(self, line: str, before: str | None, timestamp: datetime | None) -> None:
        """A compaction's ``line`` (``compacted`` or ``context_compacted``), the line before it
        one of a compaction's (``before``) or not: the other line of one is that one's (in either
        order), else it is a compaction of its own.  Only the session's own thread's are marked
        (a subagent's context is not the session's)."""
        if before is not None and before != line:
            return
        self._unpaired = line
        if self.own:
            self.collector.add_compaction(timestamp, pre_tokens=self._context)
        self._context = None

    def _hold(self, kind: str, payload: Mapping[str, Any], timestamp: datetime | None) -> None:
        """A prompt or reply, held until the end of its stretch (which of its kinds is shown is
        known only then): kept bounded now, not after 1,000 of them sit in memory whole.  A reply
        takes its place in reading order now (``show --full``), as the calls after it do, and
        a prompt before the calls it started."""
        place = _STRETCH[kind]
        if self.subagent is None:
            self._note_turn(place)
        self._stretch[place] += 1
        self._place += 1
        text = payload["message"] if kind == "event_response" else _READ[kind](payload)
        if place >= 3 and kind != "item_response":
            text = (text or "").strip()
        text = shorten_kept(text or "", self.collector.bounds.message_bytes)
        message: Prompt | Response = (Prompt(text, timestamp, self.collector.reserve()) if place < 3 else
                                      Response(text, timestamp, self.model, self.collector.reserve()))
        self._held[place].add((self._place, message))

    def _fresh(self) -> list[NewestKept[tuple[int, Prompt | Response]]]:
        bounds = self.collector.bounds
        return [NewestKept(bounds.prompts if place < 3 else bounds.responses) for place in range(6)]

    def _tool_call(self, payload: Mapping[str, Any], timestamp: datetime | None) -> None:
        name, arguments, status = tool_call(payload)
        summary, paths = tool_summary(name, arguments)
        # A hosted call's item has an ``id`` and no ``call_id`` (an image generation's end event
        # names that ``id`` as its ``call_id``).
        call_id = as_str(payload.get("call_id")) or as_str(payload.get("id"))
        event = ToolEvent(name, summary, status, paths, timestamp, call_id, self.subagent)
        self._sink.add_tool(event, key=self._call_key(call_id))
        if name == "update_plan" and self.own:
            steps = plan_steps(arguments)
            if steps is not None:
                self.collector.plan = tuple(PlanStep(step, state) for step, state in steps)

    def _call_key(self, call_id: str | None) -> str | None:
        """The collector's key of a new call: its id, or, for an id a call still listed has
        (a trimmed or hand-made rollout), a key of its own, so that it is listed as the count
        counts it, not in place of the first; the id's outputs settle the newest call (an
        end event that settled an earlier call of the id is not this one's)."""
        if call_id is not None:
            self._settled.discard(call_id)
        if call_id is None or not (self._sink.holds_tool(call_id) or call_id in self._renamed):
            return call_id
        if len(self._renamed) >= 2 * self.collector.bounds.tools:
            # Only the ids of calls still listed matter: at most ``bounds.tools`` are left.
            self._renamed = {one: key for one, key in self._renamed.items() if self._sink.holds_tool(key)}
        self._repeats += 1
        key = f"{call_id}\x00{self._repeats}"  # the NUL: no call id Codex makes holds one
        self._renamed[call_id] = key
        return key

    def _finish(self, call_id: str, status: str, error: str | None = None) -> None:
        """The newest call of ``call_id`` ended so (``_call_key``); ``error``: a failed call's."""
        self._sink.finish_tool(self._renamed.get(call_id, call_id), status=status, error=error)

    def _add_prompt(self, text: str, timestamp: datetime | None, seq: int | None = None) -> None:
        """The session's prompt, or (in a subagent's rollout) the task it was given."""
        if self.own:
            self.collector.add_prompt(text, timestamp, seq=seq)
        elif self.subagent is not None:
            self.collector.add_subagent_prompt(self.subagent, text, timestamp, seq=seq)

    def _add_response(self, text: str, timestamp: datetime | None, model: str | None, seq: int | None = None) -> None:
        if self.own:
            self.collector.add_response(text, timestamp, model, seq=seq)
        elif self.subagent is not None:
            self.collector.add_subagent_response(self.subagent, text, timestamp, model, seq=seq)

    def _said(self) -> tuple[int, int]:
        """The prompts and replies the collector took so far (those it dropped included)."""
        mark = self.collector.mark()
        return mark[0], mark[1]

    def _note_turn(self, place: int) -> None:
        """A prompt of the open stretch starts a user turn (if its place is the one the stretch's
        prompts are shown from: ``_settle``)."""
        if place < 3:
            self._open_turns.append((place, tuple(self._stretch), self.collector.mark()[2:]))

    def _settle(self, prompt_from: int, reply_from: int) -> None:
        """The open stretch's user turns, as it is about to close: its prompts of the place they
        are shown (and counted) from, each with the prompts and replies that came before it in
        the collector (the stretch's messages are added only as it closes)."""
        prompts, responses = self._stretch_base
        for place, before, rest in self._open_turns:
            if place == prompt_from:
                self._turns.append((prompts + before[prompt_from], responses + before[reply_from], *rest))
        self._open_turns.clear()

    def _roll_back(self, payload: Mapping[str, Any]) -> None:
        """A ``thread_rolled_back``: the last ``num_turns`` user turns are gone (all of them when
        there are fewer, what came before the first staying), as Codex replays it.  It ends the
        stretch.  A subagent's rollback is not applied to its part of ``show``."""
        self._flush()
        value = payload.get("num_turns")
        taken = 0 if isinstance(value, bool) else as_count(value)
        if self.subagent is not None or taken <= 0 or not self._turns:
            return
        keep = max(0, len(self._turns) - taken)
        mark = self._turns[keep]
        while len(self._turns) > keep:
            self._turns.pop()
        self.collector.rewind(mark)
        self._stretch_base = self._said()

    def _flush(self) -> None:
        """End the open stretch: the prompts and replies of the kind it counts (``source``) are
        shown, in order."""
        chosen = (source(*self._stretch[:3]), 3 + source(*self._stretch[3:]))
        if self.subagent is None:
            self._settle(*chosen)
        held: list[tuple[int, Prompt | Response]] = []
        for place in chosen:
            kept = self._held[place]
            held.extend(kept.items())
            for _ in range(kept.dropped):  # older than the bounds keep, where they go
                self.collector.count_dropped("prompts" if place < 3 else "responses",
                                             subagent=None if self.own else self.subagent)
        for _, message in sorted(held, key=lambda pair: pair[0]):
            if isinstance(message, Prompt):
                self._add_prompt(message.text, message.timestamp, message.seq)
            else:
                self._add_response(message.text, message.timestamp, message.model, message.seq)
        self._held = self._fresh()
        self._stretch = [0] * 6
        self._stretch_base = self._said()

    def finish(self) -> list[ToolEvent]:
        """Flush the fallbacks; a subagent's tools are returned for the parent's list."""
        self._flush()
        return [] if self.subagent is None else self._sink.tools()

    def counts(self) -> Counts:
        return self.facts.counts()
