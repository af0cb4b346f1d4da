"""Bounded summaries for ``list`` rows: a rollout's head and its last 1 MiB.

Rollouts grow to gigabytes, so a row never parses one whole.  The head gives
the title (the first real prompt, within ``HEAD_BYTES``); the tail gives the
latest cumulative ``token_count`` (with the counts that restarted: ``row``
makes it the whole file's), the latest plan, the rate limits, the
calls and turns per model (``modeluse``), the last activity and the latest
``thread_name_updated`` of each thread (``names``: a rename in the part of a
larger rollout neither read is not seen here).  Both are cached by
(path, size, mtime) in bounded LRU caches, with the warnings they produced
so that a cached read reports the same problems as a fresh one.

A ``.zst`` rollout cannot be seeked, so its "tail" is a streaming
decompression of the whole file that keeps only the latest values: memory
stays bounded, time is proportional to the file (cold archives are rare and
read once per process thanks to the cache).
"""

from __future__ import annotations

from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, TypeVar

import orjson
from cachetools import LRUCache

from agentscan.context import CANNOT_READ, ScanContext
from agentscan.toolkit.jsonerrors import line_json_error
from agentscan.toolkit.fsutil import read_tail
from agentscan.toolkit.jsonl import BOM, iter_json_lines
from agentscan.toolkit.laxjson import reparse
from agentscan.model import Counts, ScanWarning
from agentscan.providers.codex.counters import ZERO, Counters
from agentscan.providers.codex.facts import LineFacts
from agentscan.providers.codex.modeluse import ModelUse
from agentscan.providers.codex.messages import REPLY_KINDS, line_kind, turn_prompt
from agentscan.providers.codex.names import RolloutNames
from agentscan.providers.codex.records import (TITLE_CHARS, collapse, context_cwd, enveloped, event_prompt, item_prompt,
                                              payload_of)
from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.providers.codex.countwarnings import split_warning, total_warning
from agentscan.settling import unfinished_line
from agentscan.toolkit.imagetext import is_images_text

if TYPE_CHECKING:
    from agentscan.providers.codex.totalseed import Reached  # (imported where a window needs them)
    from agentscan.providers.codex.turnseed import Seed

TAIL_BYTES = 1024 * 1024
HEAD_BYTES = 256 * 1024
_EVENT_GRACE_LINES = 16
#: the other lines ``FileUsageScanner.feed`` reacts to (the rest, most of a tail, it skips); a
#: tuple, not a set: a line's ``type`` may be a list or an object, which would not even hash
_CALL_LINES = ("turn_context", "token_usage_record", "compacted")
#: by (path, size, mtime, the id of the thread the file is of: ``_TailFold``)
#: each summary with the warnings its read said (``toldwarnings``)
_TAIL_CACHE: LRUCache[tuple[str, int, int, str | None], tuple[TailSummary, tuple]] = LRUCache(maxsize=512)
_HEAD_CACHE: LRUCache[tuple[str, int, int, str | None], tuple[HeadSummary, tuple]] = LRUCache(maxsize=512)


class TailSummary(NamedTuple):
    """What a rollout's last 1 MiB tells (a named tuple: see ``cli.term.Terminal``)."""

    cumulative: Counters | None = None  # the latest total_token_usage, plus those that restarted
    models: ModelUse = ModelUse()  # the calls and turns per model (``modeluse.most_used``)
    last_timestamp: datetime | None = None
    rate_limits: dict[str, Any] | None = None
    counts: Counts = Counts()
    whole_file: bool = False  # the counts cover the whole file, not just its end
    warnings: tuple[ScanWarning, ...] = ()
    names: RolloutNames = ()  # the latest name of each thread the lines read recorded
    #: ``cumulative`` is the whole file's (a window that cut the file may have missed a count
    #: that restarted before it: ``row._whole_count``)
    whole_count: bool = False
    #: the lines read hold ``item_completed`` messages (0.145+): a tally an older agentscan kept
    #: missed them (``fullcounts.Tally.older``)
    turn_items: bool = False
    #: the lines read hold tool calls of ``records.NEWER_TOOL_ITEMS``: likewise
    newer_tools: bool = False
    #: a running total of the lines read held a value that is no token count (``-5``, ``2.5``):
    #: the totals are no running count, so ``cumulative`` is the calls read added up, as
    #: ``tokens`` counts them (``FileUsageScanner.garbled``, ``spent``): the file's with
    #: ``whole_count``, else only the window's, a part (``row._whole_count`` looks for the
    #: whole file's); and a row of a fork counts its own calls (``row``)
    garbled: bool = False
    #: the file's kept tally met totals of garbage (maybe before the window) and knows no count
    #: (``fullcounts.UNCOUNTED``): the window's count is then no estimate of the file's either
    garbage_kept: bool = False


