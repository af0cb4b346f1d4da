"""How a line of the events store reads back: an envelope (``HookEvent``), or why not.

Apart from ``store`` (where the lines are, how they are written and listed), which the hook's
hot path imports: this half decodes (orjson, ``sanitize``) and is read by ``trace``, ``otlp``
and the live sender's tail (``otlp.livetail``) alike.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from agentscan.hooks.store import StoredSession

#: how ``agentscan hook`` starts every line it writes (``payloads.encode_line``)
WRITTEN_START = b'{"v":1,"received_at_ns":'

def line_decoder(session: StoredSession) -> Callable[[bytes, int, list[Any]], Any]:
    """How ``read_events`` takes line ``number`` of ``session``'s file: its ``HookEvent``, or
    ``None`` (a blank line, a bad one: its warning appended, another session's envelope)."""
    from agentscan.hooks.model import HookEvent
    from agentscan.model import ScanWarning

    own_id = legible(session.session_id)  # as the envelopes' ids are read (``envelope_reader``)
    envelope_of = envelope_reader()

    def decode(line: bytes, number: int, warnings: list[Any]) -> Any:
        if not line.strip():
            return None
        record, problem = envelope_of(line)
        glued = line.rfind(WRITTEN_START, 1) if problem is not None else -1
        if glued > 0 and envelope_of(line[glued:])[1] is None:
            # A writer stopped mid-line (a full disk, a kill) and an older hook, which did not
            # start its line anew (``append_line``), wrote the next event right after it.
            warnings.append(ScanWarning(session.path, CUT_SHORT + "; the event written after it on the "
                                        "same line was read", number))
            record, problem = envelope_of(line[glued:])
        elif problem is not None and line.startswith(WRITTEN_START):
            problem = CUT_SHORT  # the hook's own start, then no valid end: its writer stopped
        if problem is not None:
            # A last line with no newline yet is one a hook is appending now: no fault.
            if line.endswith(b"\n"):
                warnings.append(ScanWarning(session.path, problem, number))
            return None
        event = event_of(record, number, session, HookEvent)
        return event if event.session_id in (None, own_id) else None

    return decode


#: the warning for a line the hook began and did not finish (``read_events``)
CUT_SHORT = "a line cut short (its hook stopped while writing it: a full disk, or the process killed) was skipped"


def envelope_reader() -> Callable[[bytes], tuple[Any, str | None]]:
    """How ``read_events`` takes one stored line: ``(record, None)`` for an envelope (within
    the capture bounds), else ``(None, why not)``.  Imported once, not once a line."""
    import json

    import orjson

    from agentscan.hooks.sanitize import sanitize

    def envelope_of(line: bytes) -> tuple[Any, str | None]:
        try:
            record = orjson.loads(line)
            repair = False
        except orjson.JSONDecodeError:
            try:  # NaN, a huge integer or a lone surrogate ("\ud800"): valid for Python's json, not orjson
                record = json.loads(line)
            except ValueError:
                return None, "not a JSON envelope"
            except RecursionError:
                return None, "envelope nested too deep to read; skipped"
            repair = True
        # Stored by an older agentscan, or by hand: the capture bounds hold again here.
        record = sanitize(record)
        if repair:
            record = _legible(record)
        if not is_envelope(record):
            return None, "envelope without payload or time"
        return record, None

    return envelope_of


def is_envelope(record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    stamp = record.get("received_at_ns")
    return isinstance(record.get("payload"), dict) and isinstance(stamp, int) and not isinstance(stamp, bool)


#: a UTF-16 surrogate: in a decoded JSON string, one that a ``\ud83d`` escape left with no partner
_SURROGATE = re.compile("[\ud800-\udfff]")


def legible(text: str) -> str:
    """``text`` as valid UTF-8: each lone surrogate (a cut emoji's ``\\ud83d``) one U+FFFD, as a
    JSON reader that takes it shows it.  Not ``fsview.legible``, which is for a file name's
    undecodable bytes, one U+FFFD a byte: it gave three for one surrogate."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)


def _legible(value: Any) -> Any:
    """``value`` with every string valid UTF-8: a lone surrogate, which the store keeps as the
    agent sent it, becomes U+FFFD (``legible``), so that no terminal or JSON writer fails on it.
    ``value`` is within ``sanitize``'s depth bound."""
    if isinstance(value, str):
        return legible(value)
    if isinstance(value, dict):
        return {legible(key): _legible(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_legible(item) for item in value]
    return value


def event_of(record: Any, number: int, session: StoredSession, factory: Any) -> Any:
    """The ``HookEvent`` of an envelope (``_is_envelope``)."""
    payload, stamp = record["payload"], record["received_at_ns"]

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) and value else None

    return factory(
        seq=number,
        received_at_ns=stamp,
        agent=text(record.get("agent")) or session.agent,
        name=text(record.get("event")) or text(payload.get("hook_event_name")) or "",
        session_id=text(record.get("session_id")),
        turn_id=text(record.get("turn_id")),
        payload=payload,
        via=text(record.get("via")),
    )
