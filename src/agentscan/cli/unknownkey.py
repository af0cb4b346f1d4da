"""What a grouped table's ``unknown`` row is, said under it on a terminal: ``unknown (250
runs)`` under AGENT, or ``unknown`` under CWD, named nothing a newcomer could look up."""

from __future__ import annotations

from agentscan.scan.rowkeys import NO_MODEL, UNTIMED
from agentscan.scan.tokenagents import UNKNOWN
from agentscan.scan.tokencwd import NO_CWD

#: by grouping, what its ``unknown`` key holds (docs/cli.md, ``tokens --by``)
_WHAT = {
    # (any agent's: a Claude Code run with no ``.meta.json`` nor call that started it, Gemini
    # CLI's subagents; "(Explore, Plan and such)" named Claude Code's kinds under a Gemini row)
    "agent": (UNKNOWN, "subagents whose kind was not recorded"),
    "cwd": (NO_CWD, "sessions whose working directory is not recorded"),
    "model": (NO_MODEL, "calls whose model is not recorded"),
    **{period: (UNTIMED, "calls whose time is not recorded") for period in ("day", "week", "month")},
}


def unknown_note(by: str, keys: list[str]) -> str | None:
    """The line under a table grouped ``by`` whose rows' ``keys`` (their first cell, a
    droppable tail such as ``(250 runs)`` after it) hold its ``unknown`` one; ``None``: none."""
    key, what = _WHAT.get(by, (None, ""))
    if key is None or not any(shown == key or shown.startswith(f"{key} (") for shown in keys):
        return None
    return f"{key}: {what}"
