"""Fitting ``show``'s lines to a terminal without breaking what they say: where a tool
call's path ends in its summary, the ``tokens`` line broken between its terms, the
tool calls' heading, which says whose calls are shown and how many of how many, and
whose prompts and reply the card shows when a subagent is in focus."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple

from agentscan.cli.render import model_text, plural
from agentscan.cli.show_lineage import copied_listed
from agentscan.cli.term import Terminal, clean, cut, width_of, wrap_columns

if TYPE_CHECKING:
    from agentscan.detailmodel import Prompt, Response, SessionDetail


def leading_path(text: str, paths: Iterable[str]) -> str | None:
    """The path ``text`` starts with: one the call names (``ToolEvent.paths``), the longest,
    ending where a word does; with none named, a text of one word that reads as an absolute
    path (``/…``, ``~/…``)."""
    named = [shown for shown in map(clean, paths) if shown and text.startswith(shown)
             and (len(shown) == len(text) or text[len(shown)] in " \t:,;(")]
    if named:
        return max(named, key=len)
    if " " not in text and text.startswith(("/", "~/")) and "/" in text[1:]:
        return text
    return None


def tokens_field(value: str, term: Terminal) -> list[str]:
    """``tokens_line``'s text under its label, broken only between its terms, never inside
    one (``83,968 cache⏎read`` read as two figures): after ``=``, or before a ``+`` that
    opens the next line, as a sum is written.  A term wider than a line alone is wrapped at
    its spaces (nothing else can be done at that width)."""
    head, equals, tail = value.partition(" = ")
    first, *rest = tail.split(" + ")
    terms = [f"{head} =", first, *(f"+ {piece}" for piece in rest)] if equals else [value]
    lines: list[str] = []
    line: str | None = None
    for piece in terms:
        if line is not None and width_of(f"{line} {piece}") <= term.width:
            line = f"{line} {piece}"
            continue
        if line is not None:
            lines.append(line)
        lead = f"  {'tokens':<8} " if not lines else " " * 11
        if width_of(lead + piece) <= term.width:
            line = lead + piece
        else:
            *done, line = wrap_columns(piece, term.width, indent=lead, subsequent=" " * 11)
            lines += done
    return [*lines, line] if line is not None else lines


class FocusedCalls(NamedTuple):
    """The subagent in focus, as the card names it, and how many of the calls kept are its."""

    name: str
    calls: int


def tools_heading(detail: SessionDetail, shown: int, focus: FocusedCalls | None = None, *, grouped: bool = True) -> str:
    """``4,000 own, newest 15 shown``: how many calls were read, as the prompts' heading says
    (``newest 10 of 4,001``), those the bounds dropped included (``bounded:`` says how many);
    ``focus``: the calls shown are that subagent's (``…; 30 by aec1623e, its newest 15 shown``).
    ``grouped``: counts with thousands separators, a terminal's (a pipe's plain, as the card's)."""
    n = _grouped if grouped else str
    kept = len(detail.tools)
    theirs = sum(1 for tool in detail.tools if tool.subagent)
    own = kept - theirs
    dropped = detail.truncated.get("tools", 0)
    # The shown calls are the focused run's, not the session's newest: that is said instead.
    focus_shown = focus is not None and focus.calls > 0
    tail = "" if focus is None else "; " + _focus_clause(focus, shown, kept, dropped, n)
    # With the parent transcript gone there is no "own" to speak of: the counts above
    # are the subagents' (``parent``), and "0 own" beside them read as a contradiction.
    orphans = bool(detail.extra.get("parent_missing")) and not own
    # A dropped call is counted, not kept: whose it was is known only when every call is
    # the session's own or every one its subagents'.
    if dropped and not theirs and not detail.subagents:
        own += dropped
    elif dropped and orphans:
        theirs += dropped
    elif dropped:
        their_part = f"; {n(theirs)} of the newest {n(kept)} by subagents" if theirs else ""
        return (f"{n(kept + dropped)} in all" if focus_shown else f"newest {shown} of {n(kept + dropped)}") + their_part + tail
    # A resumed session's copies of a gone one's records, listed: not its own calls, nor its
    # subagents' (the card's counts are its own: ``show_lineage.copied_listed``).
    copies = 0
    if not dropped:
        copied = copied_listed(detail)  # (read as the card's counts read it: all 0 for none)
        mine = max(0, own - copied["tool_calls"])
        mine_theirs = max(0, theirs - copied["subagent_tool_calls"])
        copies, own, theirs = own - mine + theirs - mine_theirs, mine, mine_theirs
    if not theirs and not copies and not detail.subagents and not orphans and focus is None:
        # No subagent: "25 own" said "own" as against nothing; said as the prompts' heading says it.
        return f"newest {shown} of {n(own)}" if shown < own else f"{n(own)}"
    parts = [] if orphans else [plural(own, "own", "own") if grouped else f"{own} own"]
    if theirs:
        parts.append(f"{n(theirs)} by subagents")
    if copies:
        parts.append(f"{n(copies)} copied")
    if shown < own + theirs + copies and not focus_shown:
        parts.append(f"newest {shown} shown")
    return ", ".join(parts) + tail


