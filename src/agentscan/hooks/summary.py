"""What a turn or a whole session did, counted from its nodes (docs/hooks.md, "The tree").

* ``tools``: tool calls by name, MCP calls excluded (they are counted once,
  under ``mcp``, by server and tool; a call whose server is unknown is
  listed under ``"?"``);
* ``skills`` / ``commands`` / ``skill_mentions``: see ``skills.py``;
* ``shell_commands`` / ``file_reads`` / ``file_edits``: Cursor's shell and file hooks;
  Claude Code sends no such hooks, so for it the calls of its tools that do those
  (``Bash``/``PowerShell``; ``Read``; ``Write``/``Edit``/``MultiEdit``/``NotebookEdit``
  that ended ``ok``), a call the user declined left out (it never ran);
* ``wall_time_ms``: last minus first capture time;
* ``tokens``: Cursor's ``stop`` snapshot for a turn (else its first
  ``afterAgentResponse``; a stop reporting only zeros, an aborted turn's, does not
  replace one that reported tokens); for a session, input and cache reads of the
  latest snapshot that reports any token (they measure the context, not spend) and
  the sum of output and cache writes.  ``null`` when no payload carried tokens
  (Claude never does).  A payload whose token fields are not whole numbers of zero
  or more (``"300"``, ``10.7``, ``-5``) gives no snapshot (``invalid_token_fields``):
  its counts are unknown, not zero.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from agentscan.hooks.inner import strip_mcp
from agentscan.hooks.model import DENIED, FILE, MCP, OK, ORPHAN, SHELL, SUBAGENT, THOUGHT, TOOL, WAVE, Node, iso_ns
from agentscan.hooks.skills import Finding, findings
from agentscan.model import TokenUsage


@dataclass(frozen=True, slots=True)
class Summary:
    tool_calls: int
    tools: dict[str, int]
    mcp_calls: int
    mcp: dict[str, dict[str, int]]
    failures: int
    denied: int
    shell_commands: int
    file_reads: int
    file_edits: int
    subagents: int
    thoughts: dict[str, Any]
    waves: int
    orphans: int
    skills: tuple[Finding, ...]
    commands: tuple[Finding, ...]
    skill_mentions: tuple[Finding, ...]
    started_ns: int | None
    ended_ns: int | None
    tokens: TokenUsage | None
    status: str | None = None  # a turn's stop status (completed | aborted | error)
    turns: int | None = None  # sessions only

    @property
    def wall_time_ms(self) -> int | None:
        if self.started_ns is None or self.ended_ns is None:
            return None
        return (self.ended_ns - self.started_ns) // 1_000_000

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {} if self.turns is None else {"turns": self.turns}
        document.update({
            "status": self.status,
            "started_at": iso_ns(self.started_ns),
            "ended_at": iso_ns(self.ended_ns),
            "wall_time_ms": self.wall_time_ms,
            "tool_calls": self.tool_calls,
            "tools": dict(self.tools),
            "mcp_calls": self.mcp_calls,
            "mcp": {server: dict(tools) for server, tools in self.mcp.items()},
            "failures": self.failures,
            "denied": self.denied,
            "shell_commands": self.shell_commands,
            "file_reads": self.file_reads,
            "file_edits": self.file_edits,
            "subagents": self.subagents,
            "thoughts": dict(self.thoughts),
            "waves": self.waves,
            "orphans": self.orphans,
            "skills": [f.to_json() for f in self.skills],
            "commands": [f.to_json() for f in self.commands],
            "skill_mentions": [f.to_json() for f in self.skill_mentions],
            "tokens": None if self.tokens is None else self.tokens.to_json(),
        })
        return document


def summarize(
    nodes: Iterable[Node],
    prompts: Sequence[str | None],
    *,
    started_ns: int | None,
    ended_ns: int | None,
    tokens: TokenUsage | None,
    status: str | None = None,
    turns: int | None = None,
    agent: str | None = None,
) -> Summary:
    every = [n for top in nodes for n in top.walk()]
    shell, reads, edits = _tool_calls(every, *_CALLS[agent]) if agent in _CALLS else _inner_hooks(every)
    tools: Counter[str] = Counter()
    mcp: dict[str, Counter[str]] = {}
    for node in every:
        if node.kind == TOOL and node.provenance != ORPHAN:
            if _is_mcp_name(node.name):
                if not any(child.kind == MCP for child in node.children):
                    server, tool = _mcp_key(node.name)
                    mcp.setdefault(server, Counter())[tool] += 1
            else:
                tools[node.name] += 1
        elif node.kind == MCP:
            server = node.detail.get("server") or "?"
            mcp.setdefault(server, Counter())[node.detail.get("tool") or node.name] += 1
    thoughts = [n for n in every if n.kind == THOUGHT]
    skills, commands, mentions = findings(prompts, every)
    return Summary(
        tool_calls=sum(1 for n in every if n.kind == TOOL and n.provenance != ORPHAN),
        tools=dict(sorted(tools.items())),
        mcp_calls=sum(sum(c.values()) for c in mcp.values()),
        mcp={server: dict(sorted(c.items())) for server, c in sorted(mcp.items())},
        # A call the user declined never ran: no failure (as ``show`` says it), counted apart.
        failures=sum(1 for n in every if n.kind == TOOL and n.status not in (OK, DENIED, None)),
        denied=sum(1 for n in every if n.kind == TOOL and n.status == DENIED),
        shell_commands=shell,
        file_reads=reads,
        file_edits=edits,
        subagents=len({n.id or id(n) for n in every if n.kind == SUBAGENT}),
        thoughts={
            "count": len(thoughts),
            "chars": sum(len((n.input or {}).get("text") or "") for n in thoughts),
            "duration_ms": sum(n.detail.get("duration_ms") or 0 for n in thoughts),
        },
        waves=sum(1 for n in every if n.kind == WAVE),
        orphans=sum(1 for n in every if n.provenance == ORPHAN),
        skills=tuple(skills),
        commands=tuple(commands),
        skill_mentions=tuple(mentions),
        started_ns=started_ns,
        ended_ns=ended_ns,
        tokens=tokens,
        status=status,
        turns=turns,
    )


def _inner_hooks(every: list[Node]) -> tuple[int, int, int]:
    """Shell commands, file reads and file edits as Cursor's own hooks report them."""
    return (sum(1 for n in every if n.kind == SHELL),
            sum(1 for n in every if n.kind == FILE and n.name == "read"),
            sum(1 for n in every if n.kind == FILE and n.name == "edit"))


