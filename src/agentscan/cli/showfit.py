"""Fitting ``show``'s lines to a terminal without breaking what they say: where a tool
call's path ends in its summary, and the ``tokens`` line broken between its terms."""

from __future__ import annotations

from typing import Iterable

from agentscan.cli.term import Terminal, clean, width_of, wrap_columns


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
