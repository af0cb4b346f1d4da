"""The questions asked of a provider about what this scan could not read: a database
locked by another program, or broken for good, whose sessions' usage is then not known
(which is not "recorded no usage"), and a transcript read only up to its damage.
``tokens``, ``show`` and ``export`` ask them (``scan.unreadrows``, ``export.unread``);
only what was tried is told, nothing is opened to answer.  And the model of a run by the
usage sums the index keeps of it, while its database cannot be read (``kept_model``:
``scan.showing`` asks it).  ``Provider`` inherits them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef


class UnreadQuestions:
    def kept_model(self, groups: Sequence[Sequence], agent: str | None) -> str | None:
        """The model of ``agent``'s calls (a run's id; ``None``: the session's own) by the usage
        sums' ``groups`` (``usagegroups``: the agent first, the model second) the index keeps,
        for a session whose database this run could not read (``unknown_usage``, ``scan.showing``):
        the provider's own rule (Cursor's ``mostused.calls_model``); ``None``: it keeps no usage
        sums that need one."""
        return None

    def before_archived_unread(self, refs: Sequence[SessionRef], ctx: ScanContext) -> None:
        """Told before ``archived_unread`` is asked of each of ``refs``: a provider that answers
        from the index may read them in one query (3,000 Cursor chats under a lock were 3,000)."""

    def unread_stores(self, ctx: ScanContext) -> list[tuple[str, str]]:
        """``(path, why)`` of each database this provider keeps sessions in that could not
        be read in this scan (a locked one): ``show``'s "no session matches" names them, for
        the session may be there.  Only what was tried: nothing is opened to answer."""
        return []

    def locked_usage(self, ref: SessionRef, ctx: ScanContext) -> tuple[str, str] | None:
        """``(path, why)`` of the database ``ref``'s usage is kept in, when this scan found it
        locked by another program (a lock passes: not a database broken for good), else
        ``None``.  Its usage is then not known, which is not "recorded no usage": ``tokens``
        says it could not be read, and ``export`` leaves its row as it was (``scan.unreadrows``,
        ``export.unread``).  Only what was tried: nothing is opened to answer."""
        return None

    def unknown_usage(self, ref: SessionRef, ctx: ScanContext) -> tuple[str, str] | None:
        """As ``locked_usage``, of a database broken for good too: ``tokens`` and ``show`` say
        its usage is not known; ``export`` holds back by ``locked_usage``, and an SQLite index
        also keeps the rows it has of these as they were (``export.unread.usage_unknown``).
        Asked of a session whose row has no usage.  A session's own file read only up to its
        damage is told by its row's mark instead (``may_cut_usage``, ``SessionRow.usage_cut``)."""
        return self.locked_usage(ref, ctx)

    def may_cut_usage(self, ref: SessionRef, ctx: ScanContext) -> bool:
        """Whether ``ref``'s row may carry ``SessionRow.usage_cut`` (``unreadrows.unknown_usage``
        then reads it); ``False`` for most, and one this scan's usage pass read whole."""
        return False
