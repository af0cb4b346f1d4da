"""A rollout's identity and metadata from a bounded read of its first lines.

A rollout can hold several ``session_meta`` lines: a fork or a subagent
copies its parent's items, parent meta included.  The file's own meta is the
one whose id equals the uuid in the file name (Codex matches
``meta.id == thread_id`` the same way), except in a later segment of a
``history_mode: paginated`` thread: its name carries the segment's own
rollout id, and its first meta names the thread it continues and the
segment it builds on (``history_base``).  At most ``HEADER_BYTES`` are read,
except that a first ``session_meta`` line is read whole up to
``META_LINE_BYTES``: its ``base_instructions`` and ``dynamic_tools`` can push
it past 64 KiB, and without it we would not know the thread's parent.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import orjson
from cachetools import LRUCache

from agentscan.context import EMPTY_FILE, ScanContext
from agentscan.toolkit.jsonl import BOM, HEAD_BUFFER, open_binary
from agentscan.toolkit.boundedstreams import cut_short
from agentscan.toolkit.zstdframes import CUT_SHORT, CutShort, say_cut_short
from agentscan.toolkit import laxjson
from agentscan.toolkit.jsonerrors import short_json_error
from agentscan.toolkit.jsonkinds import json_kind
if TYPE_CHECKING:
    from agentscan.providers.codex.discovery import Thread

from agentscan.providers.codex.records import RawSessionMeta, ThreadLink, as_dict, as_str, link_of, time_value

HEADER_BYTES = 64 * 1024
META_LINE_BYTES = 1024 * 1024
_CACHE: LRUCache[tuple[str, int, int], RolloutHeader] = LRUCache(maxsize=4096)


class RolloutHeader(NamedTuple):
    """A rollout's own metadata, from its head (a named tuple: see ``cli.term.Terminal``)."""

    thread_id: str | None  # the own meta's id (None when no meta was found)
    started_at: datetime | None = None
    cwd: str | None = None
    git_branch: str | None = None
    link: ThreadLink = ThreadLink()
    found_own_meta: bool = False
    #: a paginated segment's base: (the base segment's rollout id, the byte
    #: offset where the part of it this segment continues ends)
    history_base: tuple[str, int] | None = None
    #: the first line of the head that was no record, and why (``line 1: invalid JSON (depth
    #: limit exceeded at column 1026)``): said when no meta of the file's own was found
    skipped: str | None = None
    #: a subagent's ``subagent_history_start_ordinal``: the ``ordinal`` of the first line of its
    #: own history, the lines below it a copy of its parent's (``callscan._by_ordinal``)
    history_start: int | None = None


def meta_of(record: object) -> RawSessionMeta | None:
    if not isinstance(record, dict):
        return None
    if record.get("type") == "session_meta":
        return as_dict(record.get("payload"))  # type: ignore[return-value]
    # Mid-2025 builds wrote a bare header line: {"id", "timestamp", "instructions", …}.
    if "type" not in record and "payload" not in record and isinstance(record.get("id"), str) and "timestamp" in record:
        return record  # type: ignore[return-value]
    return None


def _history_base(meta: RawSessionMeta) -> tuple[str, int] | None:
    base = as_dict(meta.get("history_base"))
    rollout = as_str(base.get("thread_id")) or as_str(base.get("rollout_id"))
    offset = base.get("end_byte_offset")
    if rollout is None:
        return None
    return rollout.lower(), offset if isinstance(offset, int) and not isinstance(offset, bool) and offset > 0 else 0


def _header_from(meta: RawSessionMeta, line_timestamp: object, own: bool) -> RolloutHeader:
    git = as_dict(meta.get("git"))
    return RolloutHeader(
        thread_id=as_str(meta.get("id")) or as_str(meta.get("session_id")),
        started_at=time_value(meta.get("timestamp")) or time_value(line_timestamp),
        cwd=as_str(meta.get("cwd")),
        git_branch=as_str(git.get("branch")),
        link=link_of(meta),
        found_own_meta=own,
        history_base=_history_base(meta),
        history_start=_history_start(meta),
    )


