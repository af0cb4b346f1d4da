"""Making the spans of one turn: the one place that knows each span's name and attributes.

Both sources (``from_transcript`` and ``from_hooks``) decide *which* spans a
turn has and when they ran; this module decides what they are called and
what they carry, so a Claude turn looks the same whether it came from the
transcript or from hook events.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Sequence

from agentscan.model import TokenUsage, sum_usage
from agentscan.otlp import semconv as sc
from agentscan.pricing.spend import sum_costs
from agentscan.otlp.spans import (
    KIND_CLIENT,
    KIND_INTERNAL,
    STATUS_ERROR,
    ExportTrace,
    Span,
    SpanEvent,
    span_id,
    trace_id,
)


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """What every span of a session shares."""

    provider: str  # agentscan provider / hook agent: claude, codex, gemini, cursor
    native_id: str
    source: str  # "transcript" or "hooks"
    content: sc.Content
    model: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    resource: dict[str, Any] = field(default_factory=dict)
    #: a ``PriceBook`` that prices each chat span's call; ``None``: no cost attributes
    prices: Any = None

    @property
    def session_id(self) -> str:
        return f"{self.provider}:{self.native_id}"

    def cost_of(self, entry: Sequence[Any]) -> Decimal | None:
        """The USD of one usage entry (a chat span), or ``None`` when it has no price."""
        return self.prices.entry_cost(self.provider, entry) if self.prices is not None else None

    @property
    def agent(self) -> str:
        return sc.agent_name(self.provider)


class TurnBuilder:
    """Collects the spans of one turn (one trace) under its root ``invoke_agent`` span."""

    def __init__(self, facts: SessionFacts, turn_key: str, start_ns: int, *, timing: str) -> None:
        self.facts = facts
        self.trace_id = trace_id(facts.provider, facts.native_id, turn_key)
        #: "observed" (hook capture times) or "inferred" (transcript instants; docs/otel.md)
        self.timing = timing
        self.usage: dict[str, list[TokenUsage]] = {}  # parent span id -> chat usages below it
        #: parent span id -> (cost, whether it has tokens) of the chats below it
        self.costs: dict[str, list[tuple[Decimal | None, bool]]] = {}
        self.models: Counter[str] = Counter()
        # What every span of the turn carries first, made once: ``Span.set`` four times a
        # span was a tenth of an export's build time.
        self._shared: dict[str, Any] = {}
        for key, value in ((sc.CONVERSATION, facts.native_id), ("agentscan.session.id", facts.session_id),
                           ("agentscan.source", facts.source), ("agentscan.timing", timing)):
            if value is not None:
                self._shared[key] = value
        self.root = self._span("turn", None, f"invoke_agent {facts.agent}", KIND_INTERNAL, start_ns, start_ns)
        self.root.set(sc.OPERATION, "invoke_agent")
        self.root.set(sc.AGENT_NAME, facts.agent)
        self.root.set("agentscan.turn.id", turn_key)
        self.root.set("agentscan.cwd", facts.content.plain(facts.cwd))
        self.root.set("agentscan.git_branch", facts.content.plain(facts.git_branch))
        self.spans: list[Span] = [self.root]
        self._agents: dict[str, Span] = {}
        self._ids: set[str] = {self.root.span_id}

    def _span(self, key: str, parent: Span | None, name: str, kind: int, start_ns: int, end_ns: int) -> Span:
        span = Span(
            trace_id=self.trace_id,
            span_id=span_id(self.trace_id, key),
            parent_span_id=parent.span_id if parent is not None else None,
            name=name,
            kind=kind,
            start_ns=start_ns,
            end_ns=max(start_ns, end_ns),
            attributes=self._shared.copy(),
        )
        return span

    def _add(self, span: Span) -> Span:
        # Keys are unique by construction; a source that repeats a native id (a call id
        # seen twice) still must not yield two spans with one id.
        base, n = span.span_id, 1
        while span.span_id in self._ids:
            n += 1
            span.span_id = span_id(self.trace_id, f"{base}#{n}")
        self._ids.add(span.span_id)
        self.spans.append(span)
        return span

    # -- the kinds of span ----------------------------------------------------

    def chat(
        self, parent: Span, key: str, start_ns: int, end_ns: int, model: str | None, usage: TokenUsage,
        cost: Decimal | None = None,
    ) -> Span:
        # The API's id, where it ran, and its speed (``cost`` was priced on the name agentscan
        # gave the call).
        model, geo = sc.api_geo(model, self.facts.provider)
        model, speed = sc.api_model(model, self.facts.provider)
        model, tier = sc.api_tier(model, self.facts.provider)
        span = self._span(f"chat|{key}", parent, f"chat {model}" if model else "chat", KIND_CLIENT, start_ns, end_ns)
        span.set(sc.OPERATION, "chat")
        span.set(sc.PROVIDER, sc.provider_name(model or self.facts.model, self.facts.provider))
        span.set(sc.REQUEST_MODEL, model)
        span.set(sc.SPEED, speed)
        span.set(sc.SERVICE_TIER, tier)
        span.set(sc.INFERENCE_GEO, geo)
        span.attributes.update(sc.usage_attributes(usage, self.facts.provider))
        span.set(sc.COST, None if cost is None else float(cost))
        self.usage.setdefault(parent.span_id, []).append(usage)
        self.costs.setdefault(parent.span_id, []).append((cost, usage.total > 0))
        if model:
            self.models[model] += 1
        return self._add(span)

    def tool(
        self, parent: Span, key: str, name: str, call_id: str | None, start_ns: int, end_ns: int,
        *, status: str | None, arguments: Any = None, error: str | None = None,
    ) -> Span:
        tool = name[4:] if name.startswith("MCP:") else name  # Cursor's MCP prefix is no part of the tool's name
        span = self._span(f"tool|{key}", parent, f"execute_tool {tool}", KIND_INTERNAL, start_ns, end_ns)
        span.set(sc.OPERATION, "execute_tool")
        span.set(sc.TOOL_NAME, tool)
        span.set(sc.TOOL_CALL_ID, call_id)
        span.set(sc.TOOL_TYPE, sc.tool_type(name))
        span.set(sc.TOOL_ARGUMENTS, self.facts.content.text(arguments))
        span.set("agentscan.tool.status", status)
        self._fail(span, status, error)
        return self._add(span)

    def agent(
        self, parent: Span, key: str, agent_id: str | None, name: str | None, start_ns: int, end_ns: int,
        *, status: str | None = None, description: str | None = None, model: str | None = None,
    ) -> Span:
        label = name or "subagent"
        span = self._span(f"agent|{key}", parent, f"invoke_agent {label}", KIND_INTERNAL, start_ns, end_ns)
        span.set(sc.OPERATION, "invoke_agent")
        span.set(sc.AGENT_ID, agent_id)
        span.set(sc.AGENT_NAME, label)
        span.set(sc.AGENT_DESCRIPTION, self.facts.content.text(description))
        span.set(sc.REQUEST_MODEL, sc.api_model(model, self.facts.provider)[0])
        self._fail(span, status, None)
        if agent_id is not None:
            self._agents[agent_id] = span
        return self._add(span)

    def mcp(self, parent: Span, key: str, server: str | None, tool: str, start_ns: int, end_ns: int, *, arguments: Any,
            status: str | None = None) -> Span:
        span = self._span(f"mcp|{key}", parent, f"tools/call {tool}", KIND_CLIENT, start_ns, end_ns)
        self._fail(span, status, None)  # a failed execution is an error as its call is
        span.set("mcp.method.name", "tools/call")
        span.set(sc.OPERATION, "execute_tool")
        span.set(sc.TOOL_NAME, tool)
        span.set("agentscan.mcp.server", server)
        span.set(sc.TOOL_ARGUMENTS, self.facts.content.text(arguments))
        return self._add(span)

    def shell(self, parent: Span, key: str, command: str | None, start_ns: int, end_ns: int, *, cwd: str | None,
              status: str | None = None) -> Span:
        span = self._span(f"shell|{key}", parent, "shell", KIND_INTERNAL, start_ns, end_ns)
        self._fail(span, status, None)  # a failed (timed out) command is an error as its call is
        span.set("agentscan.shell.command", self.facts.content.text(command))
        span.set("agentscan.shell.cwd", self.facts.content.plain(cwd))
        return self._add(span)

    def event(self, span: Span, name: str, at_ns: int, **attributes: Any) -> None:
        span.events.append(SpanEvent(name, at_ns, {k: v for k, v in attributes.items() if v is not None}))

    def subagent_span(self, agent_id: str | None) -> Span | None:
        return self._agents.get(agent_id) if agent_id is not None else None

    def _fail(self, span: Span, status: str | None, error: str | None) -> None:
        kind = sc.error_status(status)
        if kind is not None:
            span.status_code = STATUS_ERROR
            # The error text is what a tool printed: content, so it leaves only under the content
            # rules (--include-content; a length and hash with --redact). Else the kind says enough.
            span.status_message = self.facts.content.text(error) or kind
            span.set(sc.ERROR_TYPE, kind)

    # -- finishing ------------------------------------------------------------

    def finish(
        self, *, prompt: str | None = None, responses: tuple[str, ...] = (), status: str | None = None,
        turn_usage: TokenUsage | None = None,
    ) -> ExportTrace:
        """Usage totals onto the agent spans, children fitted inside their parents, the root's content."""
        by_id = {span.span_id: span for span in self.spans}
        for span in self.spans:
            if span.name.startswith("invoke_agent"):
                # A hook turn's root: Cursor's stop snapshot, when it sent one, whatever calls the
                # transcript adds below it.  The live sender (``otlp.live``), which sees no call,
                # sends this root with the snapshot: a batch export's copy of it, under the same
                # ids, must say the same, or a backend's turn changes with whichever came last.
                use_turn = span is self.root and turn_usage is not None
                usage = turn_usage if use_turn else sum_usage(self._usage_below(span, by_id))
                if usage is not None:
                    span.attributes.update(sc.usage_attributes(usage, self.facts.provider))
                # The rule of every cost total (pricing.spend.combined): an unpriced chat with no tokens adds nothing.
                cost = sum_costs(self._below(span, by_id, self.costs))
                if cost is not None:
                    span.set(sc.COST, float(cost))
        # A parent ends no sooner than its children: inferred ends can fall short of a child's.
        for span in reversed(self.spans):
            parent = by_id.get(span.parent_span_id or "")
            if parent is not None:
                parent.cover(span.start_ns, span.end_ns)
        model = self.models.most_common(1)[0][0] if self.models else self.facts.model
        self.root.set(sc.PROVIDER, sc.provider_name(model, self.facts.provider))
        self.root.set(sc.REQUEST_MODEL, model)
        for span in self.spans:
            # ``gen_ai.provider.name`` is required on every ``invoke_agent`` span, a subagent's
            # too: its own model's maker, else the turn's (a Cursor subagent on ``composer-2``: cursor)
            if span is not self.root and span.name.startswith("invoke_agent") and sc.PROVIDER not in span.attributes:
                own = span.attributes.get(sc.REQUEST_MODEL)
                span.set(sc.PROVIDER, sc.provider_name(own if isinstance(own, str) and own else model, self.facts.provider))
        self.root.set(sc.INPUT_MESSAGES, self.facts.content.messages("user", [prompt] if prompt else []))
        self.root.set(sc.OUTPUT_MESSAGES, self.facts.content.messages("assistant", list(responses)))
        self.root.set("agentscan.turn.status", status)
        self._fail(self.root, "error" if status == "error" else None, None)  # an aborted turn was stopped, not failed
        return ExportTrace(resource=self.facts.resource, spans=self.spans, session=self.facts.session_id)

    def _usage_below(self, agent: Span, by_id: dict[str, Span]) -> list[TokenUsage]:
        """Chat usage of ``agent`` and every span below it (subagents roll up into their parent)."""
        return self._below(agent, by_id, self.usage)

    @staticmethod
    def _below(agent: Span, by_id: dict[str, Span], per_parent: dict[str, list[Any]]) -> list[Any]:
        found: list[Any] = []
        for parent_id, values in per_parent.items():
            node = by_id.get(parent_id)
            while node is not None:
                if node is agent:
                    found.extend(values)
                    break
                node = by_id.get(node.parent_span_id or "")
        return found
