"""A hook tree as traces: each turn of ``agentscan.hooks``' tree -> one trace.

Hook capture times are real, so these spans keep the agent's actual
durations and the overlap of parallel waves.  The tree maps as follows
(docs/otel.md has the table):

* tool call -> ``execute_tool``; subagent -> ``invoke_agent`` under the call
  that spawned it; Cursor MCP hook -> ``tools/call`` (CLIENT); Cursor shell
  hook -> ``shell`` span under its tool call;
* a wave is not a span (its calls already overlap): each member carries
  ``agentscan.parallel_group``;
* a tool call or subagent with no completion seen is ``unfinished``
  (``agentscan.tool.status`` / ``agentscan.subagent.status``), never a 0 ms
  success: it runs until the span it sits in was last seen; so does a Cursor
  shell or MCP execution whose ``after…`` hook never came;
* file hooks, thoughts, responses and other hook events become span events
  on the span they sit under; their children are walked on as usual.

Hooks never see LLM calls, so ``chat`` spans come from the transcript's usage
entries when there is one, placed into the turn whose time they fall in.
"""

from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Any, Sequence

from agentscan.model import KEY, MODEL, SUBAGENT as ENTRY_SUBAGENT
from agentscan.hooks.draft import bounded
from agentscan.hooks.events import TURN_STOPS
from agentscan.hooks.model import EVENT, FILE, MCP, RESPONSE, SHELL, SUBAGENT, THOUGHT, TOOL, WAVE, Node, Trace
from agentscan.otlp.builder import SessionFacts, TurnBuilder
from agentscan.otlp.semconv import UNFINISHED
from agentscan.otlp.spans import ExportTrace, Span
from agentscan.otlp.timeline import Instant, Window, call_times


def hook_traces(
    trace: Trace, facts: SessionFacts, entries: Sequence[Sequence[Any]] = (), *, window: Window = Window(),
    tools: Sequence[Instant] = (),
) -> list[ExportTrace]:
    """``entries``: the transcript's LLM calls of the turns the tree covers; ``tools``: those
    turns' transcript tool calls (``from_transcript``), of which the ones no hook saw are added."""
    turns = [t for t in trace.turns if t.started_ns]
    starts = [t.started_ns for t in turns]
    chats: dict[int, list[Sequence[Any]]] = {}
    for entry in entries:
        at = call_times(entry)[0]  # a call is in the turn its first record is
        if at is None or not turns:
            continue
        chats.setdefault(max(0, bisect.bisect_right(starts, at) - 1), []).append(entry)
    missed: dict[int, list[Instant]] = {}
    # Only Claude's: its hooks and its transcript name a call by the same ``toolu_`` id.  A
    # Cursor hook's ``tool_use_id`` is not its transcript's ``toolCallId`` (nor unique), and a
    # call told by no id cannot be told missed: each would be exported twice.
    if tools and turns and facts.provider == "claude":
        seen = _tool_ids(trace)
        for instant in tools:
            if instant.item.call_id is not None and instant.item.call_id not in seen:
                missed.setdefault(max(0, bisect.bisect_right(starts, instant.at_ns) - 1), []).append(instant)
    exported = []
    for position, turn in enumerate(turns):
        # The model the turn's hook events named: its root's model (and provider) when no LLM call says
        turn_facts = facts if turn.model is None or turn.model == facts.model else replace(facts, model=turn.model)
        builder = TurnBuilder(turn_facts, turn.id, turn.started_ns, timing="observed")
        builder.root.end_ns = max(turn.started_ns, turn.ended_ns)
        builder.root.set("agentscan.turn.derived", turn.derived or None)
        responses: list[str] = []
        for node in turn.nodes:
            _node(builder, builder.root, node, None, responses)
        if not responses:  # no response hook (Claude has none): the stop's own last message is the answer
            responses = [text for node in turn.nodes if (text := _stop_message(node)) is not None]
        for instant in missed.get(position, ()):
            _missed_tool(builder, instant)
        for entry in sorted(chats.get(position, ()), key=lambda e: call_times(e)[0] or 0):
            _chat(builder, entry)
        done = builder.finish(prompt=turn.prompt, responses=tuple(responses), status=turn.stop_status, turn_usage=turn.tokens)
        if window.holds(done.spans[0].end_ns):
            exported.append(done)
    return exported


def _times(node: Node, parent: Span) -> tuple[int, int] | None:
    start = node.started_ns if node.started_ns is not None else node.ended_ns
    if start is None:
        return None
    end = node.ended_ns
    if end is None:
        # An unfinished call is shown open until what it sits in was last seen (all that is
        # known: no completion by then); ending it at its start would fake a 0 ms call.
        end = parent.end_ns if unfinished(node) or _execution_without_end(node) else start
    return start, max(start, end)


def unfinished(node: Node) -> bool:
    """A tool call, subagent or Cursor shell/MCP execution whose completion was never seen:
    still running, or its hook was lost."""
    return node.kind in (TOOL, SUBAGENT, SHELL, MCP) and node.ended_ns is None and node.status is None


def _execution_without_end(node: Node) -> bool:
    """A Cursor ``before…`` whose ``after…`` never came (unfinished, or its call failed and gave
    it that status): it ran at most until what it sits in ended, not for 0 ms."""
    return node.kind in (SHELL, MCP) and node.ended_ns is None


