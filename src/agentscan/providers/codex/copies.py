"""Which copy of a Codex thread counts, when its id is found in several rollouts
(docs/providers/codex.md, "Copies of one thread"): read only then, a chunk at a time."""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING

from agentscan.context import ScanContext
from agentscan.toolkit.appendcopies import DIFFERENT, FLIPPED, LONGER, SAME, SHORTER, compare_open
from agentscan.toolkit.jsonl import decompression_capped, open_binary

if TYPE_CHECKING:
    from agentscan.providers.codex.discovery import RolloutFile

#: how much of each copy of a thread one read compares (``_compare``)
_COMPARE_CHUNK = 1024 * 1024
#: how one copy's bytes stand to another's (``_compare``)
_SAME, _SHORTER, _LONGER, _DIFFERENT = SAME, SHORTER, LONGER, DIFFERENT  # (``compare_copies``'s)


def choose_copy(found: list[RolloutFile], ctx: ScanContext) -> RolloutFile:
    """The copy of a thread that counts among several (docs/providers/codex.md, "Copies of
    one thread"): one that no other copy extends (a copy that begins with all of another's
    bytes and goes on holds everything the other does, and the calls after: the other is a
    stale snapshot, wherever each lives), then the best ``RolloutFile.rank``.  A copy left
    out that is not the start of the one kept (nor the same) held something else: said, with
    the copy kept.  Only a thread found twice (rare) has its files read here: two chunks of
    each (a ``.zst`` one whole, a chunk at a time); where they cannot be compared (unreadable, a ``.zst`` one not decompressed whole:
    said, but for one past the decompression cap), the rank alone decides."""
    ranked = sorted(found, key=lambda copy: copy.rank(), reverse=True)  # stable: the first found first on a tie
    known: dict[tuple[Path, Path], int | None] = {}

    def relation(first: RolloutFile, second: RolloutFile) -> int | None:
        key = (first.path, second.path)
        if key not in known:
            known[key] = _compare(first.path, second.path, ctx)
            known[(second.path, first.path)] = _flipped(known[key])
        return known[key]

    kept = next((copy for copy in ranked
                 if not any(relation(copy, other) == _SHORTER for other in ranked if other is not copy)), ranked[0])
    for copy in ranked:
        if copy is not kept and relation(copy, kept) == _DIFFERENT:
            ctx.warn(copy.path, f"differs from another copy of its thread, which is counted instead: {kept.path}")
    return kept


def _flipped(relation: int | None) -> int | None:
    return None if relation is None else FLIPPED[relation]


def _compare(first: Path, second: Path, ctx: ScanContext) -> int | None:
    """How ``first``'s bytes (decompressed: ``.zst``) stand to ``second``'s: the same, a proper
    start of them (``_SHORTER``), them and more (``_LONGER``), or ``_DIFFERENT``; ``None``: not
    known (a file unreadable, or a ``.zst`` one whose frames cannot be decoded: said; a
    ``.zst`` one that decompresses past ``bounds.MAX_DECOMPRESSED_BYTES``, not).  Read a chunk
    of each at a time, through ``open_binary`` (read-only, regular files only)."""
    try:
        with _opened(first, ctx) as one, _opened(second, ctx) as other:
            if not (first.name.endswith(".zst") or second.name.endswith(".zst")):
                return _sampled(one, other, first, second, ctx)
            while True:
                chunk, against = _chunk(one, first, ctx), _chunk(other, second, ctx)
                if decompression_capped(one) or decompression_capped(other):
                    return None
                common = min(len(chunk), len(against))
                if chunk[:common] != against[:common]:
                    return _DIFFERENT
                if len(chunk) != len(against):  # the shorter one is at its end
                    return _SHORTER if len(chunk) < len(against) else _LONGER
                if not chunk:
                    return _SAME
    except _Unknown:  # unreadable, or a broken frame (said): the rank decides
        return None


def _sampled(one: IO[bytes], other: IO[bytes], first: Path, second: Path, ctx: ScanContext) -> int:
    """``_compare`` of two plain files, from two chunks of each: their first, and the last of
    the shorter one's length (at the same place in both).  A rollout is only ever appended
    to, so two copies of one thread that agree there agree between (a copy's middle does not
    change); read whole, a duplicated 200 MB rollout cost every discovery 0.13 s."""
    paths = {id(one): first, id(other): second}
    return compare_open(one, other, lambda handle, span: _chunk(handle, paths[id(handle)], ctx)[:span], _COMPARE_CHUNK)


class _Unknown(Exception):
    """A copy could not be read (``_compare``): what was wrong is said."""


def _decode_errors(path: Path) -> tuple[type[Exception], ...]:
    """What reading ``path`` through ``open_binary`` raises on bytes it cannot decode:
    zstandard's error (a broken frame) for a ``.zst`` file, nothing for a plain one."""
    if not path.name.endswith(".zst"):
        return ()
    import zstandard  # (``open_binary`` imported it already)

    return (zstandard.ZstdError,)


def _opened(path: Path, ctx: ScanContext) -> IO[bytes]:
    """``open_binary(path)``; a failure said (``ctx.cannot_read``) and raised as ``_Unknown``."""
    try:
        return open_binary(path)
    except OSError as exc:
        ctx.cannot_read(path, exc)
        raise _Unknown from exc


def _chunk(handle: IO[bytes], path: Path, ctx: ScanContext) -> bytes:
    """The next ``_COMPARE_CHUNK`` bytes of ``handle``, fewer only at its end."""
    parts: list[bytes] = []
    left = _COMPARE_CHUNK
    while left > 0:
        try:
            part = handle.read(left)
        except OSError as exc:
            ctx.cannot_read(path, exc)
            raise _Unknown from exc
        except _decode_errors(path) as exc:  # a corrupt frame stays corrupt: not ``passing``
            ctx.warn(path, f"cannot decompress ({exc}): not compared with the other copies of its thread")
            raise _Unknown from exc
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
