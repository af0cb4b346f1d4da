"""A command to copy from the screen (``agentscan trace ID``, ``agentscan show ID --full``),
fitted to the terminal by the one rule docs/cli.md gives: the session's whole id where the
line fits it, else the short id ``list`` shows (``claude:7f3c9a12``: the shortest prefix that
opens that session alone, ``Scanner.short_ids``), the command on a line of its own before
its id is shortened, always under the values (at a label's indent it read as a field of its
own); never cut or broken inside (a cut command pastes nothing), and wider than the terminal
only when even the short one is.  A pipe gets the whole id, as every
table gives it there."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from agentscan.cli.term import width_of

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.scan.scanner import Scanner

#: a session's whole id -> the short one ``list`` shows (itself when none is shorter)
ShortId = Callable[[str], str]


def short_ids_of(scanner: Scanner) -> ShortId:
    """``list``'s short id of a session of ``scanner``, asked only when a line needs it: it
    reads every session's id (``Scanner.short_ids``), a few milliseconds in a heavy home."""
    def short(session_id: str) -> str:
        return scanner.short_ids([session_id]).get(session_id, session_id)

    return short


def fitted(forms: Sequence[Callable[[str], Sequence[str]]], session_id: str, short_id: ShortId | None,
           width: int | None) -> list[str]:
    """The lines of the first of ``forms`` (each: the lines that say the command with an id)
    that fits ``width`` with the whole id, else the first that fits with the short id, else
    the last with the short one; ``width`` ``None`` (a pipe) or no ``short_id``: the first
    with the whole id, or the one that fits."""
    def fits(lines: Sequence[str]) -> bool:
        return width is None or all(width_of(line) <= width for line in lines)

    for form in forms:
        if fits(form(session_id)):
            return list(form(session_id))
    if short_id is None or width is None:
        return list(forms[-1](session_id))
    short = short_id(session_id)
    for form in forms:
        if fits(form(short)):
            return list(form(short))
    return list(forms[-1](short))


def card_command(said: str, joint: str, close: str, command: Callable[[str], str], session_id: str,
                 term: Terminal, short_id: ShortId | None) -> list[str]:
    """A ``show`` card's line that ends in a command to copy (``command``: it, of an id):
    on it after ``said`` (``joint`` and ``close`` around it), else on a line of its own under
    the card's values; the whole id where one of those fits it, else the short id
    (``fitted``), else that line past the terminal's width.  Never at the card's indent,
    where the command read as a field of its own (``  agentscan trace …`` under ``hooks``)."""
    return fitted([lambda shown: [f"{said}{joint}{command(shown)}{close}"],
                   lambda shown: [f"{said}:", f"{'':11}{command(shown)}"],
                   # At 30 columns ``  hooks    15 captured hook events:`` was itself too wide:
                   # wrapped under the card's values, as its other fields are.
                   lambda shown: [*_field_lines(f"{said}:", term.width), f"{'':11}{command(shown)}"]],
                  session_id, short_id, term.width if term.tty else None)


def _field_lines(said: str, width: int) -> list[str]:
    """``said`` (``  hooks    15 captured …``) wrapped to ``width``, its lines after the
    first under its value; a word (an id) is never broken."""
    import re

    from agentscan.cli.term import wrap_columns

    label = re.match(r" *\S+ +", said)
    if label is None:
        return [said]
    lead = label.group(0)
    return wrap_columns(said[len(lead):], width, indent=lead, subsequent=" " * len(lead), break_long_words=False)
