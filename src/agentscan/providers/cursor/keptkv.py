"""The ``agentKv`` rows' per-request counts, kept in the index and read on as rows are added.

Newer Cursor builds keep a turn's messages in ``agentKv:blob:<hash>`` rows (``agentkv``):
a composer whose bubbles hold no text is counted from them, which takes one pass that
decodes every row.  After any write to ``state.vscdb`` every Cursor row is built again,
and with it that pass.

Cursor adds rows (in ``rowid`` order, which the pass follows) and rewrites none: so the
counts are kept with how many rows they cover and a SHA-1 of those rows' bytes, and a
later pass hashes that many rows again (no JSON) and, when the digest is the same,
decodes only the rows after them, going on from the request that was open.  A row
rewritten, moved (a ``REPLACE`` gives it a new ``rowid``) or deleted changes the digest:
every row is decoded again.  Kept only while Cursor runs, as ``keptstats`` keeps.
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING, Any, Callable, Iterator

import orjson

from agentscan.providers.cursor.keptstats import add_row, keeps, kept_version, new_digest
from agentscan.sealing import seal, unseal_json

if TYPE_CHECKING:
    from agentscan.providers.cursor.agentkv import RequestCounts
    from agentscan.providers.cursor.statedb import StateDb

KIND = "cursor.agentkv_counts"

#: ``feed(value, current) -> current``: one row's counts added, the request open after it
Feed = Callable[[object, "str | None"], "str | None"]


def counted(db: StateDb, read_rows: Callable[[], Iterator[tuple[str, object]]], counts: dict[str, RequestCounts],
            feed: Feed, fresh: Callable[[], RequestCounts]) -> None:
    """Fill ``counts`` from ``read_rows()`` (every ``agentKv`` row, in ``rowid`` order),
    decoding only what the kept counts do not cover."""
    rows = read_rows()
    cache = db.ctx.file_cache
    key = f"{db.path}\0agentKv"
    stored = cache.get_file(key, KIND) if cache is not None else None
    if cache is None or not keeps(db, stored):
        current = None
        for _, value in rows:
            current = feed(value, current)
        return
    digest, covered, current = new_digest(), 0, None
    kept = _decoded(unseal_json(stored[5])) if stored is not None and stored[2] == kept_version() else None
    pending: list[tuple[str, object]] = []
    if stored is not None and kept is not None:
        wanted, current, known = kept
        for row in rows:
            if covered == wanted:
                pending.append(row)  # the first row after the kept ones
                break
            add_row(digest, *row)
            covered += 1
        if covered == wanted and digest.hexdigest() == stored[3]:
            for request, values in known.items():
                counts[request] = _counts(fresh(), values)
        else:  # rewritten, moved or deleted rows: all of them again
            digest, covered, current, pending = new_digest(), 0, None, []
            rows = read_rows()
    for row in chain(pending, rows):
        add_row(digest, *row)
        covered += 1
        current = feed(row[1], current)
    if not db.failed and covered:
        document = {"rows": covered, "current": current, "counts": {request: _values(found) for request, found in counts.items()}}
        cache.put_file(key, KIND, 0, 0, kept_version(), digest.hexdigest(), covered, seal(orjson.dumps(document)))


def _values(found: RequestCounts) -> list[Any]:
    return [found.prompts, found.responses, found.tool_calls, found.first_prompt]


def _counts(fresh: RequestCounts, values: list[Any]) -> RequestCounts:
    fresh.prompts, fresh.responses, fresh.tool_calls, fresh.first_prompt = values
    return fresh


def _decoded(document: Any) -> tuple[int, str | None, dict[str, list[Any]]] | None:
    """``(rows covered, the request open after them, counts)``; ``None`` for another shape."""
    try:
        counts = {str(request): [int(v[0]), int(v[1]), int(v[2]), v[3] if isinstance(v[3], str) else None]
                  for request, v in document["counts"].items()}
        current = document["current"]
        return int(document["rows"]), current if isinstance(current, str) else None, counts
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None
