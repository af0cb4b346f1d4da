"""``Scanner.row``: a session's row from the index, or read (here, or ahead in workers:
``rowbuild``) and kept there; and the batches a caller asks for in order (``prefetch``).

A batch's rows the index holds come in one query.  Those it lacks, when every
row of the batch will be asked for (``every``), are read ahead on every core;
rows read so are committed a few hundred at a time (a commit each cost 0.5 s
at scale 10), and whatever the batch stored is committed by its end, however
that comes (``end_batch``).  Before a row is read in this process (seconds, for
a long session) nothing stored is left uncommitted: another agentscan writing
to the index would wait for the lock all that time.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Sequence

from agentscan.bounds import TOKEN_SUM_CAPPED
from agentscan.context import guarded_row, legible, say
from agentscan.model import ScanWarning, SessionRef, SessionRow
from agentscan.scan.rowstore import row_document, row_of_document
from agentscan.warningsink import CAPTURE_LIMIT, Captured

if TYPE_CHECKING:
    from agentscan.scan.rowbuild import BuiltRow
    from agentscan.scan.scanner import Scanner

#: rows stored per commit while every row of a batch is read (``prefetch(every=True)``)
SAVE_EVERY = 256
#: ``prefetch``'s mark of a row the index does not hold for the session's files
_NOT_KEPT: tuple[str, dict] = ("", {})


class RowReader:
    """The rows ``scanner`` is asked for (``Scanner.row``, ``prefetch_rows``, ``end_batch``)."""

    def __init__(self, scanner: Scanner) -> None:
        self._scanner = scanner
        self._prefetched: dict[str, tuple[str, dict]] = {}
        self._built: dict[str, BuiltRow] = {}
        self._save_every, self._unsaved = 1, 0  # rows stored per commit; stored since the last

    def row(self, ref: SessionRef) -> SessionRow:
        row = self._row(ref)
        if self._unsaved and not self._prefetched:
            # The batch's last row, however it was answered (from the index, gone, not
            # kept): what the batch stored is committed.
            self._save()
        return row

    def prefetch(self, refs: Sequence[SessionRef], *, every: bool = False,
                 coming: Callable[[], Sequence[SessionRef]] | None = None) -> None:
        """See ``Scanner.prefetch_rows``."""
        scanner = self._scanner
        cache = scanner.cache
        missing = list(refs)
        self.end_batch()  # the previous one ends here, if the caller did not say so
        if cache is not None:
            self._prefetched = cache.get_rows([ref.id for ref in refs])
            # Those not kept (or kept for other files) are parsed next: no query of their own.
            missing = [ref for ref in refs if (self._prefetched.get(ref.id) or ("",))[0] != scanner.fingerprint(ref)]
            outdated = [(ref, kept[0]) for ref in missing if (kept := self._prefetched.get(ref.id)) is not None]
            if outdated and scanner.ctx.progress.tells_upgrades():
                from agentscan.scan import upgraded  # here: a warm run has none

                # The note is said once, so it counts the batches to come too: a ``list --all``
                # after ``tokens`` said "128 sessions" (its first batch) and read 15,000 again.
                upgraded.tell(scanner, outdated + _outdated(scanner, refs, coming() if coming else ()), "rows")
            self._prefetched.update((ref.id, _NOT_KEPT) for ref in missing)
            scanner.expect_parses(missing)
            note_kept_sums(scanner, missing)
        self._save_every = SAVE_EVERY if every else 1
        self._built = {}
        if missing and every:
            from agentscan.scan import rowbuild

            try:
                rowbuild.build(scanner, missing, into=self._built)
            except KeyboardInterrupt:
                # A Ctrl-C into a heavy user's first ``list --all``: the rows the workers read
                # are kept, so the next run reads only the rest (they were all dropped, and
                # the rerun was as cold as the first).
                with scanner.cache.hurried() if scanner.cache is not None else nullcontext():
                    self._keep_read_ahead()
                    self._save()
                raise

    def read_ahead(self) -> int:
        """See ``Scanner.rows_read_ahead``."""
        return sum(1 for built in self._built.values() if built.row is not None)

    def end_batch(self) -> None:
        """See ``Scanner.end_batch``."""
        self._keep_read_ahead()
        if self._unsaved:
            self._save()
        self._prefetched, self._save_every = {}, 1

    def _save(self) -> None:
        cache = self._scanner.cache
        if cache is not None:
            cache.commit()
        self._unsaved = 0

    def _keep_read_ahead(self) -> None:
        """Rows read ahead in workers for a batch that ended before they were asked for
        (``list`` had enough): kept in the index, so that the next run need not read them
        again (their warnings are kept with them and said when they are asked for)."""
        built, self._built = self._built, {}
        cache = self._scanner.cache
        if cache is None:
            return
        from agentscan.scan import rowbuild

        for entry in built.values():
            if entry.real is None or entry.row is None or entry.fingerprint is None:
                continue
            warnings = Captured(CAPTURE_LIMIT)  # as ``_row`` captures them
            warnings.take_told(entry.said)
            if entry.row.tokens is not None and entry.row.tokens.saturated:
                warnings.take(ScanWarning(legible(str(entry.real.path or entry.real.id)), TOKEN_SUM_CAPPED, None))
            rowbuild.finish(self._scanner, entry)
            self._keep(entry.real, entry.fingerprint, entry.row, warnings)

    def _keep(self, ref: SessionRef, fingerprint: str, row: SessionRow, warnings: Captured) -> bool:
        """Store ``row`` with the warnings its pass said, unless a later run taking it back
        would not say what a pass says: one said something could not be read *this time*
        (the next run reads the session again), or more came than a row keeps (taken back
        with fewer, they would say "80 more warnings for this file" for "130 more")."""
        cache = self._scanner.cache
        if cache is None or warnings.passing or warnings.overflowed:
            return False
        cache.put_row(ref.id, ref.provider, fingerprint, row_document(row, warnings))
        self._unsaved += 1
        return True

    def _row(self, ref: SessionRef) -> SessionRow:
        scanner = self._scanner
        ctx = scanner.ctx
        provider = scanner.provider(ref.provider)
        cache = scanner.cache
        fingerprint = scanner.fingerprint(ref) if cache is not None else None
        fetched = self._prefetched.pop(ref.id, None)  # taken out whatever the key: the batch ends with its last row
        hit = None
        if cache is not None and fingerprint is not None:
            hit = fetched or cache.get_rows([ref.id]).get(ref.id)
            cached = row_of_document(hit[1]) if hit is not None and hit[0] == fingerprint else None
            if cached is not None:
                # Warnings are cached with the row: a warm run reports what a cold one did.
                row, warnings_then = cached
                for warning in warnings_then:
                    ctx.warn(warning.path, warning.message, warning.line)
                # What other sessions reveal (a Gemini cwd) may be newer than the cache.
                if not provider.wants_refresh(row):
                    return row
                if self._unsaved:
                    self._save()  # as before a parse (below): not held across a read
                real = scanner.real_ref(ref, one=True)  # refresh_row reads the provider's own ref
                if real is None:
                    return row
                fresh = provider.refresh_row(row, real, ctx)
                if fresh != row:
                    # Kept, so the next run need not mend it again (the files are the same).
                    cache.put_row(ref.id, ref.provider, fingerprint, row_document(fresh, warnings_then))
                    self._save()
                return fresh
        scanner.parses += 1
        built = self._built.pop(ref.id, None)  # taken, maybe read, by ``prefetch``
        if self._unsaved and (built is None or built.row is None):
            # Read here, maybe for seconds: the rows stored meanwhile are not left holding the
            # index's write lock (another agentscan writing to it would wait all that time).
            self._save()
        if built is not None:
            from agentscan.scan import rowbuild

            say(ctx, built.before)
            real, fingerprint = built.real, built.fingerprint
        else:
            real = scanner.real_ref(ref)
            if real is not None and real is not ref:
                fingerprint = scanner.fingerprint(real) if cache is not None else None
        if real is None:
            return SessionRow(ref.provider, ref.native_id, str(ref.path) if ref.path else None)
        ref = real
        with ctx.warnings.capture() as warnings:
            if built is not None and built.row is not None:
                say(ctx, built.said)  # into this capture, as the pass said them
                rowbuild.finish(scanner, built)
                row = built.row
            else:
                row = guarded_row(provider, ref, ctx)
            if row.tokens is not None and row.tokens.saturated:
                ctx.warn(ref.path or ref.id, TOKEN_SUM_CAPPED)
        if fingerprint is not None and self._keep(ref, fingerprint, row, warnings) and self._unsaved >= self._save_every:
            self._save()
        if cache is not None and provider.lends_kept(ref, ctx):
            # Read without what the provider keeps apart (Cursor's state DB, locked): the row kept
            # for the session's older files says what that read could not (its name, its times).
            # (Asked again if a batch's query left it: whether the DB can be read is known only now.)
            hit = hit if hit and hit[1] else cache.get_rows([ref.id]).get(ref.id)
            kept = row_of_document(hit[1]) if hit is not None else None
            if kept is not None:
                row = provider.with_kept(row, kept[0], ref, ctx)
        return row


def _outdated(scanner: Scanner, batch: Sequence[SessionRef],
              coming: Sequence[SessionRef]) -> list[tuple[SessionRef, str]]:
    """Those of ``coming`` (not in ``batch``) whose rows the index holds for other files or
    another parser, each with the fingerprint it holds (one query, the rows left undecoded)."""
    cache = scanner.cache
    if cache is None or not coming:
        return []
    asked = {ref.id for ref in batch}
    later = list({ref.id: ref for ref in coming if ref.id not in asked}.values())
    kept = cache.row_fingerprints([ref.id for ref in later])
    return [(ref, kept[ref.id]) for ref in later if ref.id in kept and kept[ref.id] != scanner.fingerprint(ref)]


def note_kept_sums(scanner: Scanner, refs: Sequence[SessionRef]) -> None:
    """The sums the index keeps for ``refs`` at their fingerprints, noted as read (``readsums``):
    a row's pass then need not add the same calls up again.  ``list --all`` after ``tokens``
    read every Claude transcript's calls twice (a quarter of each row's pass).  The rule is
    ``tokens``' table's, which reads rows after sums from the index too: the same calls by
    the same rules, and only a read that said nothing (``groups_read``)."""
    cache = scanner.cache
    if cache is None:
        return
    from agentscan.context import SUMS_READ
    from agentscan.readsums import note_read

    # Not those this scan read already (``tokens``' table: every session's, just now).
    read = scanner.ctx.memo.get(SUMS_READ, ())
    wanted = [ref for ref in refs if scanner.provider(ref.provider).row_takes_sums
              and not any(ref.id in sums for _, sums in read)]
    if not wanted:
        return

    from agentscan.scan.lockedusage import sums_stand_under_a_lock

    fingerprints = {ref.id: scanner.fingerprint(ref) for ref in wanted}
    kept = {}
    by_id = {ref.id: ref for ref in wanted}
    for ref_id, (fingerprint, document) in cache.get_usage_sums(list(fingerprints)).items():
        if fingerprint == fingerprints.get(ref_id) or sums_stand_under_a_lock(scanner, by_id[ref_id], fingerprint):
            kept[ref_id] = document
    if kept:
        note_read(scanner.ctx, fingerprints, _KeptSums(kept))


class _KeptSums(Mapping):
    """Session id -> its sums as the index keeps them, decoded when a row asks: held undecoded,
    10,000 sessions' groups cost a few MB, not the 25 MB their lists would.  A damaged one is
    not there (its row's pass adds its calls up); one whose read said something is, and
    ``readsums.groups_read`` passes it over (only Cursor's row under a locked state DB takes
    it, warnings said again: ``readsums.read_with_warnings``)."""

    def __init__(self, documents: dict[str, bytes]) -> None:
        self._documents = documents

    def __getitem__(self, ref_id: str) -> object:
        from agentscan.scan.sessionsums import SessionSums

        sums = SessionSums.from_bytes(self._documents[ref_id])
        if sums is None:
            raise KeyError(ref_id)
        return sums

    def __contains__(self, ref_id: object) -> bool:
        """Whether the index kept ``ref_id``'s sums, by its key alone: ``Mapping``'s decoded
        the document at each ``in`` (``_note_kept_sums`` asks of every row's session).  A
        damaged one is in: fetched again, it would be as damaged."""
        return ref_id in self._documents

    def __iter__(self) -> Iterator[str]:
        return iter(self._documents)

    def __len__(self) -> int:
        return len(self._documents)
