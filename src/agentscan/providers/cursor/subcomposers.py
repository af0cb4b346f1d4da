"""A session's delegated runs that only ``state.vscdb`` holds, shown in ``show``.

A sub-composer (``subComposerIds``, ``subagentComposerIds``, a child naming its parent)
with no ``subagents/`` transcript of its own still has its ``composerData`` and its
bubbles: its task, its replies and its calls are there, as an IDE-only composer's are
(``ide.stream_composer``).  They are shown under it as a transcript child's are
(``detail``): its prompts and replies in the subagent pool, its calls marked as its.  A
child whose bubbles carry no text (newer builds) is read from its ``agentKv`` rows, as
such a session is.  Every child is streamed at most once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Iterable

from agentscan.providers.cursor.composer import BubbleStats, ComposerInfo
from agentscan.providers.cursor.ide import first_user_text, stream_composer
from agentscan.providers.cursor.statedb import StateDb

if TYPE_CHECKING:
    from agentscan.toolkit.detail import DetailCollector
    from agentscan.providers.cursor.usage import SessionUsage


class SubComposers:
    """The runs of one session that have a composer with a live conversation and no
    transcript, in the order the session lists them."""

    def __init__(self, runs: dict[str, tuple[ComposerInfo, BubbleStats]], db: StateDb) -> None:
        self._runs, self._db = runs, db
        self._streamed: set[str] = set()

    @classmethod
    def of(cls, children: Iterable[str], with_transcript: Collection[str], usage: SessionUsage | None,
           db: StateDb) -> SubComposers:
        composers = db.composers()
        runs = {}
        for child in children:
            info = composers.get(child)
            stats = usage.children.get(child) if usage is not None else None
            if child not in with_transcript and info is not None and info.has_conversation:
                runs[child] = (info, stats if stats is not None else db.bubble_stats(child))
        return cls(runs, db)

    def __contains__(self, child: object) -> bool:
        return child in self._runs

    def _textless(self, child: str) -> bool:
        """Its conversation is in ``agentKv`` rows (its bubbles carry no text but name requests)."""
        stats = self._runs[child][1]
        return stats.textless and bool(stats.requests)

    def first_texts(self) -> dict[str, str]:
        """Each child's task (its first user bubble), for ``delegation.ChildMatcher``: one
        whose bubbles hold none (only replies, or text kept in ``agentKv`` rows) has ``""``,
        claimed by no ``Task``: it goes to the last prompt, as a transcript child that no
        ``Task`` explains does."""
        texts = {}
        for child, (info, _) in self._runs.items():
            texts[child] = "" if self._textless(child) else first_user_text(info, self._db) or ""
        return texts

    def stream(self, child: str, collector: DetailCollector) -> None:
        """``child``'s conversation into ``collector`` as its (once; unknown ids are ignored)."""
        if child not in self._runs or child in self._streamed:
            return
        self._streamed.add(child)
        info, stats = self._runs[child]
        if self._textless(child):
            from agentscan.providers.cursor.agentkv import conversation_events
            from agentscan.providers.cursor.detail import stream_events

            stream_events(conversation_events(stats.requests, self._db), collector, subagent=child)
        else:
            stream_composer(info, self._db, collector, subagent=child)

    def take_timed(self) -> list[ComposerInfo]:
        """The children not yet streamed whose bubbles carry their text (and their times), to be
        merged with an IDE-only parent's bubbles by time (``ide.stream_composer``): marked
        streamed, the caller streams them.  One whose composer has no ``createdAt`` is placed
        by its bubbles' own times, and with none after the parent (``ide._timed``)."""
        taken = [info for child, (info, _) in self._runs.items()
                 if child not in self._streamed and not self._textless(child)]
        self._streamed.update(info.composer_id for info in taken)
        return taken

    def stream_rest(self, collector: DetailCollector) -> None:
        """Every child not streamed yet, after the session's own conversation."""
        for child in self._runs:
            self.stream(child, collector)


__all__ = ["SubComposers"]
