"""The warnings, once a rollout, of counts that a file records two ways
(``callscan.FileUsageScanner`` tallies them as it reads; these say them).  No build is
known to write either; when one does, every report still gives one answer per file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.providers.codex.callscan import FileUsageScanner


def split_warning(scanner: FileUsageScanner) -> str | None:
    """The warning, once a file, of its calls whose cached input and cache write exceed their
    input (``None``: none), the file read whole.  No build writes such a call,
    but a file that has one is counted two ways: ``tokens`` and ``show`` cap each call's split at
    its input (``counters.spent_on``), a ``list`` row caps the running total's (``to_tokens``),
    where one call's surplus fills another's room.  The totals agree; the splits may not."""
    count = scanner.overspent
    if not count:
        return None
    from agentscan.toolkit.words import plural  # (only when there is something to say)

    calls = plural(count, "call")
    return (f"cached input + cache write exceed input in {calls}: tokens and show cap each call's split at"
            " its input, list caps the running total's, so their input/cache splits may differ")


def total_warning(scanner: FileUsageScanner) -> str | None:
    """The warning, once a file, of running totals that do not add up to their calls
    (``counters.jumped``; ``None``: none).  No build is known to write one; the calls are
    what every report counts (``tokens``, ``show``, and ``list``, whose row would otherwise
    take the latest total: two answers for one file)."""
    count = scanner.jumps
    if not count:
        return None
    from agentscan.toolkit.words import plural

    calls = plural(count, "call")
    return (f"running total_token_usage moved by other than last_token_usage at {calls}: the calls are counted"
            " (last_token_usage), not the file's running total")
