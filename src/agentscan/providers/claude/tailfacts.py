"""``show``'s facts of a huge transcript as kept: gathered on the row's pass
(``showfacts.ShowFacts``), they are kept next to the row: in the index
(``Cache.put_file``, keyed by the session's fingerprint) and for the rest of
this scan in ``ctx.memo``.  Apart from the pass that gathers them: a row's cost
reads them (its token sums) on every ``list``.

Counts that depend on the bounds are kept for the defaults: messages are
clipped at ``message_bytes``, and a call id used again while still among
the newest ``window`` calls is counted (``reused``), so the calls dropped
are known for any tool bound up to the window when no id was reused.
Facts that cannot answer the bounds asked for are no facts: ``show`` then
reads the whole file forward, as it always could.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentscan.bounds import Bounds, token_sum
from agentscan.context import ScanContext
from agentscan.model import TokenUsage
from agentscan.providers.claude.factshapes import are_compactions, are_errors, are_interruptions, is_plan, require
from agentscan.toolkit import keptjson
from agentscan.usagegroups import GROUP_KEYS, are_groups

if TYPE_CHECKING:
    from agentscan.detailmodel import PlanStep

KIND = "claude-show"
#: the index's note that the facts of a fingerprint cannot stand for the file (``refused``)
REFUSED_KIND = "claude-show-refused"
#: the kept document's version, bumped whenever ``showfacts.ShowFacts`` counts anew (facts
#: counted the old way must not answer for the new: they are read again)
# 2: call summaries clipped are counted apart from messages (``clipped_tools``)
# 3: the newest errors (``errors``); an API error written as a reply is no reply
# 4: the errors kept by the collector's rule (``toolkit.newesterrors.NewestErrors``: the newest by
#    time), in reading order; 3 kept the last 20 read
# 5: the plan is the task list (``TaskCreate``/``TaskUpdate``) when one was written last (``tasklist``)
# 6: a task call's summary is what it creates or changes (``tooltext.task_summary``): the
#    clipped summaries counted anew
# 7: the newest interruptions (``interruptions``: ``[text, ISO time or None]``, in reading order)
# 8: how many interruptions were read, the kept ones or not (``interrupted``)
# 9: the newest compactions of the context (``compactions``: ``[ISO time or None, trigger,
#    tokens before]``) and how many were read (``compacted``); a resumed session's copies skipped
# 10: a ``stop_hook_summary``'s hook errors are errors (kind ``hook``); a prompt of text and
#    images is counted (clipped or not) with its `` [image]`` mark (``promptmarks``)
# 11: the directory a relocated session started in (``moved_from``: ``FileSummary.moved_from``)
VERSION = "11"
_PASSED = "claude_show_facts_passes"


@dataclass(frozen=True)
class TailFacts:
    """``ShowFacts`` of the main transcript, with the session's other whole-pass answers."""

    size: int  # the main transcript's size when read
    prompts: int
    responses: int
    tools: int
    reused: int
    window: int
    clipped: int
    message_bytes: int
    plan: tuple[PlanStep, ...] | None
    task_types: dict[str, str]
    task_calls: dict[str, str]
    #: the session's token sums, grouped as ``scan.collect`` groups them (``usagegroups``)
    groups: list[list]
    clipped_tools: int = 0  # (last, with a default: added after the others)
    #: ``ShowFacts.errors``: ``(text, ISO time or None, kind)``, in reading order
    errors: tuple[tuple[str, str | None, str], ...] = ()
    #: ``ShowFacts.interruptions``: ``(text, ISO time or None)``, in reading order
    interruptions: tuple[tuple[str, str | None], ...] = ()
    #: ``ShowFacts.interrupted``: how many were read, those kept and the older ones
    interrupted: int = 0
    #: ``ShowFacts.compactions``: ``(ISO time or None, trigger or None, tokens before or None)``
    compactions: tuple[tuple[str | None, str | None, int | None], ...] = ()
    #: ``ShowFacts.compacted``: how many were read, those kept and the older ones
    compacted: int = 0
    #: ``FileSummary.moved_from``: ``show`` says it as the forward reader does
    moved_from: str | None = None

    @property
    def per_agent(self) -> dict[str, TokenUsage]:
        """Each subagent's tokens."""
        found: dict[str, list[int]] = {}
        for group in self.groups:
            if group[0] is not None:
                parts = found.setdefault(group[0], [0, 0, 0, 0])
                for index in range(4):
                    parts[index] += group[GROUP_KEYS + index]
        return {agent: TokenUsage(*(token_sum(value) for value in parts)) for agent, parts in found.items()}

    def answers(self, bounds: Bounds) -> bool:
        """Whether these counts hold for ``bounds`` (see the module's note)."""
        if bounds.message_bytes != self.message_bytes:
            return False
        return bounds.tools == self.window or (bounds.tools < self.window and self.reused == 0)

    def tools_dropped(self, bounds: Bounds) -> int:
        """Calls the forward collector would have pushed out of its ``bounds.tools`` newest."""
        fresh = self.tools - self.reused
        return fresh - min(bounds.tools, fresh)

    def to_json(self) -> dict[str, Any]:
        return {
            "v": VERSION, "size": self.size, "prompts": self.prompts, "responses": self.responses, "tools": self.tools,
            "reused": self.reused, "window": self.window, "clipped": self.clipped, "message_bytes": self.message_bytes,
            "clipped_tools": self.clipped_tools,
            "plan": None if self.plan is None else [[step.step, step.status] for step in self.plan],
            "task_types": self.task_types, "task_calls": self.task_calls, "groups": self.groups,
            "errors": [list(error) for error in self.errors],
            "interruptions": [list(interruption) for interruption in self.interruptions],
            "interrupted": self.interrupted,
            "compactions": [list(compaction) for compaction in self.compactions], "compacted": self.compacted,
            "moved_from": self.moved_from,
        }

    @classmethod
    def from_json(cls, doc: object) -> TailFacts | None:
        """``None`` (no facts) for anything ill-shaped."""
        try:
            require(isinstance(doc, dict) and doc["v"] == VERSION)
            assert isinstance(doc, dict)
            ints = [doc[key] for key in ("size", "prompts", "responses", "tools", "reused", "window", "clipped", "message_bytes",
                                         "clipped_tools", "interrupted", "compacted")]
            require(all(type(value) is int and value >= 0 for value in ints))
            plan = doc["plan"]
            require(is_plan(plan))
            texts = [doc["task_types"], doc["task_calls"]]
            require(all(isinstance(m, dict) and all(isinstance(v, str) for v in m.values()) for m in texts))
            groups = doc["groups"]
            require(are_groups(groups))
            errors = doc["errors"]
            require(are_errors(errors))
            interruptions = doc["interruptions"]
            require(are_interruptions(interruptions) and ints[-2] >= len(interruptions))
            compactions = doc["compactions"]
            require(are_compactions(compactions) and ints[-1] >= len(compactions))
            moved_from = doc["moved_from"]
            require(moved_from is None or isinstance(moved_from, str))
        except (ValueError, KeyError, TypeError):
            return None
        from agentscan.detailmodel import PlanStep  # here: a row's cost reads the facts on every ``list``

        size, prompts, responses, tools, reused, window, clipped, message_bytes, clipped_tools, interrupted, compacted = ints
        return cls(size, prompts, responses, tools, reused, window, clipped, message_bytes,
                   None if plan is None else tuple(PlanStep(s, t) for s, t in plan),
                   texts[0], texts[1], groups, clipped_tools, tuple((text, stamp, kind) for text, stamp, kind in errors),
                   tuple((text, stamp) for text, stamp in interruptions), interrupted,
                   tuple((stamp, trigger, before) for stamp, trigger, before in compactions), compacted, moved_from)


