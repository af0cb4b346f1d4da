"""Discovery taken from the index when a provider's roots did not change.

A warm run of a heavy user (15,000+ sessions) spent most of its time
discovering what the previous run had already discovered.  After a real
discovery, the provider's sessions are stored in the index with the census
of its roots (``scan.census``) at that moment; the next run whose census is
the same gets them back as *memo refs*: ``SessionRef``s with the ids, paths,
files and recency of the real ones and the fingerprint they had, but no
provider ``hint``.  That is all ``list`` and ``tokens`` need while every
session's rows and sums are cached; anything that must parse a session asks
``Scanner.real_ref`` for the real one, which discovers the provider then.

Warnings discovery raised are stored with the memo and said again, so a
warm run reports what a cold one did.

An agent at work appends to its transcript every few seconds, so the census
of a heavy user's Claude roots is rarely the same twice in a row.  When no
file came or went (the census's *shape* is the same) and the provider says
its discovery depends on nothing else (``Provider.refreshable_discovery``),
the stored discovery is *mended*: only the sessions with a file in a
directory whose own digest changed get a new recency and fingerprint
(``Provider.refreshed``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from agentscan.scan.census import Listings, SubtreeWalker, census
from agentscan.sealing import seal, unseal
from agentscan.digests import blake2b

# A census stamp is all a remembered answer needs (``scan.answers``): the stored
# discovery's imports (orjson, the model's dataclasses) wait for a ``DiscoveryMemo``.
if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import ScanWarning, SessionRef
    from agentscan.scan.memorefs import MemoRefs, TopRefs
    from agentscan.providers.base import Provider
    from agentscan.scan.cache import Cache
    from agentscan.warningsink import Captured

_FORMAT = 1

#: how many warnings a stored discovery may carry (more: it is not stored)
MAX_WARNINGS = 10_000

#: the most recent sessions of a provider stored apart, with their shown ids (``TopRefs``):
#: ``list`` shows 25, and reads on until no session left can be newer
TOP = 128

#: a file changed less than this before the census may still change within its
#: timestamp's resolution (1-2 s on some file systems) without the census seeing it
SETTLE_NS = 2_000_000_000


class Stamp(NamedTuple):
    value: str
    #: no file under the roots changed within ``SETTLE_NS`` of the census: what is
    #: read now may be kept (else it is used but not stored: git's "racily clean")
    settled: bool
    #: the same for the census's shape (``Census.shape``): equal while no file came or went
    shape: str = ""
    #: each directory's own digest (``Census.dirs``); ``None``: cannot be mended
    dirs: dict[str, bytes] | None = None
    #: the census's entries (``Census.entries``)
    entries: int = 0


class CensusPlan(NamedTuple):
    """What a provider's census walks, and what else its stamp depends on."""

    paths: list[str]
    stat_only: list[str]
    #: the roots themselves (an env var may point elsewhere), the settings that chose
    #: them (``settings_identity``) and the code that read them
    setting: str


def census_plan(provider: Provider, ctx: ScanContext) -> CensusPlan | None:
    """``None``: the provider's discovery is never taken from the index."""
    from agentscan.codeid import code_identity

    paths = provider.census_paths(ctx)
    stat_only = provider.census_stat_paths(ctx)
    if paths is None or stat_only is None:
        return None
    setting = "\n".join([code_identity(), provider.name, provider.parser_version, str(_FORMAT), settings_identity(ctx),
                         *paths, "", *stat_only])
    return CensusPlan(paths, stat_only, setting)


def settings_identity(ctx: ScanContext) -> str:
    """What the settings that choose the providers' roots say beyond the roots themselves
    (each census stamp has those): the notes of every provider's roots, such as a relative
    ``CODEX_HOME`` ignored, whose warning is said again with what is stored.  So a stored
    discovery, and every answer keyed by its census (``scan.answers``), stands only where
    the settings say the same: under others its warnings would be this run's no longer.

    Not the variables' raw values: ``XDG_CONFIG_HOME`` unset and set to its default choose
    the same roots and say nothing, and a cron job and a shell would evict each other's
    answers.  Every provider's, not one's: a discovery asks the others too
    (``ScanContext.cwd_candidates``)."""
    known = ctx.memo.get(_SETTINGS)
    if known is None:
        from agentscan.providers import iter_providers

        notes = sorted({root.note for provider in iter_providers() for root in provider.roots(ctx) if root.note})
        known = ctx.memo[_SETTINGS] = repr(notes)
    return known


