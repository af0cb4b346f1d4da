"""What each half of a huge transcript's row pass records for the join (``halves``,
``halfjoin``): the helper's pass over the second half, and the totals both halves keep.
"""

from __future__ import annotations

from array import array
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

from agentscan.context import HeldWarnings, ScanContext
from agentscan.providers.claude.records import as_str
from agentscan.providers.claude.filesummary import FileSummary, RecentIds
from agentscan.providers.claude.halfrow import lean_loop
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.seenuuids import SeenUuids
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.tasklist import PlanFold
from agentscan.providers.claude.usage import SIDECHAIN, Call
from agentscan.providers.claude.windowed import WindowedTotals, packed_hashes
from agentscan.providers.claude.windowsums import add_to_sums
from agentscan.toolkit.hashes64 import Hashes64
from agentscan.toolkit.jsonl import ReadProgress

#: a second half that met more warnings than this is read here (they are kept until the join)
MAX_SAID = 4096
#: a second half that looked up more uuids than this is read here (``_HalfSeen``)
MAX_LOOKED_UP = 65_536


class HalfTotals(WindowedTotals):
    """A half's totals, with what the join checks: the message ids of its calls (hashed:
    ``hash()`` holds in a forked helper), calls without one, and how many calls left the window.
    The ids are those the totals keep anyway (the settled parents' and the window's) and the
    few settled sidechain calls': a set of every id took 7 MB more of a 1 GB transcript's pass.
    (``unkeyed`` and ``evictions`` are counted by ``WindowedTotals``: a call less a record.)
    The settled hashes stay ``Hashes64``: a ``set`` of them was ≈ 4 % of a half quicker, but took
    12–16 MB more of the command's peak (62 → 73 MB, past half of ccusage's 137 MB)."""

    def __init__(self) -> None:
        super().__init__()
        self._sidechains = Hashes64()

    def _evicted(self, key: tuple[str, str | None], call: Call) -> None:
        if call[SIDECHAIN]:  # (a parent's is among the settled parents)
            self._sidechains.add(hash(key[0]))

    def message_ids(self) -> array:
        """Every message id met, hashed (some twice)."""
        found = array("q", packed_hashes(self._settled_parents))
        found.frombytes(self._sidechains.to_bytes())
        found.extend(hash(message_id) for message_id in self._requests)
        return found

    def met_any(self, hashes: Sequence[int]) -> bool:
        """Whether any of these hashed message ids is one met here."""
        parents = self._settled_parents
        # (Flat, not a ``set``: 1.7 MB more of a 1 GB ``show``'s peak, which this check is at.)
        window = Hashes64(hash(message_id) for message_id in self._requests)
        # (A set at a time, each in one loop: ``Hashes64.any_in``; the join waits on this.)
        return (window.any_in(hashes) or self._sidechains.any_in(hashes)
                or (parents is not None and parents.any_in(hashes)))

    def window_sums(self) -> dict[tuple, list[int]]:
        """What the window's winners add to the settled sums (``_all_sums`` less ``_sums``), in
        ``_all_sums``' order: the settled groups they add to as those are ordered, then their new
        ones.  Added up apart (each winner adds a call to its group, so the groups it touches are
        exactly those that differ): ``_all_sums`` copied every settled group, the helper's peak."""
        added: dict[tuple, list[int]] = {}
        for call in self._counted():
            add_to_sums(added, call)
        settled = self._sums
        ordered = {key: added[key] for key in settled if key in added}
        ordered.update((key, parts) for key, parts in added.items() if key not in settled)
        return ordered

    def spent(self) -> tuple[dict[tuple, list[int]], bool]:
        """The settled sums and whether they are ``exact``, the window and the settled hashes
        let go (the join has taken what it needs of them: ``halfjoin``): the first half's
        window was held until the row's pass ended, beside the whole file's sums.  ``exact``
        comes with them because letting go of the settled hashes makes ``exact`` true: read
        after, it said an inexact first half was exact."""
        sums, exact, self._sums, self._everything = self._sums, self.exact, {}, None
        self._recent.clear()
        self._order.clear()
        self._requests.clear()
        self._settled_keys = self._settled_parents = None
        self._sidechains = Hashes64()
        return sums, exact

    def sums_items(self) -> list[list]:
        """The settled sums as ``_state`` writes them (``[*key, *parts]``), made of the sums' own
        lists (the totals keep none after: the helper's last use of them): a copy of each was
        held beside them while the answer was pickled."""
        items = []
        for key, parts in self._sums.items():
            parts[:0] = key
            items.append(parts)
        self._sums = {}
        return items


class _EarlyIds(RecentIds):
    """``RecentIds`` that lists its first ``size`` ids: the ones the second half checked while
    the first half's newest ids would still have been in the one pass's memory.  It notes a
    stand-in id (``#`` and the record's number): the second half numbers its records from
    the seam, where the one pass numbers them from the file's start."""

    def __init__(self) -> None:
        super().__init__()
        self.early: list[str] = []
        self.stand_in = False  # an id like the ``#<record number>`` a record without one is given

    def add(self, item: str) -> None:
        if item.startswith("#"):
            self.stand_in = True
        members = self._members
        if item in members:
            return
        if len(self.early) < self._size:
            self.early.append(item)
        # (``RecentIds.add`` spelt out: the helper adds every reply's id, twice a message.)
        order = self._order
        order.append(item)
        members.add(item)
        if len(order) > self._size:
            members.discard(order.popleft())


