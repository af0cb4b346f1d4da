"""``show --full``: the whole bounded conversation in order, through a pager on a terminal.

Each prompt, response and tool call is printed with its time; text is
wrapped to the terminal (kept as written in a pipe).  Items are ordered by
time; one with no time (Cursor records none on replies and calls) keeps its
place in reading order, just after the item read before it.

A subagent's own prompts, replies and tool calls are indented under the call
that started it: the call the transcript names (``SubagentInfo.call_id``),
else a call whose text is the subagent's task (Gemini, Codex), else the
delegating call (Task, Agent, spawn_agent, …) made last before the
subagent's first event.  One no call started (Claude's auto-compaction
worker or prompt suggestion, or no delegating call before it) stands at its own time, at the top
level: put under whatever call came last, it read as that call's work.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from agentscan.cli import render
from agentscan.cli.show_errors import ShownError, error_words, recorded_errors, recorded_interruptions
from agentscan.cli.show_compactions import Compaction, command_text, compaction_text, recorded_compactions
from agentscan.cli.show_subagents import subagent_names
from agentscan.cli.show_text import card_lines
from agentscan.cli.show_tools import unknown_legend
from agentscan.cli.show_truncated import truncation_note
from agentscan.cli.term import Terminal, clean, clean_path, cut, printable_line, width_of, wrap_columns, write_out
from agentscan.detailmodel import LocalCommand, Prompt, Response, SessionDetail, SubagentInfo, ToolEvent

if TYPE_CHECKING:
    from agentscan.cli.copyhint import ShortId
    from agentscan.scan.short_ids import Known

#: tool names that start a subagent, across providers
DELEGATING = frozenset({"Task", "Agent", "spawn_agent", "task", "delegate", "subagent", "run_subagent", "Subagent"})
#: a call's text must be at least this long to be taken for a subagent's task
_MIN_TASK_TEXT = 12
#: the kinds of Claude Code's own workers (``agenttypes``: an auto-compaction, a suggestion of
#: what to type next), which no call of the session started
_OWN_WORKERS = frozenset({"compaction", "prompt-suggestion"})


@dataclass
class _Item:
    when: float
    seq: int
    value: Prompt | Response | ToolEvent

    @property
    def key(self) -> tuple[float, int]:
        return self.when, self.seq


def _timed(values: Iterable[Prompt | Response | ToolEvent]) -> list[_Item]:
    """Items in time order; one without a time takes the time of the item read before it."""
    items, previous = [], float("-inf")
    for value in sorted(values, key=lambda v: v.seq):
        previous = value.timestamp.timestamp() if value.timestamp is not None else previous
        items.append(_Item(previous, value.seq, value))
    items.sort(key=lambda item: item.key)
    return items


@dataclass
class _Subagent:
    info: SubagentInfo | None
    id: str
    items: list[_Item]


def timeline(detail: SessionDetail) -> tuple[list[_Item], dict[int, list[_Subagent]], dict[int, list[_Subagent]]]:
    """The session's own events in order; each subagent a call started, keyed by that
    call's position; and each one no call started, keyed by the position of the last
    event before it (``-1``: before every event)."""
    own_tools = [t for t in detail.tools if not t.subagent]
    talk: dict[int, str] = {}  # a subagent's prompt or reply -> the subagent
    values: list[Prompt | Response | ToolEvent] = [*detail.prompts, *detail.responses, *detail.tools]
    for sub in detail.subagents:
        said: list[Prompt | Response] = [*sub.prompts, *sub.responses]
        talk.update((id(value), sub.id) for value in said)
        values += said
    everything = _timed(values)
    own_ids = {id(v) for v in (*detail.prompts, *detail.responses, *own_tools)}
    items = [item for item in everything if id(item.value) in own_ids]
    by_agent: dict[str, list[_Item]] = {}
    for item in everything:
        agent = item.value.subagent if isinstance(item.value, ToolEvent) else talk.get(id(item.value))
        if agent:
            by_agent.setdefault(agent, []).append(item)
    infos = {sub.id: sub for sub in detail.subagents}
    anchored: dict[int, list[_Subagent]] = {}
    standing: dict[int, list[_Subagent]] = {}
    claimed: set[int] = set()
    for agent in sorted(by_agent, key=lambda a: by_agent[a][0].key):
        info = infos.get(agent)
        run = _Subagent(info, agent, by_agent[agent])
        position = _anchor(items, by_agent[agent], info, claimed)
        if position is None:
            first = by_agent[agent][0].key
            standing.setdefault(sum(1 for item in items if item.key <= first) - 1, []).append(run)
            continue
        claimed.add(position)
        anchored.setdefault(position, []).append(run)
    return items, anchored, standing


def _anchor(items: list[_Item], sub_items: list[_Item], info: SubagentInfo | None, claimed: set[int]) -> int | None:
    """The position of the call that started the subagent; ``None``: no call did."""
    calls = [i for i, item in enumerate(items) if isinstance(item.value, ToolEvent)]
    if info is not None and info.agent_type in _OWN_WORKERS and not info.call_id:
        return None  # Claude Code's own worker: no call of the session asked for it
    if info is not None and info.call_id:
        named = [i for i in calls if items[i].value.call_id == info.call_id]  # type: ignore[union-attr]
        if named:
            return named[0]
    first = sub_items[0].key
    task = next((clean(item.value.text) for item in sub_items if isinstance(item.value, Prompt)), "")
    if task:
        # Gemini records a call when it ends, after its subagent: find it by its text.
        asked = [i for i in calls if i not in claimed and _is_task(items[i].value, task)]  # type: ignore[arg-type]
        if asked:
            return min(asked, key=lambda i: (items[i].key > first, abs(items[i].when - first[0])))
    delegating = [i for i in calls if items[i].key <= first and items[i].value.name in DELEGATING]  # type: ignore[union-attr]
    return delegating[-1] if delegating else None


def _is_task(call: ToolEvent, task: str) -> bool:
    """The call hands over this task: its text is the task, or the task wrapped in a
    preamble ("Your task is to investigate: …"), not a word that happens to be in it."""
    text = clean(call.summary)
    if len(text) < _MIN_TASK_TEXT or 2 * len(text) < len(task):
        return False
    return task.startswith(text) or task.endswith(text) or text.startswith(task)


def full_lines(detail: SessionDetail, term: Terminal, home: str = "", *, zone: tzinfo | None = None,
               known: Known | None = None, short_id: ShortId | None = None) -> Iterator[str]:
    """``home``, ``zone``, ``known``, ``short_id``: as ``show_text.print_detail``'s (each
    item's time in ``zone``, which the card names)."""
    yield from card_lines(detail, term, home, zone, full=True, known=known, short_id=short_id)
    items, anchored, standing = timeline(detail)
    names = subagent_names(detail, term, known)
    # An error the provider recorded, and an interruption, goes at its time; one with no time
    # (Cursor's errors) after everything: its place among the replies is not kept.
    # A compaction of the session's context too, marked as the card marks it among the prompts.
    # And a slash command the agent's CLI ran itself (no prompt: Claude Code's ``/mcp``), so marked.
    marks: list[tuple[ShownError | Compaction | LocalCommand, str]] = [
        *((error, "error") for error in recorded_errors(detail)),
        *((stop, "interrupted") for stop in recorded_interruptions(detail)),
        *((compaction, "compacted") for compaction in recorded_compactions(detail)),
        *((command, "compacted") for command in detail.local_commands)]
    timed = sorted(((e.timestamp.timestamp(), e, what) for e, what in marks if e.timestamp is not None),
                   key=lambda found: found[0])
    # A compaction of no time (a trimmed timestamp) goes where it was read among the items.
    placed = sorted((mark for mark, what in marks if what == "compacted" and mark.timestamp is None
                     and isinstance(mark, (Compaction, LocalCommand)) and mark.seq), key=lambda mark: mark.seq)
    yield ""
    note = truncation_note(detail.truncated, grouped=term.tty)
    if note:
        # Said first too: a pager opens on the top, where the oldest replies kept may stand
        # without the prompts the bounds dropped before them; the end says it again.
        yield note
        yield ""
    # What a call's "?" means, before the first one (a pager opens on it), as ``show`` says
    # it under its calls; not when every call's end is known.
    legend = unknown_legend(detail.tools, term, "")
    if legend:
        yield from legend
        yield ""
    for sub in standing.get(-1, ()):
        yield from _subagent_lines(sub, term, names, "", zone)
    for index, item in enumerate(items):
        while timed and timed[0][0] < item.when:  # (an item of no time before any has ``-inf``)
            _, mark, what = timed.pop(0)
            yield from _error_item(mark, term, zone, what)
        # (``seq`` 0 is no place; one from a huge transcript's end is below 0, as its items' are: ``tail``)
        while placed and placed[0].seq < item.seq and item.seq:
            yield from _error_item(placed.pop(0), term, zone, "compacted")
        yield from _item_lines(item, term, "", zone)
        for sub in anchored.get(index, ()):
            yield from _subagent_lines(sub, term, names, "    ", zone)
        for sub in standing.get(index, ()):
            yield from _subagent_lines(sub, term, names, "", zone)
    for mark, what in [*((e, what) for _, e, what in timed), *((e, "compacted") for e in placed),
                       *((e, what) for e, what in marks if e.timestamp is None
                         and not (what == "compacted" and isinstance(e, (Compaction, LocalCommand)) and e.seq))]:
        yield from _error_item(mark, term, zone, what)
    if note:
        yield ""
        yield note


