"""The compactions of a session's context (Claude's ``compact_boundary``, Codex's ``compacted``
line: a ``/compact`` or an automatic one) as ``show`` marks them: on the card's counts, among
its prompts, and in ``--full``'s conversation, from the detail's ``compactions`` and
``compacted``."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from agentscan.cli.term import clean
from agentscan.detailmodel import LocalCommand, Prompt, SessionDetail
from agentscan.timeutil import parse_iso


class Compaction(NamedTuple):
    """A compaction of the session's context (Claude's ``compact_boundary``, Codex's ``compacted``),
    as ``show`` marks it; ``trigger`` unknown (``None``) for Codex's."""

    timestamp: datetime | None
    trigger: str | None
    pre_tokens: int | None
    #: its place in reading order (``DetailCollector.add_compaction``): one of no time (a
    #: trimmed or garbled ``timestamp``) is placed among the prompts by it; 0: unknown (below
    #: 0: a huge transcript's read from its end, as its items' are)
    seq: int = 0


#: how a compaction's ``trigger`` is said: ``manual`` is the user's ``/compact``
_TRIGGERS = {"auto": "automatically", "manual": "by /compact"}


def recorded_compactions(detail: SessionDetail) -> list[Compaction]:
    """The compactions of the session's context the detail lists (``compactions`` among its
    extras, oldest first: ``DetailCollector.add_compaction``)."""
    found = []
    for entry in detail.extra.get("compactions") or ():
        if isinstance(entry, dict):
            trigger, before, seq = entry.get("trigger"), entry.get("pre_tokens"), entry.get("seq")
            found.append(Compaction(parse_iso(entry.get("timestamp")), trigger if isinstance(trigger, str) else None,
                                    before if type(before) is int else None, seq if type(seq) is int else 0))
    return found


def came_before(compaction: Compaction, prompt: Prompt) -> bool:
    """Whether ``compaction`` came before ``prompt``: by their times, else (either has none) by
    where each was read (``seq`` 0 is no place: one of no place stands after every prompt; a
    huge transcript's read from its end are below 0, its prompts' too: ``tail``)."""
    return stood_before(compaction.timestamp, compaction.seq, prompt)


def stood_before(timestamp: datetime | None, seq: int, prompt: Prompt) -> bool:
    """Whether what has ``timestamp`` and ``seq`` (a compaction, a reply) came before ``prompt``,
    as ``came_before`` tells it."""
    if timestamp is not None and prompt.timestamp is not None:
        return timestamp < prompt.timestamp
    return seq != 0 and prompt.seq != 0 and seq < prompt.seq


def compacted_count(detail: SessionDetail) -> int:
    """How many times the session's context was compacted: ``compacted`` (every one, kept or
    not), else as many as are listed."""
    total = detail.extra.get("compacted")
    kept = len(recorded_compactions(detail))
    return max(total, kept) if type(total) is int else kept


def compaction_text(compaction: Compaction, *, grouped: bool = True) -> str:
    """``context compacted automatically (167,094 tokens before)``: the line that marks a
    compaction among the prompts (the card) and the conversation (``--full``)."""
    how = _TRIGGERS.get(compaction.trigger or "", f"({clean(compaction.trigger)})" if compaction.trigger else "")
    before = compaction.pre_tokens
    figure = "" if before is None else f" ({before:,} tokens before)" if grouped else f" ({before} tokens before)"
    return f"── context compacted{' ' + how if how else ''}{figure}"


def command_text(command: LocalCommand) -> str:
    """``── /mcp (ran in Claude Code)``: the line that marks a slash command the agent's CLI ran
    itself, no prompt, in ``--full``'s conversation (a compaction's mark's form)."""
    said = " ".join(clean(command.text).split())  # (``/compact`` and instructions over lines: one)
    return f"── {said}{f' (ran in {clean(command.by)})' if command.by else ''}"
