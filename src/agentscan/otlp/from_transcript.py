"""A transcript session as traces: ``Scanner.show`` detail + per-call usage -> one trace per turn.

Composes what every provider already gives: the ``show`` detail, read within
the export's own bounds (``sources.EXPORT_BOUNDS``), not ``show``'s (prompts,
responses, tool calls with their subagent, subagents) and the
deduplicated usage entries of ``collect_usage`` (one per LLM call: these
become the ``chat`` spans).  The times are inferred as ``timeline``
describes; subagents are placed as ``delegation`` describes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from agentscan.model import CACHE_READ, CACHE_WRITE, INPUT, KEY, MODEL, OUTPUT, REASONING, SUBAGENT
from agentscan.detailmodel import SessionDetail
from agentscan.model import TokenUsage
from agentscan.hooks.model import INFERRED, ORPHAN
from agentscan.otlp import delegation
from agentscan.otlp.builder import SessionFacts, TurnBuilder
from agentscan.otlp.gaps import Untimed
from agentscan.otlp.spans import ExportTrace, Span
from agentscan.otlp.timeline import CHAT, PROMPT, RESPONSE, TOOL, Instant, TurnSlice, Window, call_times, infer_times, ns, split_turns


@dataclass
class TranscriptResult:
    traces: list[ExportTrace] = field(default_factory=list)
    #: what could not be placed (untimed calls, …): the caller says it (``gaps``)
    untimed: Untimed = Untimed()
    #: usage entries of the turns ``skip`` left to the hook tree (its chat spans)
    handed_over: list[Sequence[Any]] = field(default_factory=list)
    #: the tool calls of those turns, their times inferred: the tree adds those its hooks missed
    handed_tools: list[Instant] = field(default_factory=list)


def usage_of(entry: Sequence[Any]) -> TokenUsage:
    return TokenUsage(entry[INPUT], entry[CACHE_READ], entry[CACHE_WRITE], entry[OUTPUT], entry[REASONING])


def collect_instants(detail: SessionDetail, entries: Sequence[Sequence[Any]]) -> tuple[list[Instant], list[Instant], Untimed]:
    """(prompts, everything else) with a time, and what had none."""
    prompts = [Instant(t, PROMPT, None, p, i) for i, p in enumerate(detail.prompts) if (t := ns(p.timestamp)) is not None]
    others: list[Instant] = []
    untimed_tools = untimed_calls = 0
    for index, tool in enumerate(detail.tools):
        at = ns(tool.timestamp)
        if at is None:
            untimed_tools += 1
        else:
            others.append(Instant(at, TOOL, tool.subagent, tool, index))
    for index, entry in enumerate(entries):
        at, last = call_times(entry)
        if at is None:
            untimed_calls += 1
        else:
            others.append(Instant(at, CHAT, entry[SUBAGENT], entry, index, last_ns=last or at))
    for index, response in enumerate(detail.responses):
        at = ns(response.timestamp)
        if at is not None:
            others.append(Instant(at, RESPONSE, None, response, index))
    _key_all(others)
    one_turn = not prompts and bool(detail.prompts) and bool(others)
    return prompts, others, Untimed(untimed_tools, untimed_calls, one_turn)


def _key_all(instants: list[Instant]) -> None:
    """Span keys: the call's own id when it has one (a tool call id, Claude's message + request
    id), else agent, time, name and how many such came before: stable as a session grows."""
    seen: Counter[str] = Counter()
    for instant in sorted(instants, key=lambda i: i.sort_key):
        item = instant.item
        native = item.call_id if instant.kind == TOOL else item[KEY] if instant.kind == CHAT else None
        if native:
            instant.key = native
            continue
        name = item.name if instant.kind == TOOL else ""
        base = f"{instant.agent or ''}|{instant.at_ns}|{name}"
        seen[base] += 1
        instant.key = f"{base}|{seen[base]}"


def transcript_traces(
    detail: SessionDetail, entries: Sequence[Sequence[Any]], facts: SessionFacts, *, window: Window = Window(),
    skip: Callable[[int, int], bool] | None = None,
) -> TranscriptResult:
    """Every turn of the session that ends within ``window`` (``--since``, ``--until``).

    ``skip(start_ns, end_ns)`` says a turn is covered by hook events: it is
    left out, and its usage entries are handed over for the hook tree.
    """
    prompts, others, untimed = collect_instants(detail, entries)
    result = TranscriptResult(untimed=untimed)
    turns = split_turns(prompts, others)
    if not turns:
        if detail.prompts or detail.tools or entries:
            result.untimed = replace(untimed, no_spans=True)
        return result
    agent_types = {s.id: s.agent_type for s in detail.subagents}
    for turn in turns:
        if skip is not None and skip(turn.start_ns, turn.end_ns):
            result.handed_over.extend(i.item for i in turn.instants if i.kind == CHAT)
            result.handed_tools.extend(_tools_of(turn))
            continue
        trace = _turn_trace(turn, facts, agent_types)
        if not window.holds(trace.spans[0].end_ns):
            continue
        result.traces.append(trace)
    return result


def _tools_of(turn: TurnSlice) -> list[Instant]:
    """A turn's tool calls with their inferred times (``timeline``'s rules, each agent apart)."""
    for agent in {i.agent for i in turn.instants}:
        infer_times(turn, agent)
    return [i for i in turn.instants if i.kind == TOOL]


def _turn_trace(turn: TurnSlice, facts: SessionFacts, agent_types: dict[str, str | None]) -> ExportTrace:
    runs = _runs(turn, agent_types)
    # The session's own agent's instants, in order, taken once: a turn has three spans on
    # average, so what is done per turn (not per span) counts as much as the spans.
    own = sorted(turn.of(None), key=lambda i: i.sort_key)
    delegated: dict[str, int] = {}
    if runs:
        calls = [delegation.Call(i.index, i.item.name, i.at_ns) for i in own if i.kind == TOOL]
        parent_activity = [i.at_ns for i in own if i.kind in (TOOL, CHAT)]
        delegated = delegation.match(runs, calls, parent_activity)
    infer_times(turn, None)
    for run in runs:
        call_index = delegated.get(run.id)
        call_start = next((i.at_ns for i in own if i.kind == TOOL and i.index == call_index), None)
        infer_times(turn, run.id, first_start_ns=call_start)

    builder = TurnBuilder(facts, turn.key, turn.start_ns, timing="inferred")
    tool_spans: dict[int, Span] = {}
    for instant in own:
        span = _emit(builder, builder.root, instant)
        if span is not None and instant.kind == TOOL:
            tool_spans[instant.index] = span
    for run in sorted(runs, key=lambda r: (r.start_ns, r.id)):
        parent = tool_spans.get(delegated[run.id], builder.root) if run.id in delegated else builder.root
        steps = sorted(turn.of(run.id), key=lambda i: i.sort_key)
        models = Counter(s.item[MODEL] for s in steps if s.kind == CHAT and s.item[MODEL])
        agent = builder.agent(
            parent, run.id, run.id, run.agent_type, min(s.start_ns for s in steps), max(s.end_ns for s in steps),
            model=models.most_common(1)[0][0] if models else None,
        )
        # As hook spans say how their place was found: here always by time and order (no id
        # links a run to its call), or not at all.
        agent.set("agentscan.provenance", INFERRED if run.id in delegated else ORPHAN)
        for step in steps:
            _emit(builder, agent, step)
    builder.root.end_ns = turn.end_ns
    responses = tuple(i.item.text for i in own if i.kind == RESPONSE)
    return builder.finish(prompt=turn.prompt.text if turn.prompt is not None else None, responses=responses)


def _runs(turn: TurnSlice, agent_types: dict[str, str | None]) -> list[delegation.Run]:
    """The subagents active in this turn, from the instants they recorded."""
    times: dict[str, list[int]] = {}
    for instant in turn.instants:
        if instant.agent is not None:
            times.setdefault(instant.agent, []).append(instant.at_ns)
    return [delegation.Run(agent, agent_types.get(agent), min(at), max(at)) for agent, at in times.items()]


def _emit(builder: TurnBuilder, parent: Span, instant: Instant) -> Span | None:
    item = instant.item
    if instant.kind == CHAT:
        return builder.chat(parent, instant.key, instant.start_ns, instant.end_ns, item[MODEL], usage_of(item),
                            builder.facts.cost_of(item))
    if instant.kind == TOOL:
        return tool_span(builder, parent, instant)
    return None


def tool_span(builder: TurnBuilder, parent: Span, instant: Instant) -> Span:
    """A transcript tool call's span (``instant``: a TOOL instant, its times inferred)."""
    item = instant.item
    return builder.tool(
        parent, instant.key, item.name, item.call_id, instant.start_ns, instant.end_ns,
        status=None if item.status == "unknown" else item.status, arguments=item.summary or None,
    )
