"""Replies Claude Code took back after writing them, for ``show``'s forward read (``detail``).

Claude Code leaves a withdrawn reply's records in the transcript and says so in a later
record (seen in 2.1.80–2.1.2xx):

* an ``assistant`` record's ``supersedesUuids`` names the records it replaces: a reply
  aborted mid-stream and written again, or a refused partial stitched into the reply the
  fallback model went on with (whose text holds the partial's again);
* a ``system`` record's ``retractedMessageUuids`` (``model_refusal_fallback``, ``api_refusal``)
  names the records of a refused partial reply that the model's answer no longer holds.

Neither is the answer the session got, so ``show`` does not list their text: the text
blocks of a named record leave its reply, and a reply left with no text goes.  Their calls
were billed all the same: the token sums, the cost and the row's counts keep them.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

#: the replies added last whose records a later record may still take back (one names the
#: partial just before it; a few more cost nothing)
RECENT_REPLIES = 4

Spans = list[tuple[str, int, int]]  # (record uuid, first text piece, end) of one reply's pieces


def withdrawn_uuids(record: dict, kind: object) -> frozenset[str] | None:
    """The uuids of the records ``record`` takes back, or ``None``: an ``assistant`` record's
    ``supersedesUuids``, any record's ``retractedMessageUuids`` (a ``system`` one's, as written)."""
    named = record.get("supersedesUuids") if kind == "assistant" else None
    if named is None:
        named = record.get("retractedMessageUuids")
    if not isinstance(named, list):
        return None
    uuids = frozenset(uuid for uuid in named if isinstance(uuid, str) and uuid)
    return uuids or None


class Retractions:
    """Where each record's text went among the reply being read and the last few added, so
    a later record can take it back (``withdraw``)."""

    def __init__(self) -> None:
        self.spans: Spans = []  # the reply being read: its records' pieces of ``texts``
        self.blanked = False  # whether a record took back text of the reply being read
        self._recent: deque[tuple[int, list[str], Spans]] = deque(maxlen=RECENT_REPLIES)

    def note(self, uuid: object, start: int, end: int) -> None:
        """A record of the reply being read added ``texts[start:end]``."""
        if end > start and isinstance(uuid, str):
            self.spans.append((uuid, start, end))

    def added(self, seq: int | None, texts: list[str]) -> bool:
        """The reply being read was added at ``seq`` (``None``: not added; it is done with).
        Returns whether it was a reply taken back whole before it was added (it had text)."""
        spans, self.spans, blanked, self.blanked = self.spans, [], self.blanked, False
        if seq is not None and spans:
            self._recent.append((seq, texts, spans))
        return seq is None and blanked

    def withdraw(self, uuids: frozenset[str], texts: list[str], revise: Callable[[int, str | None], None]) -> None:
        """Take back the text of the records ``uuids`` names: from ``texts`` (the reply being
        read) in place, and from a reply already added through ``revise(seq, text left)``."""
        self.blanked |= _blank(self.spans, texts, uuids)
        for seq, pieces, spans in self._recent:
            if _blank(spans, pieces, uuids):
                left = "".join(pieces).strip()
                revise(seq, left or None)


def _blank(spans: Spans, pieces: list[str], uuids: frozenset[str]) -> bool:
    hit = False
    for uuid, start, end in spans:
        if uuid in uuids and any(pieces[start:end]):
            pieces[start:end] = [""] * (end - start)
            hit = True
    return hit
