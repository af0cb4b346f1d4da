"""What a ``Scanner`` answers of its sessions' rows: one session's row (``row``), a batch of
them fetched and read ahead (``prefetch_rows``, ``end_batch``), which the index holds
(``rows_kept``), and each session's own ref for a parse (``real_ref``).  Apart from
``scan.scanner``, whose other questions (``list``, ``show``, ids) ask these; the work is
``rowreader``'s and ``ownrefs``'s."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Callable, Sequence, cast

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.cache import Cache
    from agentscan.scan.ownrefs import OwnRefs
    from agentscan.scan.rowreader import RowReader
    from agentscan.scan.scanner import Scanner


class RowQuestions:
    """``Scanner``'s rows; its reader (``rowreader.RowReader``) and own refs (``ownrefs.OwnRefs``)
    are made when first asked for, and kept on the scanner (``refresh`` forgets them)."""

    # The scanner's own, said for mypy alone (as ``oncescan.OncePerScan`` says them).
    if TYPE_CHECKING:
        @property
        def cache(self) -> Cache | None: ...

        def fingerprint(self, ref: SessionRef) -> str | None: ...

    @cached_property
    def own_refs(self) -> OwnRefs:
        """The own refs of stored sessions, for a parse (``real_ref``)."""
        from agentscan.scan.ownrefs import OwnRefs

        return OwnRefs(cast("Scanner", self))

    @cached_property
    def _rows(self) -> RowReader:
        from agentscan.scan.rowreader import RowReader

        return RowReader(cast("Scanner", self))

    def real_ref(self, ref: SessionRef, *, one: bool = False) -> SessionRef | None:
        """The provider's own ``ref`` (with its hint), for a parse; ``None``: the session
        is gone since the census (a warning says so).  ``one``: only this session is
        wanted (``show``): the provider may rebuild it alone (``Provider.locate``)."""
        return self.own_refs.real_ref(ref, one=one)

    def row(self, ref: SessionRef) -> SessionRow:
        """The session's row: from the index while its files are the same, else read (and kept)."""
        return self._rows.row(ref)

    def prefetch_rows(self, refs: Sequence[SessionRef], *, every: bool = False,
                      coming: Callable[[], Sequence[SessionRef]] | None = None) -> None:
        """Fetch the cached rows of the next sessions asked for (``row``) in one query.
        ``every``: ``refs`` will be asked for in this order, up to where the caller stops
        (``list`` with enough rows, then ``end_batch``): the others are read now, in worker
        processes when there are many (``rowbuild``).  ``coming``: the sessions later batches
        will ask for (``list --all``), counted in the note after an upgrade (``scan.upgraded``);
        asked only then (a lazy list of refs may read rows to know its order)."""
        self._rows.prefetch(refs, every=every, coming=coming)

    def rows_read_ahead(self) -> int:
        """How many rows ``prefetch_rows`` read ahead (in workers) and no ``row`` took yet."""
        return self._rows.read_ahead()

    def rows_kept(self, refs: Sequence[SessionRef]) -> set[str]:
        """The ids of ``refs`` whose rows the index holds for their files as they are."""
        cache = self.cache
        if cache is None:
            return set()
        kept = cache.row_fingerprints([ref.id for ref in refs])
        return {ref.id for ref in refs if ref.id in kept and kept[ref.id] == self.fingerprint(ref)}

    def end_batch(self) -> None:
        """The rows asked for since ``prefetch_rows`` are all there will be (``list`` has
        enough): what they stored is committed, and so are those read ahead for the others."""
        self._rows.end_batch()

    def expect_parses(self, refs: Sequence[SessionRef]) -> None:
        """``refs`` are about to be parsed: a provider with more of them than ``locate``
        is worth it for (``ownrefs.LOCATE_LIMIT``) is discovered at the first, not after the limit."""
        self.own_refs.expect_parses(refs)
