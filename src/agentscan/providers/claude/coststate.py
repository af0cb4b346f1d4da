"""Claude Code's own count of a session's cost: its ``cost-state`` records (``show``'s
``agent_reported``; docs/providers/claude.md, "Claude Code's own count").

Claude Code (from late August 2026; 2.1.268 in the real sample) writes ``cost-state`` records
after a run's last reply: ``{"type": "cost-state", "sessionId", "totalCostUSD", "modelUsage": {<model>:
{"inputTokens", "outputTokens", "thinkingTokens", "cacheReadInputTokens",
"cacheCreationInputTokens", "webSearchRequests", "costUSD"}}, "hasUnknownModelCost", …}``, no
timestamp.  It is a running total (a resumed run starts from the last one), and it counts
calls no assistant record holds (the helper model's: titles, summaries), so its dollars can
exceed the transcript's.  Counting never reads it (``tokens`` stays what the calls record);
``show`` reports the last one of the session's own, so that the difference is said rather
than left for the user to find in ``/cost``.

Read in the pass ``show`` already makes: forward (the last one wins) or from the end (the
first met wins, ``newest_first``).  A record of the wrong shape is ignored with a warning,
never trusted in part.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from agentscan.pricing.aliases import fast_mode_base
from agentscan.pricing.inferencegeo import without_geo
from agentscan.providers.claude.records import SYNTHETIC_MODELS, message_of

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from datetime import datetime

KIND = "cost-state"
#: ``modelUsage``'s counts -> the contract's token names (docs/json.md, ``Tokens``)
_COUNTS = (("inputTokens", "input"), ("outputTokens", "output"), ("cacheReadInputTokens", "cache_read"),
           ("cacheCreationInputTokens", "cache_write"))


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _dollars(value: object) -> bool:
    return isinstance(value, (int, float)) and type(value) is not bool and math.isfinite(value) and value >= 0


def reported(record: dict) -> dict[str, Any] | str:
    """The record as ``agent_reported`` says it, or why it is of the wrong shape."""
    total = record.get("totalCostUSD")
    if total is not None and not _dollars(total):
        return "totalCostUSD is no amount"
    usage = record.get("modelUsage", {})
    if not isinstance(usage, dict):
        return "modelUsage is no object"
    models: dict[str, dict[str, Any]] = {}
    for name, counts in usage.items():
        if not isinstance(counts, dict):
            return f"modelUsage of {name} is no object"
        model: dict[str, Any] = {}
        for field, said in _COUNTS:
            value = counts.get(field, 0)
            if not _count(value):
                return f"{field} of {name} is no count"
            model[said] = value
        # (the thinking part of ``outputTokens``, as the contract's ``reasoning``: never added again)
        thinking = counts.get("thinkingTokens")
        if thinking is not None and not _count(thinking):
            return f"thinkingTokens of {name} is no count"
        if thinking is not None:
            model["reasoning"] = thinking
        model["total"] = model["input"] + model["cache_read"] + model["cache_write"] + model["output"]
        searches = counts.get("webSearchRequests")
        if searches is not None and not _count(searches):
            return f"webSearchRequests of {name} is no count"
        if searches:
            model["web_searches"] = searches
        cost = counts.get("costUSD")
        if cost is not None and not _dollars(cost):
            return f"costUSD of {name} is no amount"
        model["cost_usd"] = None if cost is None else float(cost)
        models[name] = model
    unknown = record.get("hasUnknownModelCost")
    return {"cost_usd": None if total is None else float(total), "models": models,
            "unknown_model_cost": unknown is True}


class CostStates:
    """Fed the main transcript's records (in file order, or newest first): the last
    ``cost-state`` of ``session`` of the right shape, and whether the session's own calls
    follow it (``calls_after``: Claude Code's count is then older than the transcript's end).
    A resumed or forked file may hold another session's: only the session's own is read.
    Then fed its subagents' records (``feed_subagent``): a call of theirs made after the record
    follows it too, when the run's last turn left background runs at work (its ``turn_duration``
    record's ``pendingBackgroundAgentCount``; without one, a run that ended before the record)."""

    def __init__(self, session: str, path: Path | str | None, ctx: ScanContext, *, newest_first: bool = False) -> None:
        self._session, self._path, self._ctx = session, path, ctx
        self._newest_first = newest_first
        self._found: dict[str, Any] | None = None
        self._calls_after = False
        #: the newest time of the main transcript's records before the one found: the record has
        #: no time of its own, and it stands after them (``feed_subagent`` compares with it)
        self._saved_at: str | None = None
        self._saved_time: datetime | None = None  # ``_saved_at`` parsed (``feed_subagent``)
        self._last_time: str | None = None  # (forward: the newest time read so far)
        #: whether the newest turn ended before the record left background runs at work (``None``:
        #: no turn's end met yet, read from the end), and as read so far (forward)
        self._pending: bool | None = None
        self._pending_last = False

    def feed(self, record: dict) -> None:
        kind = record.get("type")
        stamp = record.get("timestamp")
        if type(stamp) is str:
            if not self._newest_first:
                self._last_time = stamp
            elif self._found is not None and self._saved_at is None:
                self._saved_at, self._saved_time = stamp, None  # (read from the end: the first time met before the record)
        if kind == "system" and record.get("subtype") == "turn_duration":
            count = record.get("pendingBackgroundAgentCount")
            pending = type(count) is int and count > 0
            if not self._newest_first:
                self._pending_last = pending
            elif self._found is not None and self._pending is None:
                self._pending = pending  # (read from the end: the turn that ended before the record)
        if kind == "assistant":
            # (an own call after the record, forward; before it is met, newest first)
            if (self._found is None) == self._newest_first and record.get("sessionId") == self._session \
                    and message_of(record).get("model") not in SYNTHETIC_MODELS:  # (an API error written as a reply: no call)
                self._calls_after = True
            return
        if kind != KIND or record.get("sessionId") != self._session or (self._newest_first and self._found):
            return
        found = reported(record)
        if isinstance(found, str):
            if self._path is not None:
                self._ctx.warnings.add(self._path, f"a cost-state record ignored: {found}")
            return
        if found["cost_usd"] is None and not found["models"]:
            return  # (a bare record, written with nothing counted yet: it says nothing)
        self._found = found
        if not self._newest_first:
            self._calls_after = False
            self._saved_at, self._pending, self._saved_time = self._last_time, self._pending_last, None

    def feed_subagent(self, record: dict) -> None:
        """A record of one of the session's subagent transcripts, after the main transcript's:
        a call of it made after the record found (by time: the record has none, so after the
        newest time of the main transcript's records before it) is a later call
        (``calls_after``), when the turn that ended before it left background runs at work
        (``pendingBackgroundAgentCount``: a run's calls after a transcript's last record are
        no later calls of a count saved after they ended).  Claude Code's count takes in its
        subagents' calls (the module's note): a background run still at work after the run's
        last reply made calls it did not count, and the card said nothing of them."""
        if self._calls_after or not self._pending or self._saved_at is None or record.get("type") != "assistant":
            return
        stamp = record.get("timestamp")
        if type(stamp) is not str or message_of(record).get("model") in SYNTHETIC_MODELS:
            return
        from agentscan.timeutil import parse_iso

        saved = self._saved_time
        if saved is None:  # (parsed once: the record's time is fixed once it is found)
            saved = self._saved_time = parse_iso(self._saved_at)
        made = parse_iso(stamp)
        if made is not None and saved is not None and made > saved:
            self._calls_after = True

    def feeding(self, then: Callable[[dict], None], *, subagent: bool = False) -> Callable[[dict], None]:
        """An observer that feeds this (``feed_subagent`` with ``subagent``), then ``then``."""
        feed = self.feed_subagent if subagent else self.feed

        def both(record: dict) -> None:
            feed(record)
            then(record)

        return both

    def json(self, groups: list[list]) -> dict[str, Any] | None:
        """``show --json``'s ``agent_reported`` (``None``: no record of the right shape read);
        ``groups``: the session's token groups (``usagegroups``), whose models are those its
        calls name.  ``not_in_transcript``: the record's models none of them names (a
        fast-mode call is counted as ``<model>-fast``, Claude Code's under ``<model>``): only
        of those can the card say the record counts calls the transcript does not hold."""
        if self._found is None:
            return None
        # (a US-only call is counted as ``<model> (us-only)``: ``pricing.inferencegeo``)
        called = {fast_mode_base(name) or name for group in groups if group[1] for name in [without_geo(group[1])]}
        return {**self._found, "calls_after": self._calls_after,
                "not_in_transcript": sorted(name for name in self._found["models"] if name not in called)}
