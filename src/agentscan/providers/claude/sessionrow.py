"""A Claude session's row from its files' summaries (``rowpass.summaries``): what ``list``
shows of it, and ``show``'s card begins with.  Apart from the provider, which reads the files
(``provider.ClaudeProvider.row``, ``.detail``): this only decides what the summaries say of
the session (its title, start, model, counts, the run it names), the same for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef, SessionRow, TokenUsage
    from agentscan.providers.claude.filesummary import FileSummary


def session_row(provider: str, ref: SessionRef, main: FileSummary | None, subs: dict[str, FileSummary],
                tokens: TokenUsage | None, counted_subagents: Collection[str], ctx: ScanContext) -> SessionRow:
    """``tokens``: the session's; ``counted_subagents``: those its calls name (one whose
    transcript is gone counts too, from its calls copied into the parent's records); ``ctx``:
    to read a resumed session's copies when it has no record of its own (``copiedhead``)."""
    from agentscan.model import Counts, SessionRow
    from agentscan.providers.claude.copiedhead import copies_read_as_own, without_own_records
    from agentscan.providers.claude.discovery import parentless_path
    from agentscan.providers.claude.resumedshow import resumed_from
    from agentscan.timeutil import from_epoch, newest, oldest

    if main is not None and main.inline:
        subs = {**subs, **main.inline}  # runs written inline in the parent (``sidechains``)
    everything = ([main] if main else []) + list(subs.values())
    title, cwd, model, branch = row_facts(main, subs)
    if without_own_records(main):
        # A resumed session of copies alone: what its copies say, read as its own records (a
        # fact they give none of, in the lines read, stays what the row's pass found).
        copies = copies_read_as_own(main, ctx)
        copied = row_facts(copies, {**subs, **copies.inline})
        title, cwd, model, branch = (fact or found for fact, found in zip(copied, (title, cwd, model, branch)))
    started = oldest(*(s.first_ts for s in everything))
    # The newest time the transcript recorded; the mtime only when it recorded none
    # (a copied home has every mtime at the copy time).
    updated = newest(*(s.last_ts for s in everything)) or (from_epoch(ref.recency) if ref.recency else None)
    if main is not None:
        counts = Counts(main.prompts, main.responses, main.tool_calls)
    else:
        counts = Counts(sum(s.prompts for s in subs.values()), sum(s.responses for s in subs.values()),
                        sum(s.tool_calls for s in subs.values()))
    return SessionRow(
        provider=provider,
        native_id=ref.native_id,
        path=str(ref.path) if ref.path else parentless_path(ref.native_id, ref.files),
        title=title,
        cwd=cwd,
        model=model,
        git_branch=branch,
        resumed_from=resumed_from(main),
        started_at=started,
        updated_at=updated,
        tokens=tokens,
        counts=counts,
        subagents=len(set(subs) | set(counted_subagents)),
        # (Sorted: a row read again, or by halves, is the same row.)
        copied_runs=tuple(sorted(run for run in main.copied_runs if run in counted_subagents and run not in subs))
        if main is not None and main.copied_runs else (),
    )


def row_facts(main: FileSummary | None, subs: dict[str, FileSummary]) -> tuple[str | None, str | None, str | None, str | None]:
    """The title, cwd, model and branch of a session's row, from its main transcript's summary
    and its subagents' (``subs``, the runs written inline in ``main`` among them); also what a
    resumed session of copies alone takes from its copies (``copiedhead``)."""
    from collections import Counter

    from agentscan.providers.claude.agenttypes import is_internal_run
    from agentscan.providers.claude.titles import title_of

    models = main.models if main and main.models else sum((s.models for s in subs.values()), start=Counter())
    # With the parent transcript gone, the subagents' own content is all
    # there is: the earliest one names the session, and their counts add up.
    # A compaction or suggestion run's prompt is Claude Code's instruction, not the
    # user's words: the earliest of the other runs names it, else nothing does.
    orphans = sorted(subs.items(), key=lambda item: (item[1].first_ts is None, item[1].first_ts or 0, str(item[1].path)))
    primary = main or (orphans[0][1] if orphans else None)
    titled = main or next((sub for run, sub in orphans if not is_internal_run(run)), None)
    return (title_of(titled) if titled else None,
            # A ``relocated`` record moved the session (Claude Code goes there when it is resumed).
            (primary.relocated_cwd or primary.cwd) if primary else None,
            models.most_common(1)[0][0] if models else None,
            primary.git_branch if primary else None)
