"""Subagent runs an older Claude Code (2.0.x) wrote inline in the parent transcript.

Such a build wrote a Task subagent's own records into the parent's file:
``isSidechain: true`` user and assistant records with no ``agentId``, no
``subagents/`` file, the run's first record (its task) of ``parentUuid: null``
and every later one chained to an earlier one of the run by ``parentUuid``
(fixtures/real/claude/agentlogs-inline-sidechain-v2.0.13.jsonl).  They are a
subagent's, not the session's own: its task is no prompt the user typed.

Each run is named by its first record: ``sidechain-`` and the first 8 letters
and digits of that record's ``uuid`` (``sidechain-cd49a45d``), so every pass
over the file (a row's, ``show``'s, ``tokens``') names it alike.  A record of
the run names it through its parent; one of no parent starts a run.  Any other
sidechain record is the session's own, as before runs were named: later builds
mark records of a main transcript ``isSidechain`` too (a conversation that
starts at a ``system`` record, fixtures/real/claude/derived-agent-sessions-
schema-catalog-v2.1.x.jsonl), and a record naming its ``agentId`` is a
subagent file's.  Only the decision of each record by itself (its parent, its
uuid) is used, so that a pass that decodes only the sidechain lines
(``attribute``) decides as one that reads them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from datetime import datetime

    from agentscan.context import ScanContext
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.usage import Call
    from agentscan.providers.claude.windowed import WindowedTotals

PREFIX = "sidechain-"
#: sidechain records whose run is remembered (a hostile file of millions of them must not
#: be held): a record whose parent was forgotten joins the run seen last
MAX_LINKS = 1 << 18
_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
#: what every sidechain record's line holds (Claude Code writes compact JSON); the
#: value is checked on the decoded record
MARKER = b'"isSidechain":true'


def run_id(uuid: object) -> str:
    """The id of the run a record of this ``uuid`` starts."""
    text = uuid if isinstance(uuid, str) else ""
    return PREFIX + ("".join(ch for ch in text if ch in _ALNUM)[:8] or "0")


def is_inline(agent_id: str) -> bool:
    return agent_id.startswith(PREFIX)


class InlineRuns:
    """Which run each inline sidechain record belongs to, fed in file order."""

    __slots__ = ("_runs", "last", "confirmed")

    def __init__(self) -> None:
        self._runs: dict[str, str] = {}  # a sidechain record's uuid -> its run
        self.last: str | None = None
        #: runs a Task result has named as its own (``note_inline_result``)
        self.confirmed: set[str] = set()

    def run_of(self, record: dict) -> str | None:
        """The run of a sidechain record of a main transcript; ``None``: the session's own."""
        if "agentId" in record:
            return None
        parent = record.get("parentUuid")
        run: str | None
        if parent is None:
            run = run_id(record.get("uuid"))
        else:
            run = self._runs.get(parent) if isinstance(parent, str) else None
            if run is None:
                if len(self._runs) < MAX_LINKS or self.last is None:
                    return None
                run = self.last  # its parent was forgotten (``MAX_LINKS``): the run seen last
        uuid = record.get("uuid")
        if isinstance(uuid, str) and len(self._runs) < MAX_LINKS:
            self._runs[uuid] = run
        self.last = run
        return run


