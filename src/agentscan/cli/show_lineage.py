"""The card's words for where a session came from and what came of it: how Codex was run
(``source`` among the detail's extras: ``codex exec``, the interactive CLI, …) and the
sessions forked from it (``forked_as``: the reverse of a fork's ``forked from`` line)."""

from __future__ import annotations

from agentscan.cli.term import clean, clean_path
from agentscan.detailmodel import SessionDetail

#: how each source Codex writes in its ``session_meta`` is said; another is said as written
_SOURCES = {
    "exec": "codex exec (non-interactive)",
    "cli": "codex (interactive terminal)",
    "vscode": "codex in an IDE extension (vscode)",
    "mcp": "codex mcp-server (driven by an MCP client)",
    "subagent": "a Codex subagent thread",
}


def source_text(detail: SessionDetail) -> str | None:
    """The ``source`` line's value; ``None``: not known (or not a Codex session)."""
    source = detail.extra.get("source")
    if not isinstance(source, str) or not source:
        return None
    return _SOURCES.get(source) or clean(source)


def forked_as_text(detail: SessionDetail) -> str | None:
    """The reverse ``forked`` line's value (``as codex:<id>, …: …``); ``None``: no fork."""
    forks = [name for name in detail.extra.get("forked_as") or () if isinstance(name, str)]
    if not forks:
        return None
    total = detail.extra.get("forked_as_total")
    more = f" (newest {len(forks)} of {total:,})" if type(total) is int and total > len(forks) else ""
    whose = "its rollout begins" if len(forks) == 1 and not more else "their rollouts begin"
    return f"as {', '.join(clean_path(name) for name in forks)}{more}: {whose} with a copy of this one's history"
