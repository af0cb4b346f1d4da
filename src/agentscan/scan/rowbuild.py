"""Many sessions' rows read at once, in worker processes: ``tokens``' table, ``list --all``, ``export``.

A row's pass reads every line of a session (``Provider.row``), in Python: a
cold ``tokens`` table of a heavy user's 15,000 sessions read them one after
the other (59 s at the bench's scale 10, against 13 s for the token sums,
which already used both cores).  ``Scanner.prefetch_rows`` hands the rows it
is about to be asked for, and that the index does not hold, to
``workers.run_parallel``; ``Scanner.row`` then takes each one back in its
turn (``BuiltRow``) and does with it what it does with a row it read itself.

What a pass does besides its row comes back with it:

* its warnings, said again by ``Scanner.row`` when the row is asked for, so
  that they come in the order a pass one after the other gives them (and go
  into the captures open then);
* what it kept in the index for later runs (``ctx.file_cache`` writes: a
  Claude row's sums, a Codex rollout's tally), written by the parent: a
  worker reads the index through its own read-only connection (a SQLite
  connection must not cross a fork) and writes nothing;
* the values it kept for the rest of the scan (``toolkit.keptjson``).

The stored session's own ref (``Scanner.real_ref``, which may discover its
provider again) and its fingerprint are taken here, in the parent, before
any worker reads a file, and in the order the rows will be asked for, with
their warnings held back until then: a file changed meanwhile then gives a
row stored under the older fingerprint, read again next time, as one pass
after the other does.

Only a provider that says a row can travel (``Provider.row_travels``) is
read so: Gemini asks the other providers for cwds, Cursor holds a database
open, a huge Claude transcript keeps ``show``'s facts for the scan.  Those
rows are read here while the workers read (``meanwhile``), with their
warnings held back the same way: after the workers, one core would idle.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence

from agentscan.context import Told, ScanContext, guarded_row
from agentscan.scan.indexview import IndexView, make_writes
from agentscan.toolkit import keptjson

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.scanner import Scanner

#: fewer rows to read than this are read one after the other (forking costs more)
MIN_ROWS = 24
#: ... and so are rows whose files add up to less than this
MIN_BYTES = 4 * 1024 * 1024
#: rows a worker is handed at a time
_BATCH = 16


class BuiltRow(NamedTuple):
    """A row asked for next, prepared by ``build``: ``Scanner.row`` finishes it."""

    #: the provider's own ref (``Scanner.real_ref``); ``None``: the session is gone
    real: SessionRef | None
    #: the fingerprint the row is stored under (taken before its files were read)
    fingerprint: str | None
    #: what taking ``real`` said (before the row's own pass, outside its capture)
    before: Sequence[Told]
    #: the row read ahead (in a worker, or here while they read); ``None``: read it in its turn
    row: SessionRow | None = None
    #: what the worker's pass said, in order
    said: Sequence[Told] = ()
    #: the index writes the pass made: (``Cache`` method, arguments)
    writes: Sequence[tuple[str, tuple]] = ()
    #: ``ctx.memo`` entries the pass kept for the scan (``keptjson``)
    kept: Mapping[str, dict] = MappingProxyType({})


def build(scanner: Scanner, refs: Sequence[SessionRef], into: dict[str, BuiltRow] | None = None
          ) -> dict[str, BuiltRow]:
    """``BuiltRow``s for ``refs`` (rows the index does not hold, in the order they will be
    asked for) when enough of them can travel; else nothing (each is read in its turn).
    Each goes into ``into`` (returned) as it is made: a caller interrupted meanwhile keeps
    the rows read so far (``RowReader.prefetch``)."""
    from agentscan.toolkit import cores  # the pool's modules only when it forks (``toolkit.cores``)

    count = cores.usable_workers()
    ctx = scanner.ctx
    if len(refs) < MIN_ROWS:
        return {}
    travelling = [ref for ref in refs if scanner.provider(ref.provider).rows_may_travel]
    if not count or len(travelling) < MIN_ROWS:
        return {}
    cache = scanner.cache
    built: dict[str, BuiltRow] = {} if into is None else into
    jobs: list[SessionRef] = []
    here: list[tuple[str, SessionRef]] = []  # rows that do not travel: read here while the workers read
    for ref in refs:
        provider = scanner.provider(ref.provider)
        # As ``Scanner.row`` takes them, in its order, before the pass.
        with ctx.held_warnings() as held:
            fingerprint = scanner.fingerprint(ref) if cache is not None else None
            real = scanner.real_ref(ref)
            if real is not None and real is not ref:
                fingerprint = scanner.fingerprint(real) if cache is not None else None
        built[ref.id] = BuiltRow(real, fingerprint, held.said)
        if real is not None and provider.rows_may_travel and provider.row_travels(real, ctx):
            jobs.append(real)
        elif real is not None:
            here.append((ref.id, real))
    weights = {ref.id: cores.job_bytes(ref, ctx) for ref in jobs}
    if len(jobs) < MIN_ROWS or sum(weights.values()) < MIN_BYTES:
        return built  # each read here, in its turn, with what was taken for it
    jobs.sort(key=lambda ref: -weights[ref.id])  # largest first: the workers finish together
    index_path = cache.path if cache is not None else None
    if cache is not None:
        cache.commit()  # what this run kept so far, for the workers to read
    contexts: list[ScanContext] = []

    def in_worker(index: int) -> tuple[SessionRow, tuple[Told, ...], list[tuple[str, tuple]], dict[str, dict]]:
        if not contexts:
            contexts.append(worker_context(ctx, index_path))
        return _read_row(scanner, jobs[index], contexts[0])

    waiting = iter(here)

    def meanwhile() -> bool:
        """One row that does not travel, read here while the workers read (a core would
        idle after them); ``False`` when none is left."""
        taken = next(waiting, None)
        if taken is None:
            return False
        session_id, real = taken
        with ctx.held_warnings() as held:
            row = guarded_row(scanner.provider(real.provider), real, ctx)
        built[session_id] = built[session_id]._replace(row=row, said=held.said)
        if cache is not None:
            cache.commit()  # what its pass kept is not left holding the index's write lock
        ctx.progress.ahead()
        return True

    from agentscan.toolkit import workers

    try:
        batches = workers.batches(len(jobs), count, _BATCH)
        for index, ok, result in workers.run_parallel(in_worker, batches, count, meanwhile=meanwhile):
            if ok:
                ref = jobs[index]
                row, said, writes, kept = result
                built[ref.id] = built[ref.id]._replace(row=row, said=said, writes=writes, kept=kept)
                ctx.progress.ahead()
    except (OSError, RuntimeError):
        pass  # no fork, no pipes, a worker killed from outside: the rest are read here
    return built


def worker_context(parent: ScanContext, index_path: Path | None) -> ScanContext:
    """The worker's own context (``ScanContext.for_worker``), reading the index read-only."""
    ctx = parent.for_worker()
    ctx.file_cache = IndexView(index_path) if index_path is not None else None
    return ctx


def _read_row(scanner: Scanner, ref: SessionRef, ctx: ScanContext) -> tuple[SessionRow, tuple[Told, ...], list[tuple[str, tuple]], dict[str, dict]]:
    """In a worker: ``ref``'s row, what its pass said, the index writes it made, the values it kept."""
    view = ctx.file_cache
    if isinstance(view, IndexView):
        view.writes = []
    with ctx.held_warnings() as held:
        # Not ``guarded_row``: a pass that raises here is read again by the parent, which says
        # what one after the other says (the same bug), or reads it (a worker's own trouble).
        row = scanner.provider(ref.provider).row(ref, ctx)
    # The facts its pass learnt of the files (a Claude head's session: ``discovery``), listed
    # with the writes: else the parent, which keeps the row, would read them again.
    ctx.flush_facts()
    writes = view.writes if isinstance(view, IndexView) else []
    return row, held.said, writes, keptjson.take_new(ctx)


def finish(scanner: Scanner, built: BuiltRow) -> None:
    """In the parent, when the row is asked for: what the worker's pass wrote and kept."""
    cache = scanner.cache
    if cache is not None:
        make_writes(cache, built.writes)
    keptjson.adopt(scanner.ctx, built.kept)