class HeadSummary(NamedTuple):
    """What a rollout's head tells (a named tuple: see ``cli.term.Terminal``)."""

    title: str | None = None
    warnings: tuple[ScanWarning, ...] = ()
    #: the ``<cwd>`` of the first ``<environment_context>`` item: the cwd of a rollout whose
    #: header has none (a pre-envelope one, of mid-2025)
    cwd: str | None = None


class _TailFold:
    """Folds the tail's records into a ``TailSummary``.  A plain class, not a dataclass:
    a cold ``list`` imports it, and a dataclass costs about a millisecond to create on import."""

    __slots__ = ("facts", "calls")

    def __init__(self, own: str | None = None, model: Seed | None = None, totals: Reached | None = None) -> None:
        self.facts = LineFacts(own)  # ``own``: the thread's id, whose names are always kept
        # The calls as ``tokens`` counts them (each on the model ``tokens --by model``
        # gives it): a row's model is the one most of them ran on.  It also adds up the
        # cumulative counts, a count that restarted included (``FileUsageScanner.cumulative``).
        self.calls = FileUsageScanner(timed=False)
        if model is not None or totals is not None:
            # the turn going on where the window begins (``turnseed``), and where a whole read
            # stands there (``totalseed``: a replay in the window of a total before it counts nothing)
            turn, settings, tier = (model.turn, model.settings, model.tier) if model is not None else (None, None, None)
            previous, seen = totals if totals is not None else (None, ())
            self.calls.resume(turn, previous, settings=settings, tier=tier, seen=seen)

    def feed(self, record: Mapping[str, Any]) -> None:
        _, _, rtype, payload = self.facts.note(record)
        if rtype == "event_msg":
            if payload.get("type") in ("token_count", "thread_settings_applied"):
                # (the thread's settings name the model of the calls before the first turn_context)
                self.calls.feed(record)
            # The scanner's other event (task_started) matters only to a copy it is told of.
        elif rtype in _CALL_LINES:
            self.calls.feed(record)

    def build(self, whole_file: bool, warnings: Iterable[ScanWarning], path: Path | None = None) -> TailSummary:
        calls = self.calls
        # The row's count caps the total's split, not each call's: said, of a file read whole.  Of
        # a larger one the usage pass that prices the row (``scan.costs``) says it of every call;
        # a window's count beside it would be a second, smaller one.
        if path is not None and whole_file:
            for said in (split_warning(calls), total_warning(calls)):
                if said is not None:
                    warnings = (*warnings, ScanWarning(str(path), said))
        # Totals of garbage (a negative one reads as a restart, each adding a run) are no
        # running count: the calls are, the deltas ``tokens`` adds up.  Of a window that cut
        # the file, that is the window's part only, not the whole count (``whole_count``):
        # never the totals, which would claim one.
        garbled = calls.garbled
        return TailSummary(
            calls.spent if garbled else calls.cumulative,
            self.calls.model_use(),
            self.facts.last_ts,
            self.facts.rate_limits,
            self.facts.counts(),
            whole_file,
            tuple(warnings),
            self.facts.thread_names(),
            whole_file,
            "turn_items" in self.facts.kinds,
            "newer_tools" in self.facts.kinds,
            garbled,
        )


T = TypeVar("T", HeadSummary, TailSummary)


