"""``--help`` on a narrow terminal: wrapped to its width, as every other output is.

click lays help out at least 50 columns wide whatever the terminal (``HelpFormatter``:
``max(min(columns, 80) - 2, 50)``), so on a 40-column terminal every ``--help`` line
of options came out 44 to 50 wide, each folded by the terminal in two.  This formatter
takes the terminal's width below that, and where the text beside the options would be a
column of a few words (``--install-completion`` leaves 14 columns at 40), puts each
option's text under it instead, as ``man`` does.  At 52 columns and more nothing changes:
the top-level help printed from its snapshot (``static_help``, at 80 and wider) stays
Typer's own text.

``examples`` lines (``options.examples``) are never rewrapped: a command to copy stays on
its line; its ``# comment``, too wide beside it, goes on the next line.
"""

from __future__ import annotations

from typing import Any, Iterable

# Typer's own copy of click (typer >= 0.26: pyproject.toml), which its commands format with.
from typer._click import core, formatting
from typer._click.formatting import HelpFormatter, term_len, wrap_text

#: the least room the text of an option keeps beside it; under it, it goes under the option
MIN_TEXT = 24
#: the narrowest help is laid out (a terminal is taken as 20 columns wide at least)
MIN_WIDTH = 18
#: how far an option's text is indented under it, past the option's own indent
UNDER = 4


class NarrowHelpFormatter(HelpFormatter):
    """click's formatter, but no wider than a terminal narrower than click's 50 columns."""

    def __init__(self, indent_increment: int = 2, width: int | None = None, max_width: int | None = None) -> None:
        if width is None and formatting.FORCED_WIDTH is None:
            import shutil

            columns = shutil.get_terminal_size().columns
            if columns - 2 < 50:  # (click's floor: at or above it, its own width)
                width = max(columns - 2, MIN_WIDTH)
        super().__init__(indent_increment=indent_increment, width=width, max_width=max_width)
        #: the terminal's last column (help is laid out 2 short of it), which a usage line
        #: may reach: click's own does (``Usage: agentscan hooks install`` at 30)
        self.edge = self.width + 2

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        # Too narrow for the arguments beside it, click ends ``Usage: agentscan hooks install ``
        # with the space it put before them: at 30 columns a 31st, which the terminal folded
        # onto a line of its own.
        start = len(self.buffer)
        said = "Usage: " if prefix is None else prefix
        if self.current_indent + term_len(said + prog) > self.edge and " " in prog:
            # ``Usage: python -m agentscan hooks install`` is 40 columns, which click never
            # breaks: the program's words go on over the lines the arguments are on.
            self._write_long_usage(said, prog.split(" "), args)
        else:
            super().write_usage(prog, args, prefix)
        written = "".join(self.buffer[start:])
        del self.buffer[start:]
        self.write("\n".join(line.rstrip(" ") for line in written.split("\n")))

    def _write_long_usage(self, prefix: str, words: list[str], args: str) -> None:
        """``Usage:`` and the program's words that fit beside it (one at least), the rest of
        them and ``args`` wrapped under it, indented as click indents arguments it puts there."""
        first = f"{'':>{self.current_indent}}{prefix}{words[0]}"
        taken = 1
        while taken < len(words) and term_len(f"{first} {words[taken]}") <= self.edge:
            first, taken = f"{first} {words[taken]}", taken + 1
        indent = " " * (max(self.current_indent, term_len(prefix)) + 4)
        rest = " ".join([*words[taken:], *([args] if args else [])])
        self.write(first + "\n")
        if rest:
            self.write(wrap_text(rest, self.width - self.current_indent, initial_indent=indent, subsequent_indent=indent))
        self.write("\n")

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        rows = list(rows)
        first = min(max((term_len(term) for term, _ in rows), default=0), col_max) + col_spacing
        if self.width - first - 2 >= MIN_TEXT:
            super().write_dl(rows, col_max, col_spacing)
            return
        indent = self.current_indent + UNDER
        for term, text in rows:
            self.write(f"{'':>{self.current_indent}}{term}\n")
            if text:
                wrapped = wrap_text(text, max(self.width - indent, MIN_TEXT // 2), preserve_paragraphs=True)
                for line in wrapped.splitlines():
                    self.write(f"{'':>{indent}}{line}\n" if line else "\n")


def write_examples(formatter: Any, epilog: str) -> None:
    """The ``Examples:`` section of ``epilog``'s lines.  One wider than the help has its
    ``# comment`` on the next line, under the command, and a command wider still goes on
    over lines ended by `` \\`` (never between an option and its value: ``--since
    2026-11-01`` stays whole, unless the two are wider than a line), which a shell pasted
    it into reads as the one line."""
    import re

    with formatter.section("Examples"):
        indent = formatter.current_indent
        for line in epilog.splitlines():
            if indent + term_len(line) <= formatter.width:
                formatter.write(f"{'':>{indent}}{line}\n")
                continue
            command, _, comment = [part.strip() for part in re.split(r"(\s{2,}# )", line, maxsplit=1) + ["", ""]][:3]
            for part in _continued(command, formatter.width - indent):
                formatter.write(f"{'':>{indent}}{part}\n")
            room = max(formatter.width - indent - UNDER - 2, MIN_TEXT // 2)
            for said in wrap_text(comment, room).splitlines() if comment else ():
                formatter.write(f"{'':>{indent + UNDER}}# {said}\n")


def _continued(command: str, width: int) -> list[str]:
    """``command`` in lines of ``width`` (a line that cannot be broken is whole), each but
    the last ending in `` \\``, the others indented under the first."""
    import re

    # Each word alone, but an option with the word after it (its value, as ``--since 7d``),
    # and a quoted value whole.
    word = r"""(?:"[^"]*"|'[^']*'|\S+)"""
    pieces = re.findall(rf"-\S*(?: (?=[^-\s]){word})?|{word}", command)
    if not pieces:
        return [command]  # (only spaces: nothing to break)
    # An option and its value that would run past the terminal on a line of their own go on
    # two (``--endpoint \``, then the URL): at 30 columns ``--endpoint http://localhost:4318``
    # ran 8 past it; a shell reads the two lines as one all the same.  (``width`` keeps the
    # help's margin of two columns, which such a line may take.)
    room = width + 2 - UNDER - 2
    pieces = [part for piece in pieces
              for part in (piece.split(" ", 1) if term_len(piece) > room and piece.startswith("-") else [piece])]
    lines = [pieces[0]]
    for piece in pieces[1:]:
        if term_len(lines[-1]) + 1 + term_len(piece) + 2 <= width:
            lines[-1] += f" {piece}"
        else:
            lines.append(" " * UNDER + piece)
    return [f"{line} \\" for line in lines[:-1]] + lines[-1:]


def install() -> None:
    """Make every command's help (Typer's contexts are click's) use ``NarrowHelpFormatter``."""
    core.Context.formatter_class = NarrowHelpFormatter
