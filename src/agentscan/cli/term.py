"""What the terminal can take: is stdout a terminal, how wide, colour or not.

Every human output goes through ``terminal()``, so tests can force a
terminal (or a pipe) and a width in one place: set ``COLUMNS`` and
monkeypatch ``stdout_is_tty``.  Nothing here imports more than the stdlib and
``cli.charset`` and ``cli.wrapping``, which import only the stdlib.
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple

from agentscan.cli.charset import cannot_encode_all, cannot_hold, char_width, left_mark, width_of
from agentscan.cli.wrapping import no_widows, wrap_columns  # noqa: F401 - ``wrap_columns``: the CLI's name for it

TYPE_CHECKING = False  # typing itself is not imported (as in agentscan/__init__.py)
if TYPE_CHECKING:
    pass

DEFAULT_WIDTH = 80
ELLIPSIS = "…"

_STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def stdout_is_tty() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stdout
        return False


_quiet = False


def set_quiet(on: bool) -> None:
    """``--quiet``: no hints, progress or warning summary on stderr (errors still print)."""
    global _quiet
    _quiet = on


def quiet() -> bool:
    return _quiet


def stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Terminal(NamedTuple):
    """``tty``: fit rows to ``width`` and abbreviate; otherwise print whole values.

    A named tuple, as are the other values every command makes at start-up (``Bounds``,
    ``Root``, ``Column``, ``PriceData``, ``Period``): a frozen dataclass costs about a
    millisecond to create on import (it compiles six methods), a named tuple a tenth of it."""

    tty: bool
    width: int
    color: bool

    def style(self, text: str, *styles: str) -> str:
        if not self.color or not styles or not text:
            return text
        codes = ";".join(_STYLES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def wrap(text: str, width: int, *, indent: str = "", subsequent: str | None = None,
         break_long_words: bool = True, lead_kept: bool = False) -> list[str]:
    """Prose (a hint, a finding) wrapped to ``width``: never cut.  A word (a path,
    a number), a time, a `command` and an option with its value (``--since 2026-11-01``,
    ``--by day``: ``VALUED``) stay on one line unless longer than a line (then cut, unless
    not ``break_long_words``: a path to copy is left whole).  ``lead_kept``: a short word is
    not left alone above a word wider than a line (``wrapping.no_widows``: an error's ``Try``)."""
    import re
    import textwrap

    subsequent = indent + "  " if subsequent is None else subsequent
    # A time ("2026-11-29 16:30") and a `quoted command` are kept on one line: their spaces
    # are made unbreakable for textwrap, then given back.
    glued = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d|`[^`\n]+`", lambda m: m.group(0).replace(" ", GLUE), text)
    # And an option with its value, or a run of them ("--since 2026-11-01 --tz UTC"): copied
    # from a note wrapped between ``--since`` and its date, the option came without it.  Only
    # where it fits on a line: a run longer than one keeps each option with its value, and
    # one longer still is wrapped as words (glued, textwrap would cut it mid-word).
    room = max(width, 20) - max(width_of(indent), width_of(subsequent))

    def kept(match: re.Match[str]) -> str:
        found = match.group(0)
        if width_of(found) <= room:
            return found.replace(" ", GLUE)
        return re.sub(_OPTION, lambda one: one.group(0).replace(" ", GLUE) if width_of(one.group(0)) <= room
                      else one.group(0), found)

    glued = re.sub(_OPTION_RUN, kept, glued)
    if not break_long_words:
        # A path to copy stays whole even where a folder's name has a space in it
        # (macOS's "~/Library/Application Support/Cursor/…"): a space between two parts of a path.
        glued = re.sub(r"(/[^\s/]+) (?=[^\s/]+/)", lambda m: m.group(1) + GLUE, glued)
    width = max(width, 20)
    if text.isascii() and indent.isascii() and subsequent.isascii():
        lines = textwrap.wrap(glued, width=width, initial_indent=indent, subsequent_indent=subsequent,
                              break_long_words=break_long_words, break_on_hyphens=False)
    else:
        # ``textwrap`` counts characters: a CJK path (two columns a character) ran past the
        # terminal.  Columns are counted as a table counts them (``charset.width_of``).
        lines = wrap_columns(re.sub(r"[ \t\n\r\f\v]+", " ", glued).strip(), width, indent=indent, subsequent=subsequent,
                             break_long_words=break_long_words)
    if lead_kept:
        lines = no_widows(lines, width, indent, subsequent)
    return [line.replace(GLUE, " ") for line in lines] or [indent + text]


#: a space ``wrap`` never breaks a line at (textwrap does not break at a no-break space):
#: ``render.unbroken`` glues a name with it
GLUE = "\u00a0"

#: the options a note names with a value (``--by day``), which ``wrap`` keeps with it; a
#: flag (``--all lists each``) has none
VALUED = ("--since", "--until", "--by", "--tz", "--sort", "--limit", "-n", "--provider", "-p", "--cwd", "--grep",
          "--format", "-f", "--output", "-o", "--home", "--at")
_OPTION = rf"(?<![\w-])(?:{'|'.join(VALUED)}) (?:[^\s-]\S*|-(?![^\s,;:)]))"  # (``-o -``: stdout)
#: an option and its value, or several in a row (``--since 2026-11-01 --tz UTC``; not across a
#: comma: ``--since 2026-11-01, --by day`` are two)
_OPTION_RUN = rf"{_OPTION}(?:(?<![,;:]) {_OPTION})*"


def terminal_width() -> int:
    """``COLUMNS`` when set (as git and gh honour it), else the tty's size, else 80."""
    value = os.environ.get("COLUMNS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    for stream in (sys.stdout, sys.stderr):
        try:
            return os.get_terminal_size(stream.fileno()).columns or DEFAULT_WIDTH
        except (AttributeError, OSError, ValueError):
            continue
    return DEFAULT_WIDTH


#: values that ask for no colour where a variable forces it (chalk's ``FORCE_COLOR=0``; a
#: cron line's ``FORCE_COLOR=false``): set so, the user did not ask for colour in a pipe
_OFF = ("0", "false", "no", "off")


def colored(tty: bool) -> bool:
    """Colour on stdout: on a terminal, unless asked not to; in a pipe only when asked to
    (``FORCE_COLOR=1 agentscan list | less -R``).  The order is CMake's and bixense.com's:
    ``NO_COLOR`` (no-color.org) wins, then ``CLICOLOR_FORCE`` or ``FORCE_COLOR`` (force-color.org)
    set to anything but ``0`` force it (over ``TERM=dumb``, as for ``ls`` and Python 3.13),
    then ``CLICOLOR=0``, ``FORCE_COLOR=0`` or ``TERM=dumb`` turn it off; empty counts as unset
    (``NO_COLOR= cmd``)."""
    env = os.environ
    if env.get("NO_COLOR"):
        return False
    forced = [env.get(name, "").strip().lower() for name in ("CLICOLOR_FORCE", "FORCE_COLOR")]
    if any(value and value not in _OFF for value in forced):
        return True
    if forced[1] in _OFF or env.get("CLICOLOR", "").strip() == "0":
        return False
    return tty and env.get("TERM") != "dumb"


def terminal() -> Terminal:
    tty = stdout_is_tty()
    return Terminal(tty=tty, width=max(terminal_width(), 20), color=colored(tty))


# --- text that fits ----------------------------------------------------------


#: format characters that are part of the text, not of its display: the zero-width
#: non-joiner and joiner (Persian, Indic scripts, emoji sequences such as 👨\u200d💻).
#: ``isprintable`` refuses every format character; the others (bidi overrides and
#: isolates, which can reorder what a line seems to say) stay refused.
_JOINERS = frozenset("\u200c\u200d")


def clean(text: str | None) -> str:
    """One line of printable text: whitespace runs become one space and control
    characters (an escape sequence planted in a title) become U+FFFD."""
    if not text:
        return ""
    return clean_path(" ".join(text.split()))


def title_text(text: str | None) -> str:
    """A title as ``clean`` makes it, without the Markdown a prompt is often written in
    (``titles.plain_title``: ``## Task: **read** the files`` reads ``Task: read the files``).
    ``--json`` keeps the title as recorded."""
    line = clean(text)
    if "#" not in line and "**" not in line:
        return line
    from agentscan.titles import plain_title

    return plain_title(line)


def write_out(text: str | bytes) -> None:
    """``text`` on stdout, whole, or a ``BrokenPipeError`` (``agentscan list | head``: exit 0,
    quietly, ``state.run_guarded``; an export to stdout so cut fails).  CPython's buffered
    stdout gives up the rest of one large write whose reader closed the pipe in the middle
    of it, and says nothing: a table of 400 KB piped to ``head`` ended 0 where its JSON,
    written in parts, ended 1.  So the process's own
    stdout is written here to the end, a part at a time; another stream (a test's, a
    recorder's) as it is."""
    stream, own = sys.stdout, sys.__stdout__
    if stream is None:
        return  # no stdout at all (a detached process): nothing to write to
    if own is None or stream is not own:
        if isinstance(text, bytes):
            stream.buffer.write(text)
        else:
            stream.write(text)
        return
    own.flush()
    data = memoryview(text if isinstance(text, bytes) else text.encode(own.encoding, own.errors or "strict"))
    fd = own.fileno()
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError as exc:
        from agentscan.cli.streams import reader_closed

        if reader_closed(exc):
            raise  # ``list | head``: no failure (``state.run_guarded``)
        from agentscan.errors import StdoutUnwritable

        raise StdoutUnwritable(exc.strerror or str(exc)) from None


def settle_streams() -> None:
    """``cli.streams.settle`` (stdout and stderr made safe to print anything to), imported
    only when a stream needs it, closed or unable to encode every character: most runs
    write UTF-8 to open streams, and pay for neither the module nor its classes."""
    if sys.stdout is None or sys.stderr is None or cannot_encode_all(sys.stdout) or cannot_encode_all(sys.stderr):
        from agentscan.cli import streams

        streams.settle()


def clean_path(text: str | None) -> str:
    """A path on one line, as recorded: its spaces kept (``cd`` into ``two  spaces`` needs
    both, and ``list --cwd`` given the path a table printed must find it again), control
    characters (a newline, an escape sequence) U+FFFD."""
    if not text:
        return ""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in _JOINERS else "\ufffd" for ch in text)


def printable_line(text: str) -> str:
    """``clean`` for one line shown as written (code, a diff, a table): its spaces and
    indentation kept, a tab as four spaces, control characters U+FFFD."""
    return clean_path(text.expandtabs(4))


def cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns, ending in ``…`` when anything was cut."""
    if width_of(text) <= width:
        return text
    if width <= 0:
        return ""
    if text.isascii():
        return text[: width - 1] + ELLIPSIS
    used = 0
    kept = []
    for ch in text:
        w = char_width(ch)
        if used + w > width - 1:
            break
        kept.append(ch)
        used += w
    return "".join(kept) + ELLIPSIS


def cut_left(text: str, width: int) -> str:
    """Cut from the start, for paths: the end (the project) is what tells them apart.  It
    begins with ``cut_left_mark()``: ``…``, or ``...`` on a stdout that cannot hold ``…``."""
    if width_of(text) <= width:
        return text
    if width <= 0:
        return ""
    mark = cut_left_mark()
    room = width - len(mark)  # (the mark is one column a character)
    if room < 0:  # (``...`` in 1 or 2 columns; at 0 room a zero-width character still follows)
        return mark[:width]
    if text.isascii():
        tail = text[len(text) - room:]  # a column a character
    else:
        kept = []
        used = 0
        for ch in reversed(text):
            w = char_width(ch)
            if used + w > room:
                break
            kept.append(ch)
            used += w
        tail = "".join(reversed(kept))
    # Start at a path separator when one is left: "…/weather-app", not "…ather-app".
    for index, ch in enumerate(tail):
        if ch in "/\\" and index + 1 < len(tail):
            return mark + tail[index:]
    return mark + tail


def cut_left_mark() -> str:
    """What ``cut_left`` starts a cut path with: ``…``, or ``...`` where stdout cannot hold it
    (``PYTHONIOENCODING=ascii``), whose stand-in for ``…`` (``~``) would read as the home."""
    return left_mark(sys.stdout, ELLIPSIS)


def home_short_text(text: str) -> str:
    """Every ``$HOME/…`` path inside prose (a finding, a message) shown as ``~/…``."""
    import re

    home = os.path.expanduser("~").rstrip("/\\")
    if not text or not home or home in ("/", "~") or home not in text:
        return text
    # Only a whole path component: /home/me-other and /x/home/me stay as they are.
    return re.sub(r"(?<![\w./\\-])" + re.escape(home) + r"(?=[/\\]|$|[\s:;,)'\"])", "~", text)


def home_short(path: str | None) -> str:
    """``$HOME/x`` as ``~/x``: shorter, and the same on every machine."""
    if not path:
        return ""
    home = os.path.expanduser("~").rstrip("/\\")
    if not home or home in ("/", "~"):
        return path
    if path == home:
        return "~"
    for sep in ("/", "\\"):
        if path.startswith(home + sep):
            return "~" + path[len(home):]
    return path


def fitted_error(line: str) -> str:
    """An ``error: …`` line (or a ``hint:`` or a candidate under it) wrapped to the terminal
    when stderr is one, as a note is (the bare-id hint was 103 columns in a 40-column pane); a
    command to copy (``Try: agentscan --demo show 7f3c9a12``, a `quoted` one, ``Try 'agentscan
    list --help' for help``), an id and a path kept whole; a line's own indent (an ambiguous id's
    candidate, ``  claude:…``) kept, its continuation lines two spaces further in.  A pipe
    gets it on one line."""
    if not stderr_is_tty():
        return line
    import re

    glued = re.sub(r"(?<=Try: )[^()\n]*?(?= \(|$)|(?<=^Try ')[^'\n]*(?=' for help)",
                   lambda m: m.group(0).replace(" ", GLUE), line)
    body = glued.lstrip(" ")
    return "\n".join(wrap(body, terminal_width(), indent=glued[: len(glued) - len(body)], break_long_words=False,
                          lead_kept=True))


def error_line(line: str) -> None:
    """One line of an error on stderr (``state.say_error``'s every line): printable (a detail
    may quote a path or a reply: none may move the cursor or write the clipboard), and
    ``fitted_error``; an ambiguous id's hint, printed apart, ran 68 columns wide in a
    40-column pane under its wrapped ``error:`` line."""
    print(for_stderr(fitted_error(printable_line(line))), file=sys.stderr)


def for_stderr(text: str) -> str:
    """``text`` as stderr can show it: on one that cannot hold ``≥`` (``PYTHONIOENCODING=ascii``),
    each such character as a table writes it (``streams.stood_in``), not as stderr's own
    ``\\u2265``: an error naming a CJK path said ``'/tmp/\\u9879\\u76ee'``.  A note recorded
    for a remembered answer (``cli.recorded``) keeps its characters: it is fitted as it is printed."""
    if text.isascii() or not cannot_hold(sys.stderr):
        return text
    from agentscan.cli.streams import stood_in

    return stood_in(text, sys.stderr)
