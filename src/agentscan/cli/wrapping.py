"""Lines wrapped to a terminal's columns, not characters (``term.wrap``'s, and the card's
and notes' own): a CJK character takes two.  Nothing here imports more than the stdlib and
``cli.charset``, which imports only the stdlib."""

from __future__ import annotations

from agentscan.cli.charset import char_width, width_of


def wrap_columns(text: str, width: int, *, indent: str = "", subsequent: str = "",
                 break_long_words: bool = True) -> list[str]:
    """``text`` (one line, as ``clean`` makes it) wrapped at its spaces to ``width`` terminal
    columns, a word wider than a line broken where it must be (unless not
    ``break_long_words``: an id to copy is left whole, for the terminal to fold):
    ``textwrap`` counts characters, so a line of CJK or emoji (two columns each, often no
    space at all) came out twice as wide as the terminal.  ASCII text goes to ``textwrap``."""
    if text.isascii() and indent.isascii() and subsequent.isascii():
        import textwrap

        return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=subsequent,
                             break_long_words=break_long_words, break_on_hyphens=False) or [indent.rstrip()]
    lines: list[str] = []
    line, used, empty = indent, width_of(indent), True
    for word in text.split(" "):
        if not word:
            continue
        size = width_of(word)
        if not empty and used + 1 + size <= width:
            line, used = f"{line} {word}", used + 1 + size
            continue
        if not empty:
            lines.append(line)
            line, used, empty = subsequent, width_of(subsequent), True
        if not break_long_words:
            line, used, empty = line + word, used + size, False
            continue
        for ch in word:  # a zero-width character stays with the one before it
            columns = char_width(ch)
            if columns and not empty and used + columns > width:
                lines.append(line)
                line, used = subsequent, width_of(subsequent)
            line, used, empty = line + ch, used + columns, False
    lines.append(line)
    return lines


#: the widest word ``no_widows`` keeps with what follows it (``Try``, ``hint:``, ``home:``)
_WIDOW = 6


def no_widows(lines: list[str], width: int, indent: str, subsequent: str) -> list[str]:
    """``lines`` without a short word left alone above a word wider than a line (a command to
    copy, kept whole): ``Try`` on a line of its own, then ``'agentscan list --help'`` running
    past the terminal anyway.  That word goes on the short word's line: it runs past the
    terminal as far either way, and the line above it no longer reads as cut off.  A word that
    fits its own line only by a few columns (``'/opt/tools/bin/agentscan --help'`` at 40) stays
    there, whole: the short word above it then ends in a colon (``Try:``), as the error's
    other commands to copy are led in (``Try:`` then the command), and no longer reads as cut."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if index + 1 < len(lines):
            word = line[len(indent if index == 0 else subsequent):]
            following = lines[index + 1][len(subsequent):]
            if word and " " not in word and width_of(word) <= _WIDOW and following and " " not in following:
                if width_of(subsequent + following) > width:
                    out.append(f"{line} {following}")
                    index += 2
                    continue
                if index == 0 and word.isalpha() and word[0].isupper():  # a lead (``Try``), not a word mid-prose
                    line += ":"
        out.append(line)
        index += 1
    return out