def keep(ctx: ScanContext, main: Path, fingerprint: str | None, facts: TailFacts | None) -> None:
    """Keep ``facts`` for this scan and, with a cache, in the index under ``fingerprint``
    (``None``: the row's pass ran but its facts cannot stand for the file: that is kept
    too, so that ``show`` does not run the pass again to learn it, ``refused``)."""
    if fingerprint is None:
        return
    ctx.memo.setdefault(_PASSED, set()).add(fingerprint)
    keptjson.keep(ctx, main, KIND, VERSION, fingerprint, facts, None if facts is None else facts.to_json(),
                  facts.size if facts is not None else 0)
    if facts is None:
        keptjson.keep(ctx, main, REFUSED_KIND, VERSION, fingerprint, True, {})


def refused(ctx: ScanContext, main: Path, fingerprint: str | None) -> bool:
    """Whether a row's pass over the session at this fingerprint found that its facts cannot
    stand for the file (a copy claude-code re-appended, a run written inline: ``hugeshow``)."""
    return keptjson.kept(ctx, main, REFUSED_KIND, VERSION, fingerprint, lambda document: document == {}) is True


def gathered(ctx: ScanContext, fingerprint: str | None) -> bool:
    """Whether this scan's row pass over the session (at this fingerprint) has run."""
    return fingerprint is not None and fingerprint in ctx.memo.get(_PASSED, ())


def kept(ctx: ScanContext, main: Path, fingerprint: str | None) -> TailFacts | None:
    """The facts kept for this fingerprint of the session, if any."""
    return keptjson.kept(ctx, main, KIND, VERSION, fingerprint, TailFacts.from_json)
