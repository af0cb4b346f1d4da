"""Exact line counts of rollouts too large for ``list`` to read whole.

``list`` reads a rollout's last 1 MiB only, so on a larger file its
``counts`` (prompts, responses, tool calls) would cover only that window.
The passes that read a rollout whole anyway (``tokens``, ``export``,
``show``) leave the tally of its line kinds in the persistent cache, keyed
by path with the size, mtime and a digest of the first bytes.  ``list``
then takes the counts from there: as they are when the file is unchanged,
or after reading just the appended lines when it only grew (Codex appends).
Without a tally (or without the cache) the row's counts stay those of the
window and the row says so (``counts_partial``).

The tally also keeps the file's calls and turns per model (``modeluse``), and
where the pass stopped (the turn's model, the cumulative count, the counts
that restarted before it), so that the row's ``model`` is the whole file's
most used one too, its tokens the whole file's cumulative count (a count that
restarted before the row's window included: ``callscan.FileUsageScanner.cumulative``),
and appended lines update them.  Of a file whose running totals are garbage
(``-5``, ``2.5``: no running count) it keeps the calls added up instead, as
``tokens`` counts them (``recount``); when the totals turn to garbage only in
appended lines, the calls before them were never added up, so the tally counts
nothing from then on (``UNCOUNTED``: ``runs`` reads the count) rather than mix
the two, until a whole pass keeps another.  A tally the build before kept
(``_PREVIOUS``) counted by the totals whatever they held: its count is told
apart (``Tally.previous``), for the row to take only where nothing better can
be had (``row._file_tail``).

A fork's or a subagent's tally also keeps where its copied history ended
(``callevent.CopyEnd``), once a turn marker told it: a row counts the
thread's own calls from it (the last cumulative count less the copy's)
without reading a copy larger than its head read again (``row``).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

import orjson

from agentscan.context import Told, ScanContext, say
from agentscan.model import Counts
from agentscan.providers.codex.callevent import CopyEnd
from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.providers.codex.counters import ZERO, Counters, Position, add, kept_counters, kept_keys
from agentscan.providers.codex.modeluse import ModelUse, merge
from agentscan.providers.codex.messages import add_kind, counts_of, line_kind
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines
from agentscan.digests import blake2b

KIND = "codex.counts"
#: "2": a tally keeps the calls and turns per model (a row's model): one kept before cannot say it;
#: "3": and the counts that restarted (a row's tokens): one kept before would miss them;
#: "4": prompts and replies of ``item_completed`` events (0.145+), chosen per stretch (``messages``);
#: "5": those kept apart from the legacy events (a message written as both counted once), and a
#: prompt item after a reply ends a stretch (``messages.ends_stretch``);
#: "6": tool calls of ``records.NEWER_TOOL_ITEMS`` (tool searches, image generations) counted;
#: "7": a file of garbage totals counted by its calls (``recount``), or not counted (``uncounted``);
#: "8": a user message of images and no text counted as a prompt (``records.image_prompt``).  A
#: "7" is taken for nothing: its prompts missed those, which may stand anywhere in the file
#: (no window can tell), so its row is the window's (``counts_partial``) until a whole pass
#: keeps an "8", rather than a count of prompts ``show`` contradicts.  (Those of ``_PREVIOUS``
#: and ``_COUNTS_ONLY``, of builds further back, are taken as before, this gap among theirs.)
#: "9": a running total that moved by other than its call (``counters.jumped``) makes the file's
#: count its calls, as totals of garbage do; an "8" took such totals for a running count
#: (``_PREVIOUS``)
#: "10": a total below the last one that repeats an older count (39's ``counters.stale``) is skipped; a
#: "9" took it for a restart (its call counted twice): read again
#: "11": only a total equal to one of the latest (``seen``, kept in the position) is a replay; any
#: other drop is a restart whose run counts less the base it restarts from (``counters.step``); a
#: "10" skipped real calls after a lower total: read again
#: "12": a drop with no ``last_token_usage`` counts the total less the base it restores
#: (``counters._base``); an "11" counted that base again: read again
#: "13": that base only when the total was written again right before the drop (a rollback's
#: replay, kept newest in ``seen``), else from zero: a "12" took an earlier total off a restart
#: from zero whose first call was at or above it: read again
#: "14": a total with a counter of no number at all (``null``, ``"x"``) is none (``counters._unreadable``),
#: and a call written again (time and count) adds to ``recount`` once; a "13" read it as zeros (a
#: restart): read again
#: "15": a tally that counts calls keeps the latest it counted (``keys``): one written again in
#: appended lines is counted once; and an unread total beside a readable call moves the running
#: total by that call (``counters.moved_total``); a "14" counted the call again, and left the
#: total where it was (the next one's growth taken for two calls): read again
#: "16": an unread total whose line is the call counted just before it written again (its time
#: and count: ``counters.repeated``) moves nothing; a "15" moved the total by it again: read again
VERSION = "16"
#: tallies whose line counts, model use and copy end hold, and whose count is what ``counters.step``
#: reaches now only of a file whose running totals never went down (a drop, a replay or a
#: restart, it counted by its build's rules, which "10" to "13" changed), and a "6" took a file's
#: totals of garbage for a running count (or, keeping a ``recount``, added up its calls another
#: way: not believed); nothing in it tells either: ``Tally.previous``, believed only past the
#: read budget (``threadfacts._past_the_budget``).  Its count is kept on as the file grows (a
#: tally of ``VERSION`` that says ``previous``) until the appended lines show garbage or a whole
#: pass keeps another
_PREVIOUS = frozenset({"6", "8"})
#: older tallies whose line counts and model use still hold, taken for those alone while the
#: file is unchanged (an upgrade would otherwise send every large rollout's row back to
#: ``counts_partial`` until a whole pass): not their count's runs nor where a copy ended.
#: Their counts missed the messages of builds 0.145 and later ("2", "3") or counted twice one
#: such a build wrote as both kinds of event ("4"), and all missed the tool calls of
#: ``records.NEWER_TOOL_ITEMS``: a row does not take them when its window holds such messages
#: or calls (``Tally.older``, ``row._file_tail``).  Not "5": it differs from "6" only by
#: those calls, which a rollout may hold before its window alone (an occasional tool search
#: that no 0.145+ message in the window gives away); its row is the window's until the first
#: ``tokens`` after the upgrade reads the rollout whole again (the parser's version is new too)
_COUNTS_ONLY = frozenset({"2", "3", "4"})
#: files at most this large are read whole by ``list`` already: no tally needed
WHOLE_BYTES = 1024 * 1024
#: ``list`` reads at most this much appended data to bring a tally up to date
GROWTH_BYTES = 4 * 1024 * 1024
_HEAD_BYTES = 4096


def head_digest(path: Path, size: int) -> str | None:
    try:
        with open_regular(path) as handle:
            return blake2b(handle.read(min(size, _HEAD_BYTES)), digest_size=12).hexdigest()
    except OSError:
        return None


class Tally(NamedTuple):
    """A whole file's counts and (when kept) model use (a named tuple: see ``cli.term.Terminal``)."""

    counts: Counts
    models: ModelUse | None = None
    copy: CopyEnd | None = None  # where a copied history ended (``None``: not known, or none)
    #: the whole file's cumulative count (``FileUsageScanner.cumulative``), when ``counted``
    cumulative: Counters | None = None
    counted: bool = False
    #: the latest run's cumulative count alone (a fork's row subtracts its copy's from it)
    run_total: Counters | None = None
    #: kept by an older agentscan (``_COUNTS_ONLY``), whose counts did not read ``item_completed``
    #: right, nor count the newer hosted tool calls
    older: bool = False
    #: the file's running totals are garbage: ``cumulative`` is its calls added up, as ``tokens``
    #: counts them (``FileUsageScanner.recount``), and ``run_total`` means nothing; or, not
    #: ``counted`` (``UNCOUNTED``), the tally met garbage and knows no count
    garbled: bool = False
    #: ``counted`` by the build before (``_PREVIOUS``), which took garbage totals for a running
    #: count: right of a file of counts only, so believed only where the row cannot read the
    #: file's count (``row._file_tail``)
    previous: bool = False


