"""What a session had no time for, and what a format never records: said once for the export.

A call with no timestamp cannot be placed on a timeline, so it is left out of
the traces (``from_transcript``).  In a Claude, Codex or Gemini session that is
something wrong with that session's data: one warning for it, which
``--strict`` fails on.  A Cursor transcript records no time for any tool call
(and for a prompt only in an optional ``<timestamp>`` wrapper): there it is the
format's normal shape, the same for every session.  Said per session it was two
warnings for each Cursor session (200 for the bench's 100), and ``--strict``
could never pass on a home with Cursor in it.  So what such a format lacks is
counted over the whole export and said in one line per provider, which
``--strict`` does not count (``Built.format_notes``), as ``settling`` lets a
line still being written pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from agentscan.toolkit.words import agreeing, plural

@dataclass(frozen=True, slots=True)
class Untimed:
    """What one session had no time for: left out of its traces, or exported coarser."""

    tools: int = 0
    llm_calls: int = 0
    #: no prompt has a time, something else has: the session is one turn
    one_turn: bool = False
    #: nothing has a time: no spans at all
    no_spans: bool = False

    def notes(self) -> list[str]:
        """The session's own warnings (without the ``otlp: `` prefix)."""
        notes = [f"{plural(count, one, many)} without a timestamp {agreeing(count).was} left out"
                 for one, many, count in (("tool call", "tool calls", self.tools), ("LLM call", "LLM calls", self.llm_calls))
                 if count]
        if self.one_turn:
            notes.append("no prompt has a timestamp: the session is exported as one turn")
        if self.no_spans:
            notes.append("nothing in it has a timestamp: no spans")
        return notes

    def split(self, records_call_times: bool) -> tuple[Untimed, Untimed]:
        """(what the provider's format never records, what is wrong with this session);
        ``records_call_times``: ``Provider.records_call_times``, which says where times are
        missing by nature (a prompt's too, then: it is only in an optional wrapper)."""
        if records_call_times:
            return Untimed(), self
        # An LLM call's time comes from Cursor's state DB, which has one: missing, it is the session's.
        return Untimed(self.tools, 0, self.one_turn, self.no_spans), Untimed(llm_calls=self.llm_calls)


class Gaps:
    """``Untimed`` summed by provider over an export (a worker's come back and are added:
    sums, so the order the sessions came in does not change the line)."""

    def __init__(self) -> None:
        #: provider -> [sessions, tool calls, sessions as one turn, sessions with no spans]
        self.counts: dict[str, list[int]] = {}

    def add(self, provider: str, untimed: Untimed) -> None:
        if untimed == Untimed():
            return
        self._add(provider, [1, untimed.tools, int(untimed.one_turn), int(untimed.no_spans)])

    def merge(self, other: Gaps) -> None:
        for provider, counts in other.counts.items():
            self._add(provider, counts)

    def _add(self, provider: str, counts: list[int]) -> None:
        held = self.counts.setdefault(provider, [0, 0, 0, 0])
        for index, count in enumerate(counts):
            held[index] += count

    def lines(self, label: Callable[[str], str]) -> list[str]:
        """One line per provider, in name order: ``label(name)`` is what the reader calls it."""
        found = []
        for provider in sorted(self.counts):
            sessions, tools, one_turn, no_spans = self.counts[provider]
            head = (f"{sessions:,} {label(provider)} {'session has' if sessions == 1 else 'sessions have'} "
                    "no per-call times (the format records none)")
            parts = []
            if tools:
                parts.append(f"{plural(tools, 'tool call')} left out of the traces")
            # "sessions" said again after the tool calls: "7 tool calls left out of the traces, 7
            # with no spans at all" read as 7 tool calls without spans.
            if one_turn:
                parts.append(f"{plural(one_turn, 'session')} exported as one turn{' each' if one_turn > 1 else ''}")
            if no_spans:
                parts.append(f"{plural(no_spans, 'session')} with no spans at all")
            found.append(f"{head}: {', '.join(parts)}")
        return found
