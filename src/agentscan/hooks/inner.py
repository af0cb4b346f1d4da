"""Cursor's specialised hooks (shell, MCP, file) nested under the generic tool call.

``beforeShellExecution`` and friends carry no ``tool_use_id``; they are matched
to an in-flight ``preToolUse`` of the right tool by evidence (docs/hooks.md, "The tree"):

=================  ==========================  ========================================
inner hook         owner calls                 evidence (weight)
=================  ==========================  ========================================
shell before/after ``Shell``                   command 100, working dir 20, sandbox 5
MCP before/after   ``MCP:<tool>``              input 100, server 40, url 30, tool 20, command 20
beforeReadFile     ``Read``                    path 100
afterFileEdit      ``Write``/``StrReplace``/…  path 100
=================  ==========================  ========================================

A ``before…`` nests under the unique best owner that holds no node of its kind
yet and waits in the turn's queue; its ``after…`` first looks for the unique
best ``before…`` in that queue and completes it; failing that it searches the
owners itself.  Whatever finds no unique match stays an orphan under the turn.
"""

from __future__ import annotations

from typing import Any

from agentscan.hooks.draft import Draft, TurnDraft, input_key
from agentscan.hooks.evidence import Rules, command_text, path_text, same_path, score, unique_best
from agentscan.hooks.model import CORRELATED, FILE, MCP, OK, ORPHAN, SHELL, HookEvent

# event -> (node kind, phase)
INNER_EVENTS = {
    "beforeShellExecution": (SHELL, "before"),
    "afterShellExecution": (SHELL, "after"),
    "beforeMCPExecution": (MCP, "before"),
    "afterMCPExecution": (MCP, "after"),
    "beforeReadFile": (FILE, "read"),
    "afterFileEdit": (FILE, "edit"),
}
#: the inner hooks that wait in a queue for their after… (and carry no id)
BEFORE_EXECUTIONS = frozenset({"beforeShellExecution", "beforeMCPExecution"})
#: a file read: no after…, no id, and the same payload for two reads of one file
READ = "beforeReadFile"
_EDIT_TOOLS = frozenset({"Write", "StrReplace", "EditNotebook", "Edit", "MultiEdit", "Delete"})

_RULES: dict[str, Rules] = {
    SHELL: (("command", 100, None), ("cwd", 20, None), ("sandbox", 5, None)),
    MCP: (("input", 100, None), ("server", 40, None), ("url", 30, None), ("tool", 20, None), ("command", 20, None)),
    FILE: (("path", 100, same_path),),
}


def strip_mcp(name: Any) -> str | None:
    if not isinstance(name, str) or not name:
        return None
    return name[4:] if name.startswith("MCP:") else name


def attach(turn: TurnDraft, event: HookEvent, at_ns: int) -> Draft:
    kind, phase = INNER_EVENTS[event.name]
    evidence = inner_evidence(kind, event)
    if phase == "after":
        waiting = turn.open_inner.setdefault(kind, [])
        before = unique_best((b, score(b.evidence, evidence, _RULES[kind])) for b in waiting)
        if before is not None:
            waiting.remove(before)
            before.close(event, OK, at_ns)
            before.detail.update(_after_detail(kind, event))
            return before
    node = _new_node(kind, phase, event, at_ns, evidence)
    owners = [r for r in turn.in_flight() if _owns(r, kind, phase) and not r.holds(kind)]
    owner = unique_best((r, score(owner_evidence(kind, r), evidence, _RULES[kind])) for r in owners)
    if owner is None:
        node.provenance = ORPHAN
        turn.nodes.append(node)
    else:
        owner.children.append(node)
    if phase == "before":
        turn.open_inner.setdefault(kind, []).append(node)
    return node


def read_awaited(turn: TurnDraft, event: HookEvent) -> bool:
    """Whether an in-flight ``Read`` of the file ``event`` reads still has no read under it."""
    evidence = inner_evidence(FILE, event)
    owners = [r for r in turn.in_flight() if _owns(r, FILE, "read") and not r.holds(FILE)]
    return any(score(owner_evidence(FILE, r), evidence, _RULES[FILE]) is not None for r in owners)


