"""Exact Codex token counting: per-call deltas, never re-emitted or copied ones.

Codex writes ``event_msg/token_count`` with a cumulative ``total_token_usage``
and the last call's ``last_token_usage`` (docs/providers/codex.md).  The
bugs peers ship are inflation bugs, so (as ccusage does):

* a call counts ``last_token_usage``, else the Δ of ``total_token_usage``;
* an event whose cumulative total did not move is a re-emission: skipped;
* a zero delta is skipped;
* a fork or subagent thread starts with a copy of its parent's history,
  ``token_count`` lines included: those calls were the parent's spend (a
  fork's, when its parent is gone: ``goneparent``);
* whatever survives is deduplicated across files by (timestamp, counters);
* newer builds also write a top-level ``token_usage_record`` per completed
  model response (``payload.usage``, keyed by ``response_id``), and a
  ``compacted`` line may carry a copy of the latest one.  The same response
  usually has a ``token_count`` too (the same counters as its
  ``last_token_usage``): such a record adds nothing.  A record no
  ``token_count`` matches (a remote compaction's usage, or a build that
  writes only records) is a call of its own.  Records of another thread
  (``thread_id``) are copies and never count.

Finding where a copied history ends, in order of trust: the thread's first
``task_started`` whose ``started_at`` (a payload field, kept verbatim in
copies) is not older than the thread itself; else the leading calls that
equal the parent's own calls up to the fork; else the leading calls dated
before the thread itself (copies that kept their timestamps); else
the leading burst of calls written within a second of each other (copies
whose timestamps were rewritten to the fork instant are written in one go).
Copied markers alone (older than the thread) end no copy: the calls before the
last of them are copies, whatever those rules say.
"""

from __future__ import annotations

from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Generator, Iterable, NamedTuple, cast

from agentscan.context import ScanContext
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines
from agentscan.toolkit.linescan import ScanProgress, matching_records
from agentscan.model import TokenUsage, UsageEntry, pack_call
from agentscan.providers.codex.callevent import UsageEvent
from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.providers.codex.countwarnings import split_warning, total_warning
from agentscan.providers.codex.fullcounts import remember, shared_scanner, wants_tally
from agentscan.providers.codex.counters import Counters, counters_of, minus, token_fields, token_info
from agentscan.providers.codex.modeluse import ModelUse
from agentscan.providers.codex.messages import add_kind, line_kind

#: the only records ``FileUsageScanner.feed`` reacts to carry one of these (keep
#: them in step with ``feed``); the rest (most of a rollout) are skipped undecoded
USAGE_MARKERS = (b'"token_count"', b'"turn_context"', b'"task_started"', b'token_usage_record"', b'"compacted"',
                 b'"web_search_call"', b'"thread_settings_applied"')


def scan_file(
    path: Path, ctx: ScanContext, *, replay: bool, started: datetime | None, thread_id: str | None = None,
    history_start: int | None = None, referenced: bool = False,
) -> FileUsageScanner:
    """``history_start``: the header's (``RolloutHeader.history_start``), for a ``replay``;
    ``referenced``: the file references the history it continues (``FileUsageScanner``)."""
    scanner = _scan_file(path, ctx, replay=replay, started=started, thread_id=thread_id, history_start=history_start,
                         referenced=referenced)
    for said in (split_warning(scanner), total_warning(scanner)):
        if said is not None:
            ctx.warn(path, said)
    return scanner


def _scan_file(
    path: Path, ctx: ScanContext, *, replay: bool, started: datetime | None, thread_id: str | None,
    history_start: int | None = None, referenced: bool = False,
) -> FileUsageScanner:
    if replay:
        # A fork's file its own part was told from this scan, read whole then (``forkpart``).
        shared = shared_scanner(path, ctx, started, thread_id)
        if shared is not None:
            return shared
    scanner = FileUsageScanner(replay=replay, started=started, thread_id=thread_id, history_start=history_start,
                               referenced=referenced)
    if not wants_tally(path, ctx):
        # Only the lines that can matter, found by their markers (toolkit.linescan).
        for _offset, record in matching_records(path, ctx, USAGE_MARKERS, ScanProgress()):
            scanner.feed(record)
        return scanner
    # A large rollout is read whole: keep its line tally for ``list`` (fullcounts.py).
    kinds: dict[str, int] = {}
    progress = ReadProgress()
    with closing(iter_json_lines(path, ctx, progress=progress)) as lines:
        for line in lines:
            scanner.feed(line.record)
            kind = line_kind(line.record)
            if kind is not None:
                add_kind(kinds, kind)
    remember(path, ctx, kinds, progress, scanner.model_use(), scanner.position, scanner.copy_end(),
             recount=scanner.recount)
    return scanner


