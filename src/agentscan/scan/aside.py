"""A first ``list`` discovers the other providers on the second core.

The first run with an index (or the first that selects a provider) must
discover every provider before it can show the newest sessions: at the
bench's scale 10, Claude's census, discovery and storing take ≈ 0.5 s, and
Codex's, Gemini's and Cursor's ≈ 0.55 s more, one after the other, for a
``list`` that then reads 25 rows.  The discoveries are independent, so a
forked helper (``helperproc.Helper``) discovers the later providers while this
process discovers the first, and hands each back as the index keeps it: its
rows (``memorefs.stored_row``, with their fingerprints), its id entries
(``prune.id_entries``), the warnings it said, in order, and the file facts
it learnt (``IndexView`` writes).  This process, in the provider's turn,
says those warnings, indexes the ids, stores the discovery under the census
it took before the fork, and goes on with the stored rows (``MemoRefs``), as
a warm run that found the discovery in the index does.

The page's rows are read here, with the provider's own refs of its newest
sessions the helper hands back too: only of those whose passes need nothing
of the discovery (``Provider.passes_stand_alone``: a Codex session, its
fingerprint handed over with it).  Any other is read as a warm run reads it:
its provider discovered again here first (``Scanner.real_ref``), outside any
pass's capture, so that the warnings said again are dropped as repeats and
not kept with the session's row or sums.

Only for a command that parses a few sessions (``list`` of a page): one that
parses them all (``tokens``, ``list --all``) needs each provider's own refs,
which would make it discover those providers again here.  And only for
providers never discovered with this index (no session count kept: see
``prune.index_ids``) whose censuses hold enough entries (``MIN_ENTRIES``)
for a fork to pay.  The helper opens no database of agentscan's and writes
nothing; a provider whose discovery goes wrong there (a fork refused, a
discovery that raises, a session without a fingerprint, the helper killed)
is discovered here in its turn, as if it had never been sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from agentscan.context import Told, say
from agentscan.scan.memo import TOP

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.providers.base import Provider
    from agentscan.scan.scanner import Scanner
    from agentscan.toolkit.helperproc import Helper

#: the census entries of the providers sent aside below which they are discovered
#: here (a fork, its pipes and the helper's imports cost more than they would save)
MIN_ENTRIES = 2_000


class Found(NamedTuple):
    """One provider's discovery, as the helper hands it back."""

    #: ``stored_row`` of each session, in discovery order
    rows: list[list[Any]]
    #: ``prune.id_entries`` of them
    ids: list[tuple[str, str, str, str | None]]
    #: what discovery said, in order
    said: Sequence[Told]
    #: what taking the fingerprints said (outside discovery's capture, as here)
    said_after: Sequence[Told]
    #: ``Provider.refreshable_discovery`` once it ran
    refreshable: bool
    #: the file facts it learnt: ``IndexView`` writes
    writes: Sequence[tuple[str, tuple]]
    #: the provider's own refs of its most recent sessions (``OwnRefs.hand``)
    handed: Sequence[SessionRef]


def plan(scanner: Scanner, pending: Sequence[Provider], few: int) -> Aside | None:
    """The providers of ``pending`` (in the order they are discovered) to discover in a
    helper, started; ``None``: all are discovered here.  ``few``: how many of the most
    recent sessions will be parsed (their own refs come back too)."""
    cache = scanner.cache
    if len(pending) < 2 or cache is None or not cache.writing:
        return None
    # Each census before its discovery, as ever: those sent aside are taken now (unless
    # ``Scanner.take_censuses`` took them), before the fork; the first's in its turn, here.
    names = []
    entries = 0
    for provider in pending[1:]:
        if not scanner.first_discovery(provider):
            continue  # discovered with this index before: taken from it, or mended
        stamp = scanner.census_stamp(provider)
        if stamp is None or not stamp.settled:
            continue  # nothing that could be stored: the helper's rows would be of no use
        names.append(provider.name)
        entries += stamp.entries
    if not names or entries < MIN_ENTRIES:
        return None
    from agentscan.toolkit import cores

    if not cores.usable_workers():
        return None
    aside = Aside(scanner, names, max(TOP, 2 * few))
    return aside if aside.start() else None


