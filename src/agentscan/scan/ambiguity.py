"""The error for an id several sessions answer (``resolve``): the newest few, dated and
placed as ``list`` shows them, so that the user can pick one; the rest counted."""

from __future__ import annotations

import heapq
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from agentscan.errors import AmbiguousSessionId

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner

#: bytes of transcript an ambiguity error may read to date and place candidates the index
#: holds no row for (a row it holds costs nothing): the error comes at once, whatever their size
DESCRIBE_BUDGET = 8 << 20
#: past it, a candidate is dated by its main file's last record's time, read from at most
#: ``TAIL_BYTES`` of its end, within ``TAIL_BUDGET`` in all (its mtime only past that): a
#: copied home's mtimes are the copy's, which put hundreds of old sessions first
TAIL_BYTES = 16 << 10
TAIL_BUDGET = 8 << 20


class Dated(NamedTuple):
    """A candidate as the error places and shows it."""

    at: float  # its place: its row's time (``list``'s order), epoch seconds
    updated: datetime | None  # the time shown
    cwd: str | None


def ambiguous(scanner: Scanner, query: str, refs: Sequence[SessionRef],
              children: Sequence[str | None] | None = None, hint: str | None = None) -> AmbiguousSessionId:
    """The error for ``refs`` (``children``: the subagent each one's match is, ``None`` for the
    session itself): the ``SHOWN`` newest, as ``list`` orders them, dated and placed so that the
    user can pick one, newest first; the rest counted."""
    order = sorted(range(len(refs)), key=lambda index: (-refs[index].recency, refs[index].id))
    labels = [refs[i].id if children is None or children[i] is None else f"{refs[i].id} (subagent {children[i]})"
              for i in range(len(refs))]
    found = _newest(scanner, refs, order, AmbiguousSessionId.SHOWN)
    # By the time itself, not its text: two sessions of one minute were in their files' mtime
    # order, and in the hour a clock set back repeats the earlier came first.
    shown = sorted(found, key=lambda index: (-found[index].at, -refs[index].recency, refs[index].id))
    notes = dict(zip((labels[index] for index in shown), _notes([found[index] for index in shown])))
    listed = set(shown)
    ordered = [labels[index] for index in shown] + [labels[index] for index in order if index not in listed]
    if hint is None:
        return AmbiguousSessionId(query, ordered, notes=notes)
    return AmbiguousSessionId(query, ordered, notes=notes, hint=hint)


def _notes(shown: Sequence[Dated]) -> list[str]:
    """Each one's updated time (local, as ``list`` shows it) and project.  When the local times
    would read out of order (the hour a clock set back repeats), each says its UTC offset."""
    local = [dated.updated.astimezone() if dated.updated is not None else None for dated in shown]
    minutes = [when.strftime("%Y-%m-%d %H:%M") for when in local if when is not None]
    form = "%Y-%m-%d %H:%M" if minutes == sorted(minutes, reverse=True) else "%Y-%m-%d %H:%M %z"
    return ["  ".join(part for part in (when.strftime(form) if when is not None else "", dated.cwd or "") if part)
            for when, dated in zip(local, shown)]


def _newest(scanner: Scanner, refs: Sequence[SessionRef], order: Sequence[int], count: int) -> dict[int, Dated]:
    """The ``count`` newest of ``refs`` by their rows' time (``list``'s order), by index.  Read
    as ``list`` reads: newest file first, until no file left can hold a newer session than the
    ``count``-th found (a file's mtime bounds its records' times, ``listing.select_sessions``).
    Every candidate may be among them, not only the first few by mtime: a copied file's mtime
    is the copy's, later than its records."""
    from agentscan.timeutil import CLOCK_SLACK_S

    cache = scanner.cache
    budget = [DESCRIBE_BUDGET, TAIL_BUDGET]
    now = datetime.now(timezone.utc)
    best: list[tuple[float, int]] = []  # a heap of the newest ``count``: (time, -place in ``order``)
    found: dict[int, Dated] = {}
    for start in range(0, len(order), _BATCH):
        batch = order[start:start + _BATCH]
        kept = cache.get_rows([refs[index].id for index in batch]) if cache is not None else {}
        for place, index in enumerate(batch, start):
            ref = refs[index]
            if len(best) >= count and ref.recency and ref.recency + CLOCK_SLACK_S < best[0][0]:
                return {order[-back]: found[order[-back]] for _, back in best}
            found[index] = _dated(scanner, ref, kept, budget, now)
            item = (found[index].at, -place)
            if len(best) < count:
                heapq.heappush(best, item)
            else:
                heapq.heappushpop(best, item)
    return {order[-back]: found[order[-back]] for _, back in best}


#: candidates whose kept rows are asked for in one query
_BATCH = 64


def _dated(scanner: Scanner, ref: SessionRef, kept: dict, budget: list[int], now: datetime) -> Dated:
    """A candidate's place and note, from its row when the index holds it or reading it stays
    within ``DESCRIBE_BUDGET`` (``budget``: what is left of it and of ``TAIL_BUDGET``); else its
    main file's last record's time (``_tail_time``); else the time its files last changed
    (shown as its time, and placed by it)."""
    from agentscan.scan.listplace import wrong_clock
    from agentscan.timeutil import from_epoch

    row = tail = None
    fresh = ref.id in kept and kept[ref.id][0] == scanner.fingerprint(ref)
    size = 0 if fresh else _size(scanner, ref)
    if size <= budget[0]:
        budget[0] -= size
        try:
            row = scanner.row(ref)
        except Exception:  # noqa: BLE001 - a note is a courtesy: the ambiguity is still said
            row = None
    elif ref.path is not None and budget[1] > 0:
        budget[1] -= TAIL_BYTES
        tail = _tail_time(ref.path, scanner.provider(ref.provider).dates_session)
    updated = (row.updated_at if row is not None else tail) or from_epoch(ref.recency)
    cwd = row.cwd if row is not None else None  # (a last record's cwd need not be the row's)
    if updated is None:
        return Dated(float("-inf"), None, cwd)
    # A time in the future its files do not back (a wrong clock) is shown, placed by the
    # files' mtime, as ``list`` places it (``listplace.place``).
    at = ref.recency if wrong_clock(updated, ref, now) else updated.timestamp()
    return Dated(at, updated, cwd)


def _size(scanner: Scanner, ref: SessionRef) -> int:
    stats = (scanner.ctx.stat(file) for file in ref.read_files)
    return sum(stat.st_size for stat in stats if stat is not None)


def _tail_time(path: Path, dates: Callable[[dict], bool]) -> datetime | None:
    """The top-level ``timestamp`` of the last whole record of the JSON Lines file ``path`` that
    has one, read from its last ``TAIL_BYTES`` (what ``list`` dates a session by, near enough);
    ``None``: none there (a record longer than that, a database, a whole-file JSON chat)."""
    import orjson

    from agentscan.timeutil import parse_iso
    from agentscan.toolkit.fsutil import open_regular

    try:
        with open_regular(path) as handle:
            end = handle.seek(0, 2)
            handle.seek(max(0, end - TAIL_BYTES))
            data = handle.read(TAIL_BYTES)
    except OSError:
        return None
    lines = data.split(b"\n")
    if end > TAIL_BYTES:
        lines = lines[1:]  # (the first is a line's end)
    for line in reversed(lines):
        if b'"timestamp"' not in line:
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and dates(record) and (when := parse_iso(record.get("timestamp"))) is not None:
            return when  # (not one that dates no session, as in ``list``: a Claude recap, ``Provider.dates_session``)
    return None
