"""genai-prices imported by a helper process while a cold run discovers and parses.

A first run (or any run whose prices the index does not hold yet) must
import genai-prices to price its calls: ≈ 0.25 s of pydantic, httpx and a
1.6 MB data module, a quarter of a first ``list``.  With a second core, a
helper process (``helperproc.Helper``) does it while this one works, and then
answers the price book's three questions (``pricing.access.Library``): the
book finds it in ``ctx.memo[AHEAD]``.  Its answers are the library's own,
computed by the same code (``access.IN_PROCESS``) in the child; should the
helper be gone, the book's questions go to this process's library instead.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from agentscan.pricing.access import AHEAD, IN_PROCESS, Found
from agentscan.pricing.periods import NotPriceable

if TYPE_CHECKING:
    from agentscan.pricing.periods import Period
    from agentscan.pricing.source import PriceData
    from agentscan.providers.base import Provider
    from agentscan.scan.scanner import Scanner


def start(scanner: Scanner) -> None:
    """Start the helper when this run will import genai-prices and a core is free for it
    (or take the one ``start_early`` started, when it is of this run's price data)."""
    from agentscan.pricing import source

    ctx = scanner.ctx
    early = _early.pop() if _early else None
    if AHEAD in ctx.memo or _imported():
        _drop(early)
        return  # imported already (a second scan in one process)
    data = source.current(ctx.env)
    if early is not None and not early.serves(data):
        _drop(early)
        early = None
    cache = scanner.cache
    if cache is not None and cache.get_prices(data.key):
        _drop(early)
        return  # the index holds this price data's prices: a run seldom needs the library
    if cache is not None and _empty_last_time(scanner.providers, cache.session_counts()):
        _drop(early)
        return  # every provider's last discovery found no session: nothing to price, likely now too
    if early is not None:
        ctx.memo[AHEAD] = early
        return
    ahead = _forked(data)
    if ahead is not None:
        ctx.memo[AHEAD] = ahead


def start_early(env: Mapping[str, str]) -> None:
    """The helper forked before the run's scanner is made, when there is no index file yet
    (a first run: none of its prices can be in the index), for ``start`` to take.

    A first ``tokens`` forked it once the scanner was made and its index created (the parent
    at 0.047-0.054 CPU-s and 172 modules at the bench's scale 1, 0.034-0.041 and 125 now): that
    time on one core, the other idle, and the helper's own ≈ 0.2 CPU-s of imports then ran as
    much further into the parse, beside both workers.  Every other case (an index, if only an
    empty one, the library imported) is ``start``'s alone, as before."""
    if _early or _imported():
        return
    from agentscan.scan.cachefile import FILE_NAME, cache_dir

    try:
        if (cache_dir(env) / FILE_NAME).exists():
            return
    except Exception:  # noqa: BLE001 - only a head start: the scanner says what is wrong, if anything
        return
    from agentscan.pricing import source

    ahead = _forked(source.current(env))
    if ahead is not None:
        _early.append(ahead)


def _forked(data: PriceData) -> Ahead | None:
    """A helper for ``data``, forked (``None``: no second core, or it could not be)."""
    from agentscan.toolkit import cores  # here: a warm run has no use for it
    from agentscan.toolkit.helperproc import HelperGone

    if not cores.usable_workers():
        return None  # no second core to do it on
    ahead = Ahead(data, start=False)
    _live.append(ahead)  # first: ``stop_all`` then stops it however its start ends (a Ctrl-C during the fork)
    try:
        ahead.start()
    except (OSError, HelperGone):
        _live.remove(ahead)
        return None
    return ahead


def _drop(ahead: Ahead | None) -> None:
    """Stop a helper ``start_early`` started that this run has no use for (``None``: none)."""
    if ahead is not None:
        ahead.stop()


#: the helper ``start_early`` forked, until ``start`` takes it (or ``stop_all`` stops it)
_early: list[Ahead] = []


#: helpers started and not stopped yet (``stop_all``)
_live: list[Ahead] = []


def stop_all() -> None:
    """Stop every helper still running: the CLI calls it when a command ends, however it ends."""
    _early.clear()
    while _live:
        _live.pop().stop()


def _empty_last_time(providers: Sequence[Provider], counts: dict[str, int]) -> bool:
    """Each provider was discovered before (its count is in the index) and found nothing."""
    return bool(providers) and all(counts.get(provider.name) == 0 for provider in providers)


def _imported() -> bool:
    return "agentscan.pricing.library" in sys.modules


class Ahead:
    """``pricing.access.Library``, answered by the helper."""

    def __init__(self, data: PriceData, *, start: bool = True) -> None:
        from agentscan.toolkit.helperproc import Helper

        self.data = data
        self._gone = False
        self.answered = 0  # questions the helper answered (the tests count them)
        self._helper = Helper(lambda: _prepare(data), _answerer(data), start=start)

    def start(self) -> None:
        """Fork the helper (``Ahead(data, start=False)``); raises as ``helperproc.Helper.start``."""
        self._helper.start()

    def serves(self, data: PriceData) -> bool:
        return not self._gone and data.key == self.data.key

    def problem(self, data: PriceData) -> str | None:
        return self._ask(("problem",), lambda: IN_PROCESS.problem(data))

    def find(self, data: PriceData, provider_hint: str | None, ref: str) -> Found:
        answer = self._ask(("find", provider_hint, ref), lambda: IN_PROCESS.find(data, provider_hint, ref))
        if isinstance(answer, Found):
            return answer  # this process's library answered
        provider_id, model_id = answer
        return Found(provider_id, model_id, (provider_hint, ref))

    def period_at(self, data: PriceData, found: Found, ts: float | None) -> Period:
        if not isinstance(found.handle, tuple):  # found by this process's library
            return IN_PROCESS.period_at(data, found, ts)
        provider_hint, ref = found.handle
        return self._ask(("period", provider_hint, ref, ts), lambda: IN_PROCESS.period_at(
            data, IN_PROCESS.find(data, provider_hint, ref), ts))

    def _ask(self, question: tuple, here: Any) -> Any:
        from agentscan.toolkit.helperproc import HelperGone

        if not self._gone:
            try:
                kind, value = self._helper.ask(question)
            except HelperGone:
                self._gone = True
            else:
                self.answered += 1
                if kind == "not":
                    raise NotPriceable(value)
                return value
        return here()

    def stop(self) -> None:
        self._helper.stop()
        if self in _live:
            _live.remove(self)


def _prepare(data: PriceData) -> None:
    _without_package_init()
    IN_PROCESS.problem(data)  # imports the library and loads its data: the point of it all


def _without_package_init() -> None:
    """The genai-prices modules the price book reads (``pricing.library``), imported without
    the package's ``__init__``: its price updater (httpx, asyncio) and a metadata lookup of
    its version, a quarter of the import (0.035 of 0.135 CPU-s), none of it used here.  Only
    in the helper: a process of its own, gone with the command, where no other code meets
    the package's module without its ``__init__``'s names.  Any trouble: the plain import."""
    if "genai_prices" in sys.modules:
        return
    import importlib.util

    spec = importlib.util.find_spec("genai_prices")
    if spec is None or spec.submodule_search_locations is None:
        return
    sys.modules["genai_prices"] = importlib.util.module_from_spec(spec)
    try:
        import genai_prices.data_snapshot  # noqa: F401 - (its ``types`` with it)
    except Exception:  # noqa: BLE001 - the plain import says what is wrong, if anything
        for name in [name for name in sys.modules if name.partition(".")[0] == "genai_prices"]:
            del sys.modules[name]


def _answerer(data: PriceData) -> Any:
    found: dict[tuple[str | None, str], Found] = {}

    def answer(question: tuple) -> tuple[str, Any]:
        try:
            if question[0] == "problem":
                return "ok", IN_PROCESS.problem(data)
            provider_hint, ref = question[1], question[2]
            match = found.get((provider_hint, ref))
            if match is None:
                match = found[(provider_hint, ref)] = IN_PROCESS.find(data, provider_hint, ref)
            if question[0] == "find":
                return "ok", (match.provider_id, match.model_id)
            return "ok", IN_PROCESS.period_at(data, match, question[3])
        except NotPriceable as exc:
            return "not", str(exc)

    return answer
