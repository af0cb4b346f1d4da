"""The card's ``reported`` line: what the agent's CLI itself said the session cost, when that
is not what agentscan counts (Claude Code's ``cost-state``: ``agent_reported``, docs/json.md).

Claude Code's ``/cost`` counts calls its transcript never holds (the helper model's), may
count more tokens of a call than its record holds, and prices by its own table, so a user
comparing the two finds them apart: the card says how, as far as the record tells, on one
line, rather than leaving it unexplained.  Equal to the cent, the card says nothing more (JSON always has it)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from agentscan.cli.render import human_usd
from agentscan.cli.term import width_of

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.detailmodel import SessionDetail

LABEL = "reported"


def reported_line(detail: SessionDetail, term: Terminal) -> str | None:
    """``  reported $0.25 by Claude Code's own count (…)``, fitted to the terminal (one line:
    the longest telling that fits; in a pipe the whole); ``None``: nothing to say."""
    said = detail.extra.get("agent_reported")
    if not isinstance(said, dict) or type(said.get("cost_usd")) not in (int, float):
        return None
    row = detail.row
    theirs = human_usd(Decimal(str(said["cost_usd"])), grouped=term.tty)
    ours = None if row.tokens is None else human_usd(row.cost, row.cost_priced, grouped=term.tty)
    if theirs == ours:
        return None  # (the same to the cent: nothing to explain)
    head = f"  {LABEL:<8} {theirs} by Claude Code's own count"
    why = _why(said, None if row.tokens is None else row.tokens.total, term, resumed=row.resumed_from is not None,
               unpriced=row.tokens is not None and row.cost is None)
    if said.get("unknown_model_cost"):
        why = [reason[:-1] + "; a model it could not price)" for reason in why] + why
    if not term.tty:
        return head + why[0]
    for reason in why:
        if width_of(head + reason) <= term.width:
            return head + reason
    return head if width_of(head) <= term.width else f"  {LABEL:<8} {theirs} by Claude Code"


def _why(said: dict, ours: int | None, term: Terminal, *, resumed: bool = False, unpriced: bool = False) -> list[str]:
    """Why the two differ, as far as the record tells, longest first: its count is older than
    the transcript's end (``calls_after``), or of more tokens than the transcript's calls, or
    of the same tokens priced by its own rates (or by none of agentscan's: ``unpriced``).
    Calls the transcript does not hold are said only of a model the record counts and no call
    names (``not_in_transcript``: the helper model's); more tokens of the models the calls
    name are said as no more than that (a call whose recorded output is short: Claude Code's
    bug, docs/providers/claude.md).  A resumed session's card leaves the copied calls to the
    session resumed (their row), which Claude Code's running total may start from: said as a maybe."""
    if said.get("calls_after"):
        return [" (its /cost when last saved: the transcript has later calls)", " (saved before later calls)"]
    models = said.get("models")
    totals = [model.get("total") for model in models.values()] if isinstance(models, dict) else []
    theirs = sum(total for total in totals if type(total) is int)
    if ours is None:  # (no usage recorded at all: nothing to count against)
        return [" (its /cost: it also counts calls the transcript does not hold)", " (incl. calls not in the transcript)"]
    unnamed = [name for name in said.get("not_in_transcript") or () if isinstance(name, str)]
    n = f"{abs(theirs - ours):,}" if term.tty else str(abs(theirs - ours))  # (plain in a pipe, as the card's counts)
    why: list[str]
    if theirs > ours and resumed:
        why = [f" (its /cost: {n} tokens more: the session it was resumed from, or calls the transcript does not hold)",
               f" ({n} tokens more: the session resumed from, or calls not here)", " (maybe incl. the session resumed from)"] \
            if unnamed else [f" (its /cost: {n} tokens more: maybe the session it was resumed from)",
                             f" ({n} tokens more: maybe the session resumed from)", f" ({n} tokens more)"]
    elif theirs > ours and unnamed:
        of = unnamed[0] if len(unnamed) == 1 else f"{len(unnamed)} models"
        why = [f" (its /cost: {n} tokens more, incl. calls of {of} the transcript does not hold)",
               f" ({n} tokens more, incl. calls not in the transcript)", " (incl. calls not in the transcript)"]
    elif theirs > ours:
        why = [f" (its /cost: it counts {n} tokens more than the transcript's calls record)",
               f" ({n} tokens more than the calls record)", f" ({n} tokens more)"]
    elif theirs == ours and unpriced:
        return [" (its /cost: the same tokens; agentscan has no price for a model of them)",
                " (same tokens; a model agentscan cannot price)", " (a model agentscan cannot price)"]
    elif theirs == ours:
        return [" (its /cost: the same tokens, at Claude Code's own prices)", " (same tokens, its own prices)"]
    else:
        why = [f" (its /cost: it counts {n} tokens fewer than the transcript's calls)", f" ({n} tokens fewer)"]
    if unpriced:  # (agentscan's cost a lower bound: the dollars differ by that too)
        why = [why[0][:-1] + "; agentscan has no price for a model)", *why]
    return why