class ReplayHead(NamedTuple):
    """What a read of a fork's head tells about its copied history.

    Exactly one of: ``baseline`` (the cumulative total the copy ended with,
    ``ZERO`` when nothing was copied), ``own`` with ``complete`` (the whole
    file was read: its own calls, summed), or neither (the copy runs past the
    budget).  A named tuple (see ``cli.term.Terminal``).
    """

    baseline: Counters | None = None
    own: TokenUsage | None = None
    complete: bool = False
    #: with ``own``: its calls (and the file's turns) per model; with ``baseline``: the
    #: copied calls per model, for a row to take out of the file's (``modeluse``)
    models: ModelUse = ModelUse()


def parent_events(parent_id: str, ctx: ScanContext) -> list[UsageEvent]:
    """Every call in the files of thread ``parent_id`` (none when it is gone), for
    ``FileUsageScanner.own_events``: only a fork without turn markers needs them,
    so discovery (a walk of every rollout) runs only then."""
    from agentscan.providers.codex.discovery import discover

    parent = discover(ctx).threads.get(parent_id)
    events: list[UsageEvent] = []
    for path in parent.files() if parent else ():
        events.extend(scan_file(path, ctx, replay=False, started=None, thread_id=parent_id).events)
    return events


def read_replay_head(
    path: Path, ctx: ScanContext, started: datetime | None, budget: int, parent_id: str | None = None,
    history_start: int | None = None,
) -> ReplayHead:
    """``parent_id``: the thread the history was copied from, whose calls tell a
    copy from the thread's own when no turn marker does (as ``tokens`` tells them)."""
    scanner = FileUsageScanner(replay=True, started=started, history_start=history_start)
    with closing(iter_json_lines(path, ctx)) as lines:
        for line in lines:
            if line.offset > budget:
                return ReplayHead()
            scanner.feed(line.record)
            copy = scanner.copy_end()
            if copy is not None:
                return ReplayHead(baseline=copy.baseline, models=ModelUse(copy.calls))
    return _own_calls(scanner, parent_id, ctx)


def read_replay_whole(
    path: Path, ctx: ScanContext, started: datetime | None, thread_id: str, parent_id: str | None = None,
    history_start: int | None = None,
) -> ReplayHead:
    """A fork's own calls, its whole file read as ``tokens`` reads it (``scan_file``): for a
    copy that runs past the head's budget.  A large file's pass keeps its tally, with
    where the copy ended (``fullcounts``), so the next row need not read it again."""
    scanner = scan_file(path, ctx, replay=True, started=started, thread_id=thread_id, history_start=history_start)
    return _own_calls(scanner, parent_id, ctx)


def _own_calls(scanner: FileUsageScanner, parent_id: str | None, ctx: ScanContext) -> ReplayHead:
    """The calls of a whole file the scanner was fed that the thread made itself (as ``tokens``
    tells them: ``own_events``, with the parent's calls for a fork without turn markers)."""
    own = scanner.own_events((lambda: parent_events(parent_id, ctx)) if parent_id else None)
    total = None
    for event in own:
        total = event.tokens if total is None else total + event.tokens
    return ReplayHead(own=total, complete=True, models=scanner.model_use(own))


def own_start(path: Path, ctx: ScanContext, started: datetime | None, history_start: int | None = None) -> int:
    """Where the thread's own part of a file that begins with a copy of its parent's history
    starts: the line of its first ``task_started`` not older than the thread, as ``tokens``
    tells the copy's end (``FileUsageScanner._marker``); 0 when no marker tells it (then the
    copy is told by its calls, which say nothing of the lines around them).  Only those lines
    are decoded; what they say wrong, the pass that reads the whole file says."""
    scanner = FileUsageScanner(replay=True, started=started, history_start=history_start)
    with ctx.held_warnings():
        for offset, record in matching_records(path, ctx, b'"task_started"', ScanProgress()):
            scanner.feed(record)
            if scanner.decided:
                return offset
    return 0


