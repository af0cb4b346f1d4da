"""``list``: the N most recently updated sessions, parsing as few as possible.

A row's ``updated_at`` is the newest time the session itself recorded; the
files' mtime is only a cheap upper bound of it (``SessionRef.recency``).  A
copied home (``--home`` on a backup, the installed ``--demo``) has every
mtime at the copy time, so the mtime order is not the answer: sessions are
parsed in mtime order until no unparsed session can still be newer than the
N-th best row, which on a live home is right after the first N.

``export`` takes every matching session instead (``everyrow.every_row``): no limit, so
every row is read, on every core (``rowbuild``).
"""

from __future__ import annotations

import heapq
from collections import Counter
from contextlib import ExitStack
from functools import partial
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

from agentscan.context import say
from agentscan.progress import CACHING, caching as caching_rows
from agentscan.model import SessionRef, SessionRow
from agentscan.scan import grepkept
# (``ListFilter`` and ``check_filters`` were here: named here still for scripts and tests; the
# package imports them from ``listfilter``, which does not load the listing and its imports)
from agentscan.scan.listfilter import ListFilter as ListFilter, check_filters as check_filters
from agentscan.scan.grepmodels import Held, needs_second_look, settle_held
from agentscan.scan.leftout import (count_failed, count_rest, files_empty, files_small, never_archived, read_row,
                                    shelf_asked, still_ours)
from agentscan.scan.mergedrefs import MergedRefs
from agentscan.scan.liveness import Liveness
from agentscan.scan.listplace import place as _place
from agentscan.timeutil import CLOCK_SLACK_S

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


#: cached rows are fetched this many at a time
PREFETCH = 32
#: ... and at most this many at a time after them
PREFETCH_MAX = 4096

class SessionPage(NamedTuple):
    """What ``list`` shows, and what it needs to explain itself.

    ``discovered`` counts the selected providers' sessions; ``more`` says
    whether more sessions match than ``rows`` holds; ``reached`` counts,
    per active filter, the sessions that passed every filter before it
    (exact whenever ``rows`` is empty), so the first one at zero… is the
    one that emptied the result: ``emptied_by``.  A named tuple (see
    ``cli.term.Terminal``).
    """

    rows: list[SessionRow]
    discovered: int
    more: bool
    reached: dict[str, int]
    passed: dict[str, int]
    newest: datetime | None = None  # newest updated_at seen, for a --since that matched nothing
    blank: int = 0  # sessions left out because they recorded nothing (``SessionRow.recorded_nothing``)
    untold: int = 0  # sessions ``--running`` / ``--pid`` left out whose ``running`` is not known (null)
    #: ``None`` unless ``--running`` / ``--pid``: then how many each provider could not tell
    #: (``Liveness.unknown_counts``), ``list --json``'s ``running_unknown``
    running_unknown: list[dict[str, Any]] | None = None
    #: ``None`` unless ``--archived`` / ``--no-archived``: then the sessions they left out whose
    #: archived state could not be read (``unreadrows.archived_unknown``), ``archived_unknown``
    archived_unknown: list[dict[str, Any]] | None = None
    #: ``None`` unless ``--cwd``: the working directories of the sessions it left out (those that
    #: passed every filter before it), by how many: what ``--cwd`` nearly named is looked for there
    elsewhere: Counter[str] | None = None

    @property
    def emptied_by(self) -> str | None:
        if self.rows or not self.discovered:
            return None
        for stage, count in self.passed.items():
            if count == 0:
                return stage
        return None


