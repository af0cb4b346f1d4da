"""What a session's files are now, as one cache key: a provider's ``fingerprint``.

Apart from ``base`` (the provider contract) because providers and ``scan`` call these
keys' makers on their own, for files no ``fingerprint`` covers (a Codex thread's index
rows, a Gemini project's marker), and each key must be made the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from agentscan.digests import blake2b

if TYPE_CHECKING:
    import os

    from agentscan.context import ScanContext


def files_identity(ctx: ScanContext, paths: Iterable[str | os.PathLike[str]], head: Sequence[str] = (), *,
                   absent_ok: bool = False) -> str | None:
    """One key for what ``paths`` are now (``file_identity`` each, after ``head``): ``None``
    when one is missing, unless ``absent_ok`` (its absence is then part of the key: a
    file written later gives another)."""
    parts = list(head)
    for path in paths:
        stat = ctx.stat(path)
        if stat is None:
            if not absent_ok:
                return None
            parts.append(f"{path}\0-")
        else:
            parts.append(file_identity(path, stat))
    return blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def file_identity(path: object, stat: os.stat_result) -> str:
    """A file's part of a cache key: its path, size, mtime, inode (``os.replace`` gives
    another) and ctime (a rewrite in place gives another)."""
    return f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\0{stat.st_ctime_ns}"