#: the tools that run a command, read a file, change one, of the agents that send no hook of
#: their own for those (Claude Code's; Gemini CLI's built-in tools, google-gemini/gemini-cli docs/tools)
_CALLS = {
    "claude": (frozenset({"Bash", "PowerShell"}), frozenset({"Read"}),
               frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})),
    "gemini": (frozenset({"run_shell_command"}), frozenset({"read_file", "read_many_files"}),
               frozenset({"write_file", "replace"})),
}


def _tool_calls(every: list[Node], shell: frozenset[str], read: frozenset[str],
                edit: frozenset[str]) -> tuple[int, int, int]:
    """The same counted from the tool calls: a declined one never ran, a failed edit
    changed nothing (Cursor's ``afterFileEdit`` too comes only after an edit)."""
    calls = [n for n in every if n.kind == TOOL and n.provenance != ORPHAN and n.status != DENIED]
    return (sum(1 for n in calls if n.name in shell),
            sum(1 for n in calls if n.name in read),
            sum(1 for n in calls if n.name in edit and n.status == OK))


def session_tokens(snapshots: Sequence[TokenUsage | None]) -> TokenUsage | None:
    present = [s for s in snapshots if s is not None]
    if not present:
        return None
    # An aborted turn reports all zeros: the context did not shrink to nothing.
    latest = next((s for s in reversed(present) if reports_tokens(s)), present[-1])
    return TokenUsage(
        input=latest.input,
        cache_read=latest.cache_read,
        cache_write=sum(s.cache_write for s in present),
        output=sum(s.output for s in present),
    )


def token_snapshot(payload: Any) -> TokenUsage | None:
    """Cursor's (undocumented) token fields on ``stop`` / ``afterAgentResponse``.

    Cursor's ``input_tokens`` counts the cached input too (as OTel's does), while the
    contract's ``input`` is the uncached part: it is ``input_tokens - cache_read -
    cache_write``, or ``input_tokens`` whole when that would be negative (a payload whose
    input cannot include its cache)."""
    values = [payload.get(key) for key in TOKEN_FIELDS]
    if not any(_valid(v) for v in values) or invalid_token_fields(payload):
        return None  # one field that cannot be read makes the whole snapshot unknown, not zero
    clean = [v if _valid(v) else 0 for v in values]
    uncached = clean[0] - clean[1] - clean[2]
    return TokenUsage(input=uncached if uncached >= 0 else clean[0],
                      cache_read=clean[1], cache_write=clean[2], output=clean[3])


#: Cursor's token fields on ``stop`` / ``afterAgentResponse``
TOKEN_FIELDS = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens")


def invalid_token_fields(payload: Any) -> list[str]:
    """The token fields of a payload that hold something other than a whole number of zero
    or more (``null`` is a field left out)."""
    return [key for key in TOKEN_FIELDS if payload.get(key) is not None and not _valid(payload.get(key))]


def reports_tokens(usage: TokenUsage | None) -> bool:
    """A snapshot with any token in it: Cursor's ``stop`` of an aborted turn reports zeros."""
    return usage is not None and usage.total > 0


def _valid(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_mcp_name(name: str) -> bool:
    return name.startswith("MCP:") or name.startswith("mcp__")


def _mcp_key(name: str) -> tuple[str, str]:
    """``mcp__<server>__<tool>`` (Claude) names its server; Cursor's ``MCP:<tool>`` does not."""
    if name.startswith("mcp__"):
        server, _, tool = name[len("mcp__"):].partition("__")
        return (server or "?", tool or name)
    return ("?", strip_mcp(name) or name)
