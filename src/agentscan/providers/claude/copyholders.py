"""Which transcript lists a gone Claude session's conversation: the one whose copy of it counts.

A session resumed twice (``claude --resume`` of it from two terminals, or again later) leaves
two transcripts that each begin with a copy of its records: siblings.  With its own
transcript gone, ``tokens`` counts its calls once, in the copy of the nearest session of
its chain (``dedupe._nearness``: the fewest resumes from it), and between copies as near, in
the session whose first call came first, then by id (``sharedcalls.session_order``): the
copies begin with the same calls at the same times, so the id decides.  ``show`` lists each
copied record on the card of the best copy that holds it (both cards listed it, and only one
counted it), and the other's names where that part is (``resumedshow.HeldCopies``): a sibling
resumed before the gone session went on copied only the start of what a later one did.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.providers.claude.gonesession import is_gone
from agentscan.toolkit.fsutil import open_regular

if TYPE_CHECKING:
    from agentscan.context import ScanContext


def nearer_holders(native_id: str, main: Path, ctx: ScanContext) -> dict[str, list[tuple[str, str | None]]]:
    """Each gone session the copies at the head of ``native_id``'s transcript ``main`` name
    -> the other transcripts of the folder that hold a copy of it nearer (fewer resumes from
    it), or as near with a smaller id, best first: where ``tokens`` counts the calls they
    share.  Each with the ``uuid`` of the last of that session's records it copied
    (``last_copied``; ``None``: not known, taken to hold all of this one's): a sibling resumed
    before the gone session went on holds only the start of what a later one copied, and the
    rest is counted, and listed, in the later one (``resumedshow.HeldCopies``).  Only
    transcripts whose head names the same first session are read (a chain's copies all begin
    with its first's), each up to its own first record (``resumes.copied_head``)."""
    from agentscan.providers.claude.resumedfiles import resumed_from, resumed_paths

    first = resumed_from(native_id, main, ctx)
    if first is None:
        return {}
    # (Heads remembered per file: no other transcript of the chain, the usual case, and the
    # session's own copies are not read, 1.1 s a GB of them on each ``show`` of a live one.)
    later = resumed_paths(native_id, main, ctx, every=True)  # (its project's folder under every root)
    others = [(other, later[other]) for other in sorted(later) if resumed_from(other, later[other], ctx) == first]
    head = remembered_head(main, native_id, ctx) if others else None
    if head is None or not head[0]:
        return {}
    chain = head[0]
    mine = {named: len(chain) - at for at, named in enumerate(chain) if is_gone(named, main)}
    better: dict[str, list[tuple[tuple[int, str], Path, int | None]]] = {}
    for other, path in others if mine else ():
        theirs = remembered_head(path, other, ctx)
        if theirs is None:
            continue
        steps = len(theirs[0])
        for at, named in enumerate(theirs[0]):
            if named in mine and (steps - at, other) < (mine[named], native_id):
                better.setdefault(named, []).append(((steps - at, other), path, theirs[1]))
    found: dict[str, list[tuple[str, str | None]]] = {}
    for named, holders in better.items():
        found[named] = [(rank[1], last_copied(path, rank[1], end, named)) for rank, path, end in sorted(holders)]
    return found


def last_copied(path: Path, own: str, end: int | None, named: str) -> str | None:
    """The ``uuid`` of the last record of ``named`` the copies at the head of ``own``'s
    transcript ``path`` hold (they end at ``end``, ``None``: the file's end), read back from
    there line by line (the gone session resumed is the last the copies name: a line or two);
    ``None``: none found (a record without a ``uuid``, an unreadable file)."""
    import mmap

    from agentscan.providers.claude.resumes import is_copy, line_session
    from agentscan.toolkit import laxjson

    try:
        with open_regular(path) as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            close = len(data) if end is None else end
            while close > 0:
                line = data.rfind(b"\n", 0, close - 1) + 1
                stop = close - 1 if data[close - 1] == 10 else close
                if line_session(data, line, stop) == named:
                    try:
                        record = laxjson.loads(data[line:stop])
                    except ValueError:
                        record = None
                    uuid = record.get("uuid") if isinstance(record, dict) and is_copy(record, own) else None
                    if isinstance(uuid, str) and uuid:
                        return uuid
                close = line
    except (OSError, ValueError):
        pass  # (an empty file cannot be mapped)
    return None


def remembered_head(path: Path, own: str, ctx: ScanContext, *, keep: bool = True) -> tuple[list[str], int | None] | None:
    """``resumes.copied_head`` of ``path``, remembered per file: every transcript of a chain is
    read for its copies when one of its sessions is gone (``show`` of each, ``tokens --by
    agent``), a 1 GB head of copies 1.1 s each time.  Kept while the file is unchanged, and
    while it only grew (``_still_holds``): Claude Code appends to a transcript, and its copies,
    written when it was resumed, come before its own first record (a live session's ``show``
    read its own copies again after each of its replies, and a sibling's after each of
    theirs).  ``keep=False``: what is remembered is used, nothing is added (``tokens``' parse:
    it runs in worker processes too, whose facts are not kept, and the index it leaves must
    not depend on where it ran)."""
    from agentscan.providers.claude.resumes import copied_head

    facts = ctx.remembered(FACTS)
    text = str(path)
    stat = ctx.stat(text)
    if stat is None:
        return copied_head(path, own)
    known = facts.get(text, stat)
    if _well_formed(known):
        return known["chain"], known["end"]
    known = facts.last(text)
    if _well_formed(known) and _still_holds(path, own, stat, known):
        if keep:
            facts.put(text, stat, {**known, "size": stat.st_size})
        return known["chain"], known["end"]
    head = copied_head(path, own)
    if head is not None and keep:
        chain, end = head
        facts.put(text, stat, {"chain": chain, "end": end, **({} if end is None else _marks(path, stat, end))})
    return head


#: the facts' kind (2: the marks that let a grown file keep its head)
FACTS = "claude.copied_head/2"
#: how many bytes at each end of the copies a grown file must still hold (``_still_holds``)
_MARK_BYTES = 64 << 10


def _well_formed(known: object) -> bool:
    return (isinstance(known, dict) and isinstance(known.get("chain"), list)
            and all(isinstance(name, str) for name in known["chain"])
            and (known.get("end") is None or type(known.get("end")) is int))


def _marks(path: Path, stat: os.stat_result, end: int) -> dict:
    """What tells a grown transcript's copies from others (``_still_holds``): the file's
    device, inode and size, and a CRC-32 of the copies' first and last ``_MARK_BYTES``."""
    crc = _end_crc(path, end)
    return {} if crc is None else {"dev": stat.st_dev, "ino": stat.st_ino, "size": stat.st_size, "crc": crc}


def _end_crc(path: Path, end: int) -> int | None:
    from agentscan.toolkit.jsonl import crc_between

    first = crc_between(path, 0, min(end, _MARK_BYTES))
    return None if first is None else crc_between(path, max(_MARK_BYTES, end - _MARK_BYTES), end, first)


def same_head_file(known: object, stat: os.stat_result | None) -> bool:
    """Whether a remembered head (``remembered_head``) is still of the file there: the same
    device and inode, and no smaller (a transcript replaced by another, or cut, holds other
    copies).  ``_still_holds`` then reads the copies' ends; ``gonehint``, a hint, takes this."""
    return (isinstance(known, dict) and stat is not None
            and (known.get("dev"), known.get("ino")) == (stat.st_dev, stat.st_ino)
            and type(known.get("size")) is int and known["size"] <= stat.st_size)


def _still_holds(path: Path, own: str, stat: os.stat_result, known: dict) -> bool:
    """Whether ``path``, changed since ``known`` (its head) was read, only grew after its own
    first record: the same file (device and inode: one replaced is another), no smaller than
    it was (one written again from its start may be, for a moment), the copies' ends
    as they were (their CRC) and ``own``'s record still where they end.  Not every byte of
    the copies is compared: they are written once, when the session is resumed, and a
    transcript is only appended to (the comparison took 0.4 s a GB: a ``show`` of a live
    session would pay it after each reply).  A head read before its own first record was
    written (``end`` ``None``) is read again: its copies may not all be written."""
    from agentscan.providers.claude.resumes import line_session

    end = known.get("end")
    if (type(end) is not int or not same_head_file(known, stat) or type(known.get("crc")) is not int
            or stat.st_size <= end):
        return False
    if _end_crc(path, end) != known["crc"]:
        return False
    try:
        with open_regular(path) as handle:
            handle.seek(end)
            line = handle.readline(1 << 20)
    except OSError:
        return False
    return line.endswith(b"\n") and line_session(line, 0, len(line)) == own


def resumed_into(native_id: str, main: Path, ctx: ScanContext, *, gone: bool) -> list[str]:
    """The other transcripts of ``main``'s folder that copied ``native_id``'s records, by
    name: those whose head names it (``resumedfiles.resumed_as``), and, ``gone`` (``main`` is
    where its transcript was), every other one whose copies name it: in a chain A → B → C
    whose C's head names A, C holds gone B's conversation (B's card named none, and its runs'
    kinds were not looked for there).  A found B names C too, whose copies end with B's
    (``continuations.continued_by``: before, its card named no later session)."""
    from agentscan.providers.claude.continuations import continued_by
    from agentscan.providers.claude.resumedfiles import resumed_as, resumed_paths

    found = resumed_as(native_id, main, ctx)
    if not gone:
        return sorted({*found, *continued_by(native_id, main, ctx)})
    later = resumed_paths(native_id, main, ctx, every=True)  # (its project's folder under every root)
    for other in sorted(later):
        if other not in found:
            head = remembered_head(later[other], other, ctx)
            if head is not None and native_id in head[0]:
                found.append(other)
    return sorted(found)
