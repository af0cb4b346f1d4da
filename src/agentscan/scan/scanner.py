"""The library entry point: ``Scanner`` answers every question the CLI asks.

>>> scanner = Scanner(home="/tmp/fake-home")      # doctest: +SKIP
>>> rows = scanner.list_sessions(limit=5)          # doctest: +SKIP

Discovery is cheap (stat calls and bounded header reads) and memoised per
scanner; rows and details are parsed only for the sessions asked for.
What a question needs beyond the scanner's own state lives beside it:
``discovering`` (each provider's sessions), ``listing`` (``list``, every row)
and ``rowreader`` (rows, asked through ``rowquestions``), ``oncescan`` (its censuses and
fingerprints, taken once per scan), and, imported only by the questions that need them,
``resolve`` and ``sessionids`` (ids) and ``showing`` (``show``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from agentscan.bounds import DEFAULT_BOUNDS, DEFAULT_LIMIT, Bounds
from agentscan.scan.cache import Cache
from agentscan.context import ScanContext, check_home
from agentscan.errors import UnknownProvider, UsageProblem
from agentscan.scan.oncescan import OncePerScan
from agentscan.scan.rowquestions import RowQuestions
from agentscan.providers import get_provider, iter_providers
from agentscan.providers.base import Provider

# What only discovery, rows and listing need is imported there: a remembered answer
# (``scan.answers``) takes censuses only, and the model (with the ``dataclasses`` module) is a quarter of it.
if TYPE_CHECKING:
    from agentscan.detailmodel import SessionDetail
    from agentscan.model import ScanWarning, SessionRef, SessionRow
    from agentscan.pricing import PriceBook
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.listing import SessionPage
    from agentscan.scan.memo import Stamp
    from agentscan.scan.mergedrefs import MergedRefs

class Scanner(RowQuestions, OncePerScan):
    """Scans one home with the registered providers (or the ones given)."""

    def __init__(
        self,
        *,
        home: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        providers: Sequence[Provider] | None = None,
        provider_names: Iterable[str] | None = None,
        context: ScanContext | None = None,
        use_cache: bool = False,
        memo_discovery: bool = False,
    ) -> None:
        """``use_cache`` opts into the persistent index (the CLI turns it on
        unless ``--no-cache``); a library caller gets no writes by default.  The index is
        where agentscan run with ``env`` keeps it (its ``AGENTSCAN_CACHE_DIR``,
        ``XDG_CACHE_HOME`` or ``HOME``; an ``env`` naming none of them: this user's own).
        ``memo_discovery`` (with the cache) takes a provider's sessions from
        the index while nothing under its roots changed (``scan.memo``).  A ``home`` must be a
        directory, unless ``providers`` (which may read no file) are given."""
        #: what ``refresh`` makes the scanner again with
        self._made = (providers, provider_names, use_cache, memo_discovery)
        self.ctx = context or ScanContext.create(home=check_home(home) if home is not None and providers is None else home, env=env)
        self.use_cache = use_cache
        self.memo_discovery = memo_discovery
        self._stamps: dict[str, Stamp | None] = {}
        #: each provider's sessions when the index last counted them (``Cache.session_counts``)
        self._counts: dict[str, int] | None = None
        self._confined = False
        #: the roots below a setting's entry that is a file, said once (``scan.rootcheck``)
        self._held: list[str] = []
        self._merged: dict[tuple[str, ...], MergedRefs] = {}
        self._fingerprints: dict[str, tuple[object, str | None]] = {}
        self._cache: Cache | None = None
        self._cache_opened = False
        self._closed = False  # ``close``: every question after it raises ``ScannerClosed``
        #: sessions parsed (not served from the cache) by this scanner
        self.parses = 0
        if providers is not None:
            self.providers = list(providers)
            self._witnesses = self.providers
        else:
            try:
                self.providers = iter_providers([provider_names] if isinstance(provider_names, str) else provider_names)
            except UnknownProvider as exc:
                exc.parameter = "provider_names"  # the caller's word for it, as every UsageProblem has
                raise
            # A session's cwd must not depend on --provider: every registered
            # provider may know the directory a hash-named one stands for.
            self._witnesses = iter_providers(None) if provider_names else self.providers
        self._refs: dict[str, Sequence[SessionRef]] = {}
        self._cwds: set[str] | None = None
        self._short: tuple[int, dict[str, str]] | None = None
        self.ctx.cwd_candidates = self._cwd_candidates

    @property
    def witnesses(self) -> list[Provider]:
        """Every provider whose sessions may reveal another's facts (a Gemini cwd), selected or not."""
        return list(self._witnesses)

    def _cwd_candidates(self) -> set[str]:
        if self._cwds is None:
            self._cwds = self.own_refs.borrowed_cwds(self._witnesses, self._refs)
        return self._cwds

    @property
    def cache(self) -> Cache | None:
        """The index (``use_cache``), opened when first asked for; ``None`` without it, or
        once closed.  Never raises: ``hasattr``, ``inspect.getmembers`` and a debugger read it."""
        if self.use_cache and not self._cache_opened and not self._closed:
            self._cache_opened = True
            self._cache = Cache.open(self.ctx)
            self.ctx.file_cache = self._cache
            if self._cache is not None:
                self.ctx.keep_row_usage = _keep_row_usage
        return self._cache

    def _open(self) -> None:
        """A question of a closed scanner raises ``ScannerClosed`` (each public one asks this
        first): it would otherwise answer without its index, more slowly and unsaid."""
        if self._closed:
            from agentscan.errors import ScannerClosed

            raise ScannerClosed

    def close(self) -> None:
        """Commit and close the index and the agents' databases this scanner opened
        (``with Scanner() as scanner:`` calls it).  Returns nothing; a question asked after it
        raises ``ScannerClosed`` (``refresh`` opens it again); ``warnings`` stay readable."""
        self._closed = True
        self.ctx.flush_facts()
        self.ctx.close()
        if self._cache is not None:
            self._cache.close()
            self._cache = None
            self.ctx.file_cache = None
            self.ctx.keep_row_usage = None

    def refresh(self) -> None:
        """Forget what this scanner found, so that its next question sees the sessions
        started since (a scanner finds each provider's sessions once, and then sees them
        grow but never a new one).  Same home, environment, providers and options; its
        ``warnings`` start again empty.  Returns nothing; cheap with ``use_cache=True``,
        whose index is kept.  For a dashboard or a notebook cell that polls."""
        ctx = self.ctx
        self.close()
        providers, provider_names, use_cache, memo_discovery = self._made
        # Every memo lives on the instance (``cached_property`` ones too), and the context
        # holds the stats taken once per scan: both are made again, as a new Scanner would.
        self.__dict__.clear()
        Scanner.__init__(self, context=ScanContext(home=ctx.home, env=ctx.env, home_source=ctx.home_source),
                         providers=providers, provider_names=provider_names, use_cache=use_cache,
                         memo_discovery=memo_discovery)

    def __enter__(self) -> Scanner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def warnings(self) -> list[ScanWarning]:
        """The problems met in the agents' files so far (a line that is not JSON, an
        unreadable file), each a ``ScanWarning``: the library never prints them.  A new list
        at each call (``WarningSink.items``), the caller's to change."""
        return self.ctx.warnings.items

    def provider(self, name: str) -> Provider:
        for provider in self.providers:
            if provider.name == name:
                return provider
        return get_provider(name)

    def selected(self, names: Iterable[str] = ()) -> list[Provider]:
        names = [names] if isinstance(names, str) else list(names)
        if not names:
            return self.providers
        known = {p.name for p in self.providers}
        for name in names:
            if name not in known:
                get_provider(name)  # raises UnknownProvider with the valid names
        return [p for p in self.providers if p.name in names]

    def refs(self, providers: Iterable[str] = (), *, few: int | None = None) -> Sequence[SessionRef]:
        """Every session of the selected providers, most recent first.  ``few``: about
        this many of the most recent will be parsed (``list`` of a page), no more: the
        providers never discovered with the index may be discovered side by side
        (``scan.aside``, ``scan.discovering``)."""
        self._open()
        from agentscan.scan.discovering import selected_refs

        self.cache  # noqa: B018 - opened first: discovery remembers header facts in it
        self.confine()
        if self._held:
            from agentscan.scan.rootcheck import hold_empty

            hold_empty(self.ctx, self._held)
        # This scanner's memos of each provider's sessions and of their merges, handed over
        # rather than reached into: ``discovering`` fills them.
        return selected_refs(self, providers, few, taken=self._refs, merged=self._merged)

    def confine(self) -> None:
        """Every provider's roots, registered before any discovery: a symlink from one
        provider's tree into another's is followed whichever providers are selected,
        run first, or taken from the index (``ScanContext.admit``).  Then each entry of a
        provider variable's list that holds none of its roots is warned of (``scan.rootcheck``)."""
        if self._confined:
            return
        self._confined = True
        for provider in self._witnesses:
            self.ctx.confine_to(provider.confinement_roots(self.ctx))
        if self._named():
            from agentscan.scan.rootcheck import warn_missing_entries

            self._held = warn_missing_entries(self.ctx, self.providers)

    def _named(self) -> bool:
        """Whether a provider variable is set: a run with none names no root explicitly, so
        nothing is checked and ``scan.rootcheck`` is not imported (a warm run's time)."""
        from agentscan.toolkit.roots import named_explicitly

        return any(named_explicitly(self.ctx, provider.env_vars) for provider in self.providers)

    def stored_refs(self, provider: str) -> Sequence[SessionRef] | None:
        """``provider``'s sessions as this scan took them (discovered, or stored ones), if it did."""
        return self._refs.get(provider)

    def taken_refs(self) -> Mapping[str, Sequence[SessionRef]]:
        """``stored_refs`` of each provider this scan took, by name, in the order taken (to read)."""
        return self._refs

    def unreadable_explicit_roots(self, provider: str = "") -> list[str]:
        """Providers whose explicitly named roots (env vars) are all unreadable (``scan.rootcheck``); ``provider``: its only."""
        if not self._named():
            return []
        from agentscan.scan.rootcheck import unreadable_explicit
        from agentscan.providers import label_of
        from agentscan.toolkit.roots import unreadable_message

        return [unreadable_message(label_of(name), roots)
                for name, roots in unreadable_explicit(self.ctx, self.providers).items() if provider in ("", name)]

    def unreadable_explicit_paths(self) -> set[str]:
        """The paths ``unreadable_explicit_roots`` names (its error says them already)."""
        if not self._named():
            return set()
        from agentscan.scan.rootcheck import unreadable_explicit, unreadable_paths

        return unreadable_paths(unreadable_explicit(self.ctx, self.providers))

    def list_sessions(self, *, limit: int | None = DEFAULT_LIMIT, filters: ListFilter | None = None) -> list[SessionRow]:
        """The ``limit`` most recently updated sessions (``None``: every one), newest first.

        Only as many sessions are parsed as it takes to be sure of the answer
        (see ``agentscan.scan.listing``).
        """
        return self.list_page(limit=limit, filters=filters).rows

    def list_page(self, *, limit: int | None = DEFAULT_LIMIT, filters: ListFilter | None = None,
                  tell_running: bool = True) -> SessionPage:
        """``list_sessions`` with what a caller needs to say "25 of 2,031" or why nothing matched;
        ``tell_running=False``: the rows' ``running`` left as read (a page that shows none)."""
        self._open()
        from agentscan.scan.listfilter import ListFilter, check_filters
        from agentscan.scan.listing import select_sessions

        check_filters(filters)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise UsageProblem(f"the limit must be a whole number or None, not {type(limit).__name__}",
                               parameter="limit")
        if limit is not None and limit < 1:
            raise UsageProblem(f"the limit must be 1 or more, not {limit}", parameter="limit")
        return select_sessions(self, limit=limit, filters=filters if filters is not None else ListFilter(), tell=tell_running)

    def short_ids(self, ids: Iterable[str] | None = None) -> dict[str, str]:
        """Full id -> the shortest prefix that still opens it (``provider:`` + 8+ chars);
        ``ids``: at least these (``list``'s rows: most recent, their shown ids are stored)."""
        self._open()
        from agentscan.scan.arguments import names
        from agentscan.scan.sessionids import short_ids

        return short_ids(self, None if ids is None else names(ids, "ids"))  # one str is one id

    def refs_by_id(self, ids: Iterable[str]) -> list[SessionRef]:
        """The discovered sessions among ``ids`` (a few rows' sessions, out of thousands)."""
        self._open()
        from agentscan.scan.arguments import names
        from agentscan.scan.sessionids import refs_by_id

        return refs_by_id(self, names(ids, "ids"))

    def all_rows(self, *, filters: ListFilter | None = None) -> list[SessionRow]:
        """Every matching session, not clamped (``export``): a list of ``SessionRow``, no cost
        filled in (``with_costs``)."""
        self._open()
        from agentscan.scan.everyrow import every_row
        from agentscan.scan.listfilter import ListFilter, check_filters

        check_filters(filters)
        return every_row(self, filters if filters is not None else ListFilter())

    def resolve(self, query: str) -> SessionRef:
        """Find one session by full id, bare native id, a unique prefix (≥ 6 chars), or
        the path of one of its transcripts; a UUID in any case (``scan.resolve``).

        The persistent id index answers first; an entry whose file moved or
        vanished is dropped and one full discovery (which refreshes the
        index) answers instead.  A subagent's own id finds its parent.
        Raises ``SessionNotFound``, ``IdTooShort`` or ``AmbiguousSessionId``.
        """
        return self.find(query)[0]

    def find(self, query: str) -> tuple[SessionRef, str | None]:
        """``resolve``'s session, and the run ``query`` names in it (a subagent's own id:
        ``show`` focuses it, ``tokens`` totals its session); ``None``: the session itself."""
        self._open()
        from agentscan.scan.arguments import session_query
        from agentscan.scan.resolve import find_session

        return find_session(self, session_query(query))

    def scans_provider(self, name: str) -> bool:
        """Whether this scanner scans the provider ``name`` (a query's ``provider:`` prefix)."""
        return any(p.name == name for p in self.providers)

    def show(self, query: str, *, bounds: Bounds = DEFAULT_BOUNDS, prices: PriceBook | None = None) -> SessionDetail:
        """One session in detail, with its cost (``prices``: the book the CLI prints the version of):
        a ``SessionDetail``, as ``agentscan show --json`` gives it.  ``query`` is taken as ``resolve``
        takes it, and raises as it does (``SessionNotFound``, ``AmbiguousSessionId``).
        A subagent's own id (a Codex child thread, a Claude agent id, …) opens its parent with ``focus`` naming it."""
        self._open()
        from agentscan.scan.arguments import session_query, show_options
        from agentscan.scan.costs import with_cost
        from agentscan.scan.showing import session_detail

        show_options(bounds, prices)
        return with_cost(self, session_detail(self, session_query(query), bounds), prices)


def _keep_row_usage(*args: Any) -> None:
    """``rowusage.keep_row_usage``, imported when a row's pass first asks (a warm run reads no file)."""
    from agentscan.scan.rowusage import keep_row_usage

    keep_row_usage(*args)
