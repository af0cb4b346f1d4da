"""The DATE, CWD and TITLE beside each session of ``tokens``' table.

They are a row's (``SessionRow.updated_at``, ``cwd``, ``title``), but a
row's pass decodes every line of a session, and a cold table of a heavy
user's home read every session so: at the bench's scale 10 it took twice the
time of ``tokens --json``.  A provider that can find the three more cheaply,
the same as its row's (``Provider.table_facts``: Claude and Codex, from their
files' bytes), gives them here, on every core when there are many; such a session whose row
the index keeps for its files as they are (a ``list --all`` kept it) has them picked out of
that row (``_of_kept_rows``); the others, and the sessions it cannot settle, are read as
rows (``Scanner.row``: from the index, or by their pass, on every core too, and kept in the
index).

They are read quietly: what a row's pass warns of (a line it skipped, a
file it could not read) is the row's, said by ``list`` and ``show``.  The
table says what ``tokens --json`` says, the warnings of the sums it shows,
however the facts beside them were found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

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
#: what the index keeps them as (``toolkit.keptjson``, under the session's main file, so that
#: ``prune`` forgets them with it), at the session's id and fingerprint (two Codex sessions
#: may name one rollout): bump the version when a provider's ``table_facts`` changes
KIND = "table-facts"
# 2: ``archived`` (facts kept by 1 would leave an archived thread unmarked)
# 3: a Codex session's ``models`` hold its subagents' too (kept by 2, ``list --grep`` of a
#    subagent's model ruled the session out unread)
VERSION = "3"


def gather(scanner: Scanner, refs: Sequence[SessionRef], *, told: bool = False) -> dict[str, SessionRow | TableFacts]:
    """Each of ``refs``' facts (by session id): a provider's ``TableFacts``, else its row.
    ``told``: each is told to ``ctx.progress`` as it comes (the caller expected them)."""
    from agentscan.progress import Progress

    ctx = scanner.ctx
    progress = ctx.progress if told else Progress()
    found: dict[str, SessionRow | TableFacts] = {}
    with ctx.held_warnings():
        cheap: list[SessionRef] = []
        others: list[SessionRef] = []
        # A row the index holds for the session's files as they are (``list --all`` kept it)
        # is its facts already: taken back, not found again in the files; only the facts'
        # fields of it where they are all the table takes of it (``_of_kept_rows``).
        # The same query says which rows are kept for their files as they are: those are read
        # as rows (no facts found for them), and a provider without facts has its rows read.
        picked_facts, kept = _of_kept_rows(scanner, [ref for ref in refs if may_have_facts(scanner, ref)])
        for session_id, picked in picked_facts.items():
            found[session_id] = picked
            progress.advance()
        for ref in refs:
            if ref.id not in found:
                (cheap if ref.id not in kept and may_have_facts(scanner, ref) else others).append(ref)
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

        facts = _kept_or_found(scanner, cheap, progress, read_one, models=False)
        for ref in others:  # those the workers left time for, none, or all (one that failed too)
            if ref.id not in found:
                found[ref.id] = scanner.row(ref)
                progress.advance()
        # Facts of no project and no title may be a session's that recorded nothing, which the
        # table names under it, or one ``list`` shows (its start, a count): its row tells,
        # read for these few only (``cli.tokens_sessions.says_nothing``).
        found.update((session_id, kept) for session_id, kept in facts.items()
                     if kept is not None and (kept.cwd is not None or kept.title is not None))
        rest = [ref for ref in cheap if ref.id not in found]
        scanner.prefetch_rows(rest, every=True)
        for ref in rest:
            found[ref.id] = scanner.row(ref)
            progress.advance()
    return {ref.id: found[ref.id] for ref in refs}  # in their order


#: what ``_of_kept_rows`` takes of a kept row (``SessionRow.to_json``'s names)
_ROW_FIELDS = ("$.updated_at", "$.cwd", "$.title", "$.archived", "$.counts_partial", "$.workspace_folders",
               "$.tokens")


def _of_kept_rows(scanner: Scanner, refs: Sequence[SessionRef]) -> tuple[dict[str, TableFacts], set[str]]:
    """The facts of those of ``refs`` (of providers with facts) whose row the index keeps for
    their files as they are, picked out of it, where a ``TableFacts`` tells the table what
    the row would: 15,000 rows decoded whole were 0.14 CPU-s and 44 MB of an empty window's
    note at scale 10 after ``list --all``; and the ids of all those whose row is so kept (what
    ``Scanner.rows_kept`` says, from the same query).  The others are left to the row (``Scanner.row``):
    one with no project and no title (``cli.tokens_sessions.says_nothing`` asks its row), no
    usage (``cli.tokens_table._last_active`` leaves it out), counts a pass may complete (Codex's
    ``wants_refresh``: the row is revised), folders of a workspace (``scan.tokencwd``), or a
    picked field not of its type (the row's check, ``rowstore.row_of_document``, says a miss)."""
    cache = scanner.cache
    if cache is None or not refs:
        return {}, set()
    import orjson

    from agentscan.timeutil import parse_iso

    picked = cache.row_fields([ref.id for ref in refs], _ROW_FIELDS)
    found: dict[str, TableFacts] = {}
    kept: set[str] = set()
    for ref in refs:
        hit = picked.get(ref.id)
        if hit is None or hit[0] != scanner.fingerprint(ref):
            continue
        kept.add(ref.id)
        if hit[1] is None:  # a row that is no JSON: a miss, read again as a row
            continue
        try:
            values = orjson.loads(hit[1])
        except ValueError:
            continue
        if not (type(values) is list and len(values) == len(_ROW_FIELDS)):
            continue
        updated, cwd, title, archived, partial, folders, tokens = values
        if (type(tokens) is dict and folders is None and (partial is None or partial is False)
                and (archived is None or type(archived) is bool) and (cwd is not None or title is not None)
                and all(text is None or type(text) is str for text in (updated, cwd, title))):
            found[ref.id] = TableFacts(parse_iso(updated), cwd, title, None, archived is True)
    return found, kept


def may_have_facts(scanner: Scanner, ref: SessionRef) -> bool:
    from agentscan.providers.base import Provider

    # Only a provider of its own: the base's answer is always "read the row".
    return type(scanner.provider(ref.provider)).table_facts is not Provider.table_facts


def facts_only(scanner: Scanner, refs: Sequence[SessionRef], *, models: bool = False) -> dict[str, TableFacts]:
    """The facts of those of ``refs`` whose provider finds them and settles them (no row is
    read here), each told to ``ctx.progress`` as it comes; read quietly, as ``gather`` reads."""
    ctx = scanner.ctx
    with ctx.held_warnings():
        cheap = [ref for ref in refs if may_have_facts(scanner, ref)]
        found = _kept_or_found(scanner, cheap, ctx.progress, lambda: False, models)
    return {session_id: facts for session_id, facts in found.items() if facts is not None}


def _kept_or_found(scanner: Scanner, refs: list[SessionRef], progress: Progress, meanwhile: Callable[[], bool],
                   models: bool) -> dict[str, TableFacts | None]:
    """``_facts``, taken from the index where it kept them for the session's files as they are
    (a ``--since`` table is never remembered whole, and reads its sessions' facts each time),
    and kept there for the next run."""
    from agentscan.toolkit import keptjson

    ctx = scanner.ctx
    cache = scanner.cache
    # As text: a stored ref makes no ``Path`` for it (``MemoRef.path_text``): 13,000 of them
    # were a third of an empty ``--since`` window's time at scale 10 (``_last_active``).
    paths = {ref.id: ref.path_text for ref in refs}
    if cache is not None:
        keptjson.prefetch(ctx, [path for path in paths.values() if path is not None], KIND, VERSION, _decode)
    facts: dict[str, TableFacts | None] = {}
    stamps: dict[str, str | None] = {}
    real: list[SessionRef] = []
    for ref in refs:
        fingerprint = scanner.fingerprint(ref) if cache is not None and paths[ref.id] is not None else None
        hit = keptjson.prefetched(ctx, KIND, keptjson.session_stamp(ref.id, fingerprint))
        # Kept without the models when they were not asked for: found again (and kept with them),
        # where the provider names them.
        if hit is not None and not (models and hit[0] is not None and hit[0].models is None
                                    and scanner.provider(ref.provider).facts_name_models):
            facts[ref.id] = found = hit[0]
            if found is not None:
                progress.advance()
            continue
        # The provider's own ref, as a row's pass takes it (``Scanner.real_ref``, which may
        # discover its provider again: only for facts not kept); gone, its row says so.
        own = scanner.real_ref(ref)
        if own is not None:
            stamps[ref.id] = keptjson.session_stamp(ref.id, scanner.fingerprint(own) if own is not ref and cache is not None else fingerprint)
            real.append(own)
    new = _facts(scanner, real, progress, meanwhile, models)
    facts.update(new)
    if cache is not None and new:
        for session_id, found in new.items():
            path, stamp = paths[session_id], stamps[session_id]
            if path is not None and stamp is not None:
                keptjson.keep(ctx, path, KIND, VERSION, stamp, (found,), _to_json(found))
        cache.commit()
    return facts


def _to_json(found: TableFacts | None) -> list:
    """``[]``: the session's row says them (``Provider.table_facts`` gave ``None``)."""
    if found is None:
        return []
    kept = [None if found.updated_at is None else found.updated_at.isoformat(), found.cwd, found.title]
    models = None if found.models is None else list(found.models)
    if found.archived:
        return [*kept, models, True]
    return kept if models is None else [*kept, models]


def _decode(document: Any) -> tuple[TableFacts | None] | None:
    """``_to_json``'s document read back: ``(facts,)``, ``(None,)`` for the row; ``None``: not as kept."""
    if document == []:
        return (None,)
    if not (isinstance(document, list) and len(document) in (3, 4, 5)
            and all(text is None or isinstance(text, str) for text in document[:3])):
        return None
    models = document[3] if len(document) >= 4 else None
    archived = document[4] if len(document) == 5 else False
    if type(archived) is not bool:
        return None
    if models is not None and not (isinstance(models, list) and all(isinstance(name, str) for name in models)):
        return None
    from datetime import datetime

    updated, cwd, title = document[:3]
    try:
        return (TableFacts(None if updated is None else datetime.fromisoformat(updated), cwd, title,
                           None if models is None else tuple(models), archived),)
    except ValueError:
        return None


def _facts(scanner: Scanner, refs: list[SessionRef], progress: Progress, meanwhile: Callable[[], bool],
           models: bool = False) -> dict[str, TableFacts | None]:
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
            facts = _in_workers(scanner, jobs, count, progress, meanwhile, models)
    for ref in refs:
        if ref.id not in facts:  # few, or a worker's own trouble: here
            facts[ref.id] = found = _guarded(scanner, ref, ctx, models)
            if found is not None:
                progress.advance()
    return facts


def _guarded(scanner: Scanner, ref: SessionRef, ctx: ScanContext, models: bool) -> TableFacts | None:
    """``table_facts``, or ``None`` should it fail: the row's pass (``guarded_row``) then says
    what went wrong, once, where a row's reader says it."""
    try:
        return scanner.provider(ref.provider).table_facts(ref, ctx, models=models)
    except Exception:  # noqa: BLE001 - the row is read instead
        return None


def _in_workers(scanner: Scanner, jobs: list[SessionRef], count: int, progress: Progress,
                meanwhile: Callable[[], bool], models: bool) -> dict[str, TableFacts | None]:
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
        return _guarded(scanner, jobs[index], contexts[0], models)

    facts: dict[str, TableFacts | None] = {}
    try:
        batches = workers.batches(len(jobs), count, _BATCH)
        for index, ok, result in workers.run_parallel(in_worker, batches, count, meanwhile=meanwhile):
            if ok:
                facts[jobs[index].id] = result
                if result is not None:
                    progress.advance()
    except (OSError, RuntimeError):
        pass  # no fork, no pipes, a worker killed from outside: the rest are read here
    return facts