def _new_node(kind: str, phase: str, event: HookEvent, at_ns: int, evidence: dict[str, Any]) -> Draft:
    if kind == SHELL:
        name, shown = event.text("command") or "shell", {"command": event.get("command"), "cwd": event.get("cwd") or None}
        if "sandbox" in event.payload:
            shown["sandbox"] = event.get("sandbox")
    elif kind == MCP:
        tool, server = strip_mcp(event.get("tool_name")) or "?", event.text("mcp_server_name")
        name, shown = f"{server}/{tool}" if server else tool, _parsed(event.get("tool_input"))
    else:
        name, shown = phase, {"file_path": event.get("file_path")}
    node = Draft(kind=kind, name=name, input=shown, provenance=CORRELATED, started_ns=at_ns, opened_by=event, evidence=evidence)
    if kind == MCP:
        node.detail.update({k: v for k, v in (("server", evidence.get("server")), ("tool", evidence.get("tool"))) if v})
    if phase == "after":  # no before… was seen: the after… is both ends
        node.started_ns = None
        node.close(event, OK, at_ns)
        node.detail.update(_after_detail(kind, event))
    elif phase in ("read", "edit"):
        node.ended_ns, node.status = at_ns, OK
        if phase == "edit" and isinstance(event.get("edits"), list):
            node.detail["edits"] = len(event.get("edits"))
    return node


def _after_detail(kind: str, event: HookEvent) -> dict[str, Any]:
    if kind == MCP and isinstance(event.get("result_json"), str):
        return {"result_chars": len(event.get("result_json"))}
    if kind == SHELL and isinstance(event.get("output"), str):
        return {"output_chars": len(event.get("output"))}
    return {}


def _owns(request: Draft, kind: str, phase: str) -> bool:
    if kind == SHELL:
        return request.name == "Shell"
    if kind == MCP:
        return request.name.startswith("MCP:")
    return request.name == "Read" if phase == "read" else request.name in _EDIT_TOOLS


def inner_evidence(kind: str, event: HookEvent) -> dict[str, Any]:
    """The comparable fields of an inner hook's own payload."""
    if kind == SHELL:
        sandbox = event.get("sandbox")
        return {
            "command": command_text(event.get("command")),
            "cwd": path_text(event.get("cwd")),
            "sandbox": sandbox if isinstance(sandbox, bool) else None,
        }
    if kind == MCP:
        return {
            "input": input_key(event.get("tool_input")),
            "server": event.text("mcp_server_name"),
            "url": event.text("url") or event.text("mcp_server_url"),
            "tool": strip_mcp(event.get("tool_name")),
            "command": command_text(event.get("command")),
        }
    return {"path": path_text(event.get("file_path"))}


def owner_evidence(kind: str, request: Draft) -> dict[str, Any]:
    """The same fields, read from the owning preToolUse."""
    tool_input = request.input_fields()  # (whole, when the input shown is cut)
    if kind == SHELL:
        sandbox = tool_input.get("sandbox")
        opened = request.opened_by.payload if request.opened_by is not None else {}
        cwd = tool_input.get("working_directory") or tool_input.get("cwd") or opened.get("cwd")
        return {
            "command": command_text(tool_input.get("command")),
            "cwd": path_text(cwd),
            "sandbox": sandbox if isinstance(sandbox, bool) else None,
        }
    if kind == MCP:
        return {"input": request.input_key(), "tool": strip_mcp(request.name)}
    target = tool_input.get("file_path") or tool_input.get("path") or tool_input.get("target_notebook")
    return {"path": path_text(target)}


def _parsed(value: Any) -> Any:
    """MCP inputs arrive as JSON strings; show them as the objects they encode."""
    if isinstance(value, str):
        import json

        try:
            return json.loads(value)
        except ValueError:
            return value
    return value

