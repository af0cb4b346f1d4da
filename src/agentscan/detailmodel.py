"""The values of ``agentscan show``: a session's bounded conversation.

Kept apart from ``agentscan.model`` because ``list`` and ``tokens`` never
build them, and creating a dataclass costs about a millisecond of every
start.  This module imports ``model`` (a ``SessionDetail`` holds its
``SessionRow``, so ``typing.get_type_hints`` needs the names here), never the
other way round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from agentscan.model import SessionRow, TokenUsage, usd
from agentscan.timeutil import to_iso


@dataclass(frozen=True, slots=True)
class Prompt:
    text: str
    timestamp: datetime | None = None
    #: the order the provider's files were read in (not in JSON): it places
    #: items that carry no time (Cursor's replies and calls) among the others
    seq: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "timestamp": to_iso(self.timestamp)}


@dataclass(frozen=True, slots=True)
class Response:
    text: str
    timestamp: datetime | None = None
    model: str | None = None
    seq: int = field(default=0, compare=False)  # as ``Prompt.seq``

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "timestamp": to_iso(self.timestamp), "model": self.model}


@dataclass(frozen=True, slots=True)
class ToolEvent:
    name: str
    summary: str
    status: str = "unknown"  # ok | error | denied (the user declined it) | unknown
    paths: tuple[str, ...] = ()
    timestamp: datetime | None = None
    call_id: str | None = None
    subagent: str | None = None
    seq: int = field(default=0, compare=False)  # as ``Prompt.seq``
    #: a failed call's error, one line (its result's text: ``toolkit.errortext``), else ``None``
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "summary": self.summary,
            "status": self.status,
            "paths": list(self.paths),
            "timestamp": to_iso(self.timestamp),
            "call_id": self.call_id,
            "subagent": self.subagent,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class SubagentInfo:
    id: str
    agent_type: str | None
    path: str | None
    tokens: TokenUsage | None
    #: where its part comes from when its transcript is gone (``PROGRESS_ORIGIN``)
    recovered_from: str | None = None
    #: its own exchange: the task it was given and its replies (bounded with
    #: every other subagent's; ``truncated.subagent_prompts``/``_responses``)
    prompts: tuple[Prompt, ...] = ()
    responses: tuple[Response, ...] = ()
    #: the id of the parent's call that started it, when the transcript says
    call_id: str | None = None
    #: the model it ran, by its provider's rule for a session's ``model`` (the one most of
    #: its calls or messages used): a subagent often runs another model than its session
    #: (Claude's ``Explore`` on Haiku); ``None`` when unknown
    model: str | None = None
    #: USD, as ``tokens`` prices the run (``scan.costs.with_cost``: never cached with the
    #: detail); ``cost_priced`` as ``SessionRow.cost_priced``, a lower bound when ``cost`` is unknown
    cost: Decimal | None = None
    cost_priced: Decimal | None = None
    #: its exchange could not be read this run (a Cursor run whose bubbles are in a state DB that
    #: could not be read, with no transcript of its own): its empty ``prompts``/``responses`` are
    #: not known, not none (in JSON only when ``True``: additive)
    exchange_unknown: bool = False

    def to_json(self) -> dict[str, Any]:
        shown = {
            "id": self.id,
            "agent_type": self.agent_type,
            "model": self.model,
            "path": self.path,
            "tokens": None if self.tokens is None else self.tokens.to_json(),
            "cost_usd": usd(self.cost),
            "cost_usd_priced": usd(self.cost_priced),
            "recovered_from": self.recovered_from,
            "call_id": self.call_id,
            "prompts": [p.to_json() for p in self.prompts],
            "responses": [r.to_json() for r in self.responses],
        }
        if self.exchange_unknown:
            shown["exchange_unknown"] = True
        return shown


@dataclass(frozen=True, slots=True)
class LocalCommand:
    """A slash command the agent's CLI ran itself (Claude Code's ``/mcp``, ``/model``): no
    prompt, so ``show --full`` marks it in the conversation, as a compaction, by ``by`` (the
    CLI's name).  Not in JSON: no list of ``show --json`` is of its kind (docs/json.md)."""

    text: str
    timestamp: datetime | None = None
    by: str = ""
    seq: int = field(default=0, compare=False)  # as ``Prompt.seq``


@dataclass(frozen=True, slots=True)
class PlanStep:
    step: str
    status: str

    def to_json(self) -> dict[str, str]:
        return {"step": self.step, "status": self.status}


@dataclass(frozen=True, slots=True)
class SessionDetail:
    """``agentscan show``: the row plus bounded conversation content."""

    row: SessionRow
    prompts: tuple[Prompt, ...] = ()
    responses: tuple[Response, ...] = ()
    tools: tuple[ToolEvent, ...] = ()
    subagents: tuple[SubagentInfo, ...] = ()
    plan: tuple[PlanStep, ...] = ()
    truncated: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    #: the commands the CLI ran itself the kept items reach (``toolkit.localcommands``), oldest first (not in JSON)
    local_commands: tuple[LocalCommand, ...] = ()
    #: the agent records no usage of the session anywhere (Cursor's Agent CLI): its ``null`` tokens
    #: are "not recorded" even while its counts are not known (``counts_partial``: its store not
    #: read), which of another (Codex) leaves its usage not known too (not in JSON)
    records_no_usage: bool = False

    @property
    def focused_id(self) -> str | None:
        """The run ``show <subagent id>`` opened its session for (``extra["focus"]``), if any."""
        focus = self.extra.get("focus")
        return focus["subagent"] if focus else None

    def focused_run(self) -> SubagentInfo | None:
        """The run in focus, as ``subagents`` lists it (its own prompts and replies); ``None``:
        none in focus, or the provider listed no run of that id."""
        run = self.focused_id
        return None if run is None else next((sub for sub in self.subagents if sub.id == run), None)

    def to_json(self) -> dict[str, Any]:
        """The session as ``agentscan show --json`` prints it (without ``hook_events``)."""
        doc = self.row.to_json()
        doc.update(
            {
                "prompts": [p.to_json() for p in self.prompts],
                "responses": [r.to_json() for r in self.responses],
                "tools": [t.to_json() for t in self.tools],
                "subagents": [s.to_json() for s in self.subagents],
                "plan": [p.to_json() for p in self.plan],
                "truncated": dict(self.truncated),
            }
        )
        doc.update(self.extra)
        if isinstance(doc.get("compactions"), list):
            # (a compaction's place in reading order is the card's, as a prompt's ``seq`` is)
            doc["compactions"] = [{key: value for key, value in entry.items() if key != "seq"}
                                  if isinstance(entry, dict) else entry for entry in doc["compactions"]]
        return doc
