"""The calls a time window (``tokens --since``/``--until``) cannot place.

A call whose record has no time a reader could use (a Claude record with no
``timestamp``) falls in no window: a window cannot say it was made inside it,
so it is left out of every one, even one that covers every recorded time
(``--until 2030-01-01``).  Without a word the windowed total would then be
less than the plain one for no reason the user can see, so the report says how
many such calls it left out and their tokens (a warning, as ``--by day``
names the same calls in its ``unknown`` row).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentscan.model import CACHE_READ, CACHE_WRITE, INPUT, OUTPUT, TS
from agentscan.usagegroups import GROUP_KEYS

if TYPE_CHECKING:
    from agentscan.scan.providerusage import ProviderUsage

#: a cached group's parts (``usagegroups``): input, cache read, cache write, output, ..., calls
_TOKENS, _CALLS = slice(GROUP_KEYS, GROUP_KEYS + 4), GROUP_KEYS + 5


def untimed_calls(usage: dict[str, ProviderUsage]) -> tuple[int, int]:
    """How many of ``usage``'s calls recorded no time, and their tokens (``TokenUsage.total``)."""
    calls = tokens = 0
    for part in usage.values():
        for sums in part.sums.values():
            for group in sums.groups:
                if group[2] is None:
                    calls += group[_CALLS]
                    tokens += sum(group[_TOKENS])
        for entry in part.entries:
            if entry[TS] is None:
                calls += 1
                tokens += entry[INPUT] + entry[CACHE_READ] + entry[CACHE_WRITE] + entry[OUTPUT]
    return calls, tokens


def untimed_note(calls: int, tokens: int) -> str:
    """What a windowed report says of the ``calls`` it could not place (``untimed_calls``)."""
    what = "1 call recorded no time and is" if calls == 1 else f"{calls:,} calls recorded no time and are"
    return f"{what} in no --since/--until window ({tokens:,} tokens; --by day shows them as unknown)"
