"""What a command printed, kept to be printed again (``cli.tokens_answer``, ``cli.list_answer``).

A remembered answer (``scan.answers``) is printed without the modules that made
it: it must be stored in a form that needs none of them, JSON included (orjson
imports ``dataclasses``, ``inspect`` and ``uuid``: a sixth of a warm run).  So a
table is kept as its text (stdout) and the notes under it (stderr), framed
(``sealing.framed``); a JSON body as the bytes printed.
"""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, TypeVar

from agentscan.cli import render
from agentscan.cli import term as terminal
from agentscan.cli.state import end_progress
from agentscan.scan import answers
from agentscan.sealing import framed, unframed

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.scan.answers import Recalled
    from agentscan.scan.scanner import Scanner

T = TypeVar("T")


class Recorder(io.StringIO):
    """Text meant for ``stream``, kept: it answers ``isatty`` and ``fileno`` as ``stream``
    does, so what is printed (hints only on a terminal, wrapped to its width) is the same."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self._stream = stream

    def isatty(self) -> bool:
        try:
            return bool(self._stream.isatty())
        except (AttributeError, ValueError):
            return False

    def fileno(self) -> int:
        return int(self._stream.fileno())

    @property
    def encoding(self) -> str | None:  # type: ignore[override]
        """``stream``'s: a path cut from its start is given ``...`` where it cannot hold ``…``
        (``term.cut_left_mark``), as it is when printed straight to it."""
        return getattr(self._stream, "encoding", None)


def recording(make: Callable[[], T]) -> tuple[T, str, str]:
    """``make()``'s result, and what it printed on stdout and stderr, kept instead."""
    out, err = Recorder(sys.stdout), Recorder(sys.stderr)
    with redirect_stdout(out), redirect_stderr(err):
        result = make()
    return result, out.getvalue(), err.getvalue()


def terminal_facts(term: Terminal) -> list[Any]:
    """What a table printed on ``term`` depends on besides its rows: the width, colour,
    which streams are terminals (hints only there), ``--quiet``, ``$HOME`` (paths are
    shown as ``~/…`` on a terminal), what a cut path begins with (``…``, or ``...`` on a
    stdout that cannot hold it) and the home options a hint's command names (``--home DIR``:
    ``--home ~`` reads ``$HOME``'s answer, whose hints said a bare ``agentscan show``).  Part
    of a remembered table's question."""
    from agentscan.invocation import running_home

    return [term.tty, term.width, term.color, terminal.stderr_is_tty(), terminal.quiet(), os.environ.get("HOME"),
            terminal.cut_left_mark(), running_home[0]]


def stored_text(out: str, err: str) -> bytes:
    """A command's text (stdout) and the notes under it (stderr) as one value."""
    # ``surrogatepass``: what a terminal could not show is kept as it was.
    return framed(out.encode("utf-8", "surrogatepass"), err.encode("utf-8", "surrogatepass"))


def text_of(value: bytes) -> tuple[str, str] | None:
    """``stored_text``'s ``(out, err)``; ``None``: not of that shape."""
    parts = unframed(value)
    if parts is None:
        return None
    try:
        return parts[0].decode("utf-8", "surrogatepass"), parts[1].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


class Printable(NamedTuple):
    """A remembered answer, checked: the JSON body, or the text and its notes."""

    body: bytes | None
    text: tuple[str, str] | None


def printable(answer: bytes, as_json: bool) -> Printable | None:
    """``answer`` as stored, checked; ``None``: not of the expected shape (damaged, or
    another format): it is made again."""
    if as_json:
        return Printable(answer, None) if answer.startswith(b"{\n") and answer.endswith(b"\n}") else None
    text = text_of(answer)
    return Printable(None, text) if text is not None else None


def print_again(command: str, printed: Printable, scanner: Scanner, recalled: Recalled) -> None:
    """Print a remembered answer as it was printed, its warnings said again first (only
    now: an answer that is not printed is made, and says its own): the JSON in its
    envelope with this run's warnings, or the text (``cli.state.finish`` says them after)."""
    answers.say_again(scanner, recalled)
    end_progress()
    if printed.body is not None:
        render.emit_json_body(command, printed.body, scanner.ctx.warnings.listed())
        return
    assert printed.text is not None
    write(*printed.text)


def write(out: str, err: str) -> None:
    """Print what ``recording`` kept."""
    terminal.write_out(out)
    sys.stdout.flush()
    sys.stderr.write(render.for_stderr(err))
