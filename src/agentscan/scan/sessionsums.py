"""One session's usage as the index keeps it: token sums by group, and key hashes.

``sums_of`` groups a session's calls by subagent, model, quarter hour,
input-size class and origin (enough to price each group exactly, see
``agentscan.pricing``); ``key_hashes`` keeps 8 bytes per keyed call, so that
sessions whose calls may be shared can be found without decoding any call
(``scan.sharing``).  ``parse_session`` makes both from a provider's parse.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any, Iterable, Sequence

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
from agentscan.toldwarnings import Counted, Told, counts_any, told_from_json, told_json, warning_of
from agentscan.warningjson import warning_json
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

    __slots__ = ("groups", "told", "price_keys", "passing")

    def __init__(self, groups: list[list], told: Sequence[Told] = (), *, passing: bool = False) -> None:
        self.groups = groups
        #: the warnings its parse said, each file's count past those kept in its place (``toldwarnings``)
        self.told = told
        #: each group's price key, once a report has worked them out (not stored)
        self.price_keys: list[int | None] | None = None
        #: a parse that could not read everything *this time*: right for this run,
        #: never stored (the next run parses again)
        self.passing = passing

    @property
    def said(self) -> bool:
        """Some warning is kept (a file's count past them aside: ``counted``)."""
        return any(type(item) is not Counted for item in self.told)

    @property
    def warnings(self) -> list[ScanWarning]:
        """The warnings kept, made each time (``said``, ``warnings_json``: without them)."""
        return [ScanWarning(*item[:3]) for item in self.told if type(item) is not Counted]

    def warnings_json(self) -> list[dict[str, Any]]:
        """The warnings kept, as ``--json`` writes each (a file's count past them aside)."""
        return [warning_json(*item[:3]) for item in self.told if type(item) is not Counted]

    @property
    def counted(self) -> bool:
        """Some file's warnings past those kept are kept as a count."""
        return counts_any(self.told)

    def to_bytes(self) -> bytes:
        return seal(orjson.dumps(self.document()))

    def document(self) -> list:
        """``[groups, warnings]``; ``[groups, warnings, TOLD]`` when a count is among them or they
        are as many as a parse keeps (``stored_told``)."""
        told = told_json(self.told)
        return [self.groups, told, TOLD] if len(told) >= CAPTURE_LIMIT or self.counted else [self.groups, told]

    def say(self, ctx: ScanContext, *, passing: bool = False) -> None:
        """Say again the warnings its parse said (each file's past those kept as a count, in its
        place: ``WarningSink.say_again``)."""
        ctx.warnings.say_again(self.told, passing=passing)

    @classmethod
    def from_bytes(cls, data: object) -> SessionSums | None:
        """Decode a cached value; ``None`` (a miss) when it is damaged or ill-shaped.

        The seal's CRC finds damage, so the checks here are only of the shape
        (a warm run decodes one of these per session).
        """
        document = unseal_json(data)
        try:
            groups, told = stored_told(document)
            width = GROUP_WIDTH
            if type(groups) is not list or not all(type(group) is list and len(group) == width for group in groups):
                return None
            return cls(groups, told)
        except (TypeError, ValueError, KeyError):
            return None


#: the third part of ``SessionSums.document`` when its warnings may hold a count: the counts in
#: their place (``toldwarnings``); those of an older index (a list of counts after them all,
#: or none) are read again
TOLD = 1


def stored_told(document: object) -> tuple[list, list[Told]]:
    """``SessionSums.document``'s groups and warnings (``ValueError``: not one).  Two parts of
    as many warnings as a parse keeps (kept before any count past them was) or of a count (not
    so written) are not: read again."""
    if type(document) is not list or len(document) not in (2, 3):
        raise ValueError("bad sums")
    if len(document) == 3 and (type(document[2]) is not int or document[2] != TOLD):
        raise ValueError("sums of an older index")
    told = told_from_json(document[1]) if document[1] else []
    if len(document) == 2 and (len(told) >= CAPTURE_LIMIT or counts_any(told)):
        raise ValueError("sums of an older index")
    return document[0], told


def warning_from(item: object) -> ScanWarning:
    """A warning as ``ScanWarning.to_json`` wrote it (``ValueError``: it is not one)."""
    return ScanWarning(*warning_of(item))


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
    return Parsed(SessionSums(groups, warnings.told(), passing=passing), keys,
                  None if passing else state, kept)
