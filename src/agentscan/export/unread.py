"""The sessions an export leaves as they were because their files could not be read this run.

A file that cannot be read (mode 000, an I/O error, a database locked) is a warning, not a
failure: the session's row would come out blank (no tokens, no title, no days).  Written, it
would replace the last good row an SQLite index holds, and its ``token_days``; so it is not
written: the index keeps what it had (a first export has no row for it), a JSON Lines or CSV
file, replaced whole, leaves it out.  Each is said, once per provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.model import SessionRef


def unread_sessions(refs: Iterable[SessionRef], failed: set[str]) -> dict[str, str]:
    """The sessions of ``refs`` one of whose files is among the paths that could not be read
    (``failed``: I/O errors, a locked database), id to provider."""
    if not failed:
        return {}
    from agentscan.fsview import legible

    return {ref.id: ref.provider for ref in refs
            if any(legible(str(path)) in failed for path in ref.read_files)}


def say_unread(ctx: ScanContext, output: Path, fmt: str, unread: Mapping[str, str]) -> None:
    """One warning per provider for the sessions ``unread_sessions`` kept out of this export."""
    from agentscan.toolkit.words import plural

    counts: dict[str, int] = {}
    for provider in unread.values():
        counts[provider] = counts.get(provider, 0) + 1
    for name, count in sorted(counts.items()):
        if fmt == "sqlite":
            done = "their rows in the index (and token_days) are left as they were"
        else:
            done = "they are not in this export"
        ctx.warn(str(output), f"{plural(count, name + ' session')} could not be read this run (see the "
                 f"warnings naming their files): {done}")
