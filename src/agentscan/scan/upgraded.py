"""Which of the sessions read again were kept by an older parser, for a note after an upgrade.

A session's fingerprint digests its provider's parser version with its files'
identities (``Provider.fingerprint``), so a new parser version misses every
session the index holds: the first run after an upgrade reads them all, as long
as a cold run, and the terminal's progress line alone does not say why.  The
index keeps only the digest, so a stale one is taken again under the older
versions (``parser_version`` is a counter; ``Provider.fingerprint(version=)``): one that matches is a session
unchanged on disk, read again only because agentscan changed.  This runs only
for sessions that missed already (a warm run has none), only when the progress
shows it (``Progress.tells_upgrades``: the CLI's, on a terminal; a library's
scanner is never touched), and looks for the version only for the first few:
the rest are tried under the one found (13,000 sessions: about 0.1 s of a 10 s run).
The same search tells whether sums the index holds of one session stand (``older_parsers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef
    from agentscan.providers.base import Provider
    from agentscan.scan.scanner import Scanner

#: stale sessions of a provider tried under every older version before giving up on it
#: (sessions that changed on disk match none: they must not cost a search each)
_SEARCHED = 8


class OlderParsers:
    """The search, for one provider's sessions, for the older parser version the index holds
    a session's fingerprint of: the versions found first, and only the first few sessions
    (``_SEARCHED``) searched through them all.  Shared by the upgrade note's count and the row
    pass that refreshes sums an older parser kept (``rowusage.keep_row_usage``)."""

    __slots__ = ("found", "searched", "answers")

    def __init__(self, shared: OlderParsers | None = None) -> None:
        """``shared``: another caller's search, whose versions found and answers this one
        shares (``older_search``), its count of sessions searched its own."""
        self.found: list[str] = [] if shared is None else shared.found  # versions that matched, tried first
        self.searched = 0
        #: (session id, kept fingerprint) -> the answer given: a session asked again in the
        #: scan (its sums taken under a lock, then its row's) is not searched again
        self.answers: dict[tuple[str, str], bool] = {} if shared is None else shared.answers

    @property
    def given_up(self) -> bool:
        """None of the first few matched: the rest changed on disk."""
        return not self.found and self.searched >= _SEARCHED

    def held_unchanged(self, provider: Provider, ref: SessionRef, ctx: ScanContext, kept: str) -> bool:
        """Whether ``kept`` is ``ref``'s fingerprint under an older parser version of
        ``provider``, its files as they are now."""
        asked = (ref.id, kept)
        answer = self.answers.get(asked)
        if answer is None:
            whole = self.searched < _SEARCHED  # (past it, only the versions found are tried: no answer for another caller)
            answer = self._search(provider, ref, ctx, kept)
            if answer or whole:
                self.answers[asked] = answer
        return answer

    def _search(self, provider: Provider, ref: SessionRef, ctx: ScanContext, kept: str) -> bool:
        version = provider.parser_version
        if not version.isdigit():
            return False
        older = [str(number) for number in range(int(version) - 1, -1, -1)]
        tried = self.found if self.searched >= _SEARCHED else self.found + [old for old in older if old not in self.found]
        self.searched += 1  # (every session searched counts: one match must not lift the cap)
        for old in tried:
            if _fingerprint_as(provider, ref, ctx, old) == kept:
                if old not in self.found:
                    self.found.append(old)
                return True
        return False


def read_again_after_upgrade(scanner: Scanner, stale: Iterable[tuple[SessionRef, str]]) -> int:
    """How many of ``stale`` (ref, fingerprint the index holds) the index holds under an
    older parser version of their provider, their files as they are now."""
    by_provider: dict[str, list[tuple[SessionRef, str]]] = {}
    for ref, kept in stale:
        by_provider.setdefault(ref.provider, []).append((ref, kept))
    count = 0
    for name, pairs in by_provider.items():
        provider = scanner.provider(name)
        search = OlderParsers()
        for ref, kept in pairs:
            count += search.held_unchanged(provider, ref, scanner.ctx, kept)
            if search.given_up:
                break
    return count


def _fingerprint_as(provider: Provider, ref: SessionRef, ctx: ScanContext, version: str) -> str | None:
    """``ref``'s fingerprint as parser ``version`` of ``provider`` took it (asked for that
    version: the provider, shared by the scan, is left as it is)."""
    try:
        return provider.fingerprint(ref, ctx, version=version)
    except Exception:  # noqa: BLE001 - a note's count, or a kept row, must never fail the run
        return None


def tell(scanner: Scanner, stale: Iterable[tuple[SessionRef, str]], what: str) -> None:
    """Tell the progress how many of ``stale`` are read again after an upgrade, for ``what``
    (``Progress.upgraded``; the CLI's says it in a note before its progress line, if the run
    is long enough to draw one)."""
    progress = scanner.ctx.progress
    if not progress.tells_upgrades():
        return  # nobody shows it (a pipe, the library): no fingerprint is taken again
    progress.upgraded(read_again_after_upgrade(scanner, stale), what)  # (0: none; not searched again this run)


def older_search(ctx: ScanContext, provider: str, caller: str = "rows") -> OlderParsers:
    """The scan's search of ``provider``'s older parser versions for the sums the index holds,
    for ``caller`` (``older_parsers``'s rows, ``lockedusage.kept_under_a_lock``'s sums): the
    versions found and the answers given shared, the sessions searched counted by each caller
    (shared, eight changed sessions a row pass searched first gave up the search for an
    unchanged chat under a lock, whose kept sums were then not taken)."""
    # One holder a provider: each caller's search, the first's versions and answers shared by all.
    searches: dict[str, OlderParsers] = ctx.memo.setdefault(f"_rowusage_versions:{provider}", {})
    search = searches.get(caller)
    if search is None:
        search = searches[caller] = OlderParsers(next(iter(searches.values()), None))
    return search


def older_parsers(ctx: ScanContext, ref: SessionRef, held: str) -> bool:
    """Whether ``held``, the fingerprint of the sums the index holds of ``ref``, is its files'
    as they are now under an older parser version of its provider (``OlderParsers``:
    one search a provider a run, ``older_search``)."""
    from agentscan.providers import get_provider

    return older_search(ctx, ref.provider).held_unchanged(get_provider(ref.provider), ref, ctx, held)
