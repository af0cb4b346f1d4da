"""Human-readable ``tokens`` output."""

from __future__ import annotations

from datetime import tzinfo

from agentscan.cli.render import table
from agentscan.errors import UsageProblem
from agentscan.model import TokenUsage, sum_usage
from agentscan.scan.tokens import TokenReport


def zone(name: str | None) -> tzinfo | None:
    """An IANA zone for day buckets; ``None`` means the local zone."""
    if not name:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageProblem(f"unknown time zone {name!r} (use an IANA name such as Europe/Paris)") from None


def _cells(usage: TokenUsage | None) -> list[str]:
    if usage is None:
        return ["-"] * 6
    return [f"{v:,}" for v in (usage.input, usage.cache_read, usage.cache_write, usage.output, usage.reasoning, usage.total)]


def print_report(report: TokenReport) -> None:
    rows: list[list[str]] = []
    for row in report.rows:
        rows.append([row.key, *_cells(row.tokens)])
        if not row.subagents:
            continue
        rows.append(["  own", *_cells(row.own)])
        if report.by == "session":
            recovered = dict(row.recovered)
            for sub_id, usage in row.subagents:
                note = f" (from {recovered[sub_id]} records)" if sub_id in recovered else ""
                rows.append([f"  ↳ {sub_id}{note}", *_cells(usage)])
        else:
            # Per day/model/provider there can be hundreds of runs: one line for all.
            runs = sum_usage(usage for _, usage in row.subagents)
            rows.append([f"  ↳ subagents ({len(row.subagents)})", *_cells(runs)])
    rows.append(["TOTAL", *_cells(report.total)])
    table(
        [report.by.upper(), "INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "REASONING", "TOTAL"],
        rows,
        right=(1, 2, 3, 4, 5, 6),
    )
