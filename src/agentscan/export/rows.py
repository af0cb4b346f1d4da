"""Export rows: a session flattened to columns, and usage bucketed per day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agentscan.model import MODEL, SESSION, SUBAGENT, TS, SessionRow

if TYPE_CHECKING:
    from agentscan.pricing import PriceBook

#: the CSV columns, in order (documented in docs/cron.md; a test keeps them in sync)
CSV_COLUMNS = (
    "id", "provider", "native_id", "path", "title", "cwd", "model", "git_branch", "started_at", "updated_at",
    "tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total",
    "cost_usd", "prompts", "responses", "tool_calls", "subagents", "running",
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


def flat_row(row: SessionRow) -> dict[str, Any]:
    doc = row.to_json()
    tokens = doc.pop("tokens") or {}
    counts = doc.pop("counts")
    flat = {key: doc[key] for key in CSV_COLUMNS if key in doc}
    for field in ("input", "cache_read", "cache_write", "output", "reasoning", "total"):
        flat[f"tokens_{field}"] = tokens.get(field)
    flat.update(prompts=counts["prompts"], responses=counts["responses"], tool_calls=counts["tool_calls"])
    return {key: flat.get(key) for key in CSV_COLUMNS}


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def usage_days(collected: dict[str, list[list]], book: PriceBook) -> list[UsageDay]:
    """Deduplicated usage (``collect_usage`` output) per session, UTC day, model and run, priced."""
    from agentscan.pricing import Spend

    spends: dict[tuple[str, str, str, str | None], Spend] = {}
    for provider, entries in collected.items():
        for entry in entries:
            ts = entry[TS]
            day = datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d") if ts is not None else "unknown"
            key = (f"{provider}:{entry[SESSION]}", day, entry[MODEL] or "unknown", entry[SUBAGENT])
            spend = spends.get(key)
            if spend is None:
                spend = spends[key] = Spend()
            spend.add(entry, book.entry_key(provider, entry))
    days = []
    for (session_id, day, model, subagent), spend in spends.items():
        tokens = spend.tokens()
        assert tokens is not None  # a Spend here holds at least one call
        days.append(UsageDay(session_id, day, model, subagent,
                             (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output, tokens.reasoning),
                             spend.cost(book)))
    return days
