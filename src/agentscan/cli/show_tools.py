"""The ``show`` card's tool calls (``show_text``): each call's line, its status marker, who
made it and what it was about in the columns left, and the legends of the markers that
need one (``?``, ``denied``; ``show_full`` says ``?``'s too)."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from agentscan.cli.showfit import leading_path
from agentscan.cli.term import Terminal, clean, clean_path, cut, cut_left, width_of, wrap_columns
from agentscan.detailmodel import ToolEvent

#: a summary's length in a pipe, where there is no terminal width to fit
PIPE_TOOL = 90
#: the fewest columns a summary is shown in on a terminal (fewer: none, the line ends at the name)
_LEAST_SUMMARY = 6
#: how the card marks a tool call by its status (``ToolCall.status``), in the words ``--full``
#: and ``--json`` use (the card's ``ERR`` and ``NO`` were a second spelling of each);
#: ``denied``: the user declined the call, which never ran, so it did not fail either
_MARKERS = {"ok": "ok", "error": "error", "denied": "denied"}
#: a call whose result was not recorded (status ``unknown``), and the note that says so;
#: left-aligned in the marker column like the others (a centred `` ? `` put it a column right)
UNKNOWN_MARKER = "?"
UNKNOWN_MEANING = "no result recorded: how the call ended is not known"
#: what the card's ``denied`` means, said as ``?``'s is: beside "ok" and "error" it read as
#: a permission error
DECLINED_MARKER = "denied"
#: the card's marker column: its widest marker's width, whichever calls a card shows
MARKER_WIDTH = max(len(marker) for marker in (*_MARKERS.values(), UNKNOWN_MARKER))
DECLINED_MEANING = "declined by the user: the call never ran"


def tool_call_lines(tools: Sequence[ToolEvent], names: Mapping[str, str], term: Terminal) -> list[str]:
    """A line for each of ``tools`` (the card's newest, oldest first), then the legends of
    the markers they use.  ``names``: a subagent run's id as the card names it."""
    lines = []
    # The markers in a column as wide as the widest there is (``denied``), on every card:
    # sized by the calls shown, the names moved 3 columns right once an ``error`` came in
    # among the newest 15, and two cards side by side did not line up.
    for tool in tools:
        marker = _MARKERS.get(tool.status, UNKNOWN_MARKER).ljust(MARKER_WIDTH)
        who = f" [{clean_path(names.get(tool.subagent, tool.subagent))}]" if tool.subagent else ""
        # On a terminal a long name (an MCP tool's) is cut to what the line leaves it beside
        # ``after`` columns (7 at least); a pipe gets it whole.
        fixed = width_of(f"  {marker} {who}")

        def shown(after: int, tool: ToolEvent = tool, fixed: int = fixed) -> str:
            name = clean(tool.name)
            return cut(name, max(term.width - fixed - after, 7)) if term.tty else name

        head = f"  {marker} {shown(len(': ') + 10)}{who}: "  # (its summary keeps 10 columns)
        room = term.width - width_of(head)
        if term.tty and room < _LEAST_SUMMARY:
            # At 30 columns a subagent's mark leaves a summary a few columns (``cla…``): the
            # line ends at the call's name rather than run past the terminal (``--full`` has it).
            lines.append(f"  {marker} {shown(0)}{who}")
            continue
        lines.append(head + tool_summary(tool, room, term))
    return lines + declined_legend(tools, term, "  ") + unknown_legend(tools, term, "  ")


def unknown_legend(tools: Iterable[ToolEvent], term: Terminal, indent: str) -> list[str]:
    """The line that says what ``?`` means, when a call of ``tools`` is shown with one (none:
    ``[]``), at ``indent``: a bare "?" beside "error" or "ok"
    read as a glitch.  Cursor records no result for most calls, so its sessions show it on
    nearly every line: said once."""
    if all(tool.status in _MARKERS for tool in tools):
        return []
    return _legend_lines(UNKNOWN_MARKER, UNKNOWN_MEANING, term, indent)


def declined_legend(tools: Iterable[ToolEvent], term: Terminal, indent: str) -> list[str]:
    """The line that says what the card's ``denied`` means, when a call of ``tools`` is shown
    with one (``--full`` puts the call at its time, under the prompt that asked for it)."""
    if not any(tool.status == "denied" for tool in tools):
        return []
    return _legend_lines(DECLINED_MARKER, DECLINED_MEANING, term, indent)


def _legend_lines(marker: str, meaning: str, term: Terminal, indent: str) -> list[str]:
    legend = f"{marker} = {meaning}"
    # Wrapped under the meaning, past "? = ", on a terminal; one line in a pipe, for grep.
    return (wrap_columns(legend, term.width, indent=indent, subsequent=indent + " " * (len(marker) + 3)) if term.tty
            else [indent + legend])


def tool_summary(tool: ToolEvent, room: int, term: Terminal) -> str:
    """A tool call's summary in ``room`` columns.  One that is a path, or starts with one
    (``Write: /home/me/src/app/handlers/refund_flow.py``), keeps the path's end, as
    ``list``'s CWD does: ``…/handlers/refund_flow.py``, not ``/home/me/src/app/handl…``,
    which lost the file the call was about.  A pipe gets it cut at ``PIPE_TOOL``."""
    text = clean(tool.summary) or "-"
    room = max(room, 10)
    if not term.tty:
        return cut(text, PIPE_TOOL)
    if width_of(text) <= room:
        return text
    path = leading_path(text, tool.paths)
    if path is None:
        return cut(text, room)
    rest = text[len(path):]
    if not rest:
        return cut_left(path, room)
    if width_of(path) + 2 <= room:  # the path whole, and a glimpse of what follows it
        return path + cut(rest, room - width_of(path))
    return cut_left(path, room - 2) + " …"
