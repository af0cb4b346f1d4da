"""Every selected provider's census at once, on both cores.

Each warm run stats every file under every provider's roots (``scan.census``)
before it may use anything the index remembers.  For a heavy user that is
≈ 0.15 s of Claude files and ≈ 0.05 s of the others' (Codex, Gemini,
Cursor), one after the other.  The censuses are independent and read only
the file system, so a forked helper (``toolkit.helperproc.Helper``) takes the
lighter providers' censuses and a share of the heaviest one's root
subdirectories (each is walked apart: ``census.walk_subtree``), while this
process walks the rest; the heaviest census adds up both halves in order,
with the same stamp as a walk of it all here.

What each census walks is worked out here first (``memo.census_plan``: it
may warn), so the helper only walks.  Done only when the index says the
providers hold enough sessions (``PARALLEL_MIN_SESSIONS``) for a fork to
pay; anything that goes wrong with the helper leaves its work to this
process, as if it had never been forked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentscan.scan.census import Subtree, walk_subtrees
from agentscan.scan.memo import SETTLE_NS, CensusPlan, Stamp, census_plan, stamp_from

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.base import Provider
    from agentscan.scan.cache import Cache
    from agentscan.toolkit.helperproc import Helper

#: the providers' sessions (as the index last counted them) worth a helper: below
#: this their censuses take less than the fork, its imports and its pipes cost
#: (measured: 1,500 sessions ran 10 ms slower with a helper than without)
PARALLEL_MIN_SESSIONS = 3_000


def take_in_parallel(providers: list[Provider], ctx: ScanContext, cache: Cache | None) -> dict[str, Stamp | None]:
    """The stamps of ``providers`` (``memo.stamp_of`` of each), taken on two cores when
    that pays; empty when it does not (each is then taken when first asked for)."""
    if not providers or cache is None:
        return {}
    counts = cache.session_counts()
    if sum(counts.get(provider.name, 0) for provider in providers) < PARALLEL_MIN_SESSIONS:
        return {}
    from agentscan.toolkit import cores  # here: below the threshold (most homes) nothing of it is needed
    from agentscan.toolkit.helperproc import Helper, HelperGone

    if not cores.usable_workers():
        return {}
    heavy = max(providers, key=lambda provider: counts.get(provider.name, 0))
    light = [provider for provider in providers if provider is not heavy]
    plans: dict[str, CensusPlan | None] = {provider.name: census_plan(provider, ctx) for provider in light}
    heavy_plan = census_plan(heavy, ctx)
    walked = [name for name, plan in plans.items() if plan is not None]
    if not walked and heavy_plan is None:
        return {}  # nothing for a helper to walk
    admits = ctx.resolved_inside_roots

    def serve(question: tuple[list[str], list[tuple[str, tuple[int, int]]], frozenset[tuple[int, int]], int]) -> Any:
        names, subtrees, roots, budget = question
        stamps = {name: stamp_from(plans[name], admits) for name in names}  # type: ignore[arg-type]
        return stamps, walk_subtrees(subtrees, roots, admits, SETTLE_NS, budget)

    heavy_share = counts.get(heavy.name, 0)
    light_share = sum(counts.get(name, 0) for name in walked)
    # The helper's part of the heaviest provider's subtrees: what evens out the two
    # cores, if a census costs about the same per session for every provider.
    fraction = min(max((heavy_share - light_share) / (2 * heavy_share), 0.0), 0.5) if heavy_share else 0.0
    helper = Helper(lambda: None, serve, start=False)
    shared = _Sharing(helper, walked, fraction, admits)
    stamps: dict[str, Stamp | None] = {name: None for name, plan in plans.items() if plan is None}
    try:
        try:
            helper.start()
        except (OSError, HelperGone):
            return {}
        if heavy_plan is not None:
            stamps[heavy.name] = stamp_from(heavy_plan, admits, shared.walker)
        else:
            stamps[heavy.name] = None
        stamps.update(shared.light())
    except HelperGone:
        return {heavy.name: stamps[heavy.name]} if heavy.name in stamps else {}
    finally:
        helper.stop()  # however this ends (a Ctrl-C during the fork included)
    return stamps


class _Sharing:
    """The heaviest census's subtree walker: the first root's subtrees shared with the
    helper (which also takes the lighter providers' censuses, in the same question)."""

    def __init__(self, helper: Helper, walked: list[str], fraction: float, admits: Any) -> None:
        self.helper, self.walked, self.fraction, self.admits = helper, walked, fraction, admits
        self.asked = False
        self.stamps: dict[str, Stamp | None] | None = None

    def walker(self, subdirs: list[tuple[str, tuple[int, int]]], roots: frozenset[tuple[int, int]],
               budget: int) -> list[Subtree]:
        from agentscan.toolkit.helperproc import HelperGone

        left = budget  # what the subtrees walked here have left (the helper's got ``budget``)

        def here(indexes: list[int]) -> dict[int, Subtree]:
            nonlocal left
            walked = walk_subtrees([subdirs[index] for index in indexes], roots, self.admits, SETTLE_NS, left)
            left -= sum(subtree.entries for subtree in walked)
            return dict(zip(indexes, walked))

        everything = list(range(len(subdirs)))
        # Spread over the listing, so that the helper's share is not all of one end.
        theirs = [index for index in everything if int((index + 1) * self.fraction) > int(index * self.fraction)]
        if self.asked:
            theirs = []  # only the first root's subtrees are shared
        elif theirs:
            self.asked = True
            try:
                self.helper.send((self.walked, [subdirs[index] for index in theirs], roots, budget))
            except HelperGone:
                theirs = []  # the lighter censuses are taken when first asked for
        taken = set(theirs)
        found = here([index for index in everything if index not in taken])
        if theirs:
            try:
                self.stamps, walked_there = self.helper.receive()
                found.update(zip(theirs, walked_there))
                left -= sum(subtree.entries for subtree in walked_there)
            except HelperGone:
                pass
        given_up = [subtree for subtree in found.values() if not subtree.complete]
        if not given_up:
            found.update(here([index for index in everything if index not in found]))  # what the helper did not walk
            given_up = [subtree for subtree in found.values() if not subtree.complete]
        return given_up[:1] or [found[index] for index in everything]

    def light(self) -> dict[str, Stamp | None]:
        """The lighter providers' stamps, asked for alone if no subtree was shared."""
        if self.stamps is None and not self.asked:
            self.asked = True
            self.stamps, _ = self.helper.ask((self.walked, [], frozenset(), 0))
        return self.stamps or {}
