"""The human form of a trace: a header, then each turn as an indented tree.

Every text taken from a payload (ids, names, prompts, inputs, statuses) goes through
``clean``, which the CLI passes in (``term.clean``, what ``show`` uses; the CLI is a layer
below this one, never imported here): an escape sequence or a newline that an agent, or
anyone who can run the hook, put there reaches neither a terminal nor a pipe.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from agentscan.hooks.model import FILE, MCP, NATIVE, RESPONSE, SHELL, THOUGHT, TOOL, WAVE, Node, Trace

WIDTH = 100
_SHOWN_KEYS = ("command", "pattern", "query", "search_term", "file_path", "path", "target_notebook", "url", "skill", "description")


Clean = Callable[[str], str]


def render(trace: Trace, clean: Clean) -> str:
    return "\n".join(lines(trace, clean)) + "\n"


def lines(trace: Trace, clean: Clean, show_options: str = "") -> Iterator[str]:
    """``show_options``: what the suggested ``agentscan show`` needs (`` --demo``)."""
    session = trace.session
    yield f"session {clean(session.id)}  ({clean(session.status)})"
    if session.workspace:
        yield f"  workspace   {clean(session.workspace)}"
    if session.transcript_session_id:
        shown = clean(session.transcript_session_id)
        # `show` needs the file; agents delete old transcripts while their hook events stay
        hint = f"agentscan{show_options} show {shown}" if session.transcript_found else "transcript file not found"
        yield f"  transcript  {shown}  ({hint})"
    yield f"  captured    {_captured(session.started_ns, session.ended_ns)}"
    yield f"  summary     {_summary_line(trace.summary, clean)}"
    if session.nodes:
        yield "session events"
        yield from _tree(session.nodes, "  ", clean)
    for number, turn in enumerate(trace.turns, 1):
        yield ""
        derived = " (derived)" if turn.derived else ""
        yield f"turn {number}  {clean(turn.id)}{derived}  {_summary_line(turn.summary, clean)}"
        if turn.prompt:
            yield f"  prompt: {_one_line(turn.prompt, WIDTH, clean)}"
        yield from _tree(turn.nodes, "  ", clean)


def _tree(nodes: tuple[Node, ...], indent: str, clean: Clean) -> Iterator[str]:
    for index, node in enumerate(nodes):
        last = index == len(nodes) - 1
        yield f"{indent}{'└─' if last else '├─'} {_label(node, clean)}"
        if node.children:
            yield from _tree(node.children, indent + ("   " if last else "│  "), clean)


def _label(node: Node, clean: Clean) -> str:
    parts = []
    if node.kind == WAVE:
        parts.append(f"∥ parallel · {len(node.children)} calls")
    elif node.kind in (TOOL, SHELL, MCP, FILE):
        parts.append(f"{node.kind} {clean(node.name)}")
        shown = _input_text(node, clean) if node.kind != SHELL else ""
        if shown:
            parts.append(shown)
    elif node.kind in (THOUGHT, RESPONSE):
        text = node.input.get("text") if isinstance(node.input, dict) else None
        parts.append(f"{node.kind}: {_one_line(text or '', 60, clean)}")
    else:
        parts.append(f"{node.kind} {clean(node.name)}")
    if node.status:
        parts.append(clean(node.status))
    duration = _duration_ms(node)
    if duration is not None:
        parts.append(_seconds(duration))
    if node.provenance != NATIVE:
        parts.append(f"[{node.provenance}]")
    return "  ".join(parts)


def _input_text(node: Node, clean: Clean) -> str:
    value: Any = node.input
    if isinstance(value, dict):
        for key in _SHOWN_KEYS:
            if isinstance(value.get(key), str) and value.get(key):
                return _one_line(value[key], 60, clean)
        if node.kind == FILE:
            return ""
        import json

        return _one_line(json.dumps(value, ensure_ascii=False, sort_keys=True), 60, clean) if value else ""
    return _one_line(str(value), 60, clean) if value is not None else ""


def _duration_ms(node: Node) -> float | None:
    value = node.detail.get("duration_ms")
    if isinstance(value, (int, float)):
        return float(value)  # the agent's own measure (a wave's is its span)
    if node.started_ns is not None and node.ended_ns is not None and node.ended_ns > node.started_ns:
        return (node.ended_ns - node.started_ns) / 1e6
    return None


def _summary_line(summary: Any, clean: Clean) -> str:
    parts = [_count(summary.tool_calls, "tool call")]
    for value, word in ((summary.mcp_calls, "MCP call"), (summary.failures, "failure"), (summary.denied, "denied"),
                        (summary.subagents, "subagent"), (summary.waves, "wave"), (summary.orphans, "orphan")):
        if value:
            parts.append(f"{value} denied" if word == "denied" else _count(value, word))
    if summary.skills:
        parts.append("skills " + ",".join(clean(f.name) for f in summary.skills))
    if summary.commands:
        parts.append("commands " + ",".join(sorted({"/" + clean(f.name) for f in summary.commands})))
    if summary.wall_time_ms is not None:
        parts.append(_seconds(summary.wall_time_ms))
    if summary.tokens is not None:
        parts.append(f"{summary.tokens.total} tokens")
    if summary.status:
        parts.append(clean(summary.status))
    return " · ".join(parts)


def _count(value: int, word: str) -> str:
    return f"{value} {word}{'' if value == 1 else 's'}"


def _seconds(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _captured(start_ns: int | None, end_ns: int | None) -> str:
    """Local time to the second, as ``trace --list`` and every other table shows time (to the
    minute there): ``2026-12-04 23:31:10 .. 23:31:11``, the end's date only when it differs.
    ``--json`` keeps the UTC instants."""
    from datetime import datetime, timezone

    def local(ns: int) -> datetime:
        return datetime.fromtimestamp(ns / 1e9, timezone.utc).astimezone()

    if start_ns is None and end_ns is None:
        return "-"
    start = local(start_ns).strftime("%Y-%m-%d %H:%M:%S") if start_ns is not None else "-"
    if end_ns is None:
        return f"{start} .. -"
    end = local(end_ns)
    same_day = start_ns is not None and local(start_ns).date() == end.date()
    return f"{start} .. {end.strftime('%H:%M:%S' if same_day else '%Y-%m-%d %H:%M:%S')}"


def _one_line(text: str, width: int, clean: Clean) -> str:
    text = clean(text)
    return text if len(text) <= width else text[: width - 1] + "…"
