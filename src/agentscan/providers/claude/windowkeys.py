"""The hashes a settled call of ``windowed.WindowedTotals`` is known by, so that a copy of it
however much later counts nothing: rule 3 of docs/providers/claude.md joins a copy without
``requestId`` to its message's one request whatever their distance.  A progress copy settles
long before its subagent's transcript (read after the whole parent) copies it under the
other key; the pair's join in the window (``WindowedTotals._partner``) never saw the two.
Apart from ``windowed`` to keep each module readable.
"""

from __future__ import annotations

from typing import Callable

from agentscan.toolkit.hashes64 import Hashes64


def settle_keys(settled: Hashes64, digest: Callable[[object], int], message_id: str, request_id: str | None) -> bool:
    """Keep in ``settled`` rule 3's other key of a call settling under ``(message_id,
    request_id)``, its message's only key in the window, its own key's hash kept by the caller:
    a sidechain call's bare key (an unsidechained call's message id is among the settled parents
    already); for a copy without ``requestId``, a mark that a copy under any request is its (a
    request's copy of a message settled with two or more requests is a call of its own: no
    mark).  Whether that mark was kept."""
    if request_id is None:
        settled.add(digest((message_id, None, None)))
        return True
    settled.add(digest((message_id, None)))
    return False


def copy_of_settled(settled: Hashes64, parents: Hashes64 | None, bare: bool, digest: Callable[[object], int],
                    key: tuple[str, str | None], sidechain: bool) -> bool:
    """Whether a call under ``key``, not in the window nor its key among the settled ones (the
    caller's lookup, the common case inlined), copies a settled one: its message's settled
    unsidechained (``parents``: rule 4's replay for a sidechain copy, rule 3 for one without
    ``requestId``), or rule 3's other key of it (``settle_keys``; ``bare``: whether any mark
    for a copy without ``requestId`` was kept)."""
    message_id, request_id = key
    if (sidechain or request_id is None) and parents is not None and digest(message_id) in parents:
        return True
    return request_id is not None and bare and digest((message_id, None, None)) in settled
