"""One session's usage as the index keeps it: token sums by group, and key hashes.

``sums_of`` groups a session's calls by subagent, model, quarter hour,
input-size class and origin (enough to price each group exactly, see
``agentscan.pricing``); ``key_hashes`` keeps 8 bytes per keyed call, so that
sessions whose calls may be shared can be found without decoding any call
(``scan.sharing``).  ``parse_session`` makes both from a provider's parse.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Iterable

import orjson

from agentscan.model import (
    CACHE_READ,
    CACHE_WRITE,
    CACHE_WRITE_1H,
    INPUT,
    KEY,
    MODEL,
    ORIGIN,
    OUTPUT,
    REASONING,
    SUBAGENT,
    TS,
    WEB_SEARCHES,
    ScanWarning,
    SessionRef,
)
from agentscan.sealing import seal, unseal_json
from agentscan.sharedcalls import PARTIAL_KEYS, sharing_part
from agentscan.usagegroups import BUCKET, GROUP_WIDTH, TIER_BOUNDS
from agentscan.digests import blake2b
from agentscan.warningsink import CAPTURE_LIMIT

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.base import Provider

#: the token fields a group sums, in ``UsageEntry.pack`` positions
SUMMED = (INPUT, CACHE_READ, CACHE_WRITE, OUTPUT, REASONING)


class SessionSums:
    """One session's token sums: ``groups`` (see ``GROUP_WIDTH``).

    ``bucket`` is the quarter hour (epoch seconds) the calls were made in,
    ``None`` for calls without a time; the tier class is
    ``bisect_left(TIER_BOUNDS, total input)``.  No groups: the session
    recorded no usage.
    """

    __slots__ = ("groups", "warnings", "more", "price_keys", "passing")

    def __init__(self, groups: list[list], warnings: list[ScanWarning], *, passing: bool = False,
                 more: list | None = None) -> None:
        self.groups = groups
        self.warnings = warnings
        #: ``[path, count, last line]`` of the warnings past those kept (``Captured.more``)
        self.more = more
        #: each group's price key, once a report has worked them out (not stored)
        self.price_keys: list[int | None] | None = None
        #: a parse that could not read everything *this time*: right for this run,
        #: never stored (the next run parses again)
        self.passing = passing

    def to_bytes(self) -> bytes:
        return seal(orjson.dumps(self.document()))

    def document(self) -> list:
        """``[groups, warnings]``, and the count past them when there may be one (``stored_more``)."""
        warnings = [w.to_json() for w in self.warnings]
        return [self.groups, warnings, self.more or []] if self.more or len(warnings) >= CAPTURE_LIMIT \
            else [self.groups, warnings]

    def say(self, ctx: ScanContext, *, passing: bool = False) -> None:
        """Say again the warnings its parse said (each file's past those kept as a count, in its
        place: ``WarningSink.say_again``)."""
        ctx.warnings.say_again(((warning.path, warning.message, warning.line) for warning in self.warnings),
                               self.more, passing=passing)

    @classmethod
    def from_bytes(cls, data: object) -> SessionSums | None:
        """Decode a cached value; ``None`` (a miss) when it is damaged or ill-shaped.

        The seal's CRC finds damage, so the checks here are only of the shape
        (a warm run decodes one of these per session).
        """
        document = unseal_json(data)
        try:
            groups, warnings, more = stored_more(document)
            width = GROUP_WIDTH
            if type(groups) is not list or not all(type(group) is list and len(group) == width for group in groups):
                return None
            return cls(groups, [warning_from(item) for item in warnings] if warnings else [], more=more)
        except (TypeError, ValueError, KeyError):
            return None


def stored_more(document: object) -> tuple[list, list, list | None]:
    """``SessionSums.document``'s parts (``ValueError``: not one).  Kept before the count past
    them was, as many warnings as a parse keeps may have left some out: read again."""
    if type(document) is not list or len(document) not in (2, 3):
        raise ValueError("bad sums")
    if len(document) == 2:
        if document[1] and len(document[1]) >= CAPTURE_LIMIT:
            raise ValueError("sums of an older index")
        return document[0], document[1], None
    more = document[2]
    if type(more) is not list or not all(type(item) is list and len(item) == 3 and type(item[0]) is str
                                         and type(item[1]) is int and type(item[2]) is int for item in more):
        raise ValueError("bad count")
    return document[0], document[1], more or None


def warning_from(item: object) -> ScanWarning:
    """A warning as ``ScanWarning.to_json`` wrote it (``ValueError``: it is not one)."""
    if not isinstance(item, dict):
        raise ValueError("bad warning")
    path, message, line = item["path"], item["message"], item.get("line")
    if not isinstance(path, str) or not isinstance(message, str) or not (line is None or type(line) is int):
        raise ValueError("bad warning")
    return ScanWarning(path, message, line)


def sums_of(entries: Iterable[list]) -> list[list]:
    groups: dict[tuple, list] = {}
    for entry in entries:
        ts = entry[TS]
        total_input = entry[INPUT] + entry[CACHE_READ] + entry[CACHE_WRITE]
        key = (entry[SUBAGENT], entry[MODEL], None if ts is None else int(ts // BUCKET) * BUCKET,
               bisect_left(TIER_BOUNDS, total_input), entry[ORIGIN] if len(entry) > ORIGIN else None)
        sums = groups.get(key)
        if sums is None:
            sums = groups[key] = [*key, 0, 0, 0, 0, 0, 0, 0, 0]
        sums[5] += entry[INPUT]
        sums[6] += entry[CACHE_READ]
        sums[7] += entry[CACHE_WRITE]
        sums[8] += entry[OUTPUT]
        sums[9] += entry[REASONING]
        sums[10] += 1
        sums[11] += entry[CACHE_WRITE_1H]
        sums[12] += entry[WEB_SEARCHES]
    return list(groups.values())


def tier_range(tier: int) -> tuple[int, int | None]:
    """The total inputs of a tier class: ``(lowest, above-the-highest)``, ``None`` for no end."""
    low = TIER_BOUNDS[tier - 1] + 1 if tier > 0 else 0
    return low, (TIER_BOUNDS[tier] + 1 if tier < len(TIER_BOUNDS) else None)


def sums_and_keys(entries: Iterable[list], keep: bool, provider: str) -> tuple[list[list], bytes, list[list] | None]:
    """``sums_of``, ``key_hashes`` and (``keep``) the entries, in one pass over an iterable:
    a 1 GB transcript's calls need not be held twice."""
    partial = provider in PARTIAL_KEYS
    kept: list[list] | None = [] if keep else None
    hashes: list[bytes] = []
    def walk() -> Iterable[list]:
        for entry in entries:
            if kept is not None:
                kept.append(entry)
            key = entry[KEY]
            if key is not None:
                if partial:
                    key = sharing_part(key, provider)
                hashes.append(blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest())
            yield entry

    groups = sums_of(walk())
    return groups, seal(b"".join(hashes)), kept


