"""``show`` of a huge Claude transcript from its end, and what its row's pass keeps for it.

A main transcript of ``provider.TAIL_MIN_BYTES`` or more is shown from its
end (``tail.py``): its row's pass gathers what that read never sees
(``showfacts``), and ``keep_facts`` keeps it with the session's token sums
under the files' fingerprint; ``detail_with_row`` then reads the subagents
whole and the main transcript only as far back as the bounds reach.  The
provider itself tells which transcripts those are (``shows_from_row``,
``row_sums``): a warm ``list`` asks that for every row's cost, and imports
none of this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.context import ScanContext

if TYPE_CHECKING:
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail
    from agentscan.model import SessionRef, SessionRow
    from agentscan.providers.claude.discovery import SessionFiles
    from agentscan.providers.claude.provider import ClaudeProvider
    from agentscan.providers.claude.row import FileSummary
    from agentscan.providers.claude.showfacts import ShowFacts
    from agentscan.providers.claude.windowed import WindowedTotals


def detail_with_row(provider: ClaudeProvider, ref: SessionRef, ctx: ScanContext, bounds: Bounds,
                    row: SessionRow) -> SessionDetail | None:
    """The main transcript read from its end, with the facts its row's pass kept;
    ``None`` when there are none for this state of the files (or these bounds)."""
    from agentscan.providers.claude import showfacts
    from agentscan.providers.claude.detail import TranscriptStream, subagent_infos
    from agentscan.providers.claude.row import summarize
    from agentscan.providers.claude.tail import read_tail
    from agentscan.toolkit.detail import DetailCollector

    files: SessionFiles = ref.hint
    if files.main is None:
        return None
    fingerprint = provider.fingerprint(ref, ctx)
    facts = showfacts.kept(ctx, files.main, fingerprint)
    if facts is None and not showfacts.gathered(ctx, fingerprint):
        # A row kept before its facts were (an earlier version, an index entry lost):
        # one pass keeps them now, and the next show reads only the end.
        row = provider.row(ref, ctx)
        facts = showfacts.kept(ctx, files.main, fingerprint)
    stat = files.main_stat(ctx)
    if facts is None or not facts.answers(bounds) or stat is None or stat.st_size != facts.size:
        return None
    collector = DetailCollector(bounds)
    read_tail(collector, files.main, ctx, bounds, facts)
    extra_tools: list = []
    for agent_id, sub in sorted(files.subagents.items()):
        # Subagent transcripts are read whole, as by ``detail`` (they are small).
        stream = TranscriptStream(collector, subagent=agent_id)
        summarize(sub.path, ctx, subagent=agent_id, observer=stream.feed)
        extra_tools.extend(stream.finish())
    infos = subagent_infos(files, ctx, facts.task_types, facts.task_calls, facts.per_agent)
    return collector.build(row, subagents=infos, extra_tools=extra_tools)


def keep_facts(provider: ClaudeProvider, ref: SessionRef, ctx: ScanContext, facts: ShowFacts, main: FileSummary,
               totals: WindowedTotals) -> None:
    """Keep what the row's pass gathered for ``show`` (or that it gathered nothing ``show``
    could use) under the files' fingerprint."""
    from agentscan.bounds import MAX_FILE_LINES
    from agentscan.detailmodel import PlanStep
    from agentscan.providers.claude import showfacts
    from agentscan.toolkit.fsutil import changed_since

    files: SessionFiles = ref.hint
    stat = files.main_stat(ctx)
    if files.main is None or stat is None or facts.lines >= MAX_FILE_LINES or changed_since(files.main, stat):
        # The forward reader stops at the line cap: lines after it are never shown.  And a
        # live transcript written to during the pass holds more than its fingerprint's
        # size: facts about those lines would not match a tail read stopping there.
        showfacts.keep(ctx, files.main or Path(), provider.fingerprint(ref, ctx), None)
        return
    showfacts.keep(ctx, files.main, provider.fingerprint(ref, ctx), showfacts.TailFacts(
        size=stat.st_size, prompts=facts.prompts, responses=facts.responses, tools=facts.tools, reused=facts.reused,
        window=facts.window, clipped=facts.clipped, clipped_tools=facts.clipped_tools, message_bytes=facts.message_bytes,
        plan=None if facts.plan is None else tuple(PlanStep(step, status) for step, status in facts.plan),
        task_types=dict(main.task_types), task_calls=dict(main.task_calls), groups=totals.groups(set(files.subagents))))

