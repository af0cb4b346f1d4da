"""A value a session's pass kept in the index, under a transcript's path and the session's
fingerprint (``Cache.put_file``), as JSON: what a later run may take instead of the pass,
while the session's files are the same; and, for the rest of the scan, in ``ctx.memo``.
Sealed (``sealing``): a damaged value is no value."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, TypeVar

import orjson

from agentscan.context import ScanContext
from agentscan.sealing import seal, unseal_json

T = TypeVar("T")


def keep(ctx: ScanContext, path: Path | str, kind: str, version: str, fingerprint: str, value: Any,
         document: Any | None, size: int = 0) -> None:
    """Keep ``value`` for this scan and ``document`` (its JSON; ``None``: nothing) in the index."""
    ctx.memo.setdefault(_memo_key(kind), {})[fingerprint] = value
    cache = ctx.file_cache
    if cache is not None and document is not None:
        cache.put_file(str(path), kind, size, 0, version, fingerprint, 0, seal(orjson.dumps(document)))


def kept(ctx: ScanContext, path: Path | str, kind: str, version: str, fingerprint: str | None,
         decode: Callable[[Any], T | None]) -> T | None:
    """The value kept for ``kind`` at this fingerprint (``decode``d from its JSON, once a
    scan); ``None``: none, damaged (``decode`` says so), or of another version."""
    if fingerprint is None:
        return None
    memo = ctx.memo.setdefault(_memo_key(kind), {})
    if fingerprint in memo:
        return memo[fingerprint]
    cache = ctx.file_cache
    stored = cache.get_file(str(path), kind) if cache is not None else None
    if stored is None or stored[2] != version or stored[3] != fingerprint:
        return None
    document = unseal_json(stored[5])
    value = decode(document) if document is not None else None
    if value is not None:
        memo[fingerprint] = value
    return value


def session_stamp(session_id: str, fingerprint: str | None, beside: str = "") -> str | None:
    """What a value about one session is kept at: its id and its files' fingerprint (two
    Codex sessions may name one rollout, so the path alone would tell them apart wrongly),
    and ``beside``: what other files the value is read from are, if any (Claude's subagent
    sidecars, which its fingerprint leaves out: ``scan.tokenagents``)."""
    if fingerprint is None:
        return None
    return f"{session_id} {fingerprint} {beside}" if beside else f"{session_id} {fingerprint}"


def prefetched(ctx: ScanContext, kind: str, fingerprint: str | None) -> Any:
    """What ``prefetch`` (or ``keep``) put where ``kept`` looks first, without a query of its own
    for a miss: a caller that prefetched thousands, most of them missing on a first run."""
    return None if fingerprint is None else ctx.memo.get(_memo_key(kind), {}).get(fingerprint)


def prefetch(ctx: ScanContext, paths: Iterable[str], kind: str, version: str, decode: Callable[[Any], T | None]) -> None:
    """What ``kept`` would take back for ``paths``, read together: a query for 500, or one
    pass for thousands, not one query a path (``list --all`` asks for 10,000).  Each value
    goes where ``kept`` looks first, under the fingerprint it was kept at (a later ``kept``
    of another fingerprint finds nothing)."""
    cache = ctx.file_cache
    if cache is None:
        return
    memo = ctx.memo.setdefault(_memo_key(kind), {})
    for stored in cache.get_files(kind, list(dict.fromkeys(paths))).values():
        if stored[2] != version or stored[3] in memo:
            continue
        document = unseal_json(stored[5])
        value = decode(document) if document is not None else None
        if value is not None:
            memo[stored[3]] = value


def take_new(ctx: ScanContext) -> dict[str, dict]:
    """The values kept in ``ctx.memo`` since the last call, taken out of it (a worker's row
    pass hands them to the parent: ``scan.rowbuild``)."""
    return {key: ctx.memo.pop(key) for key in [key for key in ctx.memo if key.startswith(_PREFIX)]}


def adopt(ctx: ScanContext, kept: Mapping[str, dict]) -> None:
    """Keep for this scan what ``take_new`` took out of another context."""
    for key, values in kept.items():
        ctx.memo.setdefault(key, {}).update(values)


_PREFIX = "kept:"


def _memo_key(kind: str) -> str:
    return _PREFIX + kind