def _history_start(meta: RawSessionMeta) -> int | None:
    start = meta.get("subagent_history_start_ordinal")
    return start if start.__class__ is int and start >= 0 else None  # type: ignore[operator,return-value]


def _scan(path: Path, expected_id: str | None) -> RolloutHeader:
    first: RolloutHeader | None = None
    skipped: str | None = None
    used = number = 0
    with open_binary(path, HEAD_BUFFER) as handle:
        while used < HEADER_BYTES:
            limit = META_LINE_BYTES if used == 0 else HEADER_BYTES - used
            line = handle.readline(limit)
            if not line:
                if first is None and cut_short(handle):  # a ``.zst`` file cut before any meta
                    raise CutShort(CUT_SHORT)
                break
            if used == 0 and line.startswith(BOM):
                line = line[len(BOM):]
            used += len(line)
            number += 1
            if not line.endswith(b"\n") and used >= HEADER_BYTES:
                break  # cut by the budget: not a line we can parse
            try:
                record = laxjson.loads(line)
            except orjson.JSONDecodeError as exc:
                # Full passes report bad lines with their numbers; the first is kept to say why
                # no meta was found, when none is (a meta line nested too deep).
                if skipped is None and line.strip():
                    skipped = f"line {number}: invalid JSON ({short_json_error(exc, line)})"
                continue
            if skipped is None and not isinstance(record, dict):
                skipped = f"line {number}: JSON line is {json_kind(record)}, not an object"
            meta = meta_of(record)
            if meta is None:
                continue
            meta_id = as_str(meta.get("id")) or as_str(meta.get("session_id"))
            if expected_id is None or meta_id == expected_id:
                return _header_from(meta, record.get("timestamp"), own=True)
            if first is None and meta_id and _history_base(meta) is not None:
                # A later segment of a paginated thread: it is that thread's own.
                return _header_from(meta, record.get("timestamp"), own=True)
            if first is None:
                first = _header_from(meta, record.get("timestamp"), own=False)
    if first is not None:
        # A meta that is not the file's own (a parent copy) lends only harmless fields.
        return RolloutHeader(thread_id=None, cwd=first.cwd, git_branch=first.git_branch, skipped=skipped)
    return RolloutHeader(thread_id=None, skipped=skipped)


def _to_fact(header: RolloutHeader, expected_id: str | None) -> dict:
    link = header.link
    return {"e": expected_id, "t": header.thread_id, "s": header.started_at.isoformat() if header.started_at else None,
            "c": header.cwd, "b": header.git_branch, "o": header.found_own_meta,
            "l": [link.spawn_parent, link.forked_from, link.agent_type, link.subagent],
            "h": list(header.history_base) if header.history_base else None, "k": header.skipped,
            "a": header.history_start}


