"""What ``show`` says of where a Codex session came from and what came of it: its
``source`` (how Codex was run: ``codex exec``, the interactive CLI, an IDE extension, …)
and ``forked_as``, the sessions forked from it (the reverse of a fork's ``forked_from``).

The source is the thread's own ``session_meta``'s, read by ``show``'s pass over its
rollout (``SourceNote``): no other read.  The forks are the threads discovery knows whose
own header names this one in ``forked_from_id`` (``goneparent.forks_of``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from agentscan.context import ScanContext
from agentscan.providers.codex.records import as_str, payload_of

if TYPE_CHECKING:
    from agentscan.providers.codex.discovery import CodexSession

#: ``originator`` of builds that wrote no ``source`` (0.39's ``codex_vscode``), as the source
_ORIGINATORS = {"codex_exec": "exec", "codex_cli_rs": "cli", "codex_vscode": "vscode"}
#: a source longer than this, or not printable, is not one Codex writes: not said
_SOURCE_CHARS = 40
#: the most forks ``forked_as`` names (the newest); ``forked_as_total`` counts them all
FORKS_SHOWN = 20


def meta_source(meta: Mapping[str, Any]) -> str | None:
    """How Codex was run, from a ``session_meta`` payload: its ``source`` when a name
    (``exec``, ``cli``, ``vscode``, ``mcp``, …), ``subagent`` for a subagent's object, else
    what its ``originator`` implies (``codex_exec``: ``exec``); ``None``: not known (Codex's
    own ``unknown`` included)."""
    raw = meta.get("source")
    if isinstance(raw, dict) and "subagent" in raw:
        return "subagent"
    name = as_str(raw)
    if name is not None and name != "unknown" and len(name) <= _SOURCE_CHARS and name.isprintable():
        return name
    originator = as_str(meta.get("originator"))
    return _ORIGINATORS.get(originator) if originator else None


class SourceNote:
    """The source of one thread, from the first ``session_meta`` line of its own (its id the
    thread's: a fork's copy of its parent's meta is not) among the lines ``note`` is given."""

    __slots__ = ("thread_id", "found", "source")

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id.lower()
        self.found = False
        self.source: str | None = None

    def note(self, record: Mapping[str, Any]) -> None:
        if self.found or record.get("type") != "session_meta":
            return
        meta = payload_of(record)
        own = as_str(meta.get("id")) or as_str(meta.get("session_id"))
        if own is not None and own.lower() == self.thread_id:
            self.found = True
            self.source = meta_source(meta)


def forks_extra(session: CodexSession, ctx: ScanContext) -> dict[str, Any]:
    """``show``'s ``forked_as``: the sessions forked from ``session``'s main thread, as
    ``codex:<id>``, the newest ``FORKS_SHOWN`` oldest first, with ``forked_as_total`` when
    there are more; ``{}`` when none."""
    from agentscan.providers.codex.goneparent import forks_of

    if session.main is None:
        return {}
    found = [thread_id for _, thread_id, thread in forks_of(session.main.thread_id, ctx) if thread is not session.main]
    if not found:
        return {}
    extra: dict[str, Any] = {"forked_as": [f"codex:{thread_id}" for thread_id in found[-FORKS_SHOWN:]]}
    if len(found) > FORKS_SHOWN:
        extra["forked_as_total"] = len(found)
    return extra