class Aside:
    """The helper discovering ``names``, and taking each discovery back in its turn."""

    def __init__(self, scanner: Scanner, names: list[str], handing: int) -> None:
        self._scanner = scanner
        self.names = names
        self._handing = handing
        self._helper: Helper | None = None
        self._found: dict[str, Found | None] | None = None

    def start(self) -> bool:
        from agentscan.toolkit.helperproc import Helper, HelperGone

        scanner = self._scanner

        def serve(names: list[str]) -> dict[str, Found | None]:
            # One answer for them all: answers are large (≈ 1 MB for 3,000 Codex threads)
            # and a pipe holds 64 KiB, so one sent before this process asks would stop
            # the helper until the first provider's discovery is done here.
            from agentscan.scan.indexview import IndexView

            ctx = scanner.ctx.for_worker()
            ctx.file_cache = IndexView(None)  # nothing to read: never discovered with this index
            ctx.memo["_stat"] = scanner.ctx.stats()  # what their censuses took here, before the fork
            ctx.memo["_listing"] = scanner.ctx.listings()  # and listed
            found: dict[str, Found | None] = {}
            for name in names:
                try:
                    found[name] = _discover(scanner.provider(name), ctx, self._handing)
                except Exception:  # noqa: BLE001 - discovered again here, which says what is wrong
                    found[name] = None
            return found

        cache = scanner.cache
        if cache is not None:
            cache.commit()  # nothing of this run's is left uncommitted across the fork
        helper = Helper(lambda: None, serve, start=False)
        try:
            helper.start()
            helper.send(self.names)
        except BaseException as exc:  # a Ctrl-C too: the helper is forked by then, and stopped here
            helper.stop()
            if isinstance(exc, (OSError, HelperGone)):
                return False
            raise
        self._helper = helper
        # The listings of the helper's providers went with it: here they are memory only.
        # Those of the providers discovered here stay (this process's discovery takes them).
        for name in self.names:
            scanner.ctx.drop_listings(scanner.provider(name).census_paths(scanner.ctx) or ())
        return True

    def take(self, provider: Provider) -> Sequence[SessionRef] | None:
        """``provider``'s sessions, its discovery made in the helper and stored here;
        ``None``: discover it here (the helper could not)."""
        from agentscan.toolkit.helperproc import HelperGone

        if self._found is None:
            self._found = {}
            if self._helper is not None:
                try:
                    self._found = self._helper.receive()
                except HelperGone:
                    pass
                self.stop()
        found = self._found.pop(provider.name, None)
        return _adopt(self._scanner, provider, found) if found is not None else None

    def stop(self) -> None:
        if self._helper is not None:
            self._helper.stop()
            self._helper = None


def _discover(provider: Provider, ctx: Any, handing: int) -> Found | None:
    """In the helper: what ``discovering.discover`` does up to the index's writes, and the
    ``handing`` most recent sessions' own refs."""
    from agentscan.scan.memorefs import stored_row
    from agentscan.scan.prune import id_entries

    view = ctx.file_cache
    view.writes = []
    with ctx.held_warnings() as held:
        refs = provider.discover(ctx)
    with ctx.held_warnings() as after:
        fingerprints = [provider.fingerprint(ref, ctx) for ref in refs]
    if any(fingerprint is None for fingerprint in fingerprints):
        return None  # not storable: discovered again here, whose refs can go uncached
    refreshable = provider.refreshable_discovery(ctx)
    # In the order ``MergedRefs`` takes them: by recency, equal ones in discovery order.
    newest = sorted(range(len(refs)), key=lambda index: refs[index].recency, reverse=True)[:handing]
    # Only those whose passes need nothing of the discovery: the parent reads any other
    # after discovering the provider again itself (``Scanner.real_ref``), outside any capture.
    with ctx.held_warnings():  # a head read to tell is read again, and warns, in the pass
        handed = [refs[index] for index in newest if provider.passes_stand_alone(refs[index], ctx)]
    ctx.flush_facts()  # after every read: what they learnt is written in the parent
    rows = [stored_row(ref, fingerprint) for ref, fingerprint in zip(refs, fingerprints)]
    return Found(rows, id_entries(refs), held.said, after.said, refreshable, view.writes, handed)


def _adopt(scanner: Scanner, provider: Provider, found: Found) -> Sequence[SessionRef] | None:
    """In this process, in ``provider``'s turn: what ``discovering.discover`` does with a discovery."""
    from agentscan.scan.indexview import make_writes
    from agentscan.scan.memorefs import MemoRefs
    from agentscan.scan.memo import MAX_WARNINGS, DiscoveryMemo
    from agentscan.scan.prune import index_id_entries
    from agentscan.scan.incomplete import note_discovery

    ctx, cache = scanner.ctx, scanner.cache
    if cache is None:
        return None
    refs = MemoRefs.checked(provider.name, found.rows, found.refreshable)
    if refs is None:
        return None
    memo = DiscoveryMemo(cache, provider, ctx, scanner.census_stamp(provider))
    with ctx.warnings.capture(MAX_WARNINGS) as warnings:
        say(ctx, found.said)
    make_writes(cache, found.writes)
    index_id_entries(cache, provider, found.ids, ctx, complete=not warnings.passing)
    note_discovery(ctx, provider.name, complete=not warnings.passing)
    memo.store_rows(found.rows, warnings, found.refreshable)
    say(ctx, found.said_after)
    scanner.own_refs.hand(provider.name, found.handed)
    return refs