def _from_fact(fact: object, expected_id: str | None) -> RolloutHeader | None:
    """A remembered header, or ``None`` when it is for another id or ill-shaped."""
    if not isinstance(fact, dict) or fact.get("e") != expected_id:
        return None
    try:
        strings = [fact["t"], fact["c"], fact["b"], *fact["l"][:3]]
        if not all(value is None or isinstance(value, str) for value in strings) or len(fact["l"]) != 4:
            return None
        # A fact without "h" is from before segments were joined: read the head again.
        base = fact["h"]
        if base is not None and not (len(base) == 2 and isinstance(base[0], str) and type(base[1]) is int):
            return None
        # A fact without "k" is from before the head's skipped line was kept: read it again
        # when it found no meta of its own (the warning says why), else none is wanted.
        skipped = fact["k"] if fact["o"] is not True else fact.get("k")
        if skipped is not None and not isinstance(skipped, str):
            return None
        started = datetime.fromisoformat(fact["s"]) if fact["s"] is not None else None
        link = ThreadLink(fact["l"][0], fact["l"][1], fact["l"][2], fact["l"][3] is True)
        # A fact without "a" is from before a subagent's history start was kept: read the head
        # of a thread that copied a history again (no other thread's meta has one).
        if "a" not in fact and link.replays_history:
            return None
        start = fact.get("a")
        if start is not None and not (type(start) is int and start >= 0):
            return None
        return RolloutHeader(fact["t"], started, fact["c"], fact["b"], link, fact["o"] is True,
                             (base[0], base[1]) if base is not None else None, skipped, start)
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def read_header(path: Path, ctx: ScanContext, expected_id: str | None, stat: os.stat_result | None = None,
                *, quiet: bool = False) -> RolloutHeader:
    """The rollout's own metadata; ``expected_id`` is the uuid from its file name.

    Remembered across runs until the file changes, so a warm discovery reads
    no rollout head.  ``quiet``: what the file lacks (it is empty, it holds no meta of
    its own: ``found_own_meta`` is false) is not said, the caller's passes say it; what
    could not be read this time is said all the same.
    """
    if stat is None:
        try:
            stat = path.stat()
        except OSError as exc:
            ctx.cannot_read(path, exc)
            return RolloutHeader(thread_id=None)
    if stat.st_size == 0:
        if not quiet:
            ctx.warn(path, EMPTY_FILE)
        return RolloutHeader(thread_id=None)
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    facts = ctx.remembered("codex.header/2")  # /2: read by laxjson (a lone surrogate)
    header = _CACHE.get(key) or _from_fact(facts.get(key[0], stat), expected_id)
    if header is None:
        try:
            header = _scan(path, expected_id)
        except CutShort:  # (as the passes say it: not ``passing``, the bytes stay as they are)
            say_cut_short(path, ctx, 1)
            return RolloutHeader(thread_id=None)
        except Exception as exc:  # OSError; zstandard raises its own error type on corrupt frames
            ctx.cannot_read(path, exc)
            return RolloutHeader(thread_id=None)
        facts.put(key[0], stat, _to_fact(header, expected_id))
    _CACHE[key] = header
    if not header.found_own_meta and not quiet:
        ctx.warn(path, no_meta_message(header, expected_id))
    return header


def no_meta_message(header: RolloutHeader, expected_id: str | None) -> str:
    """What a rollout whose head holds no meta of its own is warned with: the first line
    it could not read, when there was one (a meta nested too deep is that, not missing)."""
    budget = f"in the first {HEADER_BYTES // 1024} KiB"
    why = f" ({header.skipped})" if header.skipped else ""
    # What follows the colon is the next step: Codex writes a rollout's meta as its first
    # line, so a head without one was cut, rewritten, or is not a rollout Codex wrote.
    look = "look at the file's first line: Codex writes the meta there"
    if expected_id:
        return (f"no session_meta with id {expected_id} {budget}{why}: listed by the id in its name, "
                f"without its start, working directory, branch or parent thread; {look}")
    return f"no session_meta {budget}{why} and no id in the file name: skipped; {look}"


def thread_header(thread: Thread, ctx: ScanContext) -> RolloutHeader:
    """A thread's header: the one discovery read, else read now (remembered by ``read_header``)."""
    return thread.header or read_header(thread.rollout.path, ctx, thread.thread_id)


def by_reference(thread: Thread, header: RolloutHeader) -> bool:
    """Whether ``thread`` is one file that references the history it continues (``history_base``:
    a fork of 0.158 and later, a segment whose earlier files are gone) rather than copying it:
    no line of it is a copy's, and its running totals count on from that history's."""
    return not thread.segments and header.history_base is not None


def first_file_reading(thread: Thread, header: RolloutHeader, path: Path) -> tuple[bool, bool]:
    """How ``path``, a file of ``thread``, is read for its calls: ``(replay, referenced)``.
    Only a thread's first file can begin with a copied history (``replay``), and not one that
    references it (``by_reference``: its own calls were taken for a copy's)."""
    referenced = path == thread.first.path and by_reference(thread, header)
    return header.link.replays_history and path == thread.first.path and not referenced, referenced