def _cached(path: Path, ctx: ScanContext, cache: LRUCache, compute: Callable[[ScanContext], T],
            own: str | None = None) -> T | None:
    """``compute`` once per (path, size, mtime, ``own``); a hit reports the warnings the read raised."""
    try:
        stat = path.stat()
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return None
    key = (str(path), stat.st_size, stat.st_mtime_ns, own)
    found = cache.get(key)
    if found is not None:
        # (each file's count past those kept too, in its place: kept without it, a later run of
        # the same process said "80 more" of a rollout of 1,100 bad lines for 1,080)
        summary, told = found
        ctx.warnings.say_again(told)
        return summary  # type: ignore[no-any-return]
    with ctx.warnings.capture() as captured:
        summary = compute(ctx)
        for warning in summary.warnings:
            ctx.warn(warning.path, warning.message, warning.line)
    summary = summary._replace(warnings=tuple(captured))
    if not captured.lost and not captured.passing:
        # (Each count past those kept is kept too, in its place (``told``): only a read that lost
        # some warnings, or could not read something this time, is not remembered.)
        cache[key] = (summary, captured.told())
    return summary


def tail_summary(path: Path, ctx: ScanContext, own: str | None = None) -> TailSummary:
    """``own``: the id of the thread the file is of (a paginated thread's later files are
    named for their own rollout id), whose names are always kept (``names.note_name``)."""
    return _cached(path, ctx, _TAIL_CACHE, lambda scan: _read_tail(path, scan, own), own) or TailSummary()


def _read_tail(path: Path, ctx: ScanContext, own: str | None = None) -> TailSummary:
    if path.name.endswith(".zst"):
        fold = _TailFold(own)
        with ctx.warnings.capture() as said, closing(iter_json_lines(path, ctx)) as lines:
            for line in lines:
                fold.feed(line.record)
        # A frame that cannot be decompressed ends the read: the counts are of the lines before
        # it, not the file's (``counts_partial``), as a plain file's window's are.
        whole = not any(warning.message.startswith((CANNOT_READ, "read failed: ")) for warning in said)
        return fold.build(whole, (), path)
    try:
        data, cut = tail_window(path)
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return TailSummary()
    summary, unnamed, dropped = _fold_window(path, data, cut, own)
    if cut and (unnamed or dropped):
        try:
            # Where the window's first line starts (a line Codex appended since moves this into
            # the window, which holds no turn_context to find).
            start = path.stat().st_size - len(data)
        except OSError:
            return summary
        # Calls before the window's first turn_context (or in a window of none): their turn
        # began before it (``turnseed``); read again on the model it began on.  A total went down
        # and repeats none the window saw: a replay of one reached before the window, or a
        # restart; the totals before it tell (``totalseed``).  One walk back looks for both.
        from agentscan.providers.codex.totalseed import seeds_before

        model, totals = seeds_before(path, start, model=unnamed, totals=dropped)
        if model is not None and model.turn is None and model.settings is None:
            model = None
        if model is not None or totals is not None:
            summary = _fold_window(path, data, cut, own, model, totals)[0]
    return summary


