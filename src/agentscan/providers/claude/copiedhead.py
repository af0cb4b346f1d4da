"""What a resumed Claude session that has no record of its own yet says of itself (its file
holds only the records ``claude --resume`` copied from its first session): the directory,
model, branch and title of those copies, by the row's own rules.  The session ran in that
directory (Claude Code resumes a session from its project's folder, where the new transcript
is written), on that conversation, and Claude Code's own resume list names it by it; its
row showed ``-`` for them beside the tokens and cost of the copies it counts.  Its tokens
are left as the resume rules count them (docs/providers/claude.md).  Apart from ``row`` and
``halfrow``, whose rules skip every copy: read again here only for such a session, a rare
one, and only its first ``LOOKED_AT`` records."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRow
    from agentscan.providers.claude.filesummary import FileSummary

#: the records read at most (a first prompt and call are among the first few; the model and
#: branch are those of the records read)
LOOKED_AT = 2_000


def without_own_records(main: FileSummary | None) -> TypeGuard[FileSummary]:
    """Whether ``main`` is a resumed session's transcript of copies alone."""
    return main is not None and main.resumed_from is not None and main.resumed_copies > 0 and not main.own_met


def with_copies_facts(row: SessionRow, main: FileSummary, ctx: ScanContext) -> SessionRow:
    """``row`` (of ``without_own_records``' session) with the cwd, model, branch and title its
    copies give where it has none, by the row's own rules (``row.summarize``, ``sessionrow``)
    over the copies read: the first ``cwd`` recorded unless a ``relocated`` record moved the
    session, the model most calls ran on (a call counted once, whatever its records), the last
    ``gitBranch``, the title Claude Code's rules give the copies' first prompt (``titles.title_of``)."""
    from collections import Counter

    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.records import SYNTHETIC_MODELS, real_prompt_text
    from agentscan.providers.claude.titles import note_prompt, title_of
    from agentscan.toolkit.jsonl import iter_json_records

    if row.cwd is not None and row.model is not None and row.title is not None and row.git_branch is not None:
        return row
    copies = FileSummary(main.path)
    models: Counter[str] = Counter()
    calls: set[str] = set()
    with ctx.held_warnings():  # (the row's pass said what is wrong with the file, once)
        for seen, record in enumerate(iter_json_records(main.path, ctx), start=1):
            if copies.cwd is None and isinstance(record.get("cwd"), str) and record["cwd"]:
                copies.cwd = record["cwd"]
            branch = record.get("gitBranch")
            if isinstance(branch, str) and branch:
                copies.git_branch = branch  # (the branch the session ended on)
            message = record.get("message")
            kind = record.get("type")
            if kind == "assistant" and isinstance(message, dict) and record.get("isApiErrorMessage") is not True:
                named = message.get("model")
                call = message.get("id") or record.get("uuid") or f"#{seen}"
                if isinstance(named, str) and named and named not in SYNTHETIC_MODELS and call not in calls:
                    calls.add(call)
                    models[named] += 1
            elif kind == "user" and copies.first_prompt is None and record.get("isSidechain") is not True:
                text = real_prompt_text(record)
                if text:
                    note_prompt(copies, text)
            elif kind == "relocated" and isinstance(record.get("relocatedCwd"), str) and record["relocatedCwd"]:
                copies.relocated_cwd = record["relocatedCwd"]
            if seen >= LOOKED_AT:  # (every record up to it: the model and branch are the calls' and the last's)
                break
    return row.with_changes(cwd=row.cwd or copies.relocated_cwd or copies.cwd,
                            model=row.model or (models.most_common(1)[0][0] if models else None),
                            git_branch=row.git_branch or copies.git_branch, title=row.title or title_of(copies))
