"""``list --grep``'s second look: the models a session's calls used, beyond its row's ``MODEL``.

A row names one model, the one most of its calls ran on; a session whose ``Explore``
subagents ran on Haiku, or that switched model for a few calls, did not match
``--grep haiku`` although ``tokens --by model`` counted Haiku in it.  The index keeps each
session's sums grouped by model already (``sessionsums``, what a row's cost is priced from),
so a session with calls whose row fails ``--grep`` is held (``Held``) and its models are
looked up with the others of its batch: a warm run reads them from the index, a cold one
parses the calls as ``tokens`` would (and leaves them there for it).  Only a session that
recorded usage is held: one without has no model to find.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

from agentscan.pricing.aliases import service_tier_of
from agentscan.pricing.inferencegeo import without_geo
from agentscan.pricing.modelnames import spellings
from agentscan.scan.grepmatch import grep_hit

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner


class Held(NamedTuple):
    """A row that failed ``--grep`` on its own fields, until its models are looked at."""

    at: int  # its place in ``list``'s order
    ref: SessionRef
    row: SessionRow
    said: Any  # what reading its row had to say (``leftout.read_row``)


def needs_second_look(failed: str | None, row: SessionRow) -> bool:
    """Whether ``row``, which ``failed`` that filter (``ListFilter.failed_stage``), is held for
    its calls' models: it passed all but ``--grep``, and its calls could name a model its
    ``MODEL`` is not (it recorded usage)."""
    return failed == "grep" and row.tokens is not None and row.tokens.total > 0


def matching_by_models(scanner: Scanner, refs: Sequence[SessionRef], needle: str) -> set[str]:
    """The ids of those of ``refs`` one of whose calls (a subagent's too) names a model
    ``needle`` (a ``grep_key``) is in, as recorded or as ``MODEL`` shows it."""
    if not refs:
        return set()
    from agentscan.scan.collect import sums_by_session

    found = set()
    for session_id, sums in sums_by_session(scanner, refs).items():
        # A group is ``[subagent, model, …]`` (``usagegroups``): a handful of models a session.
        # A Codex service tier is no part of a model's name here (``gpt-5.5 (priority)`` is
        # ``gpt-5.5``): ``MODEL`` never shows it, and the table facts that rule sessions out
        # unread (``factfilter``) cannot see a tier set before a large file's window.
        # Nor is a Claude call's US-only inference (``claude-opus-4-6 (us-only)``: ``inferencegeo``).
        models = {without_geo(service_tier_of(group[1])[0]) for group in sums.groups if isinstance(group[1], str)}
        if any(grep_hit(needle, spellings(model)) for model in models):
            found.add(session_id)
    return found


def settle_held(scanner: Scanner, held: list[Held], filters: ListFilter,
               admit: Callable[[int, SessionRef, SessionRow, Any], None],
               count: Callable[[str | None], None] | None = None) -> None:
    """The ``held`` rows one of whose calls' models ``--grep`` finds admitted, the others
    left out as failing it, each ``count``ed so (``list``'s empty-list explanation); emptied.
    The one second look of ``list`` and ``export`` (``everyrow.every_row``) alike."""
    if not held:
        return
    from agentscan.context import say
    from agentscan.scan.leftout import still_ours

    found = matching_by_models(scanner, [item.ref for item in held], filters.grep_key)
    for item in held:
        failed = None if item.ref.id in found else "grep"
        if failed is None and filters.archived is not None and item.row.archived is not filters.archived:
            failed = "archived"  # (``failed_stage`` stopped at ``grep``, before ``archived``)
        if count is not None:
            count(failed)
        if failed is None:
            admit(item.at, item.ref, item.row, item.said)
        else:
            say(scanner.ctx, still_ours(item.said, item.ref, item.row, failed))
    held.clear()