def _focus_clause(focus: FocusedCalls, shown: int, kept: int, dropped: int, n: Callable[[int], str] = str) -> str:
    """``30 by aec1623e, its newest 15 shown``; ``none by aec1623e`` (the session's newest shown)."""
    if not focus.calls:
        # A dropped call's run is not known: its calls may be among them.
        return f"none of the newest {n(kept)} by {focus.name}" if dropped else f"none by {focus.name}"
    which = f"its newest {shown} shown" if shown < focus.calls else "all shown" if shown > 1 else "shown"
    return f"{n(focus.calls)} {'of them ' if dropped else ''}by {focus.name}, {which}"


def _grouped(value: int) -> str:
    return f"{value:,}"


def heading_lines(heading: str, term: Terminal) -> list[str]:
    """A section's heading, wrapped inside its parenthesis on a terminal too narrow for it
    (a focused subagent's clause made the tool calls' one long); whole in a pipe."""
    if not term.tty or width_of(heading) <= term.width:
        return [heading]
    return wrap_columns(heading, term.width, subsequent=" " * (heading.index("(") + 1))


class FocusedTalk(NamedTuple):
    """What the subagent in focus (``show <subagent id>``) was asked and answered, as the
    card shows it in place of the parent's prompts and last reply."""

    prompts: tuple[Prompt, ...]
    responses: tuple[Response, ...]
    #: the session's own prompts and replies stand for the run's: its parent transcript is
    #: gone and the providers then give every subagent's as the session's (``parent_missing``)
    from_session: bool = False


def focused_talk(detail: SessionDetail) -> FocusedTalk | None:
    """The focused run's own prompts and replies (``SubagentInfo.prompts``/``responses``);
    ``None``: no subagent in focus.  The parent's are never given as the run's: a run whose
    talk the provider did not record gets none (``talk_clause`` says so)."""
    if detail.focused_id is None:
        return None
    run = detail.focused_run()
    prompts, responses = (run.prompts, run.responses) if run is not None else ((), ())
    if not prompts and not responses and detail.extra.get("parent_missing"):
        return FocusedTalk(detail.prompts, detail.responses, from_session=True)
    return FocusedTalk(prompts, responses)


def talk_clause(detail: SessionDetail, talk: FocusedTalk) -> str:
    """What the focus line adds about the run's prompts and reply, where the card does not
    show them plainly: ``; no response of its recorded``; ``""`` when both are shown."""
    if talk.from_session:
        if len(detail.subagents) == 1:
            return "; the prompts and response below are its own (the parent's transcript is missing)"
        return "; its prompts and responses are among its subagents' below (the parent's transcript is missing)"
    missing = {what: kind for what, kind, said in (("prompt", "prompts", talk.prompts),
                                                    ("response", "responses", talk.responses)) if not said}
    if not missing:
        return ""
    # Other runs' talk may have filled the bounds (one pool for every subagent): its own dropped.
    dropped = any(detail.truncated.get(f"subagent_{kind}") for kind in missing.values())
    where = "kept" if dropped else "recorded"
    return f"; no {' or '.join(missing)} of its {where}"


#: the card's fields whose value is one word to copy (``agentscan prices MODEL``, ``git switch BRANCH``)
WORDS = frozenset({"model", "branch"})


def word_field(label: str, value: str, term: Terminal) -> list[str]:
    """A model or branch of one word too wide for its line: whole on a line of its own under
    its label, as a path goes, where it fits there; else a model as ``list`` names it
    (``sonnet-4.5``); else cut with ``…`` (a pipe and ``--json`` have it whole).  Kept whole
    whatever its width, it ran past a 40-column pane, the one line of the card that did."""
    if width_of(f"    {value}") <= term.width:
        return [f"  {label}", f"    {value}"]
    if label == "model":
        short = model_text(value, term)
        if width_of(f"  {label:<8} {short}") <= term.width:
            return [f"  {label:<8} {short}"]
    return [f"  {label:<8} {cut(value, term.width - 11)}"]