#: ``_store``'s ``recount`` for a tally whose count is not known: its file's totals turned to
#: garbage in lines a bounded read appended, and its calls before were not added up
UNCOUNTED = "uncounted"
#: ``_store``'s ``recount`` for a tally counted by its totals as a tally of ``_PREVIOUS`` was
PREVIOUS = "previous"


def _store(path: Path, ctx: ScanContext, kinds: Mapping[str, int], progress: ReadProgress, mtime_ns: int,
           models: ModelUse | None, position: Position | None, copy: CopyEnd | None = None,
           recount: Counters | str | None = None) -> None:
    cache = ctx.file_cache
    head = head_digest(path, progress.complete_offset)
    if cache is None or head is None:
        return
    document: dict = {"kinds": dict(kinds), "lines": progress.lines}
    if models is not None and position is not None:
        document.update(calls=models.calls, turns=models.turns, turn=position[0], total=position[1],
                        carried=position[2], settings=position[3], tier=position[4], seen=position[5])
        if isinstance(recount, tuple):  # (the latest calls counted: one written again after them is counted once)
            document["keys"] = position[6]
        if recount == UNCOUNTED:
            document["uncounted"] = True
        elif recount == PREVIOUS:
            document["previous"] = True
        elif recount is not None:  # (none in a tally of a file of counts)
            document["recount"] = recount
    if copy is not None:
        document["copy"] = {"baseline": copy.baseline, "calls": copy.calls}
    state = orjson.dumps(document)
    cache.put_file(str(path), KIND, progress.complete_offset, mtime_ns, VERSION, head, progress.complete_offset, state)


