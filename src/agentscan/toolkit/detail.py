"""A bounded collector every provider uses to build ``show`` details.

Providers stream their transcripts into a ``DetailCollector``; it keeps the
newest items within ``Bounds``, clips long messages, and fills the byte
budgets newest first, so no provider re-implements the contract's bounds.

Subagents' prompts and replies (the task a subagent was given, what it
answered) are kept apart from the session's own conversation, in one pool
for all subagents bounded like the session's own, and handed to each
``SubagentInfo`` by ``build``.  Every item gets a ``seq`` in reading order,
shared with ``child()`` collectors, so items without a time can be placed.

The errors the provider recorded (an API error, a refusal) are no
conversation: ``add_error`` keeps the newest of them, the session's and its
subagents' in one pool, and ``errors()`` gives them for the detail's
``errors`` extra (``NewestErrors``: the rule a huge Claude transcript's facts
keep them by too).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Iterator

from agentscan.bounds import Bounds, NewestKept, clip_text, fill_newest_first
from agentscan.detailmodel import LocalCommand, PlanStep, Prompt, Response, SessionDetail, SubagentInfo, ToolEvent
from agentscan.model import SessionRow
from agentscan.timeutil import to_iso
from agentscan.toolkit.detailcounts import ClipCounts, CopiedItems, SubagentCalls
from agentscan.toolkit.localcommands import LocalCommands
from agentscan.toolkit.newesterrors import NewestErrors
from agentscan.toolkit.subagenttalk import SubagentTalk

_SUMMARY_CHARS = 400
#: a tool call's summary is clipped at this many UTF-8 bytes
SUMMARY_BYTES = _SUMMARY_CHARS * 4
#: the UTF-8 bytes an error's text is clipped at (the newest ``ERRORS_KEPT`` are kept: ``errors()``)
ERROR_BYTES = 1024
#: an error's ``kind`` is the provider's own name for it (a word): cut at this many characters
ERROR_KIND_CHARS = 64
#: the interruptions ``show`` keeps (the newest: ``interruptions()``): as many as prompts, so
#: the card's count is the session's unless it was interrupted more than that
INTERRUPTIONS_KEPT = 1000
#: the context compactions ``show`` keeps (the newest: ``add_compaction``), as many as
#: interruptions: the card's count is of every one
COMPACTIONS_KEPT = 1000
#: the commands the agent's CLI ran itself ``show --full`` marks (the newest in reading order of those
#: its timeline reaches: ``localcommands``), as many as compactions
COMMANDS_KEPT = COMPACTIONS_KEPT
#: such a command's text (``/compact`` and its instructions) is clipped at this many UTF-8 bytes
COMMAND_BYTES = 256
#: a compaction's ``trigger`` (``auto``, ``manual``) is the provider's word: cut at this many characters
TRIGGER_CHARS = 64


def answered(summary: str | None, answer: str) -> str:
    """A question call's summary with what the user answered (``finish_tool``, and the
    readers that give a call its result themselves)."""
    return f"{summary} → {answer}"


@dataclass
class _OpenTool:
    event: ToolEvent
    order: int
    #: the summary as the call was added (a second result's answer replaces the first's)
    asked: str | None = None


@dataclass
class DetailCollector:
    bounds: Bounds
    prompts: NewestKept[Prompt] = field(init=False)
    responses: NewestKept[Response] = field(init=False)
    clips: ClipCounts = field(default_factory=ClipCounts)
    subagent_calls: SubagentCalls = field(default_factory=SubagentCalls)
    copied: CopiedItems = field(default_factory=CopiedItems)
    plan: tuple[PlanStep, ...] = ()
    _tools: OrderedDict[object, _OpenTool] = field(default_factory=OrderedDict)  # call id (or a stand-in) -> call
    _tools_dropped: int = 0
    _order: int = 0
    _seq: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _talk: SubagentTalk | None = None
    _errors: NewestErrors[dict[str, Any]] = field(default_factory=NewestErrors)
    _interruptions: NewestErrors[dict[str, Any]] = field(default_factory=lambda: NewestErrors(INTERRUPTIONS_KEPT))
    #: prompts and replies taken back by ``rewind`` (a branch the user abandoned)
    rewound: int = 0
    #: replies the provider took back whole after writing them (``revise_response``), not listed
    retracted: int = 0
    #: the context compactions the main transcript recorded (Claude's ``compact_boundary``,
    #: ``add_compaction``); ``None``: none, and ``build`` says nothing of them
    _compactions: NewestErrors[dict[str, Any]] | None = None
    #: the slash commands the agent's CLI ran itself (``add_local_command``), the newest
    #: ``COMMANDS_KEPT`` in reading order (``localcommands``), made at the first
    _commands: LocalCommands = field(default_factory=lambda: LocalCommands(COMMANDS_KEPT))
    #: what the agent's CLI itself said the session cost, as its provider reads it from the
    #: pass (Claude's ``cost-state``: ``claude.coststate.CostStates``); ``None``: not read
    reported: Any = None

    def __post_init__(self) -> None:
        self.prompts = NewestKept(self.bounds.prompts)
        self.responses = NewestKept(self.bounds.responses)
        if self._talk is None:
            self._talk = SubagentTalk.within(self.bounds)

    def child(self) -> DetailCollector:
        """A collector for one subagent's tool calls that shares this one's reading
        order and subagent pool (its tools go back through ``build(extra_tools=…)``)."""
        return DetailCollector(self.bounds, clips=self.clips, subagent_calls=self.subagent_calls, copied=self.copied,
                               _seq=self._seq,
                               _talk=self._talk, _errors=self._errors, _interruptions=self._interruptions)

    def reserve(self) -> int:
        """A place in reading order for an item added later (a reply that is
        complete only after the calls made in the same message)."""
        return next(self._seq)

    def _clip(self, text: str) -> str:
        clipped, cut = clip_text(text, self.bounds.message_bytes)
        self.clips.messages += cut
        return clipped

    def add_prompt(self, text: str, timestamp: datetime | None = None, *, seq: int | None = None,
                   subagent: str | None = None) -> None:
        """``seq``: a place in reading order ``reserve`` gave when the prompt was read, for a
        prompt added later (Codex's, when its stretch closes).  ``subagent``: the run's it
        is (``add_subagent_prompt``), else the session's."""
        if subagent is not None:
            self.add_subagent_prompt(subagent, text, timestamp, seq=seq)
            return
        self.prompts.add(Prompt(self._clip(text), timestamp, seq := seq or next(self._seq)))
        self._commands.item(seq)
        self.copied.prompts += self.copied.copying

    def add_response(self, text: str, timestamp: datetime | None = None, model: str | None = None,
                     *, seq: int | None = None, subagent: str | None = None) -> None:
        """``subagent``: the run's it is (``add_subagent_response``), else the session's."""
        if subagent is not None:
            self.add_subagent_response(subagent, text, timestamp, model, seq=seq)
            return
        self.responses.add(Response(self._clip(text), timestamp, model, seq := seq or next(self._seq)))
        self._commands.item(seq)

    def revise_response(self, seq: int, text: str | None) -> None:
        """The session's reply added at ``seq`` said less than it did: part of it was withdrawn
        (``text``: what is left) or all of it (``None``: it goes).  Claude Code retracts a
        refused or aborted reply after writing it (``claude.retractions``).  (What is left is
        clipped as the whole was, its clip already counted.)"""
        left = None if text is None else clip_text(text, self.bounds.message_bytes)[0]
        if self.responses.revise(lambda kept: kept.seq == seq, None if left is None else lambda kept: replace(kept, text=left)):
            self.retracted += 1

    def add_subagent_prompt(self, subagent: str, text: str, timestamp: datetime | None = None, *,
                            seq: int | None = None) -> None:
        """The task ``subagent`` was given (or a later message to it): shown under it, not as the session's."""
        assert self._talk is not None
        self._talk.prompts.add((subagent, Prompt(self._clip(text), timestamp, seq or next(self._seq))))

    def add_subagent_response(self, subagent: str, text: str, timestamp: datetime | None = None,
                              model: str | None = None, *, seq: int | None = None) -> None:
        assert self._talk is not None
        self._talk.responses.add((subagent, Response(self._clip(text), timestamp, model, seq or next(self._seq))))

    def add_error(self, text: str, timestamp: datetime | None = None, *, kind: str | None = None,
                  subagent: str | None = None) -> None:
        """An error the provider recorded (``kind``: its own name for it), ``subagent``'s when
        one's file recorded it.  Kept whatever ``rewind`` takes back: it happened."""
        stamp = to_iso(timestamp)
        self._errors.add(stamp, {"text": clip_text(text, ERROR_BYTES)[0], "timestamp": stamp,
                                 "kind": None if kind is None else kind[:ERROR_KIND_CHARS], "subagent": subagent})

    def errors(self) -> list[dict[str, Any]]:
        """The errors kept, oldest first, as ``show --json`` lists them (``errors``):
        ``{"text", "timestamp", "kind", "subagent"}``."""
        return self._errors.by_time()

    def add_interruption(self, text: str, timestamp: datetime | None = None, *, subagent: str | None = None) -> None:
        """The user stopped a reply or a call (``text``: the provider's own words for it), in
        ``subagent``'s file when one's recorded it.  No prompt, no error; kept as errors are."""
        stamp = to_iso(timestamp)
        self._interruptions.add(stamp, {"text": clip_text(text, ERROR_BYTES)[0], "timestamp": stamp,
                                        "subagent": subagent})

    def interruptions(self) -> list[dict[str, Any]]:
        """The interruptions kept, oldest first, as ``show --json`` lists them
        (``interruptions``): ``{"text", "timestamp", "subagent"}``."""
        return self._interruptions.by_time()

    def count_unkept_interruptions(self, count: int) -> None:
        """``count`` interruptions more than were added, read earlier but not kept (a huge
        transcript's kept facts hold the newest only): in ``interrupted``, not listed."""
        self._interruptions.count_unkept(count)

    def count_unkept_compactions(self, count: int) -> None:
        """``count`` compactions more than were added, read earlier but not kept (a huge
        transcript's kept facts hold the newest only): in ``compacted``, not listed."""
        if count > 0:
            if self._compactions is None:
                self._compactions = NewestErrors(COMPACTIONS_KEPT)
            self._compactions.count_unkept(count)

    def add_compaction(self, timestamp: datetime | None = None, *, trigger: str | None = None,
                       pre_tokens: int | None = None, seq: int | None = None) -> None:
        """The conversation's context was compacted (Claude's ``/compact``, or an automatic
        one: ``trigger``), the context holding ``pre_tokens`` tokens before.  Kept whatever
        ``rewind`` takes back: it happened.  (Only a reader that reads them adds any: a
        detail with none leaves ``compactions`` out, as one whose reader does not: another
        provider's.)  ``seq``: its place in reading order when a reader numbers its items itself
        (``tail``, whose numbers are below 0)."""
        if self._compactions is None:
            self._compactions = NewestErrors(COMPACTIONS_KEPT)
        self.copied.compactions += self.copied.copying
        stamp = to_iso(timestamp)
        # ``seq``: its place in reading order, which places one of no time among the prompts
        # (``show``); not in JSON (``SessionDetail.to_json``), as a prompt's is not.
        self._compactions.add(stamp, {"timestamp": stamp, "trigger": None if trigger is None else trigger[:TRIGGER_CHARS],
                                      "pre_tokens": pre_tokens, "seq": seq or next(self._seq)})

    def add_local_command(self, text: str, timestamp: datetime | None = None, *, by: str = "",
                          seq: int | None = None) -> None:
        """A slash command the agent's CLI (``by``) ran itself, no prompt (Claude Code's ``/mcp``):
        ``show --full`` marks it where it stood among the prompts (``localcommands`` says which are
        kept).  ``seq``: its place in reading order when a reader numbers its items itself (``tail``)."""
        command = LocalCommand(clip_text(text, COMMAND_BYTES)[0], timestamp, by, seq or next(self._seq))
        self._commands.commands.append(command)

    def passed(self) -> None:
        """A prompt or reply of the session's own left unread (older than the bounds keep):
        its place in reading order, so a command before it is not kept (``localcommands``)."""
        self._commands.item(next(self._seq))

    def count_dropped(self, kind: str, *, subagent: str | None = None) -> None:
        """One prompt (``kind`` "prompts") or reply ("responses") left unread because it is
        older than the bounds keep: the session's own, or ``subagent``'s."""
        assert self._talk is not None
        if subagent is None:
            (self.prompts if kind == "prompts" else self.responses).dropped += 1
        else:
            (self._talk.prompts if kind == "prompts" else self._talk.responses).dropped += 1

    def add_tool(self, event: ToolEvent, key: str | None = None) -> None:
        """Record a tool call; ``key`` (its call id) lets a later result set its status."""
        self._order += 1
        summary, cut = clip_text(event.summary, SUMMARY_BYTES)
        self.clips.tools += cut
        event = replace(event, summary=summary, seq=next(self._seq))
        if event.subagent is None:
            self._commands.item(event.seq)
        found_key: object = key or ("#", self._order)  # a stand-in never equal to a real call id
        replaced = self._tools.pop(found_key, None)
        if event.subagent and replaced is None:  # (a call read again: counted once)
            self.subagent_calls.read += 1
        if self.copied.copying and replaced is None:
            if event.subagent:
                self.copied.subagent_tool_calls += 1
            else:
                self.copied.tool_calls += 1
        self._tools[found_key] = _OpenTool(event, self._order)
        if len(self._tools) > self.bounds.tools:
            self._tools.popitem(last=False)
            self._tools_dropped += 1

    def holds_tool(self, key: str) -> bool:
        """Whether a call added with ``key`` is still kept (a result could still settle it)."""
        return key in self._tools

    def mark(self) -> tuple:
        """Where the conversation stands now: ``rewind`` can come back here."""
        return (self.prompts.position(), self.responses.position(), self._order,
                self.clips.messages, self.clips.tools, self.plan, self._commands.first)

    def rewind(self, mark: tuple) -> None:
        """Back to ``mark``: the prompts, replies and calls added since are forgotten (the
        user edited an earlier prompt, abandoning them), the prompts and replies counted
        in ``rewound``.  Items they pushed out of the bounds stay out (counted as dropped).  The
        first item is the first left (``localcommands``: a ``/model`` before an edited first prompt)."""
        prompts, responses, order, clipped_messages, clipped_tools, plan, self._commands.first = mark
        for kept, then in ((self.prompts, prompts), (self.responses, responses)):
            added = kept.position() - then
            self.rewound += added - kept.take_back(added)  # (a reply taken back already: ``retracted``)
        taken = 0
        while self._tools and next(reversed(self._tools.values())).order > order:
            if self._tools.popitem()[1].event.subagent:
                self.subagent_calls.read -= 1
            taken += 1
        self._tools_dropped = max(0, self._tools_dropped - (self._order - order - taken))
        self._order = order
        self.clips.messages, self.clips.tools, self.plan = clipped_messages, clipped_tools, plan

    def finish_tool(self, key: str, *, status: str, answer: str | None = None, error: str | None = None) -> None:
        """Set the status of a call still kept; results of dropped calls are ignored.
        ``answer``: what the user answered a question call, added to its summary (the
        provider keeps question and answer short enough never to be clipped together);
        ``error``: a failed call's error, one short line (the provider cuts it)."""
        open_tool = self._tools.get(key)
        if open_tool is not None:
            event = open_tool.event
            if answer:
                open_tool.asked = asked = event.summary if open_tool.asked is None else open_tool.asked
                event = replace(event, summary=answered(asked, answer))
            open_tool.event = replace(event, status=status, error=error)

    def restore(self, prompts: list[Prompt], responses: list[Response], tools: list[ToolEvent], *, prompts_read: int,
                responses_read: int, tools_read: int, tools_dropped: int, clipped_messages: int,
                clipped_tools: int, plan: tuple[PlanStep, ...], first_item: int | None) -> None:
        """Put in what a newest-first reading kept (oldest first, already clipped and within
        the byte budgets), with the totals of the whole reading it stands for: the state
        adding every item of that reading in order would have left.  ``first_item``: the
        ``seq`` of the session's first item, ``localcommands.UNREAD`` when it was not read."""
        self._commands.first = first_item
        for kept, items, read in ((self.prompts, prompts, prompts_read), (self.responses, responses, responses_read)):
            for item in items:
                kept.add(item)  # type: ignore[arg-type]
            kept.dropped = max(0, read - len(kept))  # a file changed under the reader: never below nothing
        for index, tool in enumerate(tools):
            self._tools[tool.call_id if tool.call_id is not None else ("#", index)] = _OpenTool(tool, index)
        self._tools_dropped = tools_dropped
        self._order = tools_read
        self.clips.messages, self.clips.tools = clipped_messages, clipped_tools
        self.plan = plan

    def tools(self) -> list[ToolEvent]:
        return [t.event for t in self._tools.values()]

    def build(
        self,
        row: SessionRow,
        *,
        subagents: tuple[SubagentInfo, ...] = (),
        extra_tools: list[ToolEvent] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> SessionDetail:
        tools = self.tools()
        tools_dropped = self._tools_dropped
        if extra_tools:
            # Subagent calls interleave with the parent's; order them by time and
            # keep the newest within the same bound.
            merged = sorted(tools + extra_tools, key=lambda t: (t.timestamp is None, t.timestamp or 0))
            tools_dropped += max(0, len(merged) - self.bounds.tools)
            tools = merged[-self.bounds.tools:] if self.bounds.tools else []
        prompts, prompts_cut = fill_newest_first(self.prompts.items(), self.bounds.prompt_bytes, lambda p: len(p.text.encode()))
        responses, responses_cut = fill_newest_first(self.responses.items(), self.bounds.response_bytes, lambda r: len(r.text.encode()))
        tools, tools_cut = fill_newest_first(tools, self.bounds.tool_bytes, lambda t: len(t.summary.encode()))
        assert self._talk is not None
        subagents, talk_dropped = self._talk.handed_to(subagents, self.bounds)
        truncated = {
            "prompts": self.prompts.dropped + prompts_cut,
            "responses": self.responses.dropped + responses_cut,
            "tools": tools_dropped + tools_cut,
            "clipped_messages": self.clips.messages,
            "clipped_tools": self.clips.tools,
            **talk_dropped,
        }
        return SessionDetail(
            row=row,
            prompts=tuple(prompts),
            responses=tuple(responses),
            tools=tuple(tools),
            subagents=subagents,
            plan=self.plan,
            truncated=truncated,
            local_commands=self._commands.kept(prompts, responses, tools),
            # (Every provider's: ``interruptions`` is one shape for all, empty where none is recorded.)
            # ``interrupted``: every one, ``interruptions`` the newest ``INTERRUPTIONS_KEPT``.
            extra={**(extra or {}), "interruptions": self.interruptions(), "interrupted": self._interruptions.seen,
                   **self._compaction_extra(),
                   # (every one read: ``tools`` keeps the newest of all calls; absent when none)
                   **({"subagent_tool_calls": self.subagent_calls.read} if self.subagent_calls.read else {}),
                   # (of those, what was copied from another session's records: absent when nothing)
                   **({"copied_listed": copied} if (copied := self.copied.listed()) else {})},
        )

    def _compaction_extra(self) -> dict[str, Any]:
        """``compactions`` (the newest ``COMPACTIONS_KEPT``, oldest first: ``{"timestamp",
        "trigger", "pre_tokens"}``) and ``compacted`` (every one), when there were any."""
        if self._compactions is None:
            return {}
        return {"compactions": self._compactions.by_time(), "compacted": self._compactions.seen}