def read_segment_start(path: Path, ctx: ScanContext, budget: int) -> Counters | None:
    """The cumulative count a file starts from: its first ``token_count``'s
    total minus that call (a later segment of a paginated thread continues the
    count of the history it builds on).  ``None`` if none within ``budget``."""
    with closing(iter_json_lines(path, ctx)) as lines:
        for line in lines:
            if line.offset > budget:
                return None
            info = token_info(line.record) or {}
            total = counters_of(info.get("total_token_usage"), "total_token_usage")
            if total is None:
                continue
            last = counters_of(info.get("last_token_usage"))
            return minus(total, last) if last is not None else None
    return None


def first_call_base(path: Path, ctx: ScanContext, budget: int) -> tuple[Counters | None, bool]:
    """What ``read_segment_start`` tells, found by searching the bytes of ``path``'s first
    ``budget`` for ``token_count`` lines (only those decoded): a fork that references its
    parent's history may put megabytes of tool output before its first call.  With it, whether
    that base is exact.  ``None``: no call with both counts found.

    A first total with ``last_token_usage: {}`` (cc-switch#5854) is taken for the base restored
    (``FileUsageScanner.referenced``): the first later call with both counts tells whether it
    was (its total less its call equals it: exact), else it is a lower bound of the base
    (partial)."""
    empty: Counters | None = None
    found: tuple[Counters | None, bool] = (None, False)
    with ctx.held_warnings():  # (what the file says wrong, the passes that read it say)
        records = cast(Generator[tuple[int, dict], None, None],  # (a generator: closed below)
                       matching_records(path, ctx, b'"token_count"', ScanProgress(), end=budget, tell_values=False))
        for _, record in records:
            info = token_info(record) or {}
            total = counters_of(info.get("total_token_usage"), "total_token_usage")
            if total is None:
                continue
            raw_last = info.get("last_token_usage")
            if empty is None and raw_last == {}:
                empty = total
                continue
            last = counters_of(raw_last)
            if empty is not None:
                found = (empty, last is not None and minus(total, last) == empty)
            else:
                found = (minus(total, last), True) if last is not None else (None, False)
            break
        records.close()  # (while its warnings are held)
    return (empty, False) if empty is not None and found[0] is None else found


class UsageDeduper:
    """Keeps the first copy of each call within one ``usage`` call, keyed by (timestamp, counters).

    Each entry also carries that key as ``dedupe_key``: the core merges the
    per-session results (which it caches separately) by it, keeping the copy
    with the highest ``rank``, which we make the oldest thread's, as here.
    """

    def __init__(self, *, packed: bool = False) -> None:
        self._seen: set[str] = set()
        #: the calls, unless ``packed`` (then empty: ``packed`` holds them)
        self.entries: list[UsageEntry] = []
        #: with ``packed``, the entries as ``UsageEntry.pack`` gives them, instead of ``entries``
        #: (``tokens``' pass: two frozen dataclasses a call were ≈ a tenth of a rollout's parse)
        self.packed: list[list] | None = [] if packed else None

    def add(
        self, events: Iterable[UsageEvent], *, session: str, subagent: str | None, started: datetime | None
    ) -> None:
        rank = -int(started.timestamp() * 1000) if started is not None else -(1 << 62)
        for event in events:
            key = None
            if event.timestamp_raw is not None:
                key = event.timestamp_raw + "\x1f" + ",".join(map(str, event.counters))
                if key in self._seen:
                    continue
                self._seen.add(key)
            if self.packed is not None:
                # (``UsageEntry(...).pack()`` of the entry below, without it and its ``TokenUsage``)
                stamp = event.timestamp
                self.packed.append(pack_call(session, subagent, None if stamp is None else stamp.timestamp(),
                                             event.model, token_fields(event.counters), key, rank,
                                             web_searches=event.web_searches))
                continue
            self.entries.append(UsageEntry(session, event.tokens, event.timestamp, event.model, subagent, key, rank,
                                           web_searches=event.web_searches))