def _node(builder: TurnBuilder, parent: Span, node: Node, wave: str | None, responses: list[str]) -> None:
    times = _times(node, parent)
    if node.kind == WAVE:
        group = f"wave@{node.started_ns}"
        for child in node.children:
            _node(builder, parent, child, group, responses)
        return
    if times is None:
        return
    start, end = times
    key = f"{node.id or ''}|{node.name}|{start}"
    content = builder.facts.content
    detail = node.detail
    inputs = node.input if isinstance(node.input, dict) else {}
    span: Span | None = None
    status = UNFINISHED if unfinished(node) else node.status
    if node.kind == TOOL:
        span = builder.tool(parent, key, node.name, node.id, start, end, status=status,
                            arguments=node.input, error=detail.get("error"))
        span.set("agentscan.tool.exit_code", detail.get("exit_code"))
    elif node.kind == SUBAGENT:
        span = builder.agent(parent, node.id or key, node.id, node.name, start, end, status=status,
                             description=inputs.get("task"), model=inputs.get("subagent_model"))
        span.set("agentscan.subagent.status", status)
    elif node.kind == MCP:
        span = builder.mcp(parent, key, detail.get("server"), detail.get("tool") or node.name, start, end,
                           arguments=node.input, status=status)
        span.set("agentscan.tool.status", status)
    elif node.kind == SHELL:
        span = builder.shell(parent, key, inputs.get("command"), start, end, cwd=inputs.get("cwd"), status=status)
        span.set("agentscan.tool.status", status)
    elif node.kind == FILE:
        builder.event(parent, f"agentscan.file.{node.name}", start, **{"file.path": content.plain(inputs.get("file_path"))})
    elif node.kind == THOUGHT:
        builder.event(parent, "agentscan.thought", start, duration_ms=detail.get("duration_ms"),
                      text=content.text(inputs.get("text")))
    elif node.kind == RESPONSE:
        text = inputs.get("text")
        if parent is builder.root and isinstance(text, str):
            responses.append(text)
        builder.event(parent, "agentscan.response", start, text=content.text(text))
    elif node.kind == EVENT:
        builder.event(parent, node.name, start, **{"agentscan.hook.event": node.name, "agentscan.status": node.status})
    if span is not None:
        span.set("agentscan.provenance", node.provenance)
        span.set("agentscan.parallel_group", wave)
    for child in node.children:
        _node(builder, span or parent, child, None, responses)


def _tool_ids(trace: Trace) -> set[str]:
    """The ids of every tool call the hooks saw, in any turn (a call near a turn's edge may
    sit in the next one)."""
    found: set[str] = set()
    stack = [node for turn in trace.turns for node in turn.nodes]
    while stack:
        node = stack.pop()
        if node.kind == TOOL and node.id:
            found.add(node.id)
        stack.extend(node.children)
    return found


def _missed_tool(builder: TurnBuilder, instant: Instant) -> None:
    """A transcript tool call no hook event saw (a hook lost, or not fired): a span all the same,
    marked as the transcript's, its times inferred, under its subagent when the tree has it."""
    from agentscan.otlp.from_transcript import tool_span

    parent = builder.subagent_span(instant.agent) or builder.root
    span = tool_span(builder, parent, instant)
    span.set("agentscan.source", "transcript")
    span.set("agentscan.timing", "inferred")


def _stop_message(node: Node) -> str | None:
    """The reply a Claude ``Stop`` carries (``last_assistant_message``), bounded as a response
    hook's text is."""
    if node.kind != EVENT or node.name not in TURN_STOPS or not isinstance(node.input, dict):
        return None
    return bounded(text) if isinstance(text := node.input.get("last_assistant_message"), str) and text else None


def _chat(builder: TurnBuilder, entry: Sequence[Any]) -> None:
    """An LLM call from the transcript, in the turn its time falls in.

    It ends at its (last) recorded time and starts at the latest moment of its
    own agent before its first record: the turn's (or subagent's) start, the
    end of one of its tool calls, or its previous LLM call.  So the tool calls
    a response asked for (written between its first and last records) do not
    start it.
    """
    from agentscan.otlp.from_transcript import usage_of

    first, last = call_times(entry)
    at = first or builder.root.start_ns
    parent = builder.subagent_span(entry[ENTRY_SUBAGENT]) or builder.root
    by_id = {span.span_id: span for span in builder.spans}
    start = parent.start_ns
    for span in builder.spans:
        if span is parent or not span.name.startswith(("execute_tool", "chat")) or _owner(span, by_id) is not parent:
            continue
        if start < span.end_ns <= at:
            start = span.end_ns
    key = entry[KEY] or f"{entry[ENTRY_SUBAGENT] or ''}|{at}"
    span = builder.chat(parent, key, min(start, at), max(at, last or at), entry[MODEL], usage_of(entry),
                        builder.facts.cost_of(entry))
    # No hook event reports an LLM call: the call, its usage and its end are the transcript's, so
    # a backend filtering on ``agentscan.source = hooks`` gets what the hooks saw, not these.
    span.set("agentscan.source", "transcript")
    span.set("agentscan.timing", "inferred")


def _owner(span: Span, by_id: dict[str, Span]) -> Span | None:
    """The nearest ``invoke_agent`` span above ``span``."""
    node = by_id.get(span.parent_span_id or "")
    while node is not None and not node.name.startswith("invoke_agent"):
        node = by_id.get(node.parent_span_id or "")
    return node
