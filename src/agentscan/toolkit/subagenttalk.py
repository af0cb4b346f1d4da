"""Subagents' prompts and replies in a ``show`` detail: one bounded pool for every subagent.

A ``DetailCollector`` (``toolkit.detail``) and its ``child()`` collectors share the pool;
``build`` hands each ``SubagentInfo`` its own part, filled newest first within the byte
budgets the session's own conversation has, and counts what did not fit as dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agentscan.bounds import Bounds, NewestKept, fill_newest_first
from agentscan.detailmodel import Prompt, Response, SubagentInfo


@dataclass
class SubagentTalk:
    """Every subagent's prompts and replies, tagged with the subagent: one bounded pool."""

    prompts: NewestKept[tuple[str, Prompt]]
    responses: NewestKept[tuple[str, Response]]

    @classmethod
    def within(cls, bounds: Bounds) -> SubagentTalk:
        return cls(NewestKept(bounds.prompts), NewestKept(bounds.responses))

    def handed_to(self, subagents: tuple[SubagentInfo, ...], bounds: Bounds) -> tuple[tuple[SubagentInfo, ...], dict[str, int]]:
        """Each subagent with its own prompts and replies, the pool filled newest first
        within the same byte budgets as the session's own conversation."""
        prompts, prompts_cut = fill_newest_first(self.prompts.items(), bounds.prompt_bytes,
                                                 lambda item: len(item[1].text.encode()))
        responses, responses_cut = fill_newest_first(self.responses.items(), bounds.response_bytes,
                                                     lambda item: len(item[1].text.encode()))
        known = {sub.id for sub in subagents}
        # Talk of a run the provider lists no subagent for has nowhere to go: counted as dropped.
        orphans = [sum(1 for agent, _ in kept if agent not in known) for kept in (prompts, responses)]
        dropped = {
            "subagent_prompts": self.prompts.dropped + prompts_cut + orphans[0],
            "subagent_responses": self.responses.dropped + responses_cut + orphans[1],
        }
        if not prompts and not responses:
            return subagents, dropped
        by_prompts: dict[str, list[Prompt]] = {}
        for agent, prompt in prompts:
            by_prompts.setdefault(agent, []).append(prompt)
        by_responses: dict[str, list[Response]] = {}
        for agent, response in responses:
            by_responses.setdefault(agent, []).append(response)
        return tuple(
            replace(sub, prompts=tuple(by_prompts.get(sub.id, ())), responses=tuple(by_responses.get(sub.id, ())))
            for sub in subagents
        ), dropped