def note_inline(summary: FileSummary, record: dict, kind: str, order: int, timestamp: datetime | None,
                totals: WindowedTotals | None, notes: tuple[Callable, Callable]) -> bool:
    """A record of a subagent run written inline in the main transcript: counted as its
    run's (each run a summary of its own), not as the session's own; ``False``: the record
    is the session's own (``InlineRuns.run_of``).  ``notes``: the row pass's own notes of
    an assistant and a user record (``row``, which imports this)."""
    from agentscan.providers.claude.records import as_str
    from agentscan.providers.claude.usage import Advisors, call_of

    note_assistant, note_user = notes

    runs = summary._runs
    if runs is None:
        runs = summary._runs = InlineRuns()
    agent_id = runs.run_of(record)
    if agent_id is None:
        return False
    run = summary.inline.get(agent_id)
    if run is None:
        run = summary.inline[agent_id] = type(summary)(summary.path)
        # Started by the parent's first Task call no run has yet: calls made at once start
        # their runs in their order, and one made later finds the earlier ones taken (a
        # result naming the run's task corrects it: ``note_inline_result``).
        started = set(summary.task_calls.values())
        tool_id = next((tool_id for tool_id in summary.pending_tasks if tool_id not in started), None)
        if tool_id is not None:
            summary.task_types[agent_id] = summary.pending_tasks[tool_id]
            summary.task_calls[agent_id] = tool_id
    run.records += 1
    if timestamp is not None:
        if run.first_ts is None or timestamp < run.first_ts:
            run.first_ts = timestamp
        if run.last_ts is None or timestamp > run.last_ts:
            run.last_ts = timestamp
    if run.cwd is None:
        run.cwd = as_str(record.get("cwd"))
    if kind == "assistant":
        if totals is not None or not summary.has_usage:
            advisors = Advisors() if totals is not None else None  # (a run written inline: an old build, rare)
            call = call_of(record, agent_id, order, None if timestamp is None else timestamp.timestamp(), None, advisors)
            if call is not None:
                summary.has_usage = run.has_usage = True
                if totals is not None:
                    totals.add(call)
                    if advisors:
                        advisors.drain(totals.add)
        note_assistant(run, record, run.pending_tasks, None)
    else:
        note_user(run, record, run.pending_tasks, None)
    return True


def note_inline_result(summary: FileSummary, record: dict, result: dict, pending_tasks: dict[str, str],
                       title_chars: int) -> None:
    """A Task result of a build that wrote its run inline names no run, but repeats its
    task (``prompt``): the run whose first prompt it is (as ``title_chars`` clip it) was
    started by that call."""
    from agentscan.providers.claude.records import collapse, content_blocks, message_of

    task = result.get("prompt")
    if not isinstance(task, str):
        return
    first = collapse(task, title_chars)
    tool_id = next((block.get("tool_use_id") for block in content_blocks(message_of(record))
                    if block.get("type") == "tool_result" and block.get("tool_use_id") in pending_tasks), None)
    if not isinstance(tool_id, str):
        return
    # Not one an earlier result named: two Tasks given one prompt ran two runs.  Of those
    # left, the one this call was guessed to start (the order of the calls) keeps it.
    confirmed = summary._runs.confirmed if summary._runs is not None else set()
    candidates = [agent_id for agent_id, run in summary.inline.items()
                  if run.first_prompt == first and agent_id not in confirmed]
    if not candidates:
        return
    agent_id = next((agent_id for agent_id in candidates if summary.task_calls.get(agent_id) == tool_id), candidates[0])
    for other in [other for other, call in summary.task_calls.items() if call == tool_id and other in summary.inline]:
        del summary.task_calls[other], summary.task_types[other]  # a guess at its start, wrong
    summary.task_types[agent_id] = pending_tasks[tool_id]
    summary.task_calls[agent_id] = tool_id
    confirmed.add(agent_id)


def attribute(path: Path, ctx: ScanContext, calls: list[Call], base: int) -> None:
    """``tokens``' calls of a main transcript that holds inline runs, each given its run
    (in place): its pass decoded only the lines of calls, and a run is known from all of
    its records.  Read again only for a transcript that has a sidechain call."""
    from agentscan.providers.claude.usage import C_FROM_PROGRESS, C_ORDER, C_SUBAGENT, SIDECHAIN
    from agentscan.toolkit.linescan import ScanProgress, matching_records

    runs = InlineRuns()
    # Only the calls still to name are mapped: a file of many sidechain lines holds no map of them all.
    wanted = {call[C_ORDER] for call in calls if call[SIDECHAIN] and call[C_SUBAGENT] is None and not call[C_FROM_PROGRESS]}
    by_offset: dict[int, str] = {}
    with ctx.warnings.capture():
        for offset, record in matching_records(path, ctx, MARKER, ScanProgress()):
            kind = record.get("type")
            if record.get("isSidechain") is True and (kind == "assistant" or kind == "user"):
                named = runs.run_of(record)
                if kind == "assistant" and named is not None and base + offset in wanted:
                    by_offset[base + offset] = named
    for index, call in enumerate(calls):
        if call[SIDECHAIN] and call[C_SUBAGENT] is None and not call[C_FROM_PROGRESS]:
            run = by_offset.get(call[C_ORDER])
            if run is not None:
                calls[index] = (*call[:C_SUBAGENT], run, *call[C_SUBAGENT + 1:])
