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

from typing import BinaryIO, NamedTuple

from agentscan.pricing.aliases import recorded_tier

from agentscan.providers.codex.records import as_str, enveloped, payload_of
from agentscan.providers.codex.seedwalk import MAX_BACK_BYTES as MAX_BACK_BYTES
from agentscan.toolkit import jsonl
from agentscan.toolkit.jsonl import line_record
from agentscan.toolkit.markedlines import MarkedLines

#: a record's type, spelled as Codex writes it (an escaped spelling is no record's own type)
_MARKER = b'"turn_context"'
#: the thread's settings event's type (``callscan.FileUsageScanner.feed``)
_SETTINGS = b'"thread_settings_applied"'


class Seed(NamedTuple):
    """What the calls at a window's start ran on (``FileUsageScanner.resume``'s ``model``,
    ``settings`` and ``tier``)."""

    turn: str | None = None  # the last ``turn_context``'s model
    settings: str | None = None  # the last settings record's after it (or, with none, of all)
    tier: str | None = None  # the tier the nearest record that names one names (standard: ``None``)


class ModelSearch:
    """The model of the last ``turn_context`` record that names one, before the walk's byte (a
    line's start) and within ``MAX_BACK_BYTES`` of it, that of the last
    ``thread_settings_applied`` after it (of the last before it when no ``turn_context``
    is found), and the tier of the nearest of them that says one.  One of ``walk_back``'s
    searches: its ``seed`` once done (``Seed()``: none found)."""

    markers: tuple[bytes, ...] = (_MARKER, _SETTINGS)

    def __init__(self) -> None:
        self.seed = Seed()
        self._settings: str | None = None
        self._tier: object = _UNSAID
        self._line = -1  # the line last read (one holding both markers is read once)

    def take(self, handle: BinaryIO, line: int, marker: bytes, walk: MarkedLines) -> bool:
        if line == self._line or (marker == _SETTINGS and self._settings is not None):
            return False  # (the latest settings found: a turn_context further back names the turn's)
        self._line = line
        kind, found, said = _model_at(handle, line)
        if found is None:
            return False
        if self._tier is _UNSAID:
            self._tier = said
        if kind == "turn_context":
            self.seed = Seed(found, self._settings, _tier(self._tier))
            return True
        if self._settings is None:
            self._settings = found
        return False

    def ended(self, walk: MarkedLines) -> None:
        self.failed()

    def cut(self) -> None:
        self.seed = Seed()

    def failed(self) -> None:
        self.seed = Seed(None, self._settings, _tier(self._tier))


#: a ``turn_context`` that says no tier (``_model_at``): the one before it, not read, did
_UNSAID = object()


def _tier(said: object) -> str | None:
    return None if said is _UNSAID else recorded_tier(said)


def _model_at(handle: BinaryIO, line_start: int) -> tuple[str | None, str | None, object]:
    """The type (``turn_context`` or ``thread_settings_applied``), model and ``service_tier``
    (``_UNSAID``: none written) of the record on the line at ``line_start``, if the line is one
    (and not a mention nested in another record); ``(None, None, _UNSAID)`` otherwise."""
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
