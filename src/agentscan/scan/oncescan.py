"""What a ``Scanner`` takes once per scan and keeps: each provider's census (``scan.memo``)
and each session's fingerprint (its cache key).  Apart from ``scan.scanner``, which asks
the questions; these are what its helpers (discovery, rows, the answers) ask of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, cast

from agentscan.memohint import is_memo_ref

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef
    from agentscan.providers.base import Provider
    from agentscan.scan.cache import Cache
    from agentscan.scan.memo import Stamp
    from agentscan.scan.memorefs import MemoRef


class OncePerScan:
    """``Scanner``'s censuses and fingerprints (its ``__init__`` makes the dicts)."""

    # The scanner's own, said for mypy alone: annotations at run time would name types
    # ``typing.get_type_hints(Scanner)`` cannot find here (``test_public_api``).
    if TYPE_CHECKING:
        ctx: ScanContext
        _stamps: dict[str, Stamp | None]
        _counts: dict[str, int] | None
        _fingerprints: dict[str, tuple[object, str | None]]

        @property
        def cache(self) -> Cache | None: ...

        def confine(self) -> None: ...

        def provider(self, name: str) -> Provider: ...

    def take_censuses(self, providers: Sequence[Provider]) -> None:
        """Take the censuses of ``providers`` not taken yet, side by side when that pays
        (``scan.stamps``); else each is taken when first asked for."""
        missing = [provider for provider in providers if provider.name not in self._stamps]
        if len(missing) < 2 or self.cache is None:
            return
        from agentscan.scan.stamps import take_in_parallel

        self.confine()  # as ``census_stamp``: the census follows symlinks where discovery would
        self._stamps.update(take_in_parallel(missing, self.ctx, self.cache))

    def census_stamp(self, provider: Provider) -> Stamp | None:
        """The census of ``provider``'s roots with what read them (``scan.memo.stamp_of``),
        taken once per scanner: before its discovery, or before an answer that stands for it."""
        if provider.name not in self._stamps:
            from agentscan.scan.memo import stamp_of

            self.confine()  # the census follows symlinks where discovery would
            self._stamps[provider.name] = stamp_of(provider, self.ctx, share_stats=self.first_discovery(provider))
        return self._stamps[provider.name]

    def first_discovery(self, provider: Provider) -> bool:
        """Whether ``provider`` was never discovered with the index: its discovery will run
        after its census (a warm run's census would keep stats for nothing)."""
        return provider.name not in self._session_counts()

    def first_run(self) -> bool:
        """Whether no provider was ever discovered with the index (or there is none): no
        answer can be remembered, and every session shown is read."""
        return not self._session_counts()

    def _session_counts(self) -> dict[str, int]:
        if self._counts is None:
            self._counts = self.cache.session_counts() if self.cache is not None else {}
        return self._counts

    def fingerprint(self, ref: SessionRef) -> str | None:
        """The session's cache key (see ``Provider.fingerprint``); a memo ref's is the stored one."""
        if is_memo_ref(ref):
            return cast("MemoRef", ref).fingerprint
        # Once per session and scan: the memo store and the usage collector both ask
        # (file stats are taken once per scan, so the answer cannot change meanwhile).
        known = self._fingerprints.get(ref.id)
        if known is not None and known[0] is ref.hint:
            return known[1]
        fingerprint = self.provider(ref.provider).fingerprint(ref, self.ctx)
        self._fingerprints[ref.id] = (ref.hint, fingerprint)  # the hint kept alive: ``is`` stays meaningful
        return fingerprint

    def know_fingerprint(self, ref: SessionRef, fingerprint: str | None) -> None:
        """``ref``'s fingerprint, taken elsewhere (``fingerprint`` answers it)."""
        self._fingerprints[ref.id] = (ref.hint, fingerprint)  # the hint kept alive: ``is`` stays meaningful