def _pairs(value: object) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, list):
        raise TypeError("pairs")
    pairs = []
    for pair in value:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and type(pair[1]) is int):
            raise TypeError("pair")
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


def _copy(document: dict) -> CopyEnd | None:
    """The kept end of a copied history; ``None`` when none was kept."""
    copy = document.get("copy")
    if copy is None:
        return None
    if not isinstance(copy, dict):
        raise TypeError("copy")
    return CopyEnd(kept_counters(copy.get("baseline")), _pairs(copy.get("calls")))


def _models(document: dict, older: bool = False) -> tuple[ModelUse, Position] | None:
    """The kept model use and position; ``None`` for a tally without them (kept before they were).
    ``older``: a tally of ``_COUNTS_ONLY``, whose position is not taken (a "2" has no ``carried``)."""
    if "calls" not in document:
        return None
    turn, total = document.get("turn"), document.get("total")
    # (A tally kept before ``settings`` was kept holds the model either named in ``turn``.)
    settings, tier = document.get("settings"), document.get("tier")
    if any(value is not None and not isinstance(value, str) for value in (turn, settings, tier)):
        raise TypeError("turn")
    carried = ZERO if older else kept_counters(document.get("carried"), signed=True)
    seen = () if older else tuple(kept_counters(value) for value in document.get("seen", ()))
    keys = () if older else kept_keys(document.get("keys", []))
    position: Position = (turn, kept_counters(total) if total is not None and not older else None, carried,
                          settings, tier, seen, keys)
    return ModelUse(_pairs(document["calls"]), _pairs(document.get("turns"))), position


