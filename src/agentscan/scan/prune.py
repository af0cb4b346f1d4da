"""The index of session ids (``index_ids``), which forgets the sessions whose files are gone.

Claude Code deletes transcripts after 30 days by default, and users clean up
by hand: without this, every session ever seen would keep its row, sums,
calls and resume state in the index for good, and a heavy user's index would
only grow.  When a provider's discovery finds another set of sessions than
the last one (``index_ids``), the sessions the index knows under
that provider's roots that discovery no longer finds are forgotten.

A session is forgotten only when its file is not there any more: discovery
can miss a session that is (a directory it could not read, with or without
a warning), and then the index must not be made cold for it.  And only
sessions under the roots just walked, by an absolute path: another home
(``--home``, ``--demo``) shares the index, and its sessions are not this
discovery's to judge.  Nothing is forgotten after a discovery that said it
could not read everything this time.

What is forgotten: the session's id, row, sums, calls, resume state and
report row, and the file facts kept under the path of any file gone from
these roots (its transcript, a subagent's, a child thread's rollout).  A
session known by no path (a Cursor composer that lives only in
``state.vscdb``) is kept: nothing says it is gone.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Sequence

from agentscan.digests import blake2b

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef
    from agentscan.providers.base import Provider
    from agentscan.scan.cache import Cache


def index_ids(cache: Cache, provider: Provider, refs: Sequence[SessionRef], ctx: ScanContext, *, complete: bool) -> None:
    """Index the ids ``provider``'s discovery found; ``complete``: it read everything it
    looked at, so the sessions the index knows under its roots and it did not find are gone."""
    index_id_entries(cache, provider, id_entries(refs), ctx, complete=complete)


def id_entries(refs: Iterable[SessionRef]) -> list[tuple[str, str, str, str | None]]:
    """``(id, provider, native id, path)`` of each ref: what the id index keeps."""
    return [(ref.id, ref.provider, ref.native_id, str(ref.path) if ref.path else None) for ref in refs]


def index_id_entries(cache: Cache, provider: Provider, entries: list[tuple[str, str, str, str | None]],
                     ctx: ScanContext, *, complete: bool) -> None:
    """``index_ids`` of a discovery's ``id_entries`` (made here, or in ``scan.aside``'s helper)."""
    # Most runs find the same sessions in the same places: skip the rewrite then.
    listing = "\n".join(sorted(f"{e[0]}\0{e[3] or ''}" for e in entries))
    digest = blake2b(listing.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
    marker, count_key, count = f"ids:{provider.name}", f"count:{provider.name}", str(len(entries))
    if cache.get_meta(count_key) != count:  # how heavy its census is (``scan.stamps``)
        cache.put_meta(count_key, count)
    if cache.get_meta(marker) != digest:
        if complete:
            forget_gone(cache, provider, {entry[0] for entry in entries}, ctx)
        cache.put_ids(entries)
        if complete:  # else the next discovery, finding the same, must still look for the gone
            cache.put_meta(marker, digest)
    cache.commit()


def forget_gone(cache: Cache, provider: Provider, present: set[str], ctx: ScanContext) -> int:
    """Forget the sessions of ``provider`` the index holds under its roots that ``present``
    (the ids its discovery, complete, found) does not; how many were forgotten."""
    roots = _roots(provider, ctx)
    if not roots:
        return 0
    gone = [session_id for session_id, path in cache.indexed_ids(provider.name)
            if session_id not in present and path is not None and _gone(path, roots)]
    if gone:
        cache.forget_sessions(gone)
        # The facts kept about their files (a transcript's header, a subagent's, a child
        # thread's rollout) go with them. Looked for only when sessions went (one stat
        # per kept file under these roots), not on every run that finds a new session.
        cache.forget_files([(table, path) for table, path in cache.file_keyed() if _gone(path, roots)])
    return len(gone)


def _gone(path: str, roots: list[str]) -> bool:
    """An absolute path under ``roots`` with nothing there any more."""
    return os.path.isabs(path) and _under(path, roots) and not os.path.lexists(path)


def under_roots(path: str, provider: Provider, ctx: ScanContext) -> bool:
    """Whether ``path`` (absolute) is under one of ``provider``'s roots in this scan's home."""
    return os.path.isabs(path) and _under(path, _roots(provider, ctx))


def _roots(provider: Provider, ctx: ScanContext) -> list[str]:
    return [_with_sep(os.path.abspath(path)) for path in provider.confinement_roots(ctx)]


def _with_sep(path: str) -> str:
    return path if path.endswith(os.sep) else path + os.sep


def _under(path: str, roots: list[str]) -> bool:
    return any(path.startswith(root) for root in roots)
