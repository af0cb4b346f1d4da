"""PriceBook: the price key of each call, and the exact cost of token sums, for one run.

A price key is an index into ``vectors`` (one model, one price period,
one long-context tier).  Negative keys stand for calls that have no
price (an unknown model, a call with no model); their tokens make a
group's cost ``null`` and raise one warning per model naming it (a group
made only of such calls with no tokens is ``null`` too: see ``Priced``).

Warm runs never import genai-prices: the periods a run needs are read
from agentscan's index, keyed by the price data version
(``source.PriceData.key``).  Only a model or a price period the index does
not hold yet goes to ``library.py`` (and is then stored).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Sequence

from agentscan.model import CACHE_READ, CACHE_WRITE, CACHE_WRITE_1H, INPUT, MODEL, OUTPUT, REASONING, TS, WEB_SEARCHES
from agentscan.pricing import aliases, periods, source
from agentscan.pricing.access import Found, library_for
from agentscan.pricing.periods import Coefficients, NotPriceable, Period
from agentscan.pricing.spend import NOTHING, Priced
from agentscan.pricing.unpriced import UNTIMED, no_price_said

if TYPE_CHECKING:
    from agentscan.scan.cache import Cache
    from agentscan.context import ScanContext

    #: (call time, its total input tokens) -> price key, for one model
    Resolver = Callable[[float | None, int], int]


class PriceBook:
    def __init__(self, ctx: ScanContext, cache: Cache | None = None, data: source.PriceData | None = None) -> None:
        self.ctx = ctx
        self.cache = cache
        self.data = data or source.current(ctx.env)
        self.vectors: list[Coefficients] = []
        #: ``vectors`` as integers of 10^-SCALE USD (``None``: too many decimals, use Decimal)
        self.scaled: list[tuple[int, ...] | None] = []
        #: (provider, model, reason) of each negative key: key -1 is index 0
        self.unpriced: list[tuple[str, str | None, str]] = []
        self._unpriced_keys: dict[tuple[str, str | None, str], int] = {}
        self._reported: set[int] = set()
        #: (provider, model) -> an unpriced key, or [(period, its keys per tier)]
        self._models: dict[tuple[str, str | None], int | list[tuple[Period, list[int]]]] = {}
        #: provider -> model -> key, for models whose key depends on nothing else (the hot path)
        self._fast: dict[str, dict[str | None, int | Resolver]] = {}
        self._docs: dict[tuple[str, str], dict[str, Any]] | None = None
        self._matches: dict[tuple[str, str], Found] = {}
        self._library_problem: str | None = None
        self._library_checked = False

    def for_workers(self) -> Callable[[ScanContext], PriceBook]:
        """What makes a book in a forked worker (``otlp.parallel``), called here before the
        fork: the same price data and the model answers the index holds (read now: a SQLite
        connection must not cross a fork), writing nothing.  A model the parent's cache
        knows is then priced in a worker as here, even where the library cannot be loaded."""
        docs = dict(self._cached_docs())
        data = self.data

        def make(ctx: ScanContext) -> PriceBook:
            book = PriceBook(ctx, None, data)
            book._docs = dict(docs)
            return book

        return make

    # -- keys -------------------------------------------------------------------

    def fast_keys(self, provider: str) -> dict[str | None, int | Resolver]:
        """Model -> its price key, or a ``Resolver(ts, total_input) -> key`` when the key
        depends on the call's time or size.

        A caller summing many calls looks the model up here first, calls a
        resolver when it gets one, and calls ``key`` only for a model not
        seen yet (which fills this dict)::

            found = fast.get(model)
            if found.__class__ is not int:
                found = book.key(...) if found is None else found(ts, total_input)
        """
        return self._fast.setdefault(provider, {})

    def key(self, provider: str, model: str | None, ts: float | None, total_input: int) -> int:
        state = self._models.get((provider, model))
        if state is None:
            state = self._load(provider, model)
        if isinstance(state, int):
            return state
        for period, keys in state:
            if period.covers(ts):
                return keys[period.tier(total_input)] if period.thresholds else keys[0]
        if ts is None and state:
            # A bounded period means the price changed over time: no single price fits an untimed call.
            return self._unpriced_key(provider, model, UNTIMED)
        return self._add_period(provider, model, ts, total_input)

    def timeless(self, provider: str, model: str | None) -> bool:
        """Whether the model's price key never depends on a call's time (one open period)."""
        state = self._models.get((provider, model))
        if state is None:
            state = self._load(provider, model)
        return isinstance(state, int) or (len(state) == 1 and state[0][0].timeless)

    def period_around(self, provider: str, model: str | None, ts: float) -> tuple[float | None, float | None] | None:
        """The bounds of the one stored period of ``model`` covering ``ts``, if it overlaps no other:
        ``key`` answers by it at every time inside (``None``: none such)."""
        state = self._models.get((provider, model))
        alone = periods.alone_at([period for period, _ in state], ts) if isinstance(state, list) else None
        # Still so once the library adds one overlapping it: ``_add_period`` appends, ``key`` takes the first stored.
        return None if alone is None else (alone.start, alone.end)

    def span_key(self, provider: str, model: str | None, start: float | None, end: float | None,
                 low: int, high: int | None) -> int | None:
        """The price key every call in ``[start, end)`` with a total input in ``[low, high)``
        shares, or ``None`` when such calls may be priced apart (a price period or a
        long-context tier begins inside the span): then only the calls themselves can
        be priced.  ``start`` ``None`` stands for calls without a time.

        Keys are one per period and tier, tiers grow with the input and periods
        do not overlap: when the span's first and last corners get the same key,
        every call inside it does.  Cached token sums are kept in such spans
        (``scan.sessionsums.sums_of``).
        """
        first = self.key(provider, model, start, low)
        last_ts = None if start is None else (end - 1e-6 if end is not None else start)
        last = self.key(provider, model, last_ts, high - 1 if high is not None else 10**15)
        return first if first == last else None

    def entry_key(self, provider: str, entry: Sequence[Any]) -> int:
        found = self.fast_keys(provider).get(entry[MODEL])
        if found.__class__ is int:
            return found  # type: ignore[return-value]
        total_input = entry[INPUT] + entry[CACHE_READ] + entry[CACHE_WRITE]
        if found is None:
            return self.key(provider, entry[MODEL], entry[TS], total_input)
        return found(entry[TS], total_input)  # type: ignore[operator]

    # -- costs ------------------------------------------------------------------

    def cost(self, parts: dict[int, list[int]]) -> Decimal | None:
        """Exact USD of token sums per key; ``None`` when calls have no price (``Priced.cost``)."""
        return self.assess(parts).cost

    def assess(self, parts: dict[int, list[int]]) -> Priced:
        """The cost of token sums per key, what of it has a price, and which models have none.

        Warns once per model whose calls make a cost ``None``.
        """
        if not parts:
            return NOTHING
        units = 0
        odd = Decimal(0)
        missing: list[int] = []  # unpriced keys with tokens
        idle: list[int] = []  # unpriced keys whose calls have no tokens: they cost nothing
        tokens = priced_any = False
        for key, sums in parts.items():
            spent = bool(sums[0] or sums[1] or sums[2] or sums[3])
            tokens = tokens or spent
            if key < 0:
                (missing if spent else idle).append(key)
                continue
            priced_any = True
            c = self.scaled[key]
            if c is None:
                odd = periods.EXACT.add(odd, periods.cost(self.vectors[key], sums))
            else:
                units += (c[0] * sums[0] + c[1] * sums[1] + c[2] * sums[2] + c[3] * sums[3] + c[4] * sums[4]
                          + c[5] * sums[5] + c[6] * sums[6] + c[7] * sums[7])
        total = periods.from_scaled(units)  # plain already
        if odd:
            total = periods.plain(periods.EXACT.add(total, odd))
        # No tokens and no price costs nothing beside priced calls, but a group of only
        # such calls has no price at all (its model is unknown): null, not a confident 0.
        blocking = missing or (idle if not priced_any else [])
        if not blocking:
            return Priced(total, total, (), tokens)
        for key in blocking:
            self._report(key)
        names = sorted({self.unpriced[-key - 1][1] or "unknown" for key in blocking})
        return Priced(None, total, tuple(names), tokens)

    def entry_cost(self, provider: str, entry: Sequence[Any]) -> Decimal | None:
        """One call's cost (OTLP chat spans)."""
        sums = [entry[INPUT], entry[CACHE_READ], entry[CACHE_WRITE], entry[OUTPUT], entry[REASONING], 1,
                entry[CACHE_WRITE_1H], entry[WEB_SEARCHES]]
        return self.cost({self.entry_key(provider, entry): sums})

    # -- resolving --------------------------------------------------------------

    def _unpriced_key(self, provider: str, model: str | None, reason: str) -> int:
        ident = (provider, model, reason)
        key = self._unpriced_keys.get(ident)
        if key is None:
            self.unpriced.append(ident)
            key = self._unpriced_keys[ident] = -len(self.unpriced)
        return key

    def _report(self, key: int) -> None:
        if key in self._reported:
            return
        self._reported.add(key)
        provider, model, reason = self.unpriced[-key - 1]
        self.ctx.warn(f"model:{provider}/{model or 'unknown'}", no_price_said(provider, model, reason, self.data.label))

    def _cached_docs(self) -> dict[tuple[str, str], dict[str, Any]]:
        if self._docs is None:
            self._docs = self.cache.get_prices(self.data.key) if self.cache is not None else {}
        return self._docs

    def _load(self, provider: str, model: str | None) -> int | list[tuple[Period, list[int]]]:
        ref = aliases.model_ref(provider, model)
        state: int | list[tuple[Period, list[int]]]
        if aliases.unbilled(model):
            state = [self._register(_FREE)]
        elif ref is None:
            state = self._unpriced_key(provider, model, "the call names no model" if not model else f"{model!r} names no model")
        else:
            assert model is not None
            doc = self._cached_docs().get((provider, model))
            if doc is None or (doc.get("variants") != aliases.PRICE_RULES
                               and (doc.get("unpriced") or aliases.variant_words(ref) or aliases.tier_worded(ref)
                                    or "(" in ref)):
                # An answer remembered under an older rule is asked again when it may
                # differ now: "no price" (a Claude fast-mode name, a Bedrock id, priced
                # since), and a variant's price (one from before ``library.find`` told
                # variants apart may be its base model's; one ending in a tier's word, which
                # rule 5 priced at that tier's rates; one with text in brackets, which rule 9
                # leaves unpriced) (``aliases.PRICE_RULES``).
                doc = self._resolve(provider, model, ref)
            if doc.get("unpriced"):
                state = self._unpriced_key(provider, model, doc["unpriced"])
            else:
                state = []
                try:
                    for raw in doc.get("periods", ()):
                        state.append(self._register(Period.from_json(raw)))
                except (ValueError, TypeError, ArithmeticError):
                    # A damaged entry, or one of another formula (7 parts, before web searches) or
                    # ``periods.BOUNDS_RULE``: its periods dropped, the library's kept in their place.
                    state = []
                    self._store(provider, model, {**doc, "periods": []})
        self._models[(provider, model)] = state
        self._refresh_fast(provider, model, state)
        return state

    def _register(self, period: Period) -> tuple[Period, list[int]]:
        keys = []
        for coefficients in period.coefficients:
            keys.append(len(self.vectors))
            self.vectors.append(coefficients)
            self.scaled.append(periods.scaled(coefficients))
        return period, keys

    def _refresh_fast(self, provider: str, model: str | None, state: int | list[tuple[Period, list[int]]]) -> None:
        fast = self.fast_keys(provider)
        if isinstance(state, int):
            fast[model] = state
        elif len(state) == 1 and state[0][0].timeless and not state[0][0].thresholds:
            fast[model] = state[0][1][0]
        elif state:
            fast[model] = self._resolver(provider, model, state)

    def _resolver(self, provider: str, model: str | None, state: list[tuple[Period, list[int]]]) -> Resolver:
        """The period and tier lookup of one model as a closure over plain tuples (the hot path)."""
        spans = tuple((p.start, p.end, p.thresholds, tuple(keys)) for p, keys in state)
        slow = self.key
        # Periods that overlap none: a call finds its own by its start, not by a walk of them all
        # (a time-of-day price has hundreds; 100,000 calls walked 730 in 2.35 CPU-s).  Overlapping
        # ones keep the first stored that covers the call, as the walk found it.
        ordered = sorted(spans, key=lambda span: -math.inf if span[0] is None else span[0])
        starts = [-math.inf if span[0] is None else span[0] for span in ordered]
        apart = all(before[1] is not None and before[1] <= start for before, start in zip(ordered, starts[1:]))

        def resolve(ts: float | None, total_input: int) -> int:
            if ts is not None:
                for start, end, thresholds, keys in ((ordered[bisect_right(starts, ts) - 1],) if apart else spans):
                    if (start is None or start <= ts) and (end is None or ts < end):
                        # a call above thresholds[i] pays tier i + 1
                        return keys[bisect_left(thresholds, total_input)] if thresholds else keys[0]
            return slow(provider, model, ts, total_input)  # untimed, or a period not stored yet

        return resolve

    def _resolve(self, provider: str, model: str, ref: str) -> dict[str, Any]:
        """Ask the library which model ``ref`` is; remember the answer in the index."""
        try:
            match = self._match(provider, ref)
        except _Unpriceable as exc:
            doc: dict[str, Any] = {"unpriced": str(exc), "variants": aliases.PRICE_RULES}
        else:
            doc = {"ref": ref, "provider_id": match.provider_id, "model_id": match.model_id, "periods": [],
                   "variants": aliases.PRICE_RULES}
        if self._library_problem is None:
            self._store(provider, model, doc)
        return doc

    def _match(self, provider: str, ref: str) -> Found:
        found = self._matches.get((provider, ref))
        if found is not None:
            return found
        if self._library_problem is not None:
            raise _Unpriceable(self._library_problem)
        library = library_for(self.ctx, self.data)
        if not self._library_checked:
            problem = library.problem(self.data)
            if problem is not None:
                self._library_problem = problem
                raise _Unpriceable(problem)
            self._library_checked = True
        try:
            found = library.find(self.data, aliases.PROVIDER_HINTS.get(provider), ref)
        except NotPriceable as exc:
            raise _Unpriceable(str(exc)) from None
        self._matches[(provider, ref)] = found
        return found

    def _add_period(self, provider: str, model: str | None, ts: float | None, total_input: int) -> int:
        """A call outside every known period: ask the library for the period around it."""
        assert model is not None
        ref = aliases.model_ref(provider, model)
        assert ref is not None
        try:
            match = self._match(provider, ref)  # first: it reports a library that cannot be imported
            try:
                period = library_for(self.ctx, self.data).period_at(self.data, match, ts)
            except NotPriceable as exc:
                raise _Unpriceable(str(exc)) from None
        except _Unpriceable as exc:
            return self._unpriced_key(provider, model, str(exc))
        state = self._models[(provider, model)]
        assert isinstance(state, list)
        registered = self._register(period)
        state.append(registered)
        self._refresh_fast(provider, model, state)
        doc = self._cached_docs().get((provider, model)) or {"ref": ref, "periods": []}
        doc = {**doc, "periods": [*doc.get("periods", ()), period.to_json()]}
        self._store(provider, model, doc)
        return self.key(provider, model, ts, total_input)

    def _store(self, provider: str, model: str, doc: dict[str, Any]) -> None:
        self._cached_docs()[(provider, model)] = doc
        if self.cache is not None:
            self.cache.put_price(self.data.key, provider, model, doc)
            self.cache.commit()


#: the price of a message no model made (``aliases.UNBILLED``): always, every part $0
_NOTHING = Decimal(0)
_FREE = Period(None, None, (), ((_NOTHING,) * len(periods.PARTS),))  # type: ignore[arg-type]


class _Unpriceable(Exception):
    pass
