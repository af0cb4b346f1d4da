"""A few fields of the rows the index keeps for sessions' files as they are.

``list --grep`` (``grepkept``) and ``export --since`` (``keptsince``) settle many sessions
from a handful of a kept row's fields, picked out by SQLite (``Cache.row_fields``), without
decoding the row whole.  Both take only a row kept at the session's fingerprint now, whose
fields came back as a JSON list of the length asked; anything else is read as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import orjson

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner


def current_fields(scanner: Scanner, refs: Sequence[SessionRef], picked: Mapping[str, tuple[str, str | None]],
                   width: int) -> Iterator[tuple[SessionRef, list[Any]]]:
    """Each of ``refs`` with the fields ``picked`` holds of its row (``Cache.row_fields``'s
    answer), when that row is kept for its files as they are (its fingerprint now) and the
    fields decode to a list of ``width`` values; the others are passed over (not kept for
    these files, no JSON, or a miss)."""
    for ref in refs:
        hit = picked.get(ref.id)
        if hit is None or hit[1] is None or hit[0] != scanner.fingerprint(ref):
            continue
        try:
            values = orjson.loads(hit[1])
        except ValueError:
            continue
        if type(values) is list and len(values) == width:
            yield ref, values
