"""The model a rollout's last 1 MiB begins on: that of the last ``turn_context`` before it.

``list`` reads only the last 1 MiB of a larger rollout (``headtail``), and a call
runs on the model of the latest ``turn_context`` (``callscan``).  One long turn (a
``turn_context``, then hundreds of tool calls) fills the window with calls whose turn
began before it: those calls had no model, and the row said MODEL ``-`` (or the model
of a short turn after them) until a whole pass (``tokens``, ``show``) had read the
file.  A window with calls before its first ``turn_context`` is read again
from the model of the last ``turn_context`` before it, found by searching the bytes
backwards (at most ``MAX_BACK_BYTES``) and decoding only the lines found: the model
each of those calls ran on, as a whole pass gives it.  A rollout of no ``turn_context`` before
the window (Codex 0.146+ names the thread's model in ``thread_settings_applied`` first) is read
from the model the latest settings record before it names, as a whole pass reads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, NamedTuple

from agentscan.pricing.aliases import recorded_tier

from agentscan.providers.codex.records import as_str, enveloped, payload_of
from agentscan.toolkit import jsonl
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonl import line_record

#: how far before the window a ``turn_context`` is looked for (a longer turn keeps ``-``
#: until a whole pass: a first ``list`` of a heavy user's newest sessions reads no gigabytes)
MAX_BACK_BYTES = 32 * 1024 * 1024
#: read backwards this much at a time
_BLOCK = 1024 * 1024
#: a record's type, spelled as Codex writes it (an escaped spelling is no record's own type)
_MARKER = b'"turn_context"'
#: the thread's settings event's type (``callscan.FileUsageScanner.feed``)
_SETTINGS = b'"thread_settings_applied"'
_SEAM = max(len(_MARKER), len(_SETTINGS)) - 1


class Seed(NamedTuple):
    """What the calls at a window's start ran on (``FileUsageScanner.resume``'s ``model``,
    ``settings`` and ``tier``)."""

    turn: str | None = None  # the last ``turn_context``'s model
    settings: str | None = None  # the last settings record's after it (or, with none, of all)
    tier: str | None = None  # the tier the nearest record that names one names (standard: ``None``)


def model_before(path: Path, end: int) -> Seed:
    """The model of the last ``turn_context`` record that names one, before byte ``end`` of
    ``path`` (a line's start) and within ``MAX_BACK_BYTES`` of it, that of the last
    ``thread_settings_applied`` after it (of the last before ``end`` when no ``turn_context``
    is found), and the tier of the nearest of them that says one.  ``Seed()``: none found."""
    settings: str | None = None
    tier: object = _UNSAID
    try:
        with open_regular(path) as handle:
            floor = max(0, end - MAX_BACK_BYTES)
            position, after = end, b""
            while position > floor:
                start = max(floor, position - _BLOCK)
                handle.seek(start)
                block = handle.read(position - start)
                if len(block) < position - start:
                    return Seed()  # cut meanwhile
                # A marker may run across the blocks' seam: the next block's first bytes join.
                searched = block + after
                for at in _markers(searched, settings is None):
                    kind, found, said = _model_at(handle, start + at)
                    if found is None:
                        continue
                    if tier is _UNSAID:
                        tier = said
                    if kind == "turn_context":
                        return Seed(found, settings, _tier(tier))
                    if settings is None:  # the latest settings (a turn_context further back names the turn's)
                        settings = found
                after = block[:_SEAM]
                position = start
    except OSError:
        pass
    return Seed(None, settings, _tier(tier))


#: a ``turn_context`` that says no tier (``_model_at``): the one before it, not read, did
_UNSAID = object()


def _tier(said: object) -> str | None:
    return None if said is _UNSAID else recorded_tier(said)


def _markers(searched: bytes, settings: bool) -> list[int]:
    """Where a ``turn_context`` marker (and, ``settings``, a settings one) stands in
    ``searched``, last first."""
    found = []
    for marker in (_MARKER, _SETTINGS) if settings else (_MARKER,):
        at = searched.rfind(marker)
        while at >= 0:
            found.append(at)
            at = searched.rfind(marker, 0, at)
    return sorted(found, reverse=True)


def _model_at(handle: BinaryIO, offset: int) -> tuple[str | None, str | None, object]:
    """The type (``turn_context`` or ``thread_settings_applied``), model and ``service_tier``
    (``_UNSAID``: none written) of the record whose line holds byte ``offset``, if the line is
    one (and not a mention nested in another record); ``(None, None, _UNSAID)`` otherwise."""
    line_start = line_start_of(handle, offset)
    if line_start is None:
        return None, None, _UNSAID
    handle.seek(line_start)
    line = handle.readline(jsonl.MAX_LINE_BYTES + 2)
    decoded = line_record(line.rstrip(b"\r\n"), first=line_start == 0)
    if decoded is None:
        return None, None, _UNSAID
    record = enveloped(decoded)
    kind = record.get("type")
    payload = payload_of(record)
    if kind == "turn_context":
        return "turn_context", as_str(payload.get("model")), payload.get("service_tier", _UNSAID)
    if kind == "event_msg" and payload.get("type") == "thread_settings_applied":
        settings = payload.get("thread_settings")
        if isinstance(settings, dict):
            # (the whole settings: one without a tier is the standard tier, ``callscan.feed``)
            return "thread_settings_applied", as_str(settings.get("model")), settings.get("service_tier")
    return None, None, _UNSAID


def line_start_of(handle: BinaryIO, offset: int) -> int | None:
    """Where the line holding byte ``offset`` starts; ``None`` past a line the pass would skip."""
    position = offset
    while position > 0:
        start = max(0, position - 64 * 1024)
        handle.seek(start)
        block = handle.read(position - start)
        newline = block.rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        if offset - start > jsonl.MAX_LINE_BYTES:
            return None
        position = start
    return 0
