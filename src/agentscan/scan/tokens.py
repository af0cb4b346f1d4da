"""Token reports: deduplicated usage entries grouped by session, day, model or provider.

Each row keeps the session's own part and each delegated run's part apart,
so a user can see what the subagents cost.  Sessions whose provider
recorded no usage at all report ``null``, never zeros.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from typing import Any, Iterable, Literal

from agentscan.scan.scanner import Scanner
from agentscan.errors import UsageProblem
from agentscan.model import CACHE_READ, CACHE_WRITE, INPUT, MODEL, ORIGIN, OUTPUT, REASONING, SESSION, SUBAGENT, TS
from agentscan.scan.collect import collect_usage
from agentscan.model import TokenUsage, sum_usage, usage_json

GroupBy = Literal["session", "day", "model", "provider"]
GROUPINGS: tuple[str, ...] = ("session", "day", "model", "provider")


@dataclass(frozen=True, slots=True)
class TokenRow:
    key: str
    tokens: TokenUsage | None
    own: TokenUsage | None
    subagents: tuple[tuple[str, TokenUsage | None], ...] = ()
    #: subagent id -> where its part was recovered from (its transcript is gone)
    recovered: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        recovered = dict(self.recovered)
        return {
            "key": self.key,
            "tokens": usage_json(self.tokens),
            "own": usage_json(self.own),
            "subagents": [
                {"id": sub_id, "tokens": usage_json(tokens), "recovered_from": recovered.get(sub_id)}
                for sub_id, tokens in self.subagents
            ],
        }


@dataclass(frozen=True, slots=True)
class TokenReport:
    by: str
    rows: tuple[TokenRow, ...]
    total: TokenUsage | None

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "rows": [row.to_json() for row in self.rows], "total": usage_json(self.total)}


class _Bucket:
    """Sums packed entries without building an object per call (warm runs add up 100k+)."""

    def __init__(self) -> None:
        self.own: list[int] | None = None
        self.subagents: dict[str, list[int]] = {}
        self.recovered: dict[str, str] = {}

    def add(self, entry: list, sub_key: str | None) -> None:
        if sub_key is None:
            if self.own is None:
                self.own = [0, 0, 0, 0, 0]
            sums = self.own
        else:
            sums = self.subagents.get(sub_key)
            if sums is None:
                sums = self.subagents[sub_key] = [0, 0, 0, 0, 0]
        sums[0] += entry[INPUT]
        sums[1] += entry[CACHE_READ]
        sums[2] += entry[CACHE_WRITE]
        sums[3] += entry[OUTPUT]
        sums[4] += entry[REASONING]
        if sub_key is not None and len(entry) > ORIGIN and entry[ORIGIN] is not None:
            self.recovered[sub_key] = entry[ORIGIN]

    def row(self, key: str) -> TokenRow:
        own = TokenUsage(*self.own) if self.own is not None else None
        subs = tuple((sub_id, TokenUsage(*sums)) for sub_id, sums in sorted(self.subagents.items()))
        return TokenRow(key, sum_usage([own, *(t for _, t in subs)]), own, subs, tuple(sorted(self.recovered.items())))


def token_report(
    scanner: Scanner,
    *,
    ids: Iterable[str] = (),
    providers: Iterable[str] = (),
    since: datetime | None = None,
    until: datetime | None = None,
    by: str = "session",
    tz: tzinfo | None = None,
) -> TokenReport:
    if by not in GROUPINGS:
        raise UsageProblem(f"--by must be one of {', '.join(GROUPINGS)}")
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
    return TokenReport(by, rows, sum_usage(row.tokens for row in rows))


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
            key = _day(ts, tz, day_keys)
        subagent = entry[SUBAGENT]
        sub_key = None if subagent is None else (subagent if by == "session" else f"{session_id}/{subagent}")
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = _Bucket()
        bucket.add(entry, sub_key)


def _day(ts: float | None, tz: tzinfo | None, memo: dict[float, str]) -> str:
    if ts is None:
        return "unknown"
    # Calls cluster in time: memoise per minute to avoid a datetime per call.
    minute = ts // 60
    day = memo.get(minute)
    if day is None:
        day = memo[minute] = datetime.fromtimestamp(minute * 60, timezone.utc).astimezone(tz).strftime("%Y-%m-%d")
    return day
