"""The human form of a trace: a header, then each turn as an indented tree.

Every text taken from a payload (ids, names, prompts, inputs, statuses) goes through
``clean``, which the CLI passes in (``term.clean``, what ``show`` uses; the CLI is a layer
below this one, never imported here): an escape sequence or a newline that an agent, or
anyone who can run the hook, put there reaches neither a terminal nor a pipe.

The text agentscan adds is ASCII (``|-`` and `` `- `` draw the tree, as ``tree --charset
ascii`` does): a pipe, a log or a terminal without UTF-8 shows it as it is.  On a terminal
(``Layout``) a node is still one line, its input cut so that its status and time fit (then
left out, then its ``[provenance]``, then its name cut: a figure never is), and a summary
too long for one line goes on to the next; in a pipe every line is whole.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, NamedTuple

from agentscan.invocation import program_word
from agentscan.toolkit.words import plural
from agentscan.hooks.model import EVENT, FILE, MCP, NATIVE, RESPONSE, SHELL, THOUGHT, TOOL, WAVE, Node, Trace
from agentscan.hooks.tracetimes import captured_between, duration_ms, seconds_text
from agentscan.hooks.turnpick import shown_turns as _shown_turns, short_turn_ids

WIDTH = 100
_SHOWN_KEYS = ("command", "pattern", "query", "search_term", "file_path", "absolute_path", "path", "target_notebook",
               "url", "skill", "description")  # (``absolute_path``: Gemini CLI's read_file)
_PATH_KEYS = ("file_path", "absolute_path", "path", "target_notebook")
_EVENT_KEYS = ("source", "reason", "trigger", "notification_type")
#: what a header's value is indented by, and a turn summary's next line
_VALUE_INDENT, _TURN_INDENT = " " * 14, "    "
#: the least of a path a header line keeps when it is cut to fit
_MIN_SHOWN = 12
#: a missing transcript's reason stays beside its path where the path keeps its file name
#: whole (the session id), or this much of it where the name is longer (a Codex rollout's)
_MIN_NAME_SHOWN = 48
#: the least of an input a node line keeps when it is cut to fit: under it, it is left out
#: (``…/r…`` tells nothing), before a figure is cut
_MIN_INPUT = 8
SEPARATOR = ", "


#: its name here before tracetimes.py (tests/test_trace_ux_pass42f.py imports it)
_seconds = seconds_text

Clean = Callable[[str], str]

#: in a turn's line, in place of an id the agent did not give (``derived-<n>`` in ``--json``)
INFERRED_TURN = "[inferred]"


class Layout(NamedTuple):
    """A terminal's width, and how the CLI measures and cuts text for it (``term.width_of``,
    ``term.cut``, ``term.cut_left``)."""

    width: int
    measure: Callable[[str], int]
    cut: Callable[[str, int], str]
    cut_left: Callable[[str, int], str]


def render(trace: Trace, clean: Clean) -> str:
    return "\n".join(lines(trace, clean)) + "\n"


def lines(trace: Trace, clean: Clean, show_options: str = "", layout: Layout | None = None,
          shown: range | None = None, short_id: Clean | None = None, show_setting: str | None = "") -> Iterator[str]:
    """``show_options``: what the suggested ``agentscan show`` needs (`` --demo``);
    ``show_setting``: the setting it needs before it (``CLAUDE_CONFIG_DIR=DIR``, from
    ``crosscheck.show_setting``), ``None`` when no ``show`` reads the transcript; ``layout``:
    the terminal's, else (a pipe) every line whole; ``shown``: the indexes of the turns to
    draw (``chosen_turns``), each still numbered as in the whole session; ``short_id``: the
    short id ``list`` shows of the transcript's session (``short_session_id``'s by default).

    On a terminal every line is fitted to its width (the caller prints it as it is) but the
    ``agentscan show`` command to copy, printed whole on its own line even when wider: a cut
    command cannot be pasted.  An id is never cut either: a header too wide for the line
    names its session by its short id (``claude:7f3c9a12``, as ``list`` shortens ids), and
    so does the command under it when the whole one does not fit (docs/cli.md's one rule,
    as ``show``'s hints); a status, a time and a duration are never cut."""
    for line, whole in _lines(trace, clean, show_options, layout, shown, short_id or short_session_id, show_setting):
        yield line if layout is None or whole else layout.cut(line, layout.width)


def _lines(trace: Trace, clean: Clean, show_options: str, layout: Layout | None,
           shown: range | None, short_id: Clean, show_setting: str | None = "") -> Iterator[tuple[str, bool]]:
    """Each line, and whether it is to stay whole (a command to copy, an id with its status,
    times, a node's line: fitted by ``_node_line``)."""
    chosen = range(len(trace.turns)) if shown is None else shown
    session = trace.session
    header = _fitted(f"session {{}}  ({clean(session.status)})", clean(session.id), layout)
    if layout is not None and layout.measure(header) > layout.width:
        # Too wide even by the short id (34 columns at 30): the status on a line of its own,
        # labelled as the lines under it are, the id whole.
        yield _fitted("session {}", clean(session.id), layout), True
        yield f"  status      {clean(session.status)}", True
    else:
        yield header, True
    if session.workspace:
        workspace = clean(session.workspace)
        if layout is not None:  # a path keeps its end: the project
            workspace = layout.cut_left(workspace, max(layout.width - len(_VALUE_INDENT), _MIN_SHOWN))
        yield f"  cwd         {workspace}", False  # (``list``'s and ``show``'s word; --json keeps ``workspace``)
    if session.transcript_session_id and session.transcript_found and show_setting is not None:
        transcript = clean(session.transcript_session_id)
        # On a line of its own: the command, whole, to be copied (by the short id, where the
        # whole one does not fit, and so is the line above it; past the width, where even that
        # does not: never at the header's indent, where it read as a field).  A transcript
        # under no folder agentscan reads needs the setting that names its folder: a bare
        # ``show`` answered "no session matches".
        before = clean(show_setting).replace("{", "{{").replace("}", "}}") + " " if show_setting else ""
        command = _command(f"{before}{program_word()}{show_options} show {{}}", transcript, layout, short_id)
        named = transcript if transcript in command else short_id(transcript)
        yield _fitted("  transcript  {}", named, layout, short_id), True
        yield command, True
    elif session.transcript_session_id and session.transcript_found:
        # There, but where no setting agentscan knows of makes ``show`` read it: the path, no command.
        yield from _missing_transcript(clean(session.transcript_path or ""), layout, " (under no folder agentscan reads)")
    elif session.transcript_session_id:
        # `show` needs the file; agents delete old transcripts while their hook events stay.
        # The path the agent named, not an id made from its name (``claude:nope`` for
        # ``/tmp/nope.jsonl``): no session has that id.
        yield from _missing_transcript(clean(session.transcript_path or session.transcript_session_id), layout)
    start, joint, end = captured_between(session.started_ns, session.ended_ns).partition(" .. ")
    for line in _wrapped("  captured    ", [*start.split(" "), *([f".. {end}"] if joint else [])], _VALUE_INDENT,
                         layout, separator=" "):
        yield line, True  # times are never cut: the end goes on to the next line
    for line in _wrapped("  summary     ", _summary_parts(trace.summary, clean, layout is not None), _VALUE_INDENT, layout):
        yield line, False
    if len(chosen) != len(trace.turns):  # the header and its summary are the whole session's
        yield f"  shown       {_shown_turns(chosen, len(trace.turns))}", False
    if session.nodes:
        yield "session events", False
        for line in _tree(session.nodes, "  ", clean, layout):
            yield line, True
    shown_ids = short_turn_ids([turn.id for turn in trace.turns])
    for index in chosen:
        number, turn = index + 1, trace.turns[index]
        yield "", False
        # A turn the agent gave no id (Cursor's CLI, older Claude builds): agentscan grouped its
        # events from a prompt to a stop, and marks it as it marks a node so placed; its
        # made-up id (``derived-1``) is left to ``--json``.
        name = INFERRED_TURN if turn.derived else clean(shown_ids.get(turn.id, turn.id))
        head = f"turn {number}  {name}  "
        for line in _wrapped(head, _summary_parts(turn.summary, clean, layout is not None), _TURN_INDENT, layout):
            yield line, False
        if turn.prompt:
            yield f"  prompt: {_one_line(turn.prompt, WIDTH, clean)}", False
        for line in _tree(turn.nodes, "  ", clean, layout):
            yield line, True


def _fitted(template: str, session_id: str, layout: Layout | None, short_id: Clean | None = None) -> str:
    """``template`` with ``session_id`` whole, or, on a terminal too narrow for that, by its
    short id; wider than the terminal rather than cut when even that does not fit."""
    line = template.format(session_id)
    if layout is None or layout.measure(line) <= layout.width:
        return line
    return template.format((short_id or short_session_id)(session_id))


def _command(template: str, session_id: str, layout: Layout | None, short_id: Clean) -> str:
    """The command to copy: the whole id where it fits, else the short one; indented as a
    value always, past the width where even the short one does not fit (at the header's
    indent, ``  agentscan show …`` read as a field of its own)."""
    line = _VALUE_INDENT + template.format(session_id)
    if layout is None or layout.measure(line) <= layout.width:
        return line
    return _VALUE_INDENT + template.format(short_id(session_id))


def short_session_id(session_id: str) -> str:
    """``claude:7f3c9a12`` for ``claude:7f3c9a12-4b8e-…``: ``list``'s short id by its one rule
    (``scan.short_ids.unique_prefixes``: 8 characters or more, never ending in a separator,
    an id that short whole), of this one session: not made longer where another shares it."""
    from agentscan.scan.short_ids import unique_prefixes  # only on a terminal too narrow

    provider, colon, native = session_id.rpartition(":")
    return f"{provider}{colon}{unique_prefixes([native])[native]}"


def _wrapped(head: str, parts: list[str], indent: str, layout: Layout | None, *,
             separator: str = SEPARATOR) -> Iterator[str]:
    """``head`` and ``parts`` joined on one line; on a terminal, the parts that do not fit go
    on to the next lines (after ``indent``), never cut."""
    if layout is None:
        yield head + separator.join(parts)
        return
    line, filled = head, False
    for part in parts:
        candidate = line + (separator if filled else "") + part
        if not filled and layout.measure(candidate) > layout.width >= layout.measure(indent + part) and line.strip():
            # The first part on the next line rather than cut (``5 tool ca…``: a figure)
            yield line.rstrip()
            line, candidate = indent, indent + part
        elif filled and layout.measure(candidate) > layout.width:
            yield line + separator.rstrip()
            line, candidate = indent, indent + part
        line, filled = candidate, True
    yield line


def _tree(nodes: tuple[Node, ...], indent: str, clean: Clean, layout: Layout | None) -> Iterator[str]:
    for index, node in enumerate(nodes):
        last = index == len(nodes) - 1
        yield _node_line(f"{indent}{'`-' if last else '|-'} ", node, clean, layout)
        if node.children:
            yield from _tree(node.children, indent + ("   " if last else "|  "), clean, layout)


def _node_line(prefix: str, node: Node, clean: Clean, layout: Layout | None) -> str:
    """One node, on one line: on a terminal its input is cut (a path from the left) so that its
    status, time and provenance still show; then its provenance (``--json`` has it) is left
    out for a few characters of it; too narrow for even those, the input is left out (and
    the provenance too, where it does not fit), then its name is cut (``tool B…``, even to
    ``tool…``, never below its kind): its status and time are figures, never cut (the line
    is printed wider than the terminal instead)."""
    head, shown, tail = _label(node, clean)
    if layout is not None:
        def used(*parts: str) -> int:
            return layout.measure(prefix + "  ".join(filter(None, parts)))

        marked = tail[:-1] if node.provenance != NATIVE else tail  # without its ``[provenance]``
        if shown and used(head, shown, *tail) > layout.width:
            # The input cut; its provenance left out rather than the input; else the input.
            for kept in (tail, marked):
                room = layout.width - used(head, *kept) - 2  # (the two spaces before the input)
                if room >= _MIN_INPUT:
                    shown, tail = (layout.cut_left if _is_path(node) else layout.cut)(shown, room), kept
                    break
            else:
                shown = ""
        if used(head, shown, *tail) > layout.width:
            tail = marked
        if used(head, shown, *tail) > layout.width:  # (no input is left): the name cut, never below its kind
            room = layout.width - used(*tail) - 2 if tail else layout.width - used()
            # ``subagent…`` rather than a line past the edge (``subagent E…  ok  44.0 s`` was
            # 31 columns at 30, two levels down): the kind stays, the name may go whole; where
            # even that is too wide, the line is past the edge anyway and keeps a letter of it.
            kind = len(head.split(" ", 1)[0])
            least = kind + 1 if room >= kind + 1 else kind + 3
            head = layout.cut(head, max(room, min(layout.measure(head), least)))
            if head.endswith(" \u2026"):  # ``subagent …``: the kind, then the mark of what was cut
                head = head[:-2] + "\u2026"
    if node.kind in (THOUGHT, RESPONSE):
        head, shown = f"{head} {shown}".rstrip(), ""
    return prefix + "  ".join(filter(None, (head, shown, *tail)))


def _label(node: Node, clean: Clean) -> tuple[str, str, list[str]]:
    """(what the node is, its input, then status, time and provenance)."""
    shown = ""
    if node.kind == WAVE:
        head = f"parallel: {plural(len(node.children), 'call')}"
    elif node.kind in (TOOL, SHELL, MCP, FILE):
        head = f"{node.kind} {clean(node.name)}"
        shown = _input_text(node, clean) if node.kind != SHELL else ""
    elif node.kind in (THOUGHT, RESPONSE):
        text = node.input.get("text") if isinstance(node.input, dict) else None
        head, shown = f"{node.kind}:", _one_line(text or "", 60, clean)
    else:
        head = f"{node.kind} {clean(node.name)}"
        if node.kind == EVENT and node.detail.get("internal_agent"):
            head += " (internal agent)"
        elif node.kind == EVENT and isinstance(node.input, dict):
            # what tells one such event from another: a start's source (startup, resume,
            # compact), an end's reason, a compaction's trigger, a notification's type
            shown = next((clean(str(node.input[key])) for key in _EVENT_KEYS
                          if isinstance(node.input.get(key), str) and node.input.get(key)), "")
    tail = []
    if node.status:
        tail.append(clean(node.status))
    duration = duration_ms(node)
    if duration is not None:
        tail.append(seconds_text(duration))
    if node.provenance != NATIVE:
        tail.append(f"[{node.provenance}]")
    return head, shown, tail


def _is_path(node: Node) -> bool:
    value = node.input
    if node.kind == FILE:
        return True
    if not isinstance(value, dict):
        return False
    key = next((k for k in _SHOWN_KEYS if isinstance(value.get(k), str) and value.get(k)), None)
    return key in _PATH_KEYS


def _input_text(node: Node, clean: Clean) -> str:
    value: Any = node.input
    if isinstance(value, dict):
        for key in _SHOWN_KEYS:
            if isinstance(value.get(key), str) and value.get(key):
                # a long path keeps its end: the file, not the folders it is in
                return _one_line(value[key], 60, clean, from_left=key in _PATH_KEYS)
        if node.kind == FILE:
            return ""
        import json

        return _one_line(json.dumps(value, ensure_ascii=False, sort_keys=True), 60, clean) if value else ""
    return _one_line(str(value), 60, clean) if value is not None else ""


def _summary_parts(summary: Any, clean: Clean, grouped: bool = False) -> list[str]:
    """``grouped``: on a terminal, a count with thousands separators (``2,370,118 tokens``), as
    ``show`` and ``tokens`` write them there; in a pipe, plain digits, as theirs."""
    parts = [plural(summary.tool_calls, "tool call")]
    for value, word in ((summary.mcp_calls, "MCP call"), (summary.failures, "failure"), (summary.denied, "denied"),
                        (summary.subagents, "subagent"), (summary.waves, "wave"), (summary.orphans, "orphan")):
        if value:
            parts.append(f"{value} denied" if word == "denied" else plural(value, word))
    if summary.skills:
        parts.append("skills " + ",".join(clean(f.name) for f in summary.skills))
    if summary.commands:
        parts.append("commands " + ",".join(sorted({"/" + clean(f.name) for f in summary.commands})))
    if summary.wall_time_ms is not None:
        parts.append(seconds_text(summary.wall_time_ms))
    if summary.tokens is not None:
        parts.append(f"{summary.tokens.total:,} tokens" if grouped else f"{summary.tokens.total} tokens")
    if summary.status:
        parts.append(clean(summary.status))
    return parts


def _missing_transcript(path: str, layout: Layout | None, tail: str = " (not found)") -> Iterator[tuple[str, bool]]:
    """The header's line for a transcript the agent named and deleted since (or kept where
    agentscan reads no folder), each with whether it stays whole: on a terminal, a long path
    is cut from its start, as a node's path is, so that its file name (the session id) and
    the reason stay in sight.  Where the reason and the path's whole file name (up to
    ``_MIN_NAME_SHOWN``) do not fit on one line, the reason goes whole on the next: cut,
    "(under no folder agentscan reads)" lost why ``show`` cannot read it; beside 12 columns of
    path, 5 characters of the id were left at 60 columns.  The path is never cut at its end."""
    head = "  transcript  "
    if layout is None:
        yield f"{head}{path}{tail}", False
        return
    room = layout.width - layout.measure(head + tail)
    name = "…" + path.rstrip("/").rsplit("/", 1)[-1]
    if room >= min(layout.measure(path), max(_MIN_SHOWN, min(layout.measure(name), _MIN_NAME_SHOWN))):
        if layout.measure(path) > room:
            path = layout.cut_left(path, room)
        yield f"{head}{path}{tail}", True
        return
    # (Wider than the line only where the terminal is narrower than ``head`` and the least of a
    # path: cut at its end too, it kept neither its folders nor its file name.)
    yield f"{head}{layout.cut_left(path, max(layout.width - layout.measure(head), _MIN_SHOWN))}", True
    reason = tail.strip()
    indent = _VALUE_INDENT if layout.measure(_VALUE_INDENT + reason) <= layout.width else "  "
    yield f"{indent}{reason}", True  # (wider than the line only where the terminal is narrower than it)


def _one_line(text: str, width: int, clean: Clean, *, from_left: bool = False) -> str:
    text = clean(text)
    if len(text) <= width:
        return text
    if not from_left:
        return text[: width - 1] + "…"
    # A path cut from its start begins with ``...`` on a stdout that cannot hold ``…``,
    # whose stand-in (``~``) would read as the home (``term.cut_left``'s mark).
    import sys

    from agentscan.cli.charset import left_mark

    mark = left_mark(sys.stdout, "…")
    return mark + text[len(text) - width + len(mark):]