def _subagent_lines(sub: _Subagent, term: Terminal, names: dict[str, str], indent: str,
                    zone: tzinfo | None) -> Iterator[str]:
    """``indent``: four spaces under the call that started it; none at the top level,
    where it is dated as the session's own events are."""
    # An id, a type, a model and a tool's name are the provider's text too: an escape
    # sequence in one is shown as U+FFFD, as the card's fields are.
    kind = f" ({clean(sub.info.agent_type)})" if sub.info is not None and sub.info.agent_type else ""
    named = f"{indent}↳ subagent {clean_path(names.get(sub.id, sub.id))}"
    when = "" if indent else render.time_column(sub.items[0].value.timestamp, zone) + "  "
    if term.tty and width_of(when + named + kind) > term.width:
        kind = ""  # its type is on the card's subagents line; its id, to open it, is never cut
    under = ""
    if term.tty and width_of(when + named) > term.width:
        # A long id (``aprompt_suggestion-…``) on a line of its own under ``↳ subagent``, as the
        # card puts a long path under its label: whole, to be copied, and within the pane.
        named, under = f"{indent}↳ subagent", named[len(f"{indent}↳ subagent "):]
    head = term.style(named + kind, "cyan")
    if not indent:
        head = _when(sub.items[0].value.timestamp, term, zone) + "  " + head
    yield head
    if under:
        yield f"{indent}    " + term.style(under, "cyan")
    for item in sub.items:
        yield from _item_lines(item, term, "    ", zone)