_SETTINGS = "memo.settings_identity"


def stamp_from(plan: CensusPlan, admits: Callable[[str], bool], walker: SubtreeWalker | None = None,
               stats: dict[str, os.stat_result | None] | None = None, listings: Listings | None = None
               ) -> Stamp | None:
    """The census of ``plan`` as a stamp: reads the file system only (a helper may take it,
    or some of its roots' subtrees: ``walker``); ``stats`` and ``listings`` as
    ``census.census`` takes them."""
    import time

    now = time.time_ns()
    # A time more than the interval ahead of the clock is a clock's skew (or a copied
    # home's), not a change in progress (the census compares as it goes: a slow walk's
    # own changes count).
    found = census(plan.paths, stat_only=plan.stat_only, admits=admits, skew_ns=SETTLE_NS, walker=walker, stats=stats,
                   listings=listings)
    if found is None:
        return None

    def stamp(census_digest: str) -> str:
        text = f"{plan.setting}\n{census_digest}"
        return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

    # Times in the future were left out of ``newest_ns``: one such file must not make a
    # change of a moment ago look settled.
    settled = found.newest_ns < now - SETTLE_NS
    return Stamp(stamp(found.digest), settled, stamp(found.shape), found.dirs, found.entries)


def stamp_of(provider: Provider, ctx: ScanContext, *, share_stats: bool = False) -> Stamp | None:
    """What the provider's discovery depends on, as one digest (``None``: no memo).
    ``share_stats``: its discovery will run in this scan: the census's stats and listings
    are the scan's (``ScanContext.stat``, ``ScanContext.listed``), so that it takes none of
    them again."""
    plan = census_plan(provider, ctx)
    if plan is None:
        return None
    if not share_stats:
        return stamp_from(plan, ctx.resolved_inside_roots)
    return stamp_from(plan, ctx.resolved_inside_roots, stats=ctx.stats(), listings=ctx.listings())


