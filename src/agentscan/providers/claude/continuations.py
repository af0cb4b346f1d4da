"""Which later Claude sessions continue a found one in the middle of a chain of resumes.

In a chain A → B → C (``claude --resume`` of A made B, of B made C), C's transcript begins
with a copy of A's records, then of B's, and its head names A (``resumedfiles.resumed_from``):
B's card found C by no head, and named no later session (A's named both).  The session a
transcript was resumed from is the one the line before its own first record names
(``named_before_own``): found in its bytes, without parsing its copies, and remembered per
file while the file only grows (its copies are written once, when it is resumed).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.toolkit.fsutil import open_regular

if TYPE_CHECKING:
    from agentscan.context import ScanContext

#: how far into a transcript its own first record is looked for
GUESS_BYTES = 256 << 20
#: how many lines before it are looked at for the last copy's session
_GUESS_LINES = 64
#: the facts' kind
FACTS = "claude.resumed_last/1"


def named_before_own(path: str | os.PathLike[str], own: str) -> tuple[str | None, int | None]:
    """The session the line before ``own``'s first record in ``path`` names (Claude Code writes
    ``"sessionId":"<id>"`` without spaces), looked for within ``GUESS_BYTES`` without decoding
    the copies, and that record's offset (``None``: not found: further in, or no record of its
    own yet, when the last record names the session resumed)."""
    import mmap

    from agentscan.toolkit import laxjson

    try:
        with open_regular(path) as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            at = data.find(b'"sessionId":"' + own.encode() + b'"', 0, GUESS_BYTES)
            if at < 0 and len(data) > GUESS_BYTES:
                return None, None
            # The copies end before its own first record; with none of its own yet (a session
            # just resumed), at the file's end: its last copy names the one resumed.
            if at < 0:
                end = len(data)
            elif at > 0:
                end = data.rfind(b"\n", 0, at)
            else:
                end = -1  # (its own record comes first: no copies)
            for _ in range(_GUESS_LINES):
                if end <= 0:
                    break
                start = data.rfind(b"\n", 0, end) + 1
                try:
                    record = laxjson.loads(data[start:end])
                except ValueError:
                    record = None
                named = record.get("sessionId") if isinstance(record, dict) else None
                if isinstance(named, str) and named and named != own:
                    return named, at if at >= 0 else None
                end = start - 1
            return None, at if at >= 0 else None
    except (OSError, ValueError):
        return None, None  # (an empty file cannot be mapped)


def resumed_last(path: Path, own: str, ctx: ScanContext) -> str | None:
    """The session transcript ``path`` (session ``own``'s) was resumed from: what its row's
    pass found (``note``), else ``named_before_own``; remembered per file, and kept while the
    file is the same one and only grew once its own first record was written (what comes
    before it, the copies, is not written again)."""
    facts = ctx.remembered(FACTS)
    text = str(path)
    stat = ctx.stat(text)
    if stat is None:
        return None
    known = facts.get(text, stat)
    if not _well_formed(known):
        known = facts.last(text)
        if not (_well_formed(known) and known["own"]
                and (known["dev"], known["ino"]) == (stat.st_dev, stat.st_ino) and known["size"] <= stat.st_size):
            named, at = named_before_own(path, own)
            known = {"named": named, "own": at is not None}
        facts.put(text, stat, {**known, "dev": stat.st_dev, "ino": stat.st_ino, "size": stat.st_size})
    return known["named"]


def note(path: Path, named: str, ctx: ScanContext) -> None:
    """Remember what a row's pass found: the transcript ``path``, which holds records of its
    own, was resumed from ``named`` (the last session its copies name).  A ``list`` then
    leaves nothing for ``continued_by`` to search."""
    stat = ctx.stat(str(path))
    if stat is not None:
        ctx.remembered(FACTS).put(str(path), stat, {"named": named, "own": True, "dev": stat.st_dev,
                                                    "ino": stat.st_ino, "size": stat.st_size})


def _well_formed(known: object) -> bool:
    return (isinstance(known, dict) and (known.get("named") is None or isinstance(known.get("named"), str))
            and type(known.get("own")) is bool
            and type(known.get("dev")) is int and type(known.get("ino")) is int and type(known.get("size")) is int)


def continued_by(native_id: str, main: Path, ctx: ScanContext) -> list[str]:
    """The sessions of ``main``'s project folder (under every root) resumed from ``native_id``,
    a resumed session itself (B of A → B → C): the transcripts whose head names the same first session (A) and whose
    copies end with its records.  Their heads are remembered per file; each is searched up to
    its own first record once (a few tens of ms a GB of copies, from the page cache)."""
    from agentscan.providers.claude.resumedfiles import resumed_from, resumed_paths

    first = resumed_from(native_id, main, ctx)
    if first is None:
        return []  # (not resumed: the heads that name it are its later sessions, ``resumed_as``)
    # (``first``'s own transcript: its head names it)
    later = resumed_paths(first, main, ctx)  # (in its project's folder under every root)
    return [other for other in sorted(later) if other not in (native_id, first) and resumed_last(later[other], other, ctx) == native_id]