def select_sessions(scanner: Scanner, *, limit: int | None, filters: ListFilter, tell: bool = True) -> SessionPage:
    """The ``limit`` (``None``: all) most recently updated sessions matching ``filters``; ``tell``:
    each row's ``running`` told (a table off a terminal shows none: ``Scanner.list_page``)."""
    stages = filters.active_stages
    # A page without filters parses a few sessions: a first run may discover side by side.
    refs = scanner.refs(filters.providers, few=limit if not stages else None)
    reached = dict.fromkeys(stages, 0)
    passed = dict.fromkeys(stages, 0)
    liveness = Liveness(pid=filters.pid)
    since = filters.since.timestamp() if filters.since is not None else None
    now = datetime.now(timezone.utc)
    # A heap of the best ``limit`` matches.  With filters, one more than shown
    # tells whether more match, at the cost of one parse; without, every
    # session matches, so the count of sessions found tells it for free.
    keep = None if limit is None else limit + (1 if stages else 0)
    best: list[tuple[float, int, SessionRow]] = []
    newest: float | None = None
    blank = 0
    progress = scanner.ctx.progress
    progress.expect(len(refs))
    # Every row is read when nothing stops early: asked for at once, they are read on
    # every core (``rowbuild``).  Else a first few; a list that reads on past them
    # (filters that reject most rows, a copied home whose files all have one time) asks
    # for twice as many each time, read on every core too.
    every = keep is None and since is None and not filters.needs_liveness
    window = len(refs) if every else PREFETCH
    fetched = 0  # rows before this one were asked for in one query
    # Sessions whose facts fail ``--grep`` or ``--cwd``, left out unread (``factfilter``): id ->
    # (the filter failed, its time)
    ruled: dict[str, tuple[str, float | None]] = {}
    narrowing = not filters.needs_liveness and (bool(filters.grep) or filters.cwd is not None
                                                or filters.until is not None)
    # Rows that failed ``--grep`` on their own fields, until their calls' models are looked at
    # (``grepmodels``), a batch at a time: a newer one found so still takes its place.
    held_rows: list[Held] = []
    # Kept rows that fail a lone ``--grep`` on their own fields, judged undecoded (``grepkept``):
    # id -> what was found; then, those whose calls' models are looked at, with their places.
    judged: dict[str, grepkept.Failed] | None = {} if grepkept.applies(scanner, filters) else None
    waiting: list[tuple[int, SessionRef]] = []
    count = partial(count_failed, stages=stages, reached=reached, passed=passed)
    # (the cwds of the sessions ``--cwd`` left out: those ruled out unread, by id, until counted)
    elsewhere: Counter[str] | None = Counter() if filters.cwd is not None else None
    ruled_cwds: dict[str, str] = {}
    shelf = shelf_asked(scanner, filters)

    # Without ``--running``, a row's ``running`` is told of the rows that pass the filters alone
    # (``admit``; the page is picked from them after), not of every row read: a ``--grep`` read
    # 15,000 kept rows and asked ``/proc`` about each (a third of a kept row's cost).
    told = liveness if filters.needs_liveness else None

    def admit(index: int, ref: SessionRef, row: SessionRow, said) -> None:
        say(scanner.ctx, said)
        if told is None and tell and row.running is not (running := liveness.of(ref)):  # (as ``everyrow`` keeps one)
            row = row.with_changes(running=running)
        item = (_place(scanner, ref, row, now), -index, row)
        if keep is None or len(best) < keep:
            heapq.heappush(best, item)
        else:
            heapq.heappushpop(best, item)
    # A ``list --all`` whose rows the workers read: keeping them in the index is a phase of
    # its own (``everyrow.every_row``).
    with ExitStack() as caching:
        for index, ref in enumerate(refs):
            bound = ref.recency + CLOCK_SLACK_S if ref.recency else None
            if keep is not None and len(best) >= keep and bound is not None and bound < best[0][0]:
                break  # no session left can be newer than the ones kept
            if since is not None and bound is not None and bound < since:
                count_rest(refs[index:], filters, liveness, reached, passed)
                break  # refs are in recency order: none after this is recent enough
            if filters.needs_liveness and liveness.of(ref) is not True:
                reached["running"] += 1
                continue  # cheap: no parse for sessions that cannot match
            if index >= fetched:
                settle_held(scanner, held_rows, filters, admit, count)
                grepkept.settle(scanner, waiting, filters, partial(read_row, scanner, liveness=told, hold=True), admit, count)
                # Cached rows, a few per query; not past what the top stored rows decide (``TopRefs``).
                fetched = max(index + 1, refs.decided(index + window)) if isinstance(refs, MergedRefs) else index + window
                batch = refs[index:fetched]
                unread = never_archived(scanner, batch, filters)
                if unread:
                    ruled.update(dict.fromkeys(unread, ("archived", None)))
                    batch = [ref for ref in batch if ref.id not in ruled]
                if judged is not None:
                    judged.update(grepkept.failing(scanner, batch, filters))
                    batch = [ref for ref in batch if ref.id not in judged]
                if narrowing:
                    from agentscan.scan import factfilter

                    found = factfilter.ruled_out(scanner, batch, filters)
                    if found is not None:
                        ruled.update(found.out)
                        ruled_cwds.update(found.cwds)
                        batch = [ref for ref in batch if ref.id not in ruled]
                        narrowing = found.worth_it  # else the next batches' facts would cost a pass for little
                # (``list --all``: every row after this batch is read too, counted in the upgrade's note)
                scanner.prefetch_rows(batch, every=every or (index > 0 and not filters.needs_liveness),
                                      coming=_rest(refs, fetched) if every and not narrowing else None)
                # Caching only the last batch's: an earlier one (the newest rows, which the index's
                # top rows decide) is kept while the reading goes on, counted by it; the next
                # batch's read must not be shown as caching.
                if every and fetched >= len(refs) and progress.phase != CACHING and scanner.rows_read_ahead():
                    caching.enter_context(caching_rows(progress, len(refs), index))
                window = window if every else min(2 * window, PREFETCH_MAX)
            failed_alone = judged.pop(ref.id, None) if judged else None
            if failed_alone is not None:
                progress.advance()
                if failed_alone.when is not None:
                    newest = max(newest or float("-inf"), failed_alone.when)
                if failed_alone.used:
                    waiting.append((index, ref))  # (its calls' models are looked at with its batch's)
                else:
                    count("grep")
                continue
            if ref.id in ruled:
                stage, when = ruled.pop(ref.id)
                progress.advance()
                newest = newest if when is None else max(newest or float("-inf"), when)
                count(stage)
                if stage == "cwd" and elsewhere is not None and ref.id in ruled_cwds:
                    elsewhere[ruled_cwds.pop(ref.id)] += 1
                continue
            row, said = read_row(scanner, ref, told, hold=bool(stages))
            progress.advance()
            if row.recorded_nothing and files_small(scanner, ref):
                # Why it recorded nothing; a filtered list says it as it says a row it left out's.
                failed = filters.failed_stage(row) if stages else None
                say(scanner.ctx, said if failed is None else still_ours(said, ref, row, failed, empty=bool(said) and files_empty(scanner, ref)))
                blank += 1
                continue
            if row.updated_at is not None:
                newest = max(newest or float("-inf"), row.updated_at.timestamp())
            failed = filters.failed_stage(row) if shelf is None else shelf.failed(ref, row, filters.failed_stage(row))
            if needs_second_look(failed, row):
                held_rows.append(Held(index, ref, row, said))  # (its calls' models are looked at with its batch's)
                continue
            count(failed)
            if failed is not None:
                if failed == "cwd" and elsewhere is not None and row.cwd:
                    elsewhere[row.cwd] += 1
                say(scanner.ctx, still_ours(said, ref, row, failed))
                continue
            admit(index, ref, row, said)
        settle_held(scanner, held_rows, filters, admit, count)
        grepkept.settle(scanner, waiting, filters, partial(read_row, scanner, liveness=told, hold=True), admit, count)
        scanner.end_batch()  # maybe inside one
    if not best and since is not None and refs and next((stage for stage, n in passed.items() if not n), None) == "since":
        # ``since`` left nothing (the hint names the newest then, and only then).  Read on
        # from the rows read: the loop stops at the first file too old for ``since``, and a
        # file touched since its last record (a copy, an editor) came before the newer
        # sessions it outdates only by its mtime.  What those rows say is not this list's
        # (they are not listed), but what could not be read this time.
        with scanner.ctx.held_warnings() as held:
            newest = _newest_unparsed(scanner, refs, newest)
        say(scanner.ctx, [warning for warning in held.said if warning[3]])
    ordered = [row for _, _, row in sorted(best, key=lambda item: (item[0], item[1]), reverse=True)]
    shown = ordered if limit is None else ordered[:limit]
    from agentscan.timeutil import from_epoch

    discovered = len(refs) - blank
    more = len(ordered) > len(shown) or (not stages and discovered > len(shown))
    return SessionPage(shown, discovered, more, reached, passed,
                       from_epoch(newest) if newest is not None else None, blank,
                       liveness.untold if filters.needs_liveness else 0,
                       liveness.unknown_counts() if filters.needs_liveness else None, shelf.counts() if shelf else None,
                       elsewhere)



