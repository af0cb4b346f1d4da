"""What kind of agent each of a Claude session's delegated runs was, for ``tokens --by agent``.

As ``show`` says it (``detail.subagent_infos``), found with as little reading as can be:
a run's ``agent-<id>.meta.json`` sidecar names its ``agentType`` (2.1.x writes one beside
every transcript it puts under ``subagents/``); an auto-compaction worker (``acompact-…``)
is ``compaction``.  Only a run neither says (an older build's, one whose calls only the
parent's progress records hold, one written inline) needs the parent's transcript, whose
``Task``/``Agent`` call that started it names its ``subagent_type``: that is a row's pass
of the parent (``row.summarize``), made once for all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.claude.discovery import SessionFiles

#: the kind ``show`` gives an auto-compaction worker's run
COMPACTION = "compaction"


def subagent_types(files: SessionFiles, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
    """The kind of each of ``runs`` (run ids) that one was recorded for, by run id."""
    from agentscan.bounds import MAX_SIDE_FILE_BYTES
    from agentscan.providers.claude.usage import meta_agent_type
    from agentscan.toolkit.jsondoc import load_json_file

    found: dict[str, str] = {}
    untold: list[str] = []
    for agent_id in runs:
        sub = files.subagents.get(agent_id)
        kind = None
        if sub is not None and sub.meta_path is not None:
            kind = meta_agent_type(load_json_file(sub.meta_path, ctx, max_bytes=MAX_SIDE_FILE_BYTES))
        if kind:
            found[agent_id] = kind
        else:
            untold.append(agent_id)
    if untold and files.main is not None:
        from agentscan.providers.claude.row import summarize

        # The call that started a run outranks its id's prefix, as in ``show``.
        started = summarize(files.main, ctx).task_types
        found.update({agent_id: started[agent_id] for agent_id in untold if started.get(agent_id)})
    for agent_id in untold:
        if agent_id not in found and agent_id.startswith("acompact"):
            found[agent_id] = COMPACTION
    return found
