"""``show --full``: the whole bounded conversation in order, through a pager on a terminal.

Each prompt, response and tool call is printed with its time; text is
wrapped to the terminal (kept as written in a pipe).  A subagent's tool
calls are indented under the call that started it: the delegating call
(Task, Agent, spawn_agent, …) made last before the subagent's first event.
"""

from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import dataclass
from datetime import datetime
from typing import Iterator

from agentscan.cli.render import short_time
from agentscan.cli.show_text import card_lines
from agentscan.cli.term import Terminal, clean
from agentscan.model import Prompt, Response, SessionDetail, ToolEvent

#: tool names that start a subagent, across providers
DELEGATING = frozenset({"Task", "Agent", "spawn_agent", "task", "delegate", "subagent", "run_subagent", "Subagent"})
_KIND_ORDER = {"prompt": 0, "response": 1, "tool": 2}


@dataclass
class _Item:
    when: float
    order: int
    kind: str
    value: Prompt | Response | ToolEvent


def _stamp(value: datetime | None, previous: float) -> float:
    # An event without a time stays where its list put it: just after the one before.
    return value.timestamp() if value is not None else previous


def _items(values: tuple, kind: str) -> list[_Item]:
    items, previous = [], float("-inf")
    for index, value in enumerate(values):
        previous = _stamp(value.timestamp, previous)
        items.append(_Item(previous, index, kind, value))
    return items


def timeline(detail: SessionDetail) -> tuple[list[_Item], dict[int, list[tuple[str, list[_Item]]]]]:
    """The session's own events in time order, and each subagent's calls keyed by the
    position of the call that started it (``-1``: no such call, printed at the end)."""
    own_tools = tuple(t for t in detail.tools if not t.subagent)
    items = _items(detail.prompts, "prompt") + _items(detail.responses, "response") + _items(own_tools, "tool")
    items.sort(key=lambda item: (item.when, _KIND_ORDER[item.kind], item.order))
    by_agent: dict[str, list[ToolEvent]] = {}
    for tool in detail.tools:
        if tool.subagent:
            by_agent.setdefault(tool.subagent, []).append(tool)
    anchored: dict[int, list[tuple[str, list[_Item]]]] = {}
    for agent, tools in by_agent.items():
        sub_items = _items(tuple(tools), "tool")
        anchored.setdefault(_anchor(items, sub_items[0].when), []).append((agent, sub_items))
    return items, anchored


def _anchor(items: list[_Item], first: float) -> int:
    before = [i for i, item in enumerate(items) if item.kind == "tool" and item.when <= first]
    delegating = [i for i in before if item_name(items[i]) in DELEGATING]
    chosen = delegating or before
    return chosen[-1] if chosen else -1


def item_name(item: _Item) -> str:
    return item.value.name if isinstance(item.value, ToolEvent) else ""


def full_lines(detail: SessionDetail, term: Terminal) -> Iterator[str]:
    yield from card_lines(detail, term)
    items, anchored = timeline(detail)
    agent_types = {sub.id: sub.agent_type for sub in detail.subagents}
    yield ""
    for index, item in enumerate(items):
        yield from _item_lines(item, term, "")
        for agent, sub_items in anchored.get(index, ()):
            yield from _subagent_lines(agent, agent_types.get(agent), sub_items, term)
    for agent, sub_items in anchored.get(-1, ()):
        yield from _subagent_lines(agent, agent_types.get(agent), sub_items, term)
    dropped = {k: v for k, v in detail.truncated.items() if v}
    if dropped:
        yield ""
        yield "truncated (older items dropped to stay bounded): " + ", ".join(f"{k} {v:,}" for k, v in dropped.items())


def _subagent_lines(agent: str, agent_type: str | None, items: list[_Item], term: Terminal) -> Iterator[str]:
    kind = f" ({agent_type})" if agent_type else ""
    yield term.style(f"    ↳ subagent {agent}{kind}", "cyan")
    for item in items:
        yield from _item_lines(item, term, "    ")


def _item_lines(item: _Item, term: Terminal, indent: str) -> Iterator[str]:
    value = item.value
    when = term.style(short_time(value.timestamp), "dim")
    if isinstance(value, Prompt):
        yield f"{indent}{when}  " + term.style("prompt", "bold")
        yield from _body(value.text, term, indent + "    ")
    elif isinstance(value, Response):
        model = f" ({value.model})" if value.model else ""
        yield f"{indent}{when}  response{model}"
        yield from _body(value.text, term, indent + "    ")
    else:
        status = {"ok": "ok", "error": term.style("error", "red")}.get(value.status, "?")
        head = f"{indent}{when}  {term.style(value.name, 'cyan')}  {status}"
        yield head
        if value.summary:
            yield from _body(value.summary, term, indent + "    ")


def _body(text: str, term: Terminal, indent: str) -> Iterator[str]:
    """Text as written, each line indented; wrapped to the terminal on a terminal."""
    for raw in (text or "").splitlines() or [""]:
        line = clean(raw) if raw.strip() else ""
        if not term.tty or not line:
            yield (indent + line).rstrip()
            continue
        yield from textwrap.wrap(line, width=max(term.width, len(indent) + 20), initial_indent=indent,
                                 subsequent_indent=indent, break_long_words=True, break_on_hyphens=False)


def page(lines: Iterator[str], term: Terminal, *, use_pager: bool) -> None:
    """Through ``$PAGER`` (else ``less -R``) on a terminal, as git does; straight out otherwise."""
    text = "\n".join(lines) + "\n"
    command = _pager_command() if term.tty and use_pager else None
    if command is None:
        sys.stdout.write(text)
        return
    import subprocess

    env = dict(os.environ)
    env.setdefault("LESS", "FRX")  # quit if one screen, keep colours, leave the text on screen
    try:
        pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.write(text)
        return
    try:
        assert pager.stdin is not None
        pager.stdin.write(text.encode("utf-8", "replace"))
        pager.stdin.close()
    except (BrokenPipeError, OSError):
        pass  # the reader quit early: fine
    pager.wait()


def _pager_command() -> str | None:
    import shutil

    configured = os.environ.get("PAGER")
    if configured is not None:
        configured = configured.strip()
        return None if configured in ("", "cat") else configured
    return "less -R" if shutil.which("less") else None
