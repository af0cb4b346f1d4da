"""What ``callscan.FileUsageScanner`` hands out of a rollout: each model call
(``UsageEvent``) and where a thread's copied history ended (``CopyEnd``).  Apart from the
scanner, so that the passes that only carry calls (``usage``, ``goneparent``, ``fullcounts``)
name them without the rules that find them.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from agentscan.model import TokenUsage
from agentscan.providers.codex.counters import Counters, to_tokens
from agentscan.providers.codex.modeluse import Pairs


class UsageEvent(NamedTuple):
    """One model call's counters (a named tuple: see ``cli.term.Terminal``), and the hosted
    web searches it ran (``web_search_call`` items: ``FileUsageScanner._web_search``), which
    are no tokens but are billed per search: they travel with the call, so a copy of it that
    is skipped or deduplicated takes its searches along."""

    timestamp_raw: str | None
    timestamp: datetime | None
    model: str | None
    counters: Counters
    web_searches: int = 0

    @property
    def tokens(self) -> TokenUsage:
        return to_tokens(self.counters)


class CopyEnd(NamedTuple):
    """Where a thread's copied history ended (a named tuple: see ``cli.term.Terminal``).

    Both are facts of the file's first part, which Codex only appends to, so they hold
    as the file grows: a ``list`` row keeps them with a large rollout's tally
    (``fullcounts``) and counts the thread's own calls from them without reading the
    copy again.
    """

    baseline: Counters  # the cumulative count the copy ended with (``ZERO``: none)
    calls: Pairs  # the copied calls per model (``modeluse.without_calls`` takes them out)