def _error_item(error: ShownError | Compaction | LocalCommand, term: Terminal, zone: tzinfo | None,
                what: str = "error") -> Iterator[str]:
    """An error the provider recorded (``what``: ``error``), or an interruption (``interrupted``),
    dated as an event is, its text in full below; a compaction (``compacted``), or a command the
    agent's CLI ran itself, on its line."""
    if isinstance(error, (Compaction, LocalCommand)):
        text = compaction_text(error, grouped=term.tty) if isinstance(error, Compaction) else command_text(error)
        first = " " * (width_of(render.time_column(error.timestamp, zone)) + 2)
        lead = first
        if term.tty and max(map(width_of, text.split())) > term.width - len(lead):
            lead = "    "  # (at 30 columns ``automatically`` had 12 beside the time: under it, as a body)
        # Wrapped under itself on a narrow terminal, as a body's text is (76 columns in a 40-column pane).
        lines = wrap_columns(text, term.width, indent=first, subsequent=lead) if term.tty else [first + text]
        for index, line in enumerate(lines):
            at = len(first if index == 0 else lead)
            shown = term.style(line[at:], "yellow")
            yield f"{_when(error.timestamp, term, zone)}  {shown}" if index == 0 else lead + shown
        return
    yield f"{_when(error.timestamp, term, zone)}  {term.style(what, 'red' if what == 'error' else 'yellow')}"
    yield from _body(error_words(error.text, zone) if what == "error" else error.text, term, "    ")


#: the fewest columns a cut tool name keeps (``run_sh…``): fewer tell no tool from another
_NAME_MIN = 7


def _item_lines(item: _Item, term: Terminal, indent: str, zone: tzinfo | None) -> Iterator[str]:
    value = item.value
    when = _when(value.timestamp, term, zone)
    if isinstance(value, Prompt):
        yield f"{indent}{when}  " + term.style("prompt", "bold")
        yield from _body(value.text, term, indent + "    ")
    elif isinstance(value, Response):
        plain = f"{indent}{render.time_column(value.timestamp, zone)}  response"
        yield f"{indent}{when}  response{_response_model(value.model, term, width_of(plain))}"
        yield from _body(value.text, term, indent + "    ")
    else:
        word = value.status if value.status in ("ok", "error", "denied") else "?"
        colour = {"error": "red", "denied": "yellow"}.get(word)
        status = term.style(word, colour) if colour else word
        name = clean(value.name)
        if term.tty:
            # A long name (``run_shell_command``) is cut, as the card's tables cut one: the
            # status after it is what the line is read for, and wrapped it stood alone.
            room = term.width - width_of(f"{indent}{render.time_column(value.timestamp, zone)}    {word}")
            name = cut(name, max(room, _NAME_MIN))
        head = f"{indent}{when}  {term.style(name, 'cyan')}  {status}"
        yield head
        if value.summary:
            # A tool's input is a path, a pattern or a command, copied whole: a 40-column pane
            # broke ``…/app/routes.py`` as ``…/app/route`` and ``s.py``; a word wider than a
            # line now runs on, for the terminal to fold (as the card's path does).
            yield from _body(value.summary, term, indent + "    ", whole_words=True)
        if value.error:  # (one line: ``ToolEvent.error``)
            yield from (term.style(line, "red") for line in _body(f"error: {value.error}", term, indent + "    "))


