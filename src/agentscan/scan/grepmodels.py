"""``list --grep``'s second look: the models a session's calls used, beyond its row's ``MODEL``.

A row names one model, the one most of its calls ran on; a session whose ``Explore``
subagents ran on Haiku, or that switched model for a few calls, did not match
``--grep haiku`` although ``tokens --by model`` counted Haiku in it.  The index keeps each
session's sums grouped by model already (``sessionsums``, what a row's cost is priced from),
so a session with calls whose row fails ``--grep`` is held (``Unsure``) and its models are
looked up with the others of its batch: a warm run reads them from the index, a cold one
parses the calls as ``tokens`` would (and leaves them there for it).  Only a session that
recorded usage is held: one without has no model to find.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

from agentscan.pricing.modelnames import spellings
from agentscan.scan.grepmatch import grep_hit

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.listing import ListFilter
    from agentscan.scan.scanner import Scanner


class Unsure(NamedTuple):
    """A row that failed ``--grep`` on its own fields, until its models are looked at."""

    at: int  # its place in ``list``'s order
    ref: SessionRef
    row: SessionRow
    said: Any  # what reading its row had to say (``leftout.read_row``)


def may_match_by_models(row: SessionRow) -> bool:
    """Whether ``row``'s calls could name a model its ``MODEL`` is not: it recorded usage."""
    return row.tokens is not None and row.tokens.total > 0


def matching_by_models(scanner: Scanner, refs: Sequence[SessionRef], needle: str) -> set[str]:
    """The ids of those of ``refs`` one of whose calls (a subagent's too) names a model
    ``needle`` (a ``grep_key``) is in, as recorded or as ``MODEL`` shows it."""
    if not refs:
        return set()
    from agentscan.scan.collect import sums_by_session

    found = set()
    for session_id, sums in sums_by_session(scanner, refs).items():
        # A group is ``[subagent, model, …]`` (``usagegroups``): a handful of models a session.
        models = {group[1] for group in sums.groups if isinstance(group[1], str)}
        if any(grep_hit(needle, spellings(model)) for model in models):
            found.add(session_id)
    return found


def settle_unsure(scanner: Scanner, unsure: list[Unsure], filters: ListFilter, stages: tuple[str, ...],
                  reached: dict[str, int], passed: dict[str, int],
                  admit: Callable[[int, SessionRef, SessionRow, Any], None]) -> None:
    """``list``'s ``unsure`` rows one of whose calls' models ``--grep`` finds admitted, the
    others left out as failing it (counted so for the empty list's explanation); emptied."""
    if not unsure:
        return
    from agentscan.context import say
    from agentscan.scan.leftout import count_failed, still_ours

    found = matching_by_models(scanner, [item.ref for item in unsure], filters.grep_key)
    for item in unsure:
        failed = None if item.ref.id in found else "grep"
        count_failed(failed, stages, reached, passed)
        if failed is None:
            admit(item.at, item.ref, item.row, item.said)
        else:
            say(scanner.ctx, still_ours(item.said, item.ref, item.row, failed))
    unsure.clear()