class DiscoveryMemo:
    """One provider's discovery, stored and taken back under a census stamp."""

    def __init__(self, cache: Cache, provider: Provider, ctx: ScanContext, stamp: Stamp | None) -> None:
        """``stamp``: ``stamp_of(provider, ctx)``, taken before discovery runs."""
        self._cache = cache
        self._provider = provider
        self._ctx = ctx
        self._key = f"discovery:{provider.name}"
        #: what mending needs, apart: a warm run that finds the same census never reads it
        self._shape_key = f"discovery-shape:{provider.name}"
        #: the most recent rows alone (``TopRefs``): what ``list`` reads
        self._top_key = f"discovery-top:{provider.name}"
        self.stamp = stamp.value if stamp is not None else None
        self._settled = stamp is not None and stamp.settled
        self._census = stamp

    def load(self, fingerprint_of: Callable[[SessionRef], str | None]) -> MemoRefs | None:
        """The stored refs (made one by one as they are asked for), or ``None`` when the
        roots changed; the warnings discovery raised are said again.  Only the most recent
        rows are read (``TopRefs``) while nothing asks for more.  ``fingerprint_of``: for
        the rows discovered again should the rest be unreadable by then."""
        if self.stamp is None:
            return None
        top = self._top(self.stamp, fingerprint_of)
        if top is not None:
            return top
        payload = unseal(self._cache.get_snapshot(self._key, self.stamp))
        if payload is None:
            return None
        return self._refs_of(payload)

    def _top(self, stamp: str, fingerprint_of: Callable[[SessionRef], str | None]) -> TopRefs | None:
        payload = unseal(self._cache.get_snapshot(self._top_key, stamp))
        if payload is None:
            return None
        import orjson

        from agentscan.model import ScanWarning
        from agentscan.scan.memorefs import MemoRefs, TopRefs

        try:
            document = orjson.loads(payload)
            count, top = document["count"], document["top"]
            warnings = [ScanWarning(w["path"], w["message"], w.get("line")) for w in document["warnings"]]
            rows = MemoRefs.checked(self._provider.name, [row for _, row, _ in top])
            if (rows is None or type(count) is not int or count < len(top)
                    or any(type(index) is not int or type(shown) is not str for index, _, shown in top)):
                return None
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None
        for warning in warnings:
            self._ctx.warn(warning.path, warning.message, warning.line)
        refreshable = bool(document.get("refreshable"))
        return TopRefs(self._provider.name, [tuple(item) for item in top], count, refreshable,  # type: ignore[misc]
                       lambda: self._whole(refreshable, fingerprint_of))

    def _whole(self, refreshable: bool, fingerprint_of: Callable[[SessionRef], str | None]) -> MemoRefs:
        """Every stored row, for a ``TopRefs`` asked for more than its top rows: its warnings
        were said with them.  Should they be unreadable now (a damaged index), the provider
        is discovered again, and stored again (else each run would discover it again until
        the census changes)."""
        from agentscan.scan.memorefs import MemoRefs, stored_row

        payload = unseal(self._cache.get_snapshot(self._key, self.stamp)) if self.stamp is not None else None
        refs = self._refs_of(payload, say=False) if payload is not None else None
        if refs is not None:
            return refs
        with self._ctx.warnings.capture(MAX_WARNINGS) as warnings:
            found = self._provider.discover(self._ctx)
        self.store(found, warnings, fingerprint_of)
        rows = [stored_row(ref, fingerprint_of(ref)) for ref in found]
        return MemoRefs(self._provider.name, rows, refreshable)

    def _refs_of(self, payload: bytes, mend: Callable[[list[list[Any]]], bool] | None = None, *,
                 say: bool = True) -> MemoRefs | None:
        import orjson

        from agentscan.model import ScanWarning
        from agentscan.scan.memorefs import MemoRefs

        try:
            document = orjson.loads(payload)
            refs = MemoRefs.checked(self._provider.name, document["refs"], bool(document.get("refreshable")))
            warnings = [ScanWarning(w["path"], w["message"], w.get("line")) for w in document["warnings"]]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None
        if refs is None:
            return None
        if not say:
            return refs
        if mend is not None:
            rows = refs.rows
            if not refs.refreshable or not mend(rows):
                return None
            refs = MemoRefs(self._provider.name, rows, True)  # the recencies are new
        for warning in warnings:
            self._ctx.warn(warning.path, warning.message, warning.line)
        if mend is not None:
            self._keep(refs.rows, warnings, refs.refreshable)
        return refs

    def mend(self) -> MemoRefs | None:
        """The stored discovery, brought up to date, when only files changed in place
        since it was stored (see the module's text); ``None``: discover afresh."""
        census = self._census
        if census is None or census.dirs is None:
            return None
        # The shape is kept only beside a discovery that may be mended: looked at first,
        # it spares decoding (or even reading) one that may not.
        latest = self._cache.latest_snapshot(self._shape_key)
        if latest is None:
            return None
        side = unseal(latest[1])
        payload = unseal(self._cache.get_snapshot(self._key, latest[0]))
        if side is None or payload is None:
            return None
        import orjson

        try:
            stored = orjson.loads(side)
            if stored["shape"] != census.shape or type(stored["dirs"]) is not dict:
                return None
            stored_dirs: dict[str, str] = stored["dirs"]
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return None
        changed = {path for path, own in census.dirs.items() if stored_dirs.get(path) != own.hex()}
        if not changed or len(stored_dirs) != len(census.dirs):
            return None

        def refresh(rows: list[list[Any]]) -> bool:
            # Every changed directory must hold a file of a stored session (anything
            # else there, such as a root's own times, is beyond what mending knows).
            touched: set[str] = set()
            hits = []
            dirname = os.path.dirname
            for index, row in enumerate(rows):
                # Every folder of the session counts: its transcript and a subagent's grow together.
                hit = False
                for text in row[3]:
                    cut = text.rfind("/")
                    # ``dirname`` without a call for a plain path (10,000 rows: 15 ms of calls).
                    folder = text[:cut] if cut > 0 and text[cut - 1] != "/" else dirname(text)
                    if folder in changed:
                        touched.add(folder)
                        hit = True
                if hit:
                    hits.append(index)
            if touched != changed:
                return False
            for index in hits:
                row = rows[index]
                now = self._provider.refreshed(row[0], row[3], self._ctx)
                if now is None:
                    return False
                rows[index] = [row[0], row[1], now[0], row[3], row[4], now[1]]
            return True

        return self._refs_of(payload, refresh)

    def store(self, refs: list[SessionRef], warnings: Captured,
              fingerprint_of: Callable[[SessionRef], str | None]) -> None:
        """Keep ``refs`` (just discovered) for the next run with the same census."""
        if not self._storable(warnings):
            return
        from agentscan.scan.memorefs import stored_row

        entries = []
        for ref in refs:
            fingerprint = fingerprint_of(ref)
            if fingerprint is None:
                return  # a session that cannot be cached makes the whole discovery uncachable
            entries.append(stored_row(ref, fingerprint))
        self._keep(entries, list(warnings), self._provider.refreshable_discovery(self._ctx))

    def store_rows(self, entries: list[list[Any]], warnings: Captured, refreshable: bool) -> None:
        """``store`` of a discovery made elsewhere (``scan.aside``): its rows as stored
        (``stored_row``, every fingerprint known) and whether it was refreshable."""
        if self._storable(warnings):
            self._keep(entries, list(warnings), refreshable)

    def _storable(self, warnings: Captured) -> bool:
        return self.stamp is not None and self._settled and not warnings.passing and not warnings.overflowed

    def _keep(self, entries: list[list[Any]], warnings: list[ScanWarning], refreshable: bool) -> None:
        census = self._census
        if census is None or not census.settled:
            return
        import orjson

        listed = [w.to_json() for w in warnings]
        document = {"refs": entries, "warnings": listed, "refreshable": refreshable}
        self._cache.put_snapshot(self._key, census.value, seal(orjson.dumps(document)))
        top = {"count": len(entries), "top": _top_of(entries), "warnings": listed, "refreshable": refreshable}
        self._cache.put_snapshot(self._top_key, census.value, seal(orjson.dumps(top)))
        if census.dirs is not None and refreshable:
            try:
                # As hex: only a run that mends (or keeps) needs them as text.
                shape = orjson.dumps({"shape": census.shape, "dirs": {path: own.hex() for path, own in census.dirs.items()}})
            except TypeError:  # a name that is not UTF-8 (discovery skips it): not mended then
                shape = None
            if shape is not None:
                self._cache.put_snapshot(self._shape_key, census.value, seal(shape))
        self._cache.commit()


def _top_of(entries: list[list[Any]]) -> list[list[Any]]:
    """The ``TOP`` most recent of ``entries`` (stored rows, in discovery order) as ``[index,
    row, shown id]``, in the order ``MergedRefs`` gives them (newest first, then by index)."""
    from bisect import bisect_left

    from agentscan.scan.short_ids import MIN_SHOWN, unique_prefixes

    order = sorted(range(len(entries)), key=lambda index: entries[index][2], reverse=True)[:TOP]
    names = sorted({row[0] for row in entries})
    top = []
    for index in order:
        native_id = entries[index][0]
        at = bisect_left(names, native_id)
        # Its shortest unique prefix among every id of the provider: only its neighbours in order matter.
        shown = unique_prefixes(names[max(at - 1, 0):at + 2], MIN_SHOWN)[native_id]
        top.append([index, entries[index], shown])
    return top