def key_hashes(entries: Iterable[list], provider: str) -> bytes:
    """8 bytes per keyed call, sealed: a filter for sharing (a collision only costs a decode),
    of the part of its key every copy of the call has (``sharedcalls.sharing_part``)."""
    return seal(b"".join(blake2b(sharing_part(entry[KEY], provider).encode("utf-8", "surrogatepass"), digest_size=8).digest()
                         for entry in entries if entry[KEY] is not None))


class Parsed:
    """A session parsed this run: what the index keeps, and its calls while they are at hand
    (``entries``; or ``calls``: only as the index keeps them, sealed where they were parsed)."""

    __slots__ = ("sums", "keys", "state", "entries", "calls")

    def __init__(self, sums: SessionSums, keys: bytes, state: bytes | None, entries: list[list] | None) -> None:
        self.sums, self.keys, self.state, self.entries = sums, keys, state, entries
        self.calls: bytes | None = None


def parse_session(provider: Provider, ref: SessionRef, ctx: ScanContext, resume: bytes | None, keep_state: bool,
                  keep_entries: bool) -> Parsed:
    """One session's packed entries, sums and key hashes, with the warnings its parse raised."""
    # (Each file's listed warnings kept whole: a capture full of one file's would lose
    # another's, and the sums are stored with these.)
    with ctx.warnings.capture(whole_files=True) as warnings:
        try:
            # Sums alone need no call's first and last times (only ``otlp``'s spans, from entries).
            entries, state = provider.session_usage(ref, ctx, resume, keep_state=keep_state, call_times=keep_entries)
            groups, keys, kept = sums_and_keys(entries, keep_entries, provider.name)
        except Exception as exc:  # noqa: BLE001 - a provider bug costs one session, not the command
            from agentscan.context import internal_error

            internal_error(ctx, ref, exc)
            groups, keys, kept, state = [], seal(b""), ([] if keep_entries else None), None
    passing = warnings.passing
    return Parsed(SessionSums(groups, list(warnings), passing=passing, more=warnings.more_list()), keys,
                  None if passing else state, kept)
