"""Token reports: deduplicated usage grouped by session, day, model or provider.

Each row keeps the session's own part and each delegated run's part apart,
so a user can see what the subagents cost.  Sessions whose provider
recorded no usage at all report ``null``, never zeros.

Most sessions are added up from their cached sums (``collect.SessionSums``:
per subagent, model and quarter hour); a session is read call by call only
when its calls may be shared with another session, when ``--since`` or
``--until`` cuts through one of its quarter hours, or when ``--by day`` meets
a zone whose offset is not a whole number of quarter hours.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from typing import Any, Callable, Iterable, Literal, get_args

from agentscan.scan.scanner import Scanner
from agentscan.errors import UsageProblem
from agentscan.model import CACHE_READ, CACHE_WRITE, INPUT, MODEL, OUTPUT, REASONING, SESSION, SUBAGENT, TS
from agentscan.scan.collect import BUCKET, SessionSums, collect
from agentscan.model import TokenUsage, usage_json

GroupBy = Literal["session", "day", "model", "provider"]
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

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "rows": [row.to_json() for row in self.rows], "total": usage_json(self.total)}


class _Bucket:
    """Sums packed entries without building an object per call (warm runs add up 100k+)."""

    def __init__(self) -> None:
        self.own: list[int] | None = None
        self.subagents: dict[str, list[int]] = {}

    def add(self, entry: list, sub_key: str | None) -> None:
        self.add_sums(sub_key, entry[INPUT], entry[CACHE_READ], entry[CACHE_WRITE], entry[OUTPUT], entry[REASONING])

    def add_sums(self, sub_key: str | None, input: int, cache_read: int, cache_write: int, output: int, reasoning: int) -> None:
        if sub_key is None:
            if self.own is None:
                self.own = [0, 0, 0, 0, 0]
            sums = self.own
        else:
            found = self.subagents.get(sub_key)
            if found is None:
                found = self.subagents[sub_key] = [0, 0, 0, 0, 0]
            sums = found
        sums[0] += input
        sums[1] += cache_read
        sums[2] += cache_write
        sums[3] += output
        sums[4] += reasoning

    def row(self, key: str) -> TokenRow:
        # One TokenUsage per part and one for the sum: a warm report builds 10,000+ rows.
        own = TokenUsage(*self.own) if self.own is not None else None
        if not self.subagents:
            return TokenRow(key, own, own)
        total = list(self.own) if self.own is not None else [0, 0, 0, 0, 0]
        subs = []
        for sub_id, sums in sorted(self.subagents.items()):
            subs.append((sub_id, TokenUsage(*sums)))
            for index in range(5):
                total[index] += sums[index]
        return TokenRow(key, TokenUsage(*total), own, tuple(subs))


def _total(rows: Iterable[TokenRow]) -> TokenUsage | None:
    total = [0, 0, 0, 0, 0]
    seen = False
    for row in rows:
        tokens = row.tokens
        if tokens is not None:
            seen = True
            total[0] += tokens.input
            total[1] += tokens.cache_read
            total[2] += tokens.cache_write
            total[3] += tokens.output
            total[4] += tokens.reasoning
    return TokenUsage(*total) if seen else None


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
    for provider_name, part in collect(scanner, refs, _needs_calls(by, tz, low, high)).items():
        for native_id, sums in part.sums.items():
            _add_sums(buckets, sums, native_id, provider_name, by, tz, low, high, day_keys)
        _add_entries(buckets, part.entries, provider_name, by, tz, low, high, day_keys)
    if by == "session":
        # Every selected session gets a row; one with no recorded usage shows null.
        empty = _Bucket()
        rows = tuple((buckets.get(ref_id) or empty).row(ref_id) for ref_id in (ref.id for ref in refs))
        if since is not None or until is not None:
            rows = tuple(row for row in rows if row.tokens is not None)
    else:
        rows = tuple(buckets[key].row(key) for key in sorted(buckets))
        if by in ("model", "provider"):
            rows = tuple(sorted(rows, key=lambda r: -(r.tokens.total if r.tokens else 0)))
    return TokenReport(by, rows, _total(rows))


def _needs_calls(by: str, tz: tzinfo | None, low: float | None, high: float | None) -> Callable[[SessionSums], bool] | None:
    """Which sessions' sums cannot answer: a window cuts one of their quarter hours,
    or (``--by day``) the zone's offset then is not whole quarter hours."""
    aligned: dict[int, bool] = {}

    def cut(bucket: int | None) -> bool:
        if bucket is None:
            return False
        return (low is not None and bucket < low < bucket + BUCKET) or (high is not None and bucket < high < bucket + BUCKET)

    def misaligned(bucket: int | None) -> bool:
        if bucket is None:
            return False
        known = aligned.get(bucket)
        if known is None:
            offsets = (datetime.fromtimestamp(at, timezone.utc).astimezone(tz).utcoffset() for at in (bucket, bucket + BUCKET - 1))
            known = aligned[bucket] = all(offset is not None and offset.total_seconds() % BUCKET == 0 for offset in offsets)
        return not known

    tests = []
    if low is not None or high is not None:
        tests.append(cut)
    if by == "day":
        tests.append(misaligned)
    if not tests:
        return None
    return lambda sums: any(test(group[2]) for group in sums.groups for test in tests)


def _add_sums(
    buckets: dict[str, _Bucket],
    sums: SessionSums,
    native_id: str,
    provider_name: str,
    by: str,
    tz: tzinfo | None,
    low: float | None,
    high: float | None,
    day_keys: dict[float, str],
) -> None:
    """A session's cached sums; no window cuts through any of its quarter hours."""
    windowed = low is not None or high is not None
    session_id = provider_name + ":" + native_id
    for subagent, model, bucket, input, cache_read, cache_write, output, reasoning in sums.groups:
        if windowed and (bucket is None or (low is not None and bucket < low) or (high is not None and bucket >= high)):
            continue
        if by == "session":
            key = session_id
        elif by == "provider":
            key = provider_name
        elif by == "model":
            key = model or "unknown"
        else:
            key = _day(bucket, tz, day_keys)
        sub_key = None if subagent is None else (subagent if by == "session" else f"{session_id}/{subagent}")
        found = buckets.get(key)
        if found is None:
            found = buckets[key] = _Bucket()
        found.add_sums(sub_key, input, cache_read, cache_write, output, reasoning)


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