def _fold_window(path: Path, data: bytes, cut: bool, own: str | None, model: Seed | None = None,
                 totals: Reached | None = None) -> tuple[TailSummary, bool, bool]:
    """``data``'s records folded (``model``: the turn's and the settings' model and the tier its
    first calls ran on, ``turnseed``; ``totals``: the running totals reached before it,
    ``totalseed.seeds_before``), whether a call in it ran on no model it names, and whether a running total
    in it restarted (a run before it added: ``counters.step``)."""
    fold = _TailFold(own, model, totals)
    warnings: list[ScanWarning] = []
    chunks = data.split(b"\n")
    for position, line in enumerate(chunks):
        chunk = line.strip()
        if not chunk:
            continue
        try:
            record = orjson.loads(chunk)
        except orjson.JSONDecodeError as exc:
            number = None if cut else position + 1
            noted: list[str] = []
            try:  # as the whole pass reads it (``toolkit.laxjson``), and says it
                record = reparse(chunk, exc, noted.append)
                # Worded as the window's other warnings are (a whole pass says it with its line).
                warnings.extend(ScanWarning(str(path), f"{note} in the last 1 MiB" if cut else note, number) for note in noted)
            except orjson.JSONDecodeError:
                last = position == len(chunks) - 1
                if cut:  # the window's lines are not the file's: no number to give
                    message = unfinished_line(chunk) if last else "invalid JSON skipped in the last 1 MiB"
                else:
                    # The whole file: said as a whole pass says it (the same warning, told once).
                    message = unfinished_line(chunk) if last else f"invalid JSON skipped: {line_json_error(exc, line, chunk)}"
                warnings.append(ScanWarning(str(path), message, number))
                continue
        if isinstance(record, dict):
            fold.feed(record)
    return (fold.build(not cut, warnings, path), any(call.model is None for call in fold.calls.all_calls()),
            fold.calls.carried != ZERO)


def tail_window(path: Path) -> tuple[bytes, bool]:
    """The lines of a plain rollout's last ``TAIL_BYTES`` (its partial first line dropped, or its
    byte order mark), and whether the window cut the file; raises ``OSError``.  ``tablefacts``
    reads the same window."""
    data, cut = read_tail(path, TAIL_BYTES + 1)
    if cut:
        # The window starts mid-line: drop the partial first line.
        newline = data.find(b"\n")
        data = data[newline + 1:] if newline >= 0 else b""
    elif data.startswith(BOM):
        data = data[len(BOM):]
    return data, cut


def head_summary(path: Path, ctx: ScanContext, start: int = 0) -> HeadSummary:
    """``start``: the offset of the line the head begins at (a fork's own part: ``forkpart``)."""
    # (``start`` keys the cache where the thread's id keys a tail's)
    return _cached(path, ctx, _HEAD_CACHE, lambda scan: _read_head(path, scan, start),
                   f"@{start}" if start else None) or HeadSummary()


def _read_head(path: Path, ctx: ScanContext, start: int = 0) -> HeadSummary:
    fallback: str | None = None
    #: the first prompt of images alone (``[image]``): the title only when no prompt of words
    #: follows within the head (a screenshot pasted first, its question typed next)
    images: str | None = None
    cwd: str | None = None
    grace = _EVENT_GRACE_LINES
    # (a ``.zst`` rollout cannot seek: read from its start, its lines before ``start`` skipped)
    with closing(iter_json_lines(path, ctx, start=0 if path.name.endswith(".zst") else start)) as lines:
        for line in lines:
            if line.offset < start:
                continue
            if line.offset - start > HEAD_BYTES:
                break
            record = enveloped(line.record)  # a pre-envelope rollout's bare item as an envelope's
            payload = payload_of(record)
            ptype = payload.get("type") if record.get("type") == "event_msg" else None
            prompt = None
            if ptype == "user_message":
                prompt = event_prompt(payload)
            elif ptype == "item_completed":  # 0.145 and later
                prompt = turn_prompt(payload)
            if prompt:
                if not is_images_text(prompt):
                    return HeadSummary(collapse(prompt, TITLE_CHARS), cwd=cwd)
                images = images or prompt  # (read on for one of words)
            elif ptype == "user_message":
                continue
            elif fallback is None and record.get("type") == "response_item":
                fallback = item_prompt(payload)
                if fallback is not None and is_images_text(fallback):
                    images, fallback = images or fallback, None
                cwd = cwd or context_cwd(payload)
            elif fallback is not None:
                # Builds that write user_message (or item_completed) events write one
                # right after the item; older builds never do, so do not read on for long,
                # nor past a reply (a later prompt's event, of a build that resumed the
                # thread, is not this one's: ``messages.ends_stretch``).
                grace -= 1
                if grace <= 0 or line_kind(record, payload) in REPLY_KINDS:
                    break
    title = fallback or images
    return HeadSummary(collapse(title, TITLE_CHARS) if title else None, cwd=cwd)
