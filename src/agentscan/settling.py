"""A transcript caught mid-write is not bad input.

Agents append a record in more than one ``write``, so a reader can meet a last line
with no newline yet.  It is skipped with a warning (the record comes whole next time),
but ``--strict`` exists for cron jobs that must notice skipped input: failing one
because an agent was answering at that second would teach people to drop the flag.
So a truncated last line counts for ``--strict`` only once its file has been still for
``SETTLING_SECONDS``: then the writer is gone and the record is lost for good.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Protocol

from agentscan.warningwords import CUT_SHORT, REWORDED_BY_AGE

TRUNCATED_LAST_LINE = f"{REWORDED_BY_AGE} skipped (file still being written?)"
#: ``TRUNCATED_LAST_LINE`` as said of a file still for ``SETTLING_SECONDS``: months after a
#: crash, "still being written?" would be asked of it on every run.  Said when the warning
#: is shown (``shown_message``), not when the line was read: a warning kept in the index
#: and said again on a warm run follows the file's age then.  The leading words are the
#: same (``doctor`` groups by them, scripts may match them).
TRUNCATED_SETTLED = f"{REWORDED_BY_AGE} skipped (the file ends mid-record)"
#: a legacy whole-file chat (Gemini CLI ≤ v0.38 rewrote it in place, ``gemini.legacy``) that
#: ends mid-document: read while it was being rewritten, maybe.  The salvage's count follows;
#: as a truncated last line, it counts for ``--strict`` only once the file is still, and is
#: then said as ``CUT_SHORT_SETTLED`` (the rest of the message kept).
CUT_SHORT_FRESH = f"{CUT_SHORT} (file still being written?)"
CUT_SHORT_SETTLED = "chat file is truncated or corrupt"
#: a last line of NUL bytes alone: what a crash leaves when the file's size was set before
#: its data reached the disk.  No writer is coming back: it counts for ``--strict`` at once.
NUL_PADDING = "NUL bytes at the end skipped (left by a crash?)"

#: How long a file's last write may be past before its unfinished line counts as lost:
#: far longer than an agent takes to finish writing a record, short enough for an hourly cron.
SETTLING_SECONDS = 600


def unfinished_line(line: bytes) -> str:
    """The warning for a last line that is not JSON and has no newline."""
    return NUL_PADDING if not line.strip(b"\x00 \t\r\n") else TRUNCATED_LAST_LINE


class _Said(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def message(self) -> str: ...


def still_being_written(warning: _Said, now: float | None = None) -> bool:
    """Whether ``warning`` is a truncated last line of a file written to in the last
    ``SETTLING_SECONDS`` (a file that cannot be read now is not: it counts)."""
    message = warning.message
    return (message == TRUNCATED_LAST_LINE or message.startswith(CUT_SHORT_FRESH)) and _written_lately(warning.path, now)


def shown_message(path: str, message: str, now: float | None = None) -> str:
    """``message`` as said now of ``path``: a truncated last line of a file no longer
    written to is ``TRUNCATED_SETTLED`` (a chat cut short, ``CUT_SHORT_SETTLED``); any other
    message as it is."""
    if message.startswith(CUT_SHORT_FRESH) and not _written_lately(path, now):
        return CUT_SHORT_SETTLED + message[len(CUT_SHORT_FRESH):]
    if message != TRUNCATED_LAST_LINE or _written_lately(path, now):
        return message
    return TRUNCATED_SETTLED


def cut_short(message: str) -> bool:
    """Whether ``message`` (as ``shown_message`` words it) says a chat file was cut short:
    read up to its damage, not "could not be read"."""
    return message.startswith((CUT_SHORT_FRESH, CUT_SHORT_SETTLED))


def _written_lately(path: str, now: float | None) -> bool:
    try:
        written = os.stat(path).st_mtime
    except (OSError, ValueError):
        return False
    return (time.time() if now is None else now) - written < SETTLING_SECONDS


def strict_count(warnings: Iterable[_Said]) -> int:
    """The warnings ``--strict`` fails on: all but lines of files still being written."""
    now = time.time()
    return sum(1 for warning in warnings if not still_being_written(warning, now))