def wants_tally(path: Path, ctx: ScanContext) -> bool:
    """Whether a whole pass over ``path`` should keep its tally (``remember`` would store it).

    ``tokens`` reads only a rollout's usage lines unless this says the line
    kinds are worth counting on the way.
    """
    if ctx.file_cache is None or path.name.endswith(".zst"):
        return False
    stat = ctx.stat(path)
    return stat is not None and stat.st_size > WHOLE_BYTES


def remember(path: Path, ctx: ScanContext, kinds: Mapping[str, int], progress: ReadProgress,
             models: ModelUse, position: Position, copy: CopyEnd | None = None, *,
             recount: Counters | None = None) -> None:
    """Keep the tally of a whole pass over ``path`` (large plain rollouts only): its line
    kinds, its model use and stopping point (``FileUsageScanner.model_use``, ``position``),
    where a copied history ended (``FileUsageScanner.copy_end``), and its calls added up
    when its running totals are garbage (``FileUsageScanner.recount``)."""
    if ctx.file_cache is None or path.name.endswith(".zst"):
        return
    try:
        stat = os.stat(path)
    except OSError:
        return
    if stat.st_size > WHOLE_BYTES and progress.complete_offset > 0:
        _store(path, ctx, kinds, progress, stat.st_mtime_ns, models, position, copy, recount)


#: ``ctx.memo``: the scanners this scan's latest whole reads of a fork fed (``keep_scanner``): a
#: few, for a scanner holds its file's calls (about 230 bytes each: a 32 MiB fork of calls
#: alone, 20 MB), and the passes that take them come right after (``row._replay_whole``)
_SCANNED = "codex.scanned"
_SCANNED_KEPT = 4


def keep_scanner(path: Path, ctx: ScanContext, scanner: FileUsageScanner, said: Sequence[Told]) -> None:
    """Keep ``scanner``, fed every line of ``path`` (a ``replay`` one, as ``usage.scan_file``
    makes it: ``forkpart``), with what that read found wrong, held back (``said``), for
    ``shared_scanner``."""
    from cachetools import LRUCache  # (only a fork's read keeps one: ``tokens`` need not load it)

    stat = ctx.stat(path)
    if stat is not None:
        kept = ctx.memo.setdefault(_SCANNED, LRUCache(maxsize=_SCANNED_KEPT))
        kept[(str(path), stat.st_size, stat.st_mtime_ns, scanner.started, scanner.thread_id)] = (scanner, tuple(said))


def shared_scanner(path: Path, ctx: ScanContext, started: datetime | None,
                   thread_id: str | None) -> FileUsageScanner | None:
    """The scanner ``keep_scanner`` kept of ``path`` this scan, for that thread and start, the
    file unchanged since: ``usage.scan_file`` takes it rather than read the file again, saying
    what that read found wrong, as its own read would.  Its takers only read it (its events,
    ``own_events``, ``model_use``): one that fed it more would change it for the other."""
    stat = ctx.stat(path)
    found = ctx.memo.get(_SCANNED, {}).get((str(path), stat.st_size, stat.st_mtime_ns, started, thread_id)) \
        if stat is not None else None
    if found is None:
        return None
    scanner, said = found
    say(ctx, said)
    return scanner  # type: ignore[no-any-return]