def _rest(refs: Sequence[SessionRef], start: int) -> Callable[[], Sequence[SessionRef]]:
    """``refs`` from ``start`` on, when asked (a lazy list orders its rest only then)."""
    return lambda: refs[start:]


#: at most this many sessions are read to say how old the newest is (``_newest_unparsed``)
NEWEST_READS = 64


def _newest_unparsed(scanner: Scanner, refs: Sequence[SessionRef], newest: float | None = None) -> float | None:
    """The newest ``updated_at`` of sessions ``--since`` skipped unparsed, ``None`` when
    not known for sure; ``newest``: that of the rows read already.

    Sessions are read in mtime order until none left can be newer than the newest
    read (the main loop's rule).  On a live home that is the first; a copied home (a
    backup, the installed demo) gives every file the copy's time, so it takes every
    session copied, up to ``NEWEST_READS``: past that, saying nothing beats naming a
    session at random."""
    # Read ahead (on every core) only what a copied home gives one time: on a live home the
    # first session's row settles it, and reading 64 would cost seconds on a cold cache.
    top = refs[0].recency
    tied = [ref for ref in refs[:NEWEST_READS] if top and ref.recency >= top - CLOCK_SLACK_S]
    if len(tied) > 1:
        scanner.prefetch_rows(tied, every=True)
    for index, ref in enumerate(refs):
        if not ref.recency:
            return None
        if newest is not None and ref.recency + CLOCK_SLACK_S < newest:
            return newest
        if index == NEWEST_READS:
            return None
        row = scanner.row(ref)
        if row.updated_at is not None and not row.recorded_nothing:
            newest = max(newest or float("-inf"), row.updated_at.timestamp())
    return newest
