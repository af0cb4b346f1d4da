"""Second deliveries of one hook event, counted once.

When agentscan is registered twice (user and project settings, or Cursor
reading Claude's settings too) the agent runs it twice per event and the
store holds every event twice.  Counted twice, each request would meet two
identical completions and orphan them, and every call would be listed twice.

The rule is deliberately simple: an event whose name and payload are exactly
those of an event of the same session captured less than ``WINDOW_NS`` before
it is the same event delivered again.  The window keeps a genuine repeat
apart: the same thing done again comes after a model call, seconds later.
One more condition for Cursor's ``before…`` shell and MCP hooks, which carry
no id and whose payload a retried command repeats exactly: the copy counts
once only while its twin still waits for its ``after…`` (a failed call
drops its twin from that queue, so a quick retry is kept).  Two
byte-identical calls started within the window cannot be told from a double
delivery; they count once too (docs/hooks.md, "Limits").
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from typing import Any, Callable

from agentscan.hooks.model import HookEvent

#: the two deliveries of one event are the same agent running two hook commands at once
WINDOW_NS = 2_000_000_000


class Repeats:
    def __init__(self) -> None:
        #: (event name, payload digest) -> capture time and event of the delivery that was kept,
        #: for as long as a twin may still come (``WINDOW_NS``): each event holds its payload
        self._kept: dict[tuple[str, bytes], tuple[int, HookEvent]] = {}
        #: those keys by capture time, the oldest first (to let them go)
        self._ages: deque[tuple[int, tuple[str, bytes]]] = deque()
        #: ``seq`` of the events counted as repeats (the live sender must not send a span twice)
        self.skipped: set[int] = set()
        #: those of them whose twin came through another agent's hook (Cursor running the hook
        #: installed for Claude Code, its "third-party hooks"): a setting, not a mistake
        self.bridged: set[int] = set()

    @property
    def count(self) -> int:
        return len(self.skipped)

    def is_repeat(self, event: HookEvent, at_ns: int, *, twin_pending: Callable[[HookEvent], bool] | None = None) -> bool:
        """True for a second delivery of an event already counted (events come in time order).

        ``twin_pending``, when given, must also hold for the kept twin.
        """
        self._forget_before(at_ns - WINDOW_NS)
        key = (event.name, _digest(event.payload))
        kept = self._kept.get(key)
        if kept is not None and 0 <= at_ns - kept[0] < WINDOW_NS and (twin_pending is None or twin_pending(kept[1])):
            self.skipped.add(event.seq)
            if (event.via is None) != (kept[1].via is None):
                self.bridged.add(event.seq)
            return True
        self._kept[key] = (at_ns, event)
        self._ages.append((at_ns, key))
        return False

    def _forget_before(self, oldest_ns: int) -> None:
        """Events come in time order: one kept before ``oldest_ns`` can have no twin to come."""
        ages, kept = self._ages, self._kept
        while ages and ages[0][0] < oldest_ns:
            at_ns, key = ages.popleft()
            if key in kept and kept[key][0] == at_ns:
                del kept[key]

    def notes(self) -> list[str]:
        """What the trace warns: the twins Cursor's third-party hooks made apart from the others."""
        from agentscan.toolkit.words import agreeing, plural

        found = []
        bridged, other = len(self.bridged), self.count - len(self.bridged)
        if bridged:
            found.append(f"{plural(bridged, 'Cursor hook event')} came twice, through Cursor's own hook and through the "
                         "one installed for Claude Code (Cursor runs Claude Code's hooks too: its third-party hooks "
                         "setting), and counted once")
        if other:
            found.append(f"{plural(other, 'hook event')} {agreeing(other).was} delivered twice and counted "
                         "once; is agentscan registered in more than one settings file?")
        return found


def _digest(payload: Any) -> bytes:
    try:
        import orjson

        text = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    except (TypeError, ValueError):  # what the store's lenient reader let through (a huge integer, NaN, a lone surrogate)
        text = json.dumps(payload, sort_keys=True, ensure_ascii=True, default=str).encode()
    return hashlib.blake2b(text, digest_size=16).digest()
