"""Human-readable ``tokens`` output."""

from __future__ import annotations

from datetime import tzinfo
from decimal import Decimal

from agentscan.cli.render import human_usd, table
from agentscan.errors import UsageProblem
from agentscan.model import TokenUsage, sum_usage
from agentscan.pricing.spend import total_cost
from agentscan.tokens import TokenReport


def zone(name: str | None) -> tzinfo | None:
    """An IANA zone for day buckets; ``None`` means the local zone."""
    if not name:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageProblem(f"unknown time zone {name!r} (use an IANA name such as Europe/Paris)") from None


def _cells(usage: TokenUsage | None, cost: Decimal | None) -> list[str]:
    if usage is None:
        return ["-"] * 7
    counts = (usage.input, usage.cache_read, usage.cache_write, usage.output, usage.reasoning, usage.total)
    return [*(f"{v:,}" for v in counts), human_usd(cost)]


def print_report(report: TokenReport) -> None:
    rows: list[list[str]] = []
    for row in report.rows:
        rows.append([row.key, *_cells(row.tokens, row.cost)])
        if not row.subagents:
            continue
        rows.append(["  own", *_cells(row.own, row.own_cost)])
        costs = row.subagent_costs or (None,) * len(row.subagents)
        if report.by == "session":
            for (sub_id, usage), cost in zip(row.subagents, costs):
                rows.append([f"  ↳ {sub_id}", *_cells(usage, cost)])
        else:
            # Per day/model/provider there can be hundreds of runs: one line for all.
            runs = sum_usage(usage for _, usage in row.subagents)
            rows.append([f"  ↳ subagents ({len(row.subagents)})", *_cells(runs, total_cost(costs))])
    rows.append(["TOTAL", *_cells(report.total, report.cost)])
    table(
        [report.by.upper(), "INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "REASONING", "TOTAL", "COST"],
        rows,
        right=(1, 2, 3, 4, 5, 6, 7),
    )
