"""What a command printed, kept to be printed again (``cli.tokens_answer``, ``cli.list_answer``).

A remembered answer (``scan.answers``) is printed without the modules that made
it: it must be stored in a form that needs none of them, JSON included (orjson
imports ``dataclasses``, ``inspect`` and ``uuid``: a sixth of a warm run).
"""

from __future__ import annotations

import io
from typing import Any

from agentscan.sealing import framed, unframed


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
