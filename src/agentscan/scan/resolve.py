"""Which session an id names: a full id, a bare native id, a unique prefix, or a subagent's own id.

The persistent id index answers an exact id first; an entry whose file moved
or vanished is dropped, and one of another home (the index is shared) is
left alone: discovery answers them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agentscan.errors import AmbiguousSessionId, IdTooShort, SessionNotFound, UsageProblem

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner

#: the shortest prefix an id may be given by
MIN_PREFIX = 6


def find_session(scanner: Scanner, query: str) -> tuple[SessionRef, str | None]:
    """The session ``query`` names (``Scanner.resolve``), and the subagent it names, if any."""
    query = query.strip()
    if not query:
        raise UsageProblem("a session id is required")
    found = _from_index(scanner, query)
    if found is not None:
        return found, None
    return _with_focus(scanner, query)


def _from_index(scanner: Scanner, query: str) -> SessionRef | None:
    """The index's answer for an exact id; ``None``: discovery must answer."""
    cache = scanner.cache
    if cache is None or len(query.partition(":")[2] or query) < MIN_PREFIX:
        return None
    # Only exact ids: a prefix could also match a session created since the
    # index was written, and then only discovery can say it is ambiguous.
    entries = [e for e in cache.find_ids(query) if scanner._known(e[1]) and query in (e[0], e[2])]
    if len(entries) != 1:
        return None
    session_id, provider_name, native_id, path = entries[0]
    provider = scanner.provider(provider_name)
    if path is not None:
        from agentscan.scan.prune import under_roots

        if not under_roots(path, provider, scanner.ctx):
            return None  # another home's session (the index is shared): this home's discovery decides
        if not os.path.exists(path):  # never raises (a PermissionError would)
            cache.forget_id(session_id)
            cache.commit()
            return None
    return provider.locate(native_id, path, scanner.ctx)


def _with_focus(scanner: Scanner, query: str) -> tuple[SessionRef, str | None]:
    """The session ``query`` names and, when it names one of its
    subagents (a child's own id), that subagent's id."""
    provider_name, _, bare = query.partition(":") if ":" in query else ("", "", query)
    candidates = scanner.refs([provider_name] if provider_name and scanner._known(provider_name) else ())
    if provider_name and not scanner._known(provider_name):
        bare = query  # a colon inside a native id, not a provider prefix
    exact = [ref for ref in candidates if ref.native_id == bare or ref.id == query]
    if len(exact) == 1:
        return exact[0], None
    if len(exact) > 1:
        raise AmbiguousSessionId(query, sorted(ref.id for ref in exact))
    children = [(ref, child) for ref in candidates for child in ref.children if child == bare]
    if len(children) == 1:
        return children[0]
    if len(bare) < MIN_PREFIX:
        raise IdTooShort(query, MIN_PREFIX)
    matches = [ref for ref in candidates if ref.native_id.startswith(bare) or ref.id.startswith(query)]
    if not matches:
        children = [(ref, child) for ref in candidates for child in ref.children if child.startswith(bare)]
        if len(children) == 1:
            return children[0]
        if len(children) > 1:
            raise AmbiguousSessionId(query, sorted(f"{ref.id} (subagent {child})" for ref, child in children))
        raise SessionNotFound(query)
    if len(matches) > 1:
        raise AmbiguousSessionId(query, sorted(ref.id for ref in matches))
    return matches[0], None
