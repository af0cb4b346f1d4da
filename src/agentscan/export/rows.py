"""Export rows: a session flattened to columns, and usage bucketed per day (``token_days``, ``--days``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import orjson

from agentscan.bounds import token_sum
from agentscan.model import MODEL, SESSION, SUBAGENT, TS, SessionRow, TokenUsage, usage_json, usd

if TYPE_CHECKING:
    from agentscan.pricing import PriceBook, Spend

#: the CSV columns, in order (documented in docs/cron.md; a test keeps them in sync)
CSV_COLUMNS = (
    "id", "provider", "native_id", "path", "title", "cwd", "model", "git_branch", "started_at", "updated_at",
    "tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total",
    "cost_usd", "prompts", "responses", "tool_calls", "subagents", "running",
    # Added last, so columns read by position before them stay where they were (docs/cron.md).
    "workspace_folders", "archived",
)
#: the CSV columns of ``export --days`` (the SQLite ``token_days`` columns; docs/cron.md, kept in sync by a test)
DAY_CSV_COLUMNS = (
    "session_id", "day", "model", "subagent_id",
    "tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total",
    "cost_usd",
)


@dataclass(frozen=True, slots=True)
class UsageDay:
    """Per session, per UTC day, per model and run: one ``token_days`` row."""

    session_id: str
    day: str
    model: str
    subagent: str | None
    tokens: tuple[int, int, int, int, int]
    cost: Decimal | None = None

    @property
    def order(self) -> tuple[str, str, str, str]:
        return (self.day, self.session_id, self.model, self.subagent or "")

    def usage(self) -> TokenUsage:
        return TokenUsage(*(token_sum(value) for value in self.tokens))  # saturated like every sum

    def to_json(self) -> dict[str, Any]:
        """One ``export --days`` JSON line (``schema`` aside)."""
        return {"session_id": self.session_id, "day": self.day, "model": self.model, "subagent_id": self.subagent,
                "tokens": usage_json(self.usage()), "cost_usd": usd(self.cost)}

    def flat(self) -> dict[str, Any]:
        """One ``export --days`` CSV row: ``DAY_CSV_COLUMNS``."""
        usage = self.usage()
        return {"session_id": self.session_id, "day": self.day, "model": self.model, "subagent_id": self.subagent,
                "tokens_input": usage.input, "tokens_cache_read": usage.cache_read,
                "tokens_cache_write": usage.cache_write, "tokens_output": usage.output,
                "tokens_reasoning": usage.reasoning, "tokens_total": usage.total, "cost_usd": usd(self.cost)}


def flat_row(row: SessionRow) -> dict[str, Any]:
    doc = row.to_json()
    tokens = doc.pop("tokens") or {}
    counts = doc.pop("counts")
    flat = {key: doc[key] for key in CSV_COLUMNS if key in doc}
    for field in ("input", "cache_read", "cache_write", "output", "reasoning", "total"):
        flat[f"tokens_{field}"] = tokens.get(field)
    flat.update(prompts=counts["prompts"], responses=counts["responses"], tool_calls=counts["tool_calls"])
    # A multi-root Cursor chat's every folder, as one JSON array (``cwd`` is only its first):
    # a path may hold any character but none is lost, and SQLite's ``json_each`` and
    # ``json.loads`` read it back.  Empty (NULL) for a session of one folder, as JSON leaves it out.
    folders = doc.get("workspace_folders")
    flat["workspace_folders"] = orjson.dumps(folders).decode() if folders else None
    # Every row says it (``false`` too): a query for the sessions not archived needs no NULL case
    # but for a session whose archived state is not known (``None``: a Cursor chat read while its
    # state DB could not be), which is no ``false``.
    flat["archived"] = row.archived
    return {key: flat.get(key) for key in CSV_COLUMNS}


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def utc_day(ts: float | None, named: dict[float, str]) -> str:
    """The UTC day of ``ts`` (``unknown`` without one).  A UTC day has 86,400 s: each is
    named once in ``named``, not once a call (a heavy user's export has a million)."""
    if ts is None:
        return "unknown"
    number = ts // 86_400
    day = named.get(number)
    if day is None:
        day = named[number] = datetime.fromtimestamp(number * 86_400, timezone.utc).strftime("%Y-%m-%d")
    return day


def zoned_day(ts: float | None, named: dict[float, str], zone: tzinfo) -> str:
    """The day of ``ts`` in ``zone`` (``export --days --tz``).  Every zone's offset today is a
    whole number of quarter hours, so a quarter hour lies within one day: each is named
    once in ``named``."""
    if ts is None:
        return "unknown"
    number = ts // 900
    day = named.get(number)
    if day is None:
        day = named[number] = datetime.fromtimestamp(number * 900, zone).strftime("%Y-%m-%d")
    return day


def usage_days(collected: dict[str, list[list]], book: PriceBook, zone: tzinfo | None = None) -> list[UsageDay]:
    """Deduplicated usage (``collect_usage`` output) per session, UTC day (or day in
    ``zone``), model and run, priced."""
    spends: dict[tuple[str, str, str, str | None], Spend] = {}
    for provider, entries in collected.items():
        add_days(spends, provider, entries, [book.entry_key(provider, entry) for entry in entries], zone)
    return days_of(spends, book)


def add_days(spends: dict[tuple[str, str, str, str | None], Spend], provider: str, entries: Iterable[Sequence[Any]],
             keys: Iterable[int], zone: tzinfo | None) -> None:
    """``entries`` of ``provider`` added to ``spends`` by session, day, model and run, each
    under its price key in ``keys`` (worked out once by a caller that also prices a session)."""
    from agentscan.pricing import Spend

    named: dict[float, str] = {}
    for entry, price_key in zip(entries, keys):
        day = utc_day(entry[TS], named) if zone is None else zoned_day(entry[TS], named, zone)
        key = (f"{provider}:{entry[SESSION]}", day, entry[MODEL] or "unknown", entry[SUBAGENT])
        spend = spends.get(key)
        if spend is None:
            spend = spends[key] = Spend()
        spend.add(entry, price_key)


def days_of(spends: dict[tuple[str, str, str, str | None], Spend], book: PriceBook) -> list[UsageDay]:
    """The priced ``UsageDay`` of each of ``add_days``' spends, in their order."""
    days = []
    for (session_id, day, model, subagent), spend in spends.items():
        tokens = spend.tokens()
        assert tokens is not None  # a Spend here holds at least one call
        days.append(UsageDay(session_id, day, model, subagent,
                             (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output, tokens.reasoning),
                             spend.cost(book)))
    return days
