"""Export rows: a session flattened to columns, and usage bucketed per day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from agentscan.model import (
    CACHE_READ,
    CACHE_WRITE,
    INPUT,
    MODEL,
    OUTPUT,
    REASONING,
    SESSION,
    SUBAGENT,
    TS,
    SessionRef,
    SessionRow,
)

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner

#: the CSV columns, in order (documented in docs/cron.md; a test keeps them in sync)
CSV_COLUMNS = (
    "id", "provider", "native_id", "path", "title", "cwd", "model", "git_branch", "started_at", "updated_at",
    "tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total",
    "prompts", "responses", "tool_calls", "subagents", "running",
)



@dataclass(frozen=True, slots=True)
class UsageDay:
    """Per session, per UTC day, per model: one ``token_days`` row."""

    session_id: str
    day: str
    model: str
    subagent: str | None
    tokens: tuple[int, int, int, int, int]


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


def usage_days(scanner: Scanner, refs: list[SessionRef]) -> list[UsageDay]:
    """Deduplicated usage of ``refs`` bucketed per session, UTC day, model and run."""
    from agentscan.scan.collect import collect_usage

    days: list[UsageDay] = []
    for provider, entries in collect_usage(scanner, refs).items():
        for entry in entries:
            ts = entry[TS]
            day = datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d") if ts is not None else "unknown"
            days.append(UsageDay(
                f"{provider}:{entry[SESSION]}", day, entry[MODEL] or "unknown", entry[SUBAGENT],
                (entry[INPUT], entry[CACHE_READ], entry[CACHE_WRITE], entry[OUTPUT], entry[REASONING]),
            ))
    return days
