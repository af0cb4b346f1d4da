"""The provider's own ref of a stored session, for a parse (``Scanner.real_ref``).

A session taken from the index (a memo ref: ``scan.memo``) has its ids, paths,
files and fingerprint, but not the ``hint`` its provider's passes read.  Its
own ref comes, cheapest first, from ``Provider.locate`` (a few sessions of a
provider whose discovery ``locate`` agrees with), from a discovery made in a
helper that handed it over (``scan.aside``), or from discovering the provider
again here, once for the scan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from agentscan.context import Told, say
from agentscan.memohint import is_memo_ref
from agentscan.scan.memorefs import MemoRef, MemoRefs

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.providers.base import Provider
    from agentscan.scan.scanner import Scanner

#: how many stored sessions a scan rebuilds alone for a parse before it discovers
#: their provider afresh
LOCATE_LIMIT = 16


class OwnRefs:
    """One scanner's own refs of its stored sessions."""

    def __init__(self, scanner: Scanner) -> None:
        self._scanner = scanner
        #: a provider discovered again here: its sessions by id
        self._discovered: dict[str, dict[str, SessionRef]] = {}
        #: the own refs of a provider's most recent sessions, handed over by a discovery
        #: made in a helper (``scan.aside``): a page's rows need no discovery again here
        self._handed: dict[str, dict[str, SessionRef]] = {}
        #: sessions each provider rebuilt alone (``Provider.locate``)
        self._located: dict[str, int] = {}
        #: providers whose discovery here could not read something this time (a passing
        #: warning: Cursor's state DB locked): a session it did not find again was not read,
        #: not changed
        self._unread: set[str] = set()

    def hand(self, provider: str, refs: Sequence[SessionRef]) -> None:
        """Keep ``refs``, the own refs of some of ``provider``'s stored sessions."""
        self._handed[provider] = {ref.id: ref for ref in refs}

    def real_ref(self, ref: SessionRef, *, one: bool = False) -> SessionRef | None:
        """``Scanner.real_ref``."""
        if not is_memo_ref(ref):
            return ref
        scanner = self._scanner
        if ref.provider not in self._discovered and (one or self._may_locate(ref.provider)):
            located = scanner.provider(ref.provider).locate(ref.native_id, str(ref.path) if ref.path else None, scanner.ctx)
            # For a parse, the same files as stored: else discovery decides.
            if located is not None and located.id == ref.id and (one or located.files == ref.files):
                return located
        table = self._discovered.get(ref.provider)
        if table is None:
            handed = self._handed.get(ref.provider, {}).get(ref.id)
            if handed is not None and isinstance(ref, MemoRef):
                # Fingerprinted where it was discovered, as ``ref`` was stored: fingerprinted
                # again here, it may need the whole discovery (Codex's thread index).
                scanner.know_fingerprint(handed, ref.fingerprint)
                return handed
            # Warnings said again by a second discovery are dropped as repeats by the sink.
            table = self._discover(scanner.provider(ref.provider))
        real = table.get(ref.id)
        # Not found where the discovery read everything: changed since the census.  Else the
        # discovery's own warning says what was not read (and ``--strict`` fails over that).
        if real is None and ref.provider not in self._unread:
            scanner.ctx.warn(ref.path or ref.id, "changed while being read; run the command again")
        return real

    def _discover(self, provider: Provider) -> dict[str, SessionRef]:
        with self._scanner.ctx.warnings.capture() as said:
            table = self._discovered[provider.name] = {found.id: found for found in provider.discover(self._scanner.ctx)}
        if said.passing:
            self._unread.add(provider.name)
        return table

    def borrowed_cwds(self, providers: Sequence[Provider], stored: Mapping[str, object]) -> set[str]:
        """The cwds ``providers`` know (``ScanContext.cwd_candidates``; ``stored``: their sessions
        as the scan took them), read with their warnings held back.  Those are each provider's
        own, said by its discovery and its sessions' passes in a command that reads them; said
        here they would go into the pass that asked (a Gemini row of a hash-named project):
        ``list -p gemini`` would report, and ``--strict`` fail over, a Codex database's
        trouble, and the row, kept with it, would say it again in every warm run.  Only a
        ``passing`` one is said (something not read this time), of a provider the run asked for.

        A provider whose sessions, and their discovery's warnings, were taken from elsewhere
        (the index, ``scan.aside``'s helper: ``MemoRefs``) is discovered here, once, for
        ``real_ref`` as well."""
        ctx = self._scanner.ctx
        cwds: set[str] = set()
        passing: list[Told] = []
        for provider in providers:
            asked = provider.name in stored
            with ctx.held_warnings() as held:
                if isinstance(stored.get(provider.name), MemoRefs) and provider.name not in self._discovered:
                    self._discover(provider)
                cwds |= provider.known_cwds(ctx, brief=not asked)
            # What could not be read this time may have hidden the cwd: the row that asked must
            # not be kept, and the command says why (as ``leftout.still_ours`` does).  But not of
            # a provider the run did not ask for (Cursor's state DB locked, for ``list -p
            # gemini``): its trouble is not this run's to report, nor to fail ``--strict`` over;
            # a row whose cwd it hid has none, and a warm run asks the providers again.
            if asked:
                passing += [warning for warning in held.said if warning[3]]
        say(ctx, passing)
        return cwds

    def _may_locate(self, provider: str) -> bool:
        """Whether a parse may rebuild a stored session alone: its provider's discovery
        is one that ``locate`` agrees with (``MemoRefs.refreshable``), and only a few
        are asked for (an agent's active session or two; many cost more than discovery)."""
        refs = self._scanner.stored_refs(provider)
        if not isinstance(refs, MemoRefs) or not refs.refreshable:
            return False
        self._located[provider] = count = self._located.get(provider, 0) + 1
        return count <= LOCATE_LIMIT

    def expect_parses(self, refs: Sequence[SessionRef]) -> None:
        """``Scanner.expect_parses``."""
        counts: dict[str, int] = {}
        for ref in refs:
            if is_memo_ref(ref):
                counts[ref.provider] = counts.get(ref.provider, 0) + 1
        for provider, count in counts.items():
            if count + self._located.get(provider, 0) > LOCATE_LIMIT:
                self._located[provider] = LOCATE_LIMIT
