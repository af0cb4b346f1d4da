"""What ``scan.collect`` finds for one provider's sessions (kept apart from it to keep
``collect`` at a size one reads whole)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.scan.sessionsums import SessionSums


class ProviderUsage:
    """What ``collect`` found for one provider's sessions.

    ``sums``: native id -> sums, for sessions answered from sums alone;
    ``entries``: the merged calls of every other session (``exact``);
    ``elsewhere``: those of them that recorded calls, every one counted in another
    session's copy (``sharing.merge_duplicates``): spend 0, not "no usage recorded".
    """

    __slots__ = ("sums", "entries", "exact", "elsewhere", "outside")

    def __init__(self) -> None:
        self.sums: dict[str, SessionSums] = {}
        self.entries: list[list] = []
        self.exact: set[str] = set()
        self.elsewhere: set[str] = set()
        #: sessions a window left unread: each recorded calls, none in it (``scan.windowspans``)
        self.outside: set[str] = set()
