"""Where a row sits in ``list``: by its recorded time, unless a wrong clock wrote it
(a time in the future that its files' mtime does not back)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from agentscan.model import SessionRef, SessionRow
from agentscan.timeutil import CLOCK_SLACK_S, plausible

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


def place(scanner: Scanner, ref: SessionRef, row: SessionRow, now: datetime) -> float:
    """A row's place in the list: its ``updated_at``; for one a wrong clock wrote
    (``wrong_clock``) its files' mtime (none: last), the time this machine's clock last saw
    the session written, as for a session that recorded no time (docs/cli.md): by a time
    of 2100 it would top every list until then.  That one is said too, naming the file and
    the time, which stays as recorded (the row and its tokens are unchanged)."""
    if row.updated_at is None:
        return float("-inf")
    if not wrong_clock(row.updated_at, ref, now):
        return row.updated_at.timestamp()
    from agentscan.timeutil import from_epoch, to_iso

    place = from_epoch(ref.recency) if ref.recency else None
    # "sorted", not "listed": its UPDATED still shows the recorded time (a reader saw 2027 beside "listed at 2026")
    where = f"sorted by its file's time, {to_iso(place)}" if place is not None else "sorted last"
    scanner.ctx.warn(ref.path or (ref.read_files[0] if ref.read_files else ref.id),
                     f"a record is dated {to_iso(row.updated_at)}, in the future (a wrong clock?): {where}")
    return ref.recency or float("-inf")


def wrong_clock(updated: datetime, ref: SessionRef, now: datetime) -> bool:
    """Whether ``updated`` is past the clock (``now``, by more than ``timeutil.FUTURE_SLACK``)
    and past the time its files were last written: no record is written after its file, so
    a clock was wrong.  One its files' mtime agrees with (a home written while the whole
    machine's clock was ahead, a generated one) is not: sorted by either, it sits alike,
    and ``select_sessions`` bounds each unread session by that mtime."""
    if plausible(updated, now=now) is not None:
        return False
    return not ref.recency or updated.timestamp() > ref.recency + CLOCK_SLACK_S
