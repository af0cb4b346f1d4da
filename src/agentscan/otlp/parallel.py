"""The sessions of a large ``otlp`` export made in worker processes, handed back in order.

An export reads every transcript again for its ``show`` detail and builds a
trace a turn: about 11 CPU-s for the bench's 1,500 sessions, one after the
other in one process while the other cores idled.  A session whose row may be
read in a worker (``Provider.row_travels``: its pass reads nothing but the
session's files and the index, and its detail reads the same) is handed to
``workers.run_parallel`` here; the others are made in this process in their
turn, while the workers work.

The traces come back pickled and are yielded in the sessions' order, so the
file is byte for byte what one process writes.  What a worker's session said
(its bad lines, a model with no price) is said here when its turn comes, and
what it kept in the index is written here (``scan.rowbuild`` does the same for
rows), and what its format does not record is added to the export's sums
(``gaps``).  A SQLite connection must not cross a fork, so a worker prices
with a book of its own that writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Sequence

from agentscan.context import Told, ScanContext, say
from agentscan.otlp.gaps import Gaps

if TYPE_CHECKING:
    from agentscan.model import ScanWarning, SessionRef
    from agentscan.otlp.spans import ExportTrace
    from agentscan.scan.scanner import Scanner

#: fewer travelling sessions than this are made one after the other (forking costs more)
MIN_SESSIONS = 24
#: sessions a worker is handed at a time: few, so that the results waiting for their turn stay few
_BATCH = 8

#: how a session's traces are made: ``(real ref, context, prices or None for the caller's, warnings list, gaps)``
Make = Callable[["SessionRef", ScanContext, Any, "list[ScanWarning]", Gaps], "list[ExportTrace]"]


class _Made(NamedTuple):
    traces: list[ExportTrace]
    #: the export's own notes (``Built.warnings``), in order
    notes: list[ScanWarning]
    #: what the session's format does not record (``Built.gaps``)
    gaps: Gaps
    #: what the session's pass said (``ScanContext.warn``), in order
    said: Sequence[Told]
    #: the index writes its pass made (``scan.indexview``)
    writes: Sequence[tuple[str, tuple]]
    #: ``ctx.memo`` values the pass kept for the scan (``toolkit.keptjson``)
    kept: dict[str, dict]


def sessions(scanner: Scanner, refs: Sequence[SessionRef], make: Make, notes: list[ScanWarning], gaps: Gaps,
             prices: Any) -> Iterator[list[ExportTrace]]:
    """Each session's traces, in ``refs``' order; ``notes`` gets the export's own warnings, ``gaps``
    what the formats do not record;
    ``prices``: the export's ``PriceBook``, whose data and known models a worker's own book has."""
    from agentscan.toolkit import cores

    ctx = scanner.ctx
    count = cores.usable_workers()
    if not count or len(refs) < MIN_SESSIONS:
        for ref in refs:
            yield make(scanner.real_ref(ref) or ref, ctx, None, notes, gaps)
        return
    # As one session after the other takes them: each real ref just before its session, its
    # warnings said then (held back here), in the parent, before any worker reads a file.
    reals: list[tuple[SessionRef, Sequence[Told]]] = []
    travelling: list[int] = []
    for index, ref in enumerate(refs):
        with ctx.held_warnings() as held:
            real = scanner.real_ref(ref)
        provider = scanner.provider(ref.provider)
        if real is not None and provider.rows_may_travel and provider.row_travels(real, ctx):
            travelling.append(index)
        reals.append((real or ref, held.said))
    if len(travelling) < MIN_SESSIONS:
        for real, said in reals:
            say(ctx, said)
            yield make(real, ctx, None, notes, gaps)
        return
    yield from _in_workers(scanner, reals, travelling, make, notes, gaps, count, prices)


def _in_workers(scanner: Scanner, reals: list[tuple[SessionRef, Sequence[Told]]], travelling: list[int],
                make: Make, notes: list[ScanWarning], gaps: Gaps, count: int, prices: Any) -> Iterator[list[ExportTrace]]:
    from agentscan.scan.indexview import IndexView, make_writes
    from agentscan.scan.rowbuild import worker_context
    from agentscan.toolkit import keptjson, workers

    ctx, cache = scanner.ctx, scanner.cache
    index_path = cache.path if cache is not None else None
    if cache is not None:
        cache.commit()  # what this run kept so far, for the workers to read
    own: list[tuple[ScanContext, Any]] = []
    book_for = prices.for_workers()  # here: it reads the index, which a worker must not

    def in_worker(job: int) -> _Made:
        if not own:
            wctx = worker_context(ctx, index_path)
            own.append((wctx, book_for(wctx)))
        wctx, prices = own[0]
        view = wctx.file_cache
        if isinstance(view, IndexView):
            view.writes = []
        local: list[ScanWarning] = []
        local_gaps = Gaps()
        with wctx.held_warnings() as held:
            found = make(reals[travelling[job]][0], wctx, prices, local, local_gaps)
        writes = view.writes if isinstance(view, IndexView) else []
        return _Made(found, local, local_gaps, held.said, writes, keptjson.take_new(wctx))

    waiting: dict[int, tuple[bool, Any]] = {}
    jobs_of = {index: job for job, index in enumerate(travelling)}
    # Results wait for their turn (one slow session holds up the rest): at most a few batches
    # a worker, so memory stays bounded by a few sessions' traces, as one process's is.
    results = workers.run_parallel(in_worker, workers.batches(len(travelling), count, _BATCH), count,
                                   hold=lambda: len(waiting) >= count * _BATCH * 2)
    try:
        for index, (real, said) in enumerate(reals):
            say(ctx, said)
            job = jobs_of.get(index)
            if job is None:
                yield make(real, ctx, None, notes, gaps)
                continue
            while job not in waiting:
                try:
                    done, ok, result = next(results)
                except (StopIteration, OSError, RuntimeError):
                    break  # no fork, no pipes, a worker killed from outside: made here
                waiting[done] = (ok, result)
            ok, result = waiting.pop(job, (False, None))
            if not ok:  # the worker raised, or never answered: made here, as one process would
                yield make(real, ctx, None, notes, gaps)
                continue
            say(ctx, result.said)
            notes.extend(result.notes)
            gaps.merge(result.gaps)
            if cache is not None:
                make_writes(cache, result.writes)
            keptjson.adopt(ctx, result.kept)
            yield result.traces
    finally:
        results.close()  # every worker stopped, whatever ends the export early
