"""A failed tool call's error as ``show`` lists it (``ToolEvent.error``), for every provider
alike: the text the record holds, on one line, cut at ``ERROR_CHARS``."""

from __future__ import annotations

import re

#: characters of a failed call's error text: one line under the call (``show --full``)
ERROR_CHARS = 200
#: characters of a huge output read for it (a failed command's whole log need not be)
_READ_CHARS = 65_536
_WHITESPACE = re.compile(r"\s+")


def error_line(text: object) -> str | None:
    """``text`` on one line (its runs of whitespace one space), cut at ``ERROR_CHARS`` with an
    ellipsis; ``None`` when it is no text, or only whitespace."""
    if not isinstance(text, str):
        return None
    line = _WHITESPACE.sub(" ", text[:_READ_CHARS]).strip()
    if len(line) > ERROR_CHARS:
        line = line[: ERROR_CHARS - 1].rstrip() + "…"
    return line or None
