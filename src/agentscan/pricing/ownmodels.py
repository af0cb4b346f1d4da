"""What the models a home's sessions recorded cost: ``agentscan prices`` without a MODEL.

Each model is looked up as the agent that recorded it records it
(``lookup.look_up_lasting``: Cursor's ``claude-4.5-sonnet`` is Anthropic's
``claude-sonnet-4-5``), and a name two agents record and price alike
(``gpt-5``, by Codex and Cursor) is one entry naming both in ``recorded_by``.

The answers are kept in the index (one ``meta`` value) under the code and the
price data they came from, each until its price period ends: a lookup imports
genai-prices (and pydantic, ≈ 0.15 s), which a warm ``prices`` then never does,
as a warm ``tokens`` never does (``book.PriceBook``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Iterable

import orjson

if TYPE_CHECKING:
    from agentscan.pricing.source import PriceData
    from agentscan.scan.cache import Cache

#: the index's ``meta`` key the answers are kept under
MEMO_KEY = "prices:recorded-models"
#: answers kept at most; past it only this run's stay (a name no session records any more
#: need not be kept for ever)
KEPT_ANSWERS = 1_000


def recorded_prices(data: PriceData, recorded: Iterable[tuple[str, str]], cache: Cache | None = None,
                    *, now: float | None = None) -> list[dict[str, Any]]:
    """``prices --json``'s ``models`` entries for ``recorded`` ((agent, model) pairs, in the
    order given, as ``scan.recordedmodels.recorded_models`` returns them), each with the
    agents that recorded its name in ``recorded_by``.  ``cache``: answers are taken from,
    and kept in, the index."""
    from agentscan.pricing.lookup import look_up_lasting

    now = time.time() if now is None else now
    memo = _Memo.read(cache, data)
    looked_up: list[tuple[str, dict[str, Any]]] = []
    for agent, model in recorded:
        found = memo.get(agent, model, now)
        if found is None:
            found, until = look_up_lasting(data, model, agent, None)
            memo.put(agent, model, found, until)
        looked_up.append((agent, found))
    memo.write(cache, data, {(agent, found["query"]) for agent, found in looked_up})
    return merged(looked_up)


def merged(looked_up: Iterable[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One entry per name and answer, where the first agent that recorded it put it, with
    every agent that did in ``recorded_by``.  A name two agents price apart stays two
    entries (each agent's own)."""
    entries: dict[tuple[str, bytes], dict[str, Any]] = {}
    for agent, found in looked_up:
        answer = {name: value for name, value in found.items() if name != "recorded_by"}
        key = (found["query"], orjson.dumps(answer, option=orjson.OPT_SORT_KEYS))
        entry = entries.get(key)
        if entry is None:
            entries[key] = {**answer, "recorded_by": [agent]}
        elif agent not in entry["recorded_by"]:
            entry["recorded_by"].append(agent)
    return list(entries.values())


class _Memo:
    """The answers the index keeps: (agent, model) -> (entry, until when it holds)."""

    def __init__(self, answers: dict[tuple[str, str], tuple[dict[str, Any], float | None]]) -> None:
        self.answers = answers
        self.changed = False

    @classmethod
    def read(cls, cache: Cache | None, data: PriceData) -> _Memo:
        document = _decoded(cache.get_meta(MEMO_KEY)) if cache is not None else None
        answers: dict[tuple[str, str], tuple[dict[str, Any], float | None]] = {}
        # Kept by another agentscan (its lookup may differ) or for other price data: none holds.
        if isinstance(document, dict) and document.get("code") == _code() and document.get("data") == data.key:
            for item in document.get("answers") or ():
                try:
                    agent, model, found, until = item
                except (TypeError, ValueError):
                    continue
                if (isinstance(agent, str) and isinstance(model, str) and isinstance(found, dict)
                        and found.get("query") == model and (until is None or isinstance(until, (int, float)))):
                    answers[(agent, model)] = (found, until)
        return cls(answers)

    def get(self, agent: str, model: str, now: float) -> dict[str, Any] | None:
        kept = self.answers.get((agent, model))
        if kept is None or (kept[1] is not None and now >= kept[1]):
            return None  # none kept, or its price period has ended: looked up again
        return kept[0]

    def put(self, agent: str, model: str, found: dict[str, Any], until: float | None) -> None:
        self.answers[(agent, model)] = (found, until)
        self.changed = True

    def write(self, cache: Cache | None, data: PriceData, used: set[tuple[str, str]]) -> None:
        if cache is None or not self.changed:
            return
        answers = self.answers
        if len(answers) > KEPT_ANSWERS:
            answers = {pair: kept for pair, kept in answers.items() if pair in used}
        document = {"code": _code(), "data": data.key,
                    "answers": [[agent, model, found, until] for (agent, model), (found, until) in answers.items()]}
        cache.put_meta(MEMO_KEY, orjson.dumps(document).decode())
        cache.commit()


def _code() -> str:
    from agentscan.codeid import code_identity

    return code_identity()


def _decoded(value: str | None) -> Any:
    if value is None:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None  # a damaged value only costs the lookups