def _response_model(model: str | None, term: Terminal, before: int) -> str:
    """`` (claude-sonnet-4-5-20250929)`` after a response's ``before`` columns; on a terminal
    too narrow for it, as ``list`` names it (`` (sonnet-4.5)``), else nothing: the card names
    the session's model, and a 40-column pane wrapped the head of every reply."""
    if not model:
        return ""
    whole = f" ({clean(model)})"
    if not term.tty or before + width_of(whole) <= term.width:
        return whole
    short = f" ({render.model_text(model, term)})"
    return short if before + width_of(short) <= term.width else ""


def _when(value: datetime | None, term: Terminal, zone: tzinfo | None) -> str:
    """The time column: an item with no time (Cursor's replies) says ``-`` in a column as wide
    as a time's, so what follows lines up with the rest."""
    return term.style(render.time_column(value, zone), "dim")


def _body(text: str, term: Terminal, indent: str, *, whole_words: bool = False) -> Iterator[str]:
    """Text as written, each line indented; wrapped to the terminal on a terminal (a word
    wider than a line broken, unless ``whole_words``)."""
    for raw in (text or "").splitlines() or [""]:
        # Indentation and spacing kept: code, diffs and tables lose their sense without them.
        line = printable_line(raw.rstrip()) if raw.strip() else ""
        if not term.tty or not line or width_of(indent + line) <= term.width:
            yield (indent + line).rstrip()
            continue
        lead = line[:len(line) - len(line.lstrip())]
        # A line's own indentation is kept while it leaves 20 columns; deeper (the 31 spaces of
        # a compaction prompt's list, under a subagent) it is cut to that, as the terminal's width
        # is kept: the line no longer wrapped 20 columns at a time past a 40-column pane's edge.
        lead = lead[:max(0, term.width - len(indent) - 20)]
        yield from wrap_columns(line.lstrip(), max(term.width, len(indent + lead) + 20), indent=indent + lead,
                                subsequent=indent + lead, break_long_words=not whole_words)


def page(lines: Iterator[str], term: Terminal, *, use_pager: bool) -> None:
    """Through ``$PAGER`` (else ``less -R``) on a terminal, as git does; straight out otherwise."""
    text = "\n".join(lines) + "\n"
    command = _pager_command() if term.tty and use_pager else None
    if command is None:
        write_out(text)
        return
    import subprocess

    env = dict(os.environ)
    env.setdefault("LESS", "FRX")  # quit if one screen, keep colours, leave the text on screen
    interrupted: list[int] = []
    restore = _sigint_held(interrupted)
    try:
        try:
            pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
        except OSError:
            write_out(text)
            return
        try:
            assert pager.stdin is not None
            pager.stdin.write(text.encode("utf-8", "replace"))
            pager.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # the reader quit early: fine
        pager.wait()
    finally:
        restore()
    if interrupted:
        raise KeyboardInterrupt  # once the pager is gone: exit 130, as a Ctrl-C elsewhere


def _sigint_held(interrupted: list[int]) -> Callable[[], None]:
    """While the pager runs, a Ctrl-C (sent to the whole foreground group) is the pager's
    (``less`` stops a search, and stays): noted here, acted on once it quit, as git does.
    This process exited at once, and the shell's prompt came back with ``less`` still reading
    the terminal: the keys typed next went half to it, half to the shell.  Returns what puts
    the handler back; a handler the caller set (or SIG_IGN) is left alone."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return lambda: None
    # A function, not SIG_IGN: the pager inherits the default, not an ignored Ctrl-C.
    signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))

    def restore() -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)

    return restore


def _pager_command() -> str | None:
    import shutil

    configured = os.environ.get("PAGER")
    if configured is not None:
        configured = configured.strip()
        return None if configured in ("", "cat") else configured
    return "less -R" if shutil.which("less") else None
