"""Token reports: deduplicated usage entries grouped by session, day, week, month, model or provider.

Each row keeps the session's own part and each delegated run's part apart,
so a user can see what the subagents cost.  Sessions whose provider
recorded no usage at all report ``null``, never zeros.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from typing import Any, Iterable, Literal, get_args

from agentscan.bounds import TOKEN_SUM_CAPPED, token_sum
from agentscan.scan.scanner import Scanner
from agentscan.errors import UsageProblem
from agentscan.model import CACHE_READ, CACHE_WRITE, INPUT, MODEL, OUTPUT, REASONING, SESSION, SUBAGENT, TS
from agentscan.scan.collect import collect_usage
from agentscan.model import SessionRef, TokenUsage, sum_usage, usage_json

# Period keys: day 2026-11-30, week 2026-W49 (ISO, Monday first), month 2026-11.
GroupBy = Literal["session", "day", "week", "month", "model", "provider"]
GROUPINGS: tuple[GroupBy, ...] = get_args(GroupBy)


def parse_group(value: str) -> GroupBy:
    """``value`` as a grouping, or a usage error naming the valid ones."""
    for group in GROUPINGS:
        if value == group:
            return group
    raise UsageProblem(f"--by must be one of {', '.join(GROUPINGS)}")


@dataclass(frozen=True, slots=True)
class TokenRow:
    key: str
    tokens: TokenUsage | None
    own: TokenUsage | None
    subagents: tuple[tuple[str, TokenUsage | None], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "tokens": usage_json(self.tokens),
            "own": usage_json(self.own),
            "subagents": [{"id": sub_id, "tokens": usage_json(tokens)} for sub_id, tokens in self.subagents],
        }


@dataclass(frozen=True, slots=True)
class TokenReport:
    by: GroupBy
    rows: tuple[TokenRow, ...]
    total: TokenUsage | None
    #: ``--by session``: the session behind each row (its title, cwd and date are one ``Scanner.row`` away)
    sessions: dict[str, SessionRef] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "rows": [row.to_json() for row in self.rows], "total": usage_json(self.total)}


class _Bucket:
    """Sums packed entries without building an object per call (warm runs add up 100k+)."""

    def __init__(self) -> None:
        self.own: list[int] | None = None
        self.subagents: dict[str, list[int]] = {}

    def add(self, entry: list, sub_key: str | None) -> None:
        if sub_key is None:
            if self.own is None:
                self.own = [0, 0, 0, 0, 0]
            sums = self.own
        else:
            found = self.subagents.get(sub_key)
            if found is None:
                found = self.subagents[sub_key] = [0, 0, 0, 0, 0]
            sums = found
        sums[0] += entry[INPUT]
        sums[1] += entry[CACHE_READ]
        sums[2] += entry[CACHE_WRITE]
        sums[3] += entry[OUTPUT]
        sums[4] += entry[REASONING]

    def row(self, key: str) -> TokenRow:
        own = TokenUsage(*map(token_sum, self.own)) if self.own is not None else None
        subs = tuple((sub_id, TokenUsage(*map(token_sum, sums))) for sub_id, sums in sorted(self.subagents.items()))
        return TokenRow(key, sum_usage([own, *(t for _, t in subs)]), own, subs)


def token_report(
    scanner: Scanner,
    *,
    ids: Iterable[str] = (),
    providers: Iterable[str] = (),
    since: datetime | None = None,
    until: datetime | None = None,
    by: GroupBy = "session",
    tz: tzinfo | None = None,
) -> TokenReport:
    by = parse_group(by)  # library callers may pass any string
    if since is not None and until is not None and since >= until:
        raise UsageProblem("--since must be before --until (the range is empty)")
    ids = list(ids)
    providers = list(providers)
    refs = [scanner.resolve(query) for query in ids] if ids else scanner.refs(providers)
    if providers and ids:
        refs = [ref for ref in refs if ref.provider in providers]
    refs = list({ref.id: ref for ref in refs}.values())
    low = since.timestamp() if since is not None else None
    high = until.timestamp() if until is not None else None
    buckets: dict[str, _Bucket] = {}
    day_keys: dict[float, str] = {}
    for provider_name, entries in collect_usage(scanner, refs).items():
        _add_entries(buckets, entries, provider_name, by, tz, low, high, day_keys)
    if by == "session":
        # Every selected session gets a row; one with no recorded usage shows null.
        rows = tuple((buckets.get(ref.id) or _Bucket()).row(ref.id) for ref in refs)
        if since is not None or until is not None:
            rows = tuple(row for row in rows if row.tokens is not None)
    else:
        rows = tuple(buckets[key].row(key) for key in sorted(buckets))
        if by in ("model", "provider"):
            rows = tuple(sorted(rows, key=lambda r: -(r.tokens.total if r.tokens else 0)))
    sessions = {ref.id: ref for ref in refs} if by == "session" else {}
    report = TokenReport(by, rows, sum_usage(row.tokens for row in rows), sessions)
    if report.total is not None and report.total.saturated:
        scanner.ctx.warn("tokens", TOKEN_SUM_CAPPED)
    return report


def _add_entries(
    buckets: dict[str, _Bucket],
    entries: list[list],
    provider_name: str,
    by: str,
    tz: tzinfo | None,
    low: float | None,
    high: float | None,
    day_keys: dict[float, str],
) -> None:
    windowed = low is not None or high is not None
    prefix = provider_name + ":"
    for entry in entries:
        ts = entry[TS]
        if windowed and (ts is None or (low is not None and ts < low) or (high is not None and ts >= high)):
            continue
        session_id = prefix + entry[SESSION]
        if by == "session":
            key = session_id
        elif by == "provider":
            key = provider_name
        elif by == "model":
            key = entry[MODEL] or "unknown"
        else:
            key = _period(ts, by, tz, day_keys)
        subagent = entry[SUBAGENT]
        sub_key = None if subagent is None else (subagent if by == "session" else f"{session_id}/{subagent}")
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = _Bucket()
        bucket.add(entry, sub_key)


def _period(ts: float | None, by: str, tz: tzinfo | None, memo: dict[float, str]) -> str:
    if ts is None:
        return "unknown"
    # Calls cluster in time: memoise per minute to avoid a datetime per call.
    minute = ts // 60
    key = memo.get(minute)
    if key is None:
        local = datetime.fromtimestamp(minute * 60, timezone.utc).astimezone(tz)
        if by == "week":
            year, week, _ = local.isocalendar()
            key = f"{year}-W{week:02d}"
        else:
            key = local.strftime("%Y-%m" if by == "month" else "%Y-%m-%d")
        memo[minute] = key
    return key
