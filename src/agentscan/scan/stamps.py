"""Every selected provider's census at once, the lighter ones on the second core.

Each warm run stats every file under every provider's roots (``scan.census``)
before it may use anything the index remembers.  For a heavy user that is
≈ 0.15 s of Claude files and ≈ 0.05 s of the others' (Codex, Gemini,
Cursor), one after the other.  The censuses are independent and read only
the file system, so while this process takes the heaviest provider's, a
forked helper (``scan.workers.Helper``) takes the others' and hands back
their stamps.

What each census walks is worked out here first (``memo.census_plan``: it
may warn), so the helper only walks.  Done only when the index says the
lighter providers hold enough sessions (``PARALLEL_MIN_SESSIONS``) for a
fork to pay; anything that goes wrong with the helper leaves those censuses
to this process, as if it had never been forked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentscan.scan.memo import CensusPlan, Stamp, census_plan, stamp_from, stamp_of

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.base import Provider
    from agentscan.scan.cache import Cache

#: the lighter providers' sessions (as the index last counted them) worth a helper:
#: below this their censuses take a few milliseconds, about what a fork costs
PARALLEL_MIN_SESSIONS = 1_000


def take_in_parallel(providers: list[Provider], ctx: ScanContext, cache: Cache | None) -> dict[str, Stamp | None]:
    """The stamps of ``providers`` (``memo.stamp_of`` of each), taken two at a time when
    that pays; empty when it does not (each is then taken when first asked for)."""
    if len(providers) < 2 or cache is None:
        return {}
    counts = cache.session_counts()
    heavy = max(providers, key=lambda provider: counts.get(provider.name, 0))
    light = [provider for provider in providers if provider is not heavy]
    if sum(counts.get(provider.name, 0) for provider in light) < PARALLEL_MIN_SESSIONS:
        return {}
    from agentscan.scan import workers  # here: below the threshold (most homes) it costs 4 ms of imports for nothing

    if not workers.usable_workers():
        return {}
    plans: dict[str, CensusPlan | None] = {provider.name: census_plan(provider, ctx) for provider in light}
    walked = [name for name, plan in plans.items() if plan is not None]
    if not walked:
        return {}  # nothing for a helper to walk
    admits = ctx.resolved_inside_roots

    def serve(names: list[str]) -> dict[str, Stamp | None]:
        return {name: stamp_from(plans[name], admits) for name in names}  # type: ignore[arg-type]

    stamps: dict[str, Stamp | None] = {name: None for name, plan in plans.items() if plan is None}
    helper = workers.Helper(lambda: None, serve, start=False)
    try:
        try:
            helper.start()
        except (OSError, workers.HelperGone):
            return {}
        helper.send(walked)
        stamps[heavy.name] = stamp_of(heavy, ctx)
        stamps.update(helper.receive())
    except workers.HelperGone:
        return {heavy.name: stamps[heavy.name]} if heavy.name in stamps else {}
    finally:
        helper.stop()  # however this ends (a Ctrl-C during the fork included)
    return stamps
