"""A bounded collector every provider uses to build ``show`` details.

Providers stream their transcripts into a ``DetailCollector``; it keeps the
newest items within ``Bounds``, clips long messages, and fills the byte
budgets newest first, so no provider re-implements the contract's bounds.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from agentscan.bounds import Bounds, NewestKept, clip_text, fill_newest_first
from agentscan.model import PlanStep, Prompt, Response, SessionDetail, SessionRow, SubagentInfo, ToolEvent

_SUMMARY_CHARS = 400


@dataclass
class _OpenTool:
    event: ToolEvent
    order: int


@dataclass
class DetailCollector:
    bounds: Bounds
    prompts: NewestKept[Prompt] = field(init=False)
    responses: NewestKept[Response] = field(init=False)
    clipped: int = 0
    plan: tuple[PlanStep, ...] = ()
    _tools: OrderedDict[str, _OpenTool] = field(default_factory=OrderedDict)
    _tools_dropped: int = 0
    _order: int = 0

    def __post_init__(self) -> None:
        self.prompts = NewestKept(self.bounds.prompts)
        self.responses = NewestKept(self.bounds.responses)

    def _clip(self, text: str) -> str:
        clipped, cut = clip_text(text, self.bounds.message_bytes)
        self.clipped += cut
        return clipped

    def add_prompt(self, text: str, timestamp: datetime | None = None) -> None:
        self.prompts.add(Prompt(self._clip(text), timestamp))

    def add_response(self, text: str, timestamp: datetime | None = None, model: str | None = None) -> None:
        self.responses.add(Response(self._clip(text), timestamp, model))

    def add_tool(self, event: ToolEvent, key: str | None = None) -> None:
        """Record a tool call; ``key`` (its call id) lets a later result set its status."""
        self._order += 1
        summary, cut = clip_text(event.summary, _SUMMARY_CHARS * 4)
        self.clipped += cut
        event = replace(event, summary=summary)
        key = key or f"#{self._order}"
        self._tools.pop(key, None)
        self._tools[key] = _OpenTool(event, self._order)
        if len(self._tools) > self.bounds.tools:
            self._tools.popitem(last=False)
            self._tools_dropped += 1

    def finish_tool(self, key: str, *, status: str) -> None:
        """Set the status of a call still kept; results of dropped calls are ignored."""
        open_tool = self._tools.get(key)
        if open_tool is not None:
            open_tool.event = replace(open_tool.event, status=status)

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
        truncated = {
            "prompts": self.prompts.dropped + prompts_cut,
            "responses": self.responses.dropped + responses_cut,
            "tools": tools_dropped + tools_cut,
            "clipped_messages": self.clipped,
        }
        return SessionDetail(
            row=row,
            prompts=tuple(prompts),
            responses=tuple(responses),
            tools=tuple(tools),
            subagents=subagents,
            plan=self.plan,
            truncated=truncated,
            extra=extra or {},
        )
