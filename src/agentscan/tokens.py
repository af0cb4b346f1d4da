"""Token reports: deduplicated usage entries grouped by session, day, model or provider.

Each row keeps the session's own part and each delegated run's part apart,
so a user can see what the subagents cost.  Sessions whose provider
recorded no usage at all report ``null``, never zeros.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any, Iterable, Literal

from agentscan.api import Scanner
from agentscan.errors import UsageProblem
from agentscan.model import SessionRef, TokenUsage, UsageEntry, sum_usage, usage_json

GroupBy = Literal["session", "day", "model", "provider"]
GROUPINGS: tuple[str, ...] = ("session", "day", "model", "provider")


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
    by: str
    rows: tuple[TokenRow, ...]
    total: TokenUsage | None

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "rows": [row.to_json() for row in self.rows], "total": usage_json(self.total)}


class _Bucket:
    def __init__(self) -> None:
        self.own: list[TokenUsage] = []
        self.subagents: dict[str, list[TokenUsage]] = {}

    def add(self, entry: UsageEntry, sub_key: str | None) -> None:
        if sub_key is None:
            self.own.append(entry.tokens)
        else:
            self.subagents.setdefault(sub_key, []).append(entry.tokens)

    def row(self, key: str) -> TokenRow:
        own = sum_usage(self.own)
        subs = tuple((sub_id, sum_usage(parts)) for sub_id, parts in sorted(self.subagents.items()))
        return TokenRow(key, sum_usage([own, *(t for _, t in subs)]), own, subs)


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
    refs = [scanner.resolve(query) for query in ids] if ids else scanner.refs(providers)
    if providers and ids:
        wanted = set(providers)
        refs = [ref for ref in refs if ref.provider in wanted]
    refs = list({ref.id: ref for ref in refs}.values())
    by_provider: dict[str, list[SessionRef]] = {}
    for ref in refs:
        by_provider.setdefault(ref.provider, []).append(ref)
    buckets: dict[str, _Bucket] = {}
    session_keys: list[str] = [ref.id for ref in refs]
    for provider_name, provider_refs in by_provider.items():
        provider = scanner.provider(provider_name)
        for entry in provider.usage(provider_refs, scanner.ctx):
            if not _in_window(entry, since, until):
                continue
            session_id = f"{provider_name}:{entry.session}"
            key = _key(by, entry, provider_name, session_id, tz)
            sub_key = None
            if entry.subagent is not None:
                sub_key = entry.subagent if by == "session" else f"{session_id}/{entry.subagent}"
            buckets.setdefault(key, _Bucket()).add(entry, sub_key)
    if by == "session":
        # Every selected session gets a row; one with no recorded usage shows null.
        rows = tuple((buckets.get(key) or _Bucket()).row(key) for key in session_keys)
        if since is not None or until is not None:
            rows = tuple(row for row in rows if row.tokens is not None)
    else:
        rows = tuple(buckets[key].row(key) for key in sorted(buckets))
        if by in ("model", "provider"):
            rows = tuple(sorted(rows, key=lambda r: -(r.tokens.total if r.tokens else 0)))
    return TokenReport(by, rows, sum_usage(row.tokens for row in rows))


def _in_window(entry: UsageEntry, since: datetime | None, until: datetime | None) -> bool:
    if since is None and until is None:
        return True
    if entry.timestamp is None:
        return False
    if since is not None and entry.timestamp < since:
        return False
    if until is not None and entry.timestamp >= until:
        return False
    return True


def _key(by: str, entry: UsageEntry, provider: str, session_id: str, tz: tzinfo | None) -> str:
    if by == "session":
        return session_id
    if by == "provider":
        return provider
    if by == "model":
        return entry.model or "unknown"
    if entry.timestamp is None:
        return "unknown"
    return entry.timestamp.astimezone(tz).strftime("%Y-%m-%d")
