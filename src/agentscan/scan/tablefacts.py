"""The DATE, PROJECT and TITLE beside each session of ``tokens``' table.

They are a row's (``SessionRow.updated_at``, ``cwd``, ``title``), but a
row's pass decodes every line of a session, and a cold table of a heavy
user's home read every session so: at the bench's scale 10 it took twice the
time of ``tokens --json``.  A provider that can find the three more cheaply,
the same as its row's (``Provider.table_facts``: Claude and Codex, from their
files' bytes), gives them here, on every core when there are many; the others, and
the sessions it cannot settle, are read as rows (``Scanner.row``: from the
index, or by their pass, on every core too, and kept in the index).

They are read quietly: what a row's pass warns of (a line it skipped, a
file it could not read) is the row's, said by ``list`` and ``show``.  The
table says what ``tokens --json`` says, the warnings of the sums it shows,
however the facts beside them were found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from agentscan.model import TableFacts

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef, SessionRow
    from agentscan.progress import Progress
    from agentscan.scan.scanner import Scanner

#: fewer sessions than this are read here, one after the other (forking costs more)
MIN_SESSIONS = 24
#: ... and so are sessions whose files add up to less than this
MIN_BYTES = 4 * 1024 * 1024
#: sessions a worker is handed at a time
_BATCH = 32
#: what the index keeps them as (``Cache.get_facts_of``), by the session's main file (so that
#: ``prune`` forgets them with it), stamped with the session's id and fingerprint (two Codex
#: sessions may name one rollout): bump when a provider's ``table_facts`` changes
KIND = "table-facts/2"


def gather(scanner: Scanner, refs: Sequence[SessionRef], *, told: bool = False) -> dict[str, SessionRow | TableFacts]:
    """Each of ``refs``' facts (by session id): a provider's ``TableFacts``, else its row.
    ``told``: each is told to ``ctx.progress`` as it comes (the caller expected them)."""
    from agentscan.progress import Progress

    ctx = scanner.ctx
    progress = ctx.progress if told else Progress()
    found: dict[str, SessionRow | TableFacts] = {}
    with ctx.held_warnings():
        cheap = [ref for ref in refs if _may_have_facts(scanner, ref)]
        others = [ref for ref in refs if not _may_have_facts(scanner, ref)]
        # The rows of providers without facts (Gemini's and Cursor's read here: they do not
        # travel) are read while the workers find the others' facts: a core would idle.
        scanner.prefetch_rows(others, every=True)
        waiting = iter(others)

        def read_one() -> bool:
            ref = next(waiting, None)
            if ref is None:
                return False
            found[ref.id] = scanner.row(ref)
            progress.advance()
            return True

        facts = _kept_or_found(scanner, cheap, progress, read_one)
        for ref in others:  # those the workers left time for, none, or all (one that failed too)
            if ref.id not in found:
                found[ref.id] = scanner.row(ref)
                progress.advance()
        found.update((session_id, kept) for session_id, kept in facts.items() if kept is not None)
        rest = [ref for ref in cheap if ref.id not in found]
        scanner.prefetch_rows(rest, every=True)
        for ref in rest:
            found[ref.id] = scanner.row(ref)
            progress.advance()
    return {ref.id: found[ref.id] for ref in refs}  # in their order


def _may_have_facts(scanner: Scanner, ref: SessionRef) -> bool:
    from agentscan.providers.base import Provider

    # Only a provider of its own: the base's answer is always "read the row".
    return type(scanner.provider(ref.provider)).table_facts is not Provider.table_facts


def _kept_or_found(scanner: Scanner, refs: list[SessionRef], progress: Progress, meanwhile: Callable[[], bool]
                   ) -> dict[str, TableFacts | None]:
    """``_facts``, taken from the index where it kept them for the session's files as they are
    (a ``--since`` table is never remembered whole, and reads its sessions' facts each time),
    and kept there for the next run, under the main file's path (``prune`` forgets those gone)."""
    from agentscan.sealing import unseal_json

    cache = scanner.cache
    keys = {ref.id: str(ref.path) if ref.path is not None else None for ref in refs}
    kept = cache.get_facts_of(KIND, [key for key in keys.values() if key is not None]) if cache is not None else {}
    facts: dict[str, TableFacts | None] = {}
    prints: dict[str, str | None] = {}
    real: list[SessionRef] = []
    for ref in refs:
        fingerprint = scanner.fingerprint(ref) if cache is not None and keys[ref.id] is not None else None
        hit, stamp = kept.get(keys[ref.id] or ""), _stamp(ref.id, fingerprint)
        value = unseal_json(hit[1]) if hit is not None and stamp is not None and hit[0] == stamp else None
        if isinstance(value, list) and (not value or len(value) == 3):
            facts[ref.id] = found = _from_json(value)
            if found is not None:
                progress.advance()
            continue
        # The provider's own ref, as a row's pass takes it (``Scanner.real_ref``, which may
        # discover its provider again: only for facts not kept); gone, its row says so.
        own = scanner.real_ref(ref)
        if own is not None:
            prints[ref.id] = _stamp(ref.id, scanner.fingerprint(own) if own is not ref and cache is not None else fingerprint)
            real.append(own)
    new = _facts(scanner, real, progress, meanwhile)
    facts.update(new)
    if cache is not None:
        _keep(scanner, {keys[session_id]: (prints[session_id], found) for session_id, found in new.items()})
    return facts


def _stamp(session_id: str, fingerprint: str | None) -> str | None:
    return None if fingerprint is None else f"{session_id} {fingerprint}"


def _keep(scanner: Scanner, new: dict[str | None, tuple[str | None, TableFacts | None]]) -> None:
    import orjson

    from agentscan.sealing import seal

    cache = scanner.cache
    assert cache is not None
    rows = [(path, stamp, seal(orjson.dumps(_to_json(found))))
            for path, (stamp, found) in new.items() if path is not None and stamp is not None]
    if rows:
        cache.put_facts(KIND, rows)
        cache.commit()


def _to_json(found: TableFacts | None) -> list:
    """``[]``: the session's row says them (``Provider.table_facts`` gave ``None``)."""
    if found is None:
        return []
    return [None if found.updated_at is None else found.updated_at.isoformat(), found.cwd, found.title]


def _from_json(value: list) -> TableFacts | None:
    if not value:
        return None
    from datetime import datetime

    updated, cwd, title = value
    if not all(text is None or isinstance(text, str) for text in value):
        return None  # not as kept: the row says them
    try:
        return TableFacts(None if updated is None else datetime.fromisoformat(updated), cwd, title)
    except ValueError:
        return None


def _facts(scanner: Scanner, refs: list[SessionRef], progress: Progress, meanwhile: Callable[[], bool]
           ) -> dict[str, TableFacts | None]:
    """``Provider.table_facts`` of each of ``refs``, in worker processes when there are many;
    each one found is told to ``progress`` as it comes (the rows, by ``gather``).  ``meanwhile``:
    the parent's own work, a piece at a time, while the workers work (``workers.run_parallel``)."""
    from agentscan.toolkit import cores

    ctx = scanner.ctx
    count = cores.usable_workers()
    facts: dict[str, TableFacts | None] = {}
    if count and len(refs) >= MIN_SESSIONS:
        weights = {ref.id: cores.job_bytes(ref, ctx) for ref in refs}
        if sum(weights.values()) >= MIN_BYTES:
            jobs = sorted(refs, key=lambda ref: -weights[ref.id])  # largest first: the workers finish together
            facts = _in_workers(scanner, jobs, count, progress, meanwhile)
    for ref in refs:
        if ref.id not in facts:  # few, or a worker's own trouble: here
            facts[ref.id] = found = _guarded(scanner, ref, ctx)
            if found is not None:
                progress.advance()
    return facts


def _guarded(scanner: Scanner, ref: SessionRef, ctx: ScanContext) -> TableFacts | None:
    """``table_facts``, or ``None`` should it fail: the row's pass (``guarded_row``) then says
    what went wrong, once, where a row's reader says it."""
    try:
        return scanner.provider(ref.provider).table_facts(ref, ctx)
    except Exception:  # noqa: BLE001 - the row is read instead
        return None


def _in_workers(scanner: Scanner, jobs: list[SessionRef], count: int, progress: Progress,
                meanwhile: Callable[[], bool]) -> dict[str, TableFacts | None]:
    from agentscan.scan.rowbuild import worker_context
    from agentscan.toolkit import workers

    cache = scanner.cache
    index_path = cache.path if cache is not None else None
    if cache is not None:
        cache.commit()  # what this run kept so far, for the workers to read
    contexts: list[ScanContext] = []

    def in_worker(index: int) -> TableFacts | None:
        # A context of the worker's own: this one's index connection must not cross a fork
        # (a Codex header is remembered there).
        if not contexts:
            contexts.append(worker_context(scanner.ctx, index_path))
        return _guarded(scanner, jobs[index], contexts[0])

    batch = max(1, min(_BATCH, len(jobs) // (count * 4)))
    batches = [range(start, min(start + batch, len(jobs))) for start in range(0, len(jobs), batch)]
    facts: dict[str, TableFacts | None] = {}
    try:
        for index, ok, result in workers.run_parallel(in_worker, batches, count, meanwhile=meanwhile):
            if ok:
                facts[jobs[index].id] = result
                if result is not None:
                    progress.advance()
    except (OSError, RuntimeError):
        pass  # no fork, no pipes, a worker killed from outside: the rest are read here
    return facts
