"""Streaming a Claude transcript into the bounded ``show`` detail (its list of subagents: ``subagentlist``)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Collection

import orjson

from agentscan.toolkit.detail import DetailCollector
from agentscan.detailmodel import PlanStep, ToolEvent
from agentscan.providers.claude.errorrecords import is_local_reply, recorded_error
from agentscan.providers.claude.records import (
    as_dict,
    as_str,
    branch_point,
    content_blocks,
    interruption_text,
    message_of,
    ran_command_text,
    real_prompt_text,
    tool_result_blocks,
)
from agentscan.providers.claude.promptmarks import shown_prompt
from agentscan.providers.claude.queuedprompts import queued_prompt_text
from agentscan.providers.claude.retractions import Retractions, withdrawn_uuids
from agentscan.providers.claude.sidechains import InlineRuns
from agentscan.providers.claude.tasklist import PLAN_TOOLS, PlanFold
from agentscan.providers.claude.tooltext import answers_text, error_text, result_status, special_summary, task_summary
from agentscan.timeutil import parse_iso

_PATH_KEYS = ("file_path", "path", "notebook_path")
_TASK_TOOLS = ("TaskCreate", "TaskUpdate")
_SUMMARY_KEYS = ("command", "pattern", "file_path", "path", "url", "query", "description", "prompt", "skill")


def tool_summary(name: str, tool_input: object) -> tuple[str, tuple[str, ...]]:
    """A short, readable summary of a tool call and the paths it touched."""
    data = as_dict(tool_input)
    paths = tuple(data[key] for key in _PATH_KEYS if isinstance(data.get(key), str))
    edits = data.get("edits")
    if isinstance(edits, list):
        paths += tuple(e["file_path"] for e in edits if isinstance(e, dict) and isinstance(e.get("file_path"), str))
    return summary_text(name, tool_input, data), paths


def summary_text(name: str, tool_input: object, data: dict | None = None) -> str:
    """``tool_summary``'s summary alone (``data``: ``as_dict`` of ``tool_input``): ``show``'s
    facts ask it of every call of a huge transcript, and need no paths."""
    if data is None:
        data = as_dict(tool_input)
    if name in _TASK_TOOLS and (task := task_summary(name, data)) is not None:
        return task  # (before the keys: a task's ``description`` is a paragraph)
    for key in _SUMMARY_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    special = special_summary(name, data)
    if special is not None:
        return special
    if isinstance(tool_input, str):
        return tool_input
    try:
        return orjson.dumps(tool_input, option=orjson.OPT_SORT_KEYS).decode()[:400]
    except TypeError:
        return name


#: prompts whose place in the tree is remembered (a hostile file of millions of prompts
#: must not be held): an edit of a prompt older than these is not recognised
MAX_BRANCH_POINTS = 65_536


class LiveBranch:
    """Which earlier prompt a prompt replaces: Claude Code's "edit previous prompt" (a rewind).

    An edit writes a new prompt whose ``parentUuid`` is the replaced prompt's, and leaves
    the replaced prompt and all that followed it in the file: an abandoned branch.  So a
    prompt joining the tree where an earlier one did (and not a copy of it: another uuid)
    replaces it, and everything from that one on is off the live branch.

    Two prompts with no parent are a rewind to the very start only in a transcript that
    records its live leaf (a ``last-prompt`` record came before: Claude Code 2.1+), and only
    while no chain began again between them (a ``compact_boundary``, any record of no
    parent): a chain restarting at ``null`` is not an edit, and taking one for an edit
    would hide real conversation, which is worse than showing an abandoned branch.
    """

    def __init__(self) -> None:
        # parent (``None``: a root) -> (the uuid of the prompt that joined there, the mark
        # taken before it), oldest first: a rewind drops the marks after the one it goes to.
        self._points: OrderedDict[str | None, tuple[str, Any]] = OrderedDict()
        self._leaves = False
        self.rooted = False  # a prompt of no parent is remembered

    def replaced(self, parent: str | None, uuid: str) -> Any:
        """The mark taken before the prompt this one replaces; ``None``: it replaces none."""
        found = self._points.get(parent)
        if found is None or found[0] == uuid or (parent is None and not self._leaves):
            return None
        while self._points.popitem()[0] != parent:  # (the prompts after it are gone too)
            pass
        self.rooted = None in self._points
        return found[1]

    def remember(self, parent: str | None, uuid: str, mark: Any) -> None:
        points = self._points
        points.pop(parent, None)
        points[parent] = (uuid, mark)
        if len(points) > MAX_BRANCH_POINTS:
            points.popitem(last=False)
        self.rooted = None in points

    def restart(self) -> None:
        """A chain began again at no parent: a prompt of no parent after it is no edit."""
        self._points.pop(None, None)
        self.rooted = False

    def leaf_recorded(self) -> None:
        self._leaves = True


class TranscriptStream:
    """Feeds one file's records into a ``DetailCollector``.

    Fed record by record (``summarize`` calls ``feed`` from its own pass), so
    ``show`` reads each file once.  Prompts and responses of subagents are
    not the session's conversation: only the parent file contributes them
    (unless the parent is gone); a subagent's go to the collector's subagent
    pool, and its tool calls are returned by ``finish``.
    """

    def __init__(self, collector: DetailCollector, *, subagent: str | None = None, conversation: bool = False,
                 transcripts: Collection[str] | None = None, own_session: str | None = None) -> None:
        """``transcripts``: (the main transcript's stream) the subagents that have a
        transcript of their own; the others' records in this file are streamed as theirs:
        a run written inline (``sidechains``), the copies in progress records.
        ``own_session``: (a resumed session's, whose copies are listed) its id: a record of
        another session's is a copy, counted apart (``DetailCollector.copied``)."""
        self._own_session = own_session
        self._own = subagent is None
        self._transcripts = transcripts
        self._runs: InlineRuns | None = None
        self._children: dict[str, TranscriptStream] = {}
        # A subagent whose parent transcript is gone is all there is to show:
        # ``conversation`` lets its prompts and replies stand for the session's.
        self._speaks = self._own or conversation
        self._collector = collector
        self._sink = collector if self._own else collector.child()
        self._subagent = subagent
        self._current_id: str | None = None
        self._current_text: list[str] = []
        self._current_meta: dict[str, Any] = {}
        # The session's own conversation follows its live branch; a subagent's is not edited.
        self._branch = LiveBranch() if self._own else None
        # The session's plan (``tasklist``): a subagent's todo or task list is its own.
        self._plan = PlanFold() if self._own else None
        # Replies Claude Code took back (``retractions``): the session's own, as it lists them.
        self._retractions = Retractions() if self._speaks else None

    def _flush(self) -> None:
        text = "".join(self._current_text).strip()
        meta = self._current_meta
        if text and self._speaks:
            self._collector.add_response(text, meta.get("ts"), meta.get("model"), seq=meta.get("seq"))
        elif text and self._subagent is not None:
            self._collector.add_subagent_response(self._subagent, text, meta.get("ts"), meta.get("model"),
                                                  seq=meta.get("seq"))
        # (The session's own replies only, ``_speaks``: one taken back whole is counted, not listed.)
        if self._retractions is not None and self._retractions.added(meta.get("seq") if text else None,
                                                                     self._current_text):
            self._collector.retracted += 1
        self._current_id, self._current_text = None, []

    def feed(self, record: dict) -> None:
        if self._own_session is not None:
            self._collector.copied.copying = record.get("sessionId") != self._own_session
        kind = record.get("type")
        if self._transcripts is not None and self._others(record, kind):
            return
        # (Two lookups on the rare records that take a reply back: ``retractions``.)
        if self._retractions is not None and ("retractedMessageUuids" in record or "supersedesUuids" in record) and (
                withdrawn := withdrawn_uuids(record, kind)) is not None:
            self._retractions.withdraw(withdrawn, self._current_text, self._collector.revise_response)
        if (kind == "system" or kind == "assistant") and self._error(record):
            return
        if kind == "assistant" and is_local_reply(record):
            self._flush()  # no model's reply; it ends the one before it (as ``showfacts`` counts)
            return
        if kind == "assistant":
            timestamp = parse_iso(record.get("timestamp"))
            message = message_of(record)
            message_id = as_str(message.get("id")) or as_str(record.get("uuid"))
            if message_id != self._current_id or message_id is None:
                self._flush()
                self._current_id = message_id
                # The reply is complete only at the message's end, after its calls:
                # its place in reading order is taken now, before theirs.
                self._current_meta.update(ts=timestamp, model=as_str(message.get("model")), seq=self._collector.reserve())
            start = len(self._current_text)
            for block in content_blocks(message):
                _assistant_block(block, self._current_text, self._sink, timestamp, self._subagent, self._plan)
            if self._retractions is not None:
                self._retractions.note(record.get("uuid"), start, len(self._current_text))
        elif kind == "user":
            prompt = real_prompt_text(record)
            if prompt is not None:
                self._flush()
                if self._branch is not None:
                    self._follow_branch(record)
                prompt = shown_prompt(record, prompt)
                if self._speaks:
                    self._collector.add_prompt(prompt, parse_iso(record.get("timestamp")))
                elif self._subagent is not None:  # the task it was given
                    self._collector.add_subagent_prompt(self._subagent, prompt, parse_iso(record.get("timestamp")))
                return
            if self._speaks:
                self._command(record)
            interrupted = interruption_text(record)
            if interrupted is not None:  # (no prompt: kept as errors are, whoever's file it is)
                self._sink.add_interruption(interrupted, parse_iso(record.get("timestamp")), subagent=self._subagent)
            if self._branch is not None and self._branch.rooted and record.get("parentUuid", "") is None:
                self._branch.restart()
            if self._plan is not None:
                self._plan.results(record)
            for block in tool_result_blocks(record):
                tool_id = block.get("tool_use_id")
                if isinstance(tool_id, str):
                    status = result_status(record, block)
                    self._sink.finish_tool(tool_id, status=status, answer=answers_text(record),
                                           error=error_text(block) if status == "error" else None)
        elif kind == "attachment":
            # A prompt typed while a reply went on (``queuedprompts.queued_prompt_text``): folded
            # into that turn, so the reply goes on after it (not flushed, as ``tail`` and the
            # row's facts read it too).
            prompt = queued_prompt_text(record)
            if prompt is not None and self._speaks:
                self._collector.add_prompt(prompt, parse_iso(record.get("timestamp")))
        elif self._branch is not None:
            if kind == "system" and record.get("subtype") == "compact_boundary":
                self._compaction(record)
            elif kind == "system" and self._speaks:
                self._command(record)
            if kind == "system" and record.get("parentUuid", "") is None:  # a compact_boundary, …
                self._branch.restart()
            elif kind == "last-prompt":
                self._branch.leaf_recorded()

    def _compaction(self, record: dict) -> None:
        """A ``/compact`` (or an automatic one) of the session's context: where it stood in the
        conversation, what started it (``compactMetadata.trigger``: ``auto``, ``manual``) and
        the tokens the context held before (``preTokens``)."""
        meta = as_dict(record.get("compactMetadata"))
        before = meta.get("preTokens")
        self._collector.add_compaction(parse_iso(record.get("timestamp")), trigger=as_str(meta.get("trigger")),
                                       pre_tokens=before if type(before) is int and before >= 0 else None)

    def _command(self, record: dict) -> None:
        """A slash command Claude Code ran itself (``/mcp``): no prompt, but ``show --full``
        marks it among the prompts (``records.ran_command_text``: a ``user`` record, or a
        ``system`` one of subtype ``local_command``)."""
        text = ran_command_text(record)
        if text is not None:
            self._collector.add_local_command(text, parse_iso(record.get("timestamp")), by="Claude Code")

    def _error(self, record: dict) -> bool:
        """Whether ``record`` is an error (``records.recorded_error``), kept as one.  An API
        error written as a reply ends the reply before it and is none itself; a ``system``
        record goes on to the branch's bookkeeping (``False``)."""
        found = recorded_error(record)
        if found is None:
            return False
        self._sink.add_error(found[1], parse_iso(record.get("timestamp")), kind=found[0], subagent=self._subagent)
        if record.get("type") != "assistant":
            return False
        self._flush()  # (as ``showfacts.ShowFacts`` and ``tail`` count replies)
        return True

    def _follow_branch(self, record: dict) -> None:
        """Before the prompt ``record`` is added: when it replaces an earlier one, the
        collector goes back to where that one was added."""
        assert self._branch is not None
        point = branch_point(record)
        if point is None:
            return
        parent, uuid = point
        mark = self._branch.replaced(parent, uuid)
        if mark is not None:
            self._collector.rewind(mark[0])
            if self._plan is not None:
                self._plan.rewind(mark[1])
        self._branch.remember(parent, uuid, (self._collector.mark(), None if self._plan is None else self._plan.mark()))

    def _others(self, record: dict, kind: object) -> bool:
        """Whether ``record`` is another run's, streamed as that subagent's: a record of a run
        written inline (``sidechains``), or a progress copy of a record of a subagent whose
        transcript is gone (one with a transcript is streamed from it)."""
        if kind == "progress":
            data = record.get("data")
            if isinstance(data, dict) and data.get("type") == "agent_progress":
                agent_id, copied = as_str(data.get("agentId")), data.get("message")
                if agent_id is not None and isinstance(copied, dict) and agent_id not in self._transcripts:  # type: ignore[operator]
                    self._child(agent_id).feed(copied)
            return False
        if record.get("isSidechain") is not True or kind not in ("assistant", "user"):
            return False
        if self._runs is None:
            self._runs = InlineRuns()
        run = self._runs.run_of(record)
        if run is None:  # the session's own (``InlineRuns.run_of``)
            return False
        self._child(run).feed(record)
        return True

    def _child(self, agent_id: str) -> TranscriptStream:
        child = self._children.get(agent_id)
        if child is None:
            child = self._children[agent_id] = TranscriptStream(self._collector, subagent=agent_id)
        return child

    def finish(self) -> list[ToolEvent]:
        """Closes the stream: a subagent's tool calls (the main transcript's: those of the
        subagents whose records it holds)."""
        self._flush()
        self._collector.copied.copying = False  # (the subagents' files are read after this one)
        if self._own:
            plan = None if self._plan is None else self._plan.plan()
            if plan is not None:
                self._collector.plan = tuple(PlanStep(step, status) for step, status in plan)
            return [tool for child in self._children.values() for tool in child.finish()]
        return self._sink.tools()


def _assistant_block(block: dict, texts: list[str], sink: DetailCollector, timestamp, subagent: str | None,
                     plan: PlanFold | None) -> None:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        texts.append(block["text"])
    elif kind == "tool_use":
        name = as_str(block.get("name")) or "tool"
        summary, paths = tool_summary(name, block.get("input"))
        call_id = as_str(block.get("id"))
        sink.add_tool(
            ToolEvent(name=name, summary=summary, paths=paths, timestamp=timestamp, call_id=call_id, subagent=subagent),
            key=call_id,
        )
        if plan is not None and name in PLAN_TOOLS:  # (the session's own: ``plan`` is ``None`` for a subagent's)
            plan.call(name, block)
