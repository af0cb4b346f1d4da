"""``trace --redact``: the conversation tree without what the agent read and wrote.

The rules are ``show --redact``'s (``agentscan.export.redact``): prompts,
thoughts, responses, tool inputs, error text and shell commands (a shell
node is named by its command) become a length and a short hash, so equal
texts stay recognisable; a value that names a file or a directory keeps its
shape with secrets masked; the tree itself (node kinds, tool names,
statuses, times, ids, counts) is unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentscan.export.redact import fingerprint_text, mask_secrets
from agentscan.hooks.model import SHELL, Node, SessionInfo, Trace, Turn

#: tool-input keys whose values are paths: masked, not hashed, so a reader still
#: sees which file a tool touched
PATH_KEYS = frozenset({
    "file_path", "filePath", "absolute_path", "path", "paths", "notebook_path", "target_file", "target_directory",
    "relative_workspace_path", "cwd", "directory", "dir", "workspace", "workspace_roots", "transcript_path",
})
#: detail fields that hold text from the tool or the model
_TEXT_DETAIL = frozenset({"error", "output", "message", "reason", "text"})


def redact_trace(trace: Trace) -> Trace:
    return replace(
        trace,
        session=_session(trace.session),
        turns=tuple(_turn(turn) for turn in trace.turns),
        warnings=tuple(replace(w, path=mask_secrets(w.path) or "") for w in trace.warnings),
    )


def _session(info: SessionInfo) -> SessionInfo:
    return replace(
        info,
        workspace=mask_secrets(info.workspace),
        transcript_path=mask_secrets(info.transcript_path),
        events_path=mask_secrets(info.events_path),
        nodes=tuple(_node(node) for node in info.nodes),
    )


def _turn(turn: Turn) -> Turn:
    return replace(turn, prompt=fingerprint_text(turn.prompt), nodes=tuple(_node(node) for node in turn.nodes))


def _node(node: Node) -> Node:
    detail = {
        key: fingerprint_text(value) if key in _TEXT_DETAIL and isinstance(value, str) else _plain(value)
        for key, value in node.detail.items()
    }
    # A shell node is named by its command: content, hashed like the command in its input.
    name = fingerprint_text(node.name) if node.kind == SHELL and node.name != "shell" else mask_secrets(node.name)
    return replace(
        node,
        name=name or node.name,
        input=_content(node.input),
        detail=detail,
        children=tuple(_node(child) for child in node.children),
    )


def _content(value: Any, key: str | None = None) -> Any:
    """Text is hashed, paths are masked, structure and numbers stay."""
    if isinstance(value, str):
        return mask_secrets(value) if key in PATH_KEYS else fingerprint_text(value)
    if isinstance(value, dict):
        return {k: _content(v, k if isinstance(k, str) else None) for k, v in value.items()}
    if isinstance(value, list):
        return [_content(v, key) for v in value]
    return value


def _plain(value: Any) -> Any:
    """Names and ids that are not conversation text: kept, secrets masked."""
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
