"""The subagents ``show`` lists for a Claude session (``SubagentInfo``): each run's type,
tokens and model, whether it has a transcript of its own, was recovered from its parent's
progress records or was written inline in the parent's.  Apart from ``detail`` (the stream
of one transcript's records): ``provider.detail`` and ``hugeshow`` both ask it at the end."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Collection, Mapping

from agentscan.detailmodel import SubagentInfo
from agentscan.providers.claude.sidechains import is_inline

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import TokenUsage
    from agentscan.providers.claude.discovery import SessionFiles
    from agentscan.providers.claude.filesummary import FileSummary


def subagent_models(groups: list[list], summaries: Mapping[str, FileSummary]) -> dict[str, str]:
    """Each subagent's model: by the row's rule (the one most of its messages used: its
    ``summaries``' ``models``, but a replay of a parent's message no message of its own:
    ``_own_model``) when its records were read, else from the session's token
    groups (``usagegroups``: a subagent known only from the parent's progress records), the
    one most of its calls used (ties: the more tokens, then the first seen).  The calls of an
    advisor it consulted (``usage.advisor_calls``) are calls of their own there, on the
    advisor's model: a subagent that consulted one on every call tied with its advisor, which
    had the more tokens, and was shown on its advisor's model.  Claude Code's ``<synthetic>``
    replies (an API error written as a message) are no model it ran."""
    from agentscan.providers.claude.records import SYNTHETIC_MODELS
    from agentscan.usagegroups import GROUP_KEYS

    # subagent -> model -> [calls, tokens]
    found: dict[str, dict[str, list[int]]] = {}
    for group in groups:
        agent, model = group[0], group[1]
        if agent is None or not model or model in SYNTHETIC_MODELS:
            continue
        sums = found.setdefault(agent, {}).setdefault(model, [0, 0])
        sums[0] += group[GROUP_KEYS + 5]
        sums[1] += sum(group[GROUP_KEYS:GROUP_KEYS + 4])
    models = {}
    for agent, summary in summaries.items():
        if summary.models:
            models[agent] = _own_model(summary.models, found.pop(agent, None))
    # ``max`` keeps the first of equals: a dict keeps the order the groups came in.
    models.update({agent: max(counts, key=lambda model: counts[model]) for agent, counts in found.items()})
    return models


def _own_model(messages: Counter[str], calls: dict[str, list[int]] | None) -> str:
    """The model most of a subagent's messages used, each model's counted no more than the
    calls the session counts on it (``calls``: model -> [calls, tokens]): a sidechain replay
    of a parent's message (``usage`` rule 4) is no call of its own, and a run of one replay and
    one call was shown on the parent's model while ``tokens`` counted it on its own.  An
    advisor's calls change nothing; without calls, its messages alone; ties: the first seen."""
    if calls:
        counted = Counter({model: min(count, calls.get(model, (0,))[0]) for model, count in messages.items()})
        if any(counted.values()):
            return counted.most_common(1)[0][0]
    return messages.most_common(1)[0][0]


def subagent_infos(files: SessionFiles, ctx: ScanContext, task_types: dict[str, str], task_calls: dict[str, str],
                   per_agent: dict[str, TokenUsage], inline: Collection[str] = (),
                   models: dict[str, str] | None = None) -> tuple[SubagentInfo, ...]:
    """The subagents ``show`` lists: those with a transcript, those whose calls only
    the parent's progress records hold (``per_agent``) and the runs written inline in the
    parent (``inline``: its transcript is the parent's), each with its type, tokens and
    model (``models``: ``subagent_models``)."""
    from agentscan.model import PROGRESS_ORIGIN
    from agentscan.providers.claude.agenttypes import run_kind, sidecar_kind

    infos = []
    for agent_id in sorted(set(files.subagents) | set(per_agent) | set(inline)):
        sub = files.subagents.get(agent_id)
        agent_type = run_kind(agent_id, sidecar_kind(files, agent_id, ctx), task_types)
        # No transcript: its part was recovered from the parent's progress records.
        written_inline = agent_id in inline or is_inline(agent_id)
        recovered = None if sub is not None or written_inline else PROGRESS_ORIGIN
        path = str(sub.path) if sub else (str(files.main) if written_inline and files.main else None)
        infos.append(SubagentInfo(agent_id, agent_type, path, per_agent.get(agent_id), recovered,
                                  call_id=task_calls.get(agent_id), model=(models or {}).get(agent_id)))
    return tuple(infos)