class _HalfFacts(ShowFacts):
    """``ShowFacts`` of the second half, with the call ids it checked before ``window`` new
    calls had pushed the first half's out of the one pass's memory, and the plan's changes
    (a task list goes on from the first half's: ``tasklist.PlanFold.join``)."""

    def __init__(self) -> None:
        super().__init__()
        self.fold = PlanFold(journal=True)
        self.early: list[str] = []
        self._fresh = 0

    def _tool(self, block: dict) -> None:
        if self._fresh >= self.window:
            super()._tool(block)
            return
        key = as_str(block.get("id"))
        if key is not None and key not in self._keys:  # (a reused one was listed when it was fresh)
            self.early.append(key)
        reused = self.reused
        super()._tool(block)
        self._fresh += self.reused == reused


class _HalfSeen(SeenUuids):
    """The second half's uuids, with those it looked up (``looked_up``, hashed) and whether
    any was met in it before (``met_any``).  The helper looks up every record dated before
    the seam's first record (its pass starts as if a compaction were dated there) or before
    a compaction of its own: the one pass looks up no other, when the first half's newest
    compaction is dated no later than the seam (``halfjoin.Join.checks``)."""

    def __init__(self) -> None:
        super().__init__()
        self.looked_up = array("q")
        self.met_any = False

    def met(self, key: int) -> bool:
        found = super().met(key)
        self.met_any = self.met_any or found
        if len(self.looked_up) <= MAX_LOOKED_UP:
            self.looked_up.append(key)
        return found


class _HeldFew(HeldWarnings):
    """Held warnings, the first ``MAX_SAID`` only (a file of bad lines must not fill the helper)."""

    def __init__(self) -> None:
        super().__init__()
        self.overflowed = False

    def add(self, path: object, message: str, line: int | None = None, *, passing: bool = False) -> bool:
        if self.told_count < MAX_SAID:  # (not ``said``: a copy, settled, for each bad line)
            return super().add(path, message, line, passing=passing)
        self.overflowed = True
        return False


def second_half(path: Path, ctx: ScanContext, seam: int, with_facts: bool, summaries: dict[str, str],
                lean: bool = True) -> dict[str, Any]:
    """The helper's pass over ``path`` from ``seam`` on (``ctx``: its own), and what the join
    checks.  ``summaries``: those the file starts with, as the first half's pass keeps them.
    ``lean``: by the pass specialised for the halves (``halfrow``; not: the general one's, to compare)."""
    summary = FileSummary(path)
    summary.results = []
    summary.summaries = dict(summaries)
    # (Pending here too: the join keeps those neither half met the leaf of. Nothing but
    # summaries comes before them, so where they end bounds no scan: ``lateleaves``.)
    summary.pending_summaries = dict.fromkeys(summaries, 0)
    texts, models = _EarlyIds(), _EarlyIds()
    summary.text_messages, summary.model_messages = texts, models
    seen = summary.seen = _HalfSeen()
    summary.compacted = floor = _time_at(path, seam)
    facts, totals = _HalfFacts() if with_facts else None, HalfTotals()
    progress = ReadProgress(seam, 1)  # its first line numbered 2: no byte order mark is taken off it
    held = ctx.warnings = _HeldFew()
    # (``seam``: a compaction's newest record before it may be in the first half, unread here:
    # its own time bounds the copies after it, so this half looks up all the one pass would.)
    # (Its bad values unsaid: joined with the first half's and said once, ``halfjoin``.)
    summarize(path, ctx, totals=totals, progress=progress, facts=facts, resumed=summary, seam=True, tell_values=False,
              loop=lean_loop if lean else None)
    window_sums = totals.window_sums()  # (before ``sums_items`` takes the settled sums)
    return {
        "summary": summary.to_state(), "results": summary.results, "inline": bool(summary.inline),
        "early_texts": texts.early, "early_models": models.early, "stand_in": texts.stand_in or models.stand_in,
        "facts": None if facts is None else facts.to_state(),
        "early_calls": [] if facts is None else facts.early, "overflowed": held.overflowed,
        "sums": totals.sums_items(),
        "window_sums": [[*key, *parts] for key, parts in window_sums.items()],
        "inserted": len(totals._recent) + totals.evictions, "exact": totals.exact, "unkeyed": totals.unkeyed,
        "messages": totals.message_ids().tobytes(),
        # (Each file's count past those held in its place, a ``Counted``: its line is renumbered
        # at the join as a warning's is.)
        "said": list(held.said), "offset": progress.complete_offset, "lines": progress.lines,
        "values": progress.values.to_parts(),
        "floor": None if floor is None else floor.isoformat(), "looked_up": seen.looked_up.tobytes(),
        "met_any": seen.met_any, "compactions": seen.compactions,
    }


def _time_at(path: Path, offset: int) -> datetime | None:
    """The time of the record at ``offset`` (a line's start), if it has one."""
    import orjson

    from agentscan.timeutil import parse_iso
    from agentscan.toolkit import laxjson
    from agentscan.toolkit.fsutil import open_regular
    from agentscan.toolkit.jsonl import MAX_LINE_BYTES
    from agentscan.toolkit.shrinkline import line_at

    try:
        with open_regular(path) as handle:
            handle.seek(offset)
            record = laxjson.loads(line_at(handle, MAX_LINE_BYTES))  # (one over the cap shrunk, as the pass reads it)
    except (OSError, orjson.JSONDecodeError):
        return None
    return parse_iso(record.get("timestamp")) if isinstance(record, dict) else None