def exact_tally(path: Path, ctx: ScanContext) -> Tally | None:
    """The whole file's counts, model use and cumulative count from a kept tally, or ``None``
    when there is none."""
    cache = ctx.file_cache
    if cache is None:
        return None
    state = cache.get_file(str(path), KIND)
    if state is None:
        return None
    size, mtime_ns, version, head, offset, blob = state
    older = version in _COUNTS_ONLY
    if version != VERSION and not older and version not in _PREVIOUS:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    try:
        document = orjson.loads(blob)
        kinds: dict[str, int] = document["kinds"]
        lines = document["lines"]
        if not (isinstance(kinds, dict) and all(type(n) is int for n in kinds.values()) and type(lines) is int):
            return None
        kept = _models(document, older)
        copy = None if older else _copy(document)
        # What the kept pass counted: its totals (``None``, ``PREVIOUS``), its calls, or nothing.
        recount = None if kept is None or older else _recount(document, version)
    except (orjson.JSONDecodeError, TypeError, KeyError):
        return None  # a damaged tally is no tally (issue 14, case 7)
    if older:
        unchanged = stat.st_size == size and stat.st_mtime_ns == mtime_ns
        return Tally(counts_of(kinds), kept[0] if kept else None, older=True) if unchanged else None
    if stat.st_size == size and stat.st_mtime_ns == mtime_ns:
        if kept is None:
            return Tally(counts_of(kinds), None, copy)
        return _tally(counts_of(kinds), kept[0], copy, kept[1], recount)
    if stat.st_size < size or stat.st_size - size > GROWTH_BYTES or head_digest(path, size) != head:
        return None  # rewritten, or grown too much for a bounded read
    # Appended lines leave where the copy ended as it was: it is kept on.
    scanner = FileUsageScanner()
    if kept is not None:
        scanner.resume(*kept[1])
    progress = ReadProgress(offset, lines)
    for line in iter_json_lines(path, ctx, start=offset, first_line=lines + 1, progress=progress):
        kind = line_kind(line.record)
        if kind is not None:
            add_kind(kinds, kind)
        scanner.feed(line.record)
    if kept is None:
        _store(path, ctx, kinds, progress, stat.st_mtime_ns, None, None, copy)
        return Tally(counts_of(kinds), None, copy)
    models = merge((kept[0], scanner.model_use()))
    if (recount is None or recount == PREVIOUS) and scanner.garbled:
        # The totals turned to garbage in the appended lines: the count is the calls since
        # the first line, and those before were not added up (nor are they, for every file,
        # by a pass that keeps their totals).  Not mixed with the totals: ``runs`` counts it.
        recount = UNCOUNTED
    elif isinstance(recount, tuple):
        recount = add(recount, scanner.spent)  # (the calls before, added up: then these)
    _store(path, ctx, kinds, progress, stat.st_mtime_ns, models, scanner.position, copy, recount)
    return _tally(counts_of(kinds), models, copy, scanner.position, recount)


def _tally(counts: Counts, models: ModelUse, copy: CopyEnd | None, position: Position,
           recount: Counters | str | None) -> Tally:
    """The tally of a kept pass that stopped at ``position``, counted as ``recount`` says."""
    if recount == UNCOUNTED:
        return Tally(counts, models, copy, garbled=True)
    total, carried = position[1], position[2]
    if recount is None and total is None and models.calls:
        # Calls and no running total: a build before counted calls with none (``last_token_usage``
        # alone: ``counters.unsummed``) as nothing; a row reads the count (``runs``) until a pass keeps another.
        return Tally(counts, models, copy)
    if recount is not None and recount != PREVIOUS:
        return Tally(counts, models, copy, cumulative=recount, counted=True, run_total=total,  # type: ignore[arg-type]
                     garbled=True)
    return Tally(counts, models, copy, cumulative=None if total is None else add(carried, total), counted=True,
                 run_total=total, previous=recount == PREVIOUS)


def _recount(document: dict, version: str) -> Counters | str | None:
    """What a kept pass counted: ``None``, its totals; its calls added up, of a file of
    garbage totals; ``UNCOUNTED``; or ``PREVIOUS``, its totals as a tally of ``_PREVIOUS``
    counted them (one of those that kept a ``recount`` knew garbage: ``UNCOUNTED``)."""
    if version in _PREVIOUS:
        # (An "8" that knew garbage, ``uncounted`` or a ``recount``, is read again: ``runs``.)
        return UNCOUNTED if document.get("recount") is not None or document.get("uncounted") is True else PREVIOUS
    if document.get("uncounted") is True:
        return UNCOUNTED
    if document.get("previous") is True:
        return PREVIOUS
    value = document.get("recount")
    return None if value is None else kept_counters(value)
