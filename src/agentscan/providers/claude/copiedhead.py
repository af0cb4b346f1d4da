"""What a resumed Claude session that has no record of its own yet says of itself (its file
holds only the records ``claude --resume`` copied from its first session): the directory,
model and title of those copies.  The session ran in that directory (Claude Code resumes a
session from its project's folder, where the new transcript is written), on that
conversation, and Claude Code's own resume list names it by it; its row showed ``-`` for
all three beside the tokens and cost of the copies it counts.  Its tokens are left as the
resume rules count them (docs/providers/claude.md).  Apart from ``row`` and ``halfrow``,
whose rules skip every copy: read again here only for such a session, a rare one, and only
up to what is needed."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRow
    from agentscan.providers.claude.filesummary import FileSummary

#: the records read at most for the three (a first prompt and call are among the first few)
LOOKED_AT = 2_000


def without_own_records(main: FileSummary | None) -> bool:
    """Whether ``main`` is a resumed session's transcript of copies alone."""
    return main is not None and main.resumed_from is not None and main.resumed_copies > 0 and not main.own_met


def with_copies_facts(row: SessionRow, main: FileSummary, ctx: ScanContext) -> SessionRow:
    """``row`` (of ``without_own_records``' session) with the cwd, model and title its copies
    give where it has none: the first ``cwd`` recorded, the first call's model, the title
    Claude Code's rules give the copies' first prompt (``titles.title_of``)."""
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.records import SYNTHETIC_MODELS, real_prompt_text
    from agentscan.providers.claude.titles import note_prompt, title_of
    from agentscan.toolkit.jsonl import iter_json_records

    if row.cwd is not None and row.model is not None and row.title is not None:
        return row
    copies = FileSummary(main.path)
    model = None
    with ctx.held_warnings():  # (the row's pass said what is wrong with the file, once)
        for seen, record in enumerate(iter_json_records(main.path, ctx), start=1):
            if copies.cwd is None and isinstance(record.get("cwd"), str) and record["cwd"]:
                copies.cwd = record["cwd"]
            message = record.get("message")
            kind = record.get("type")
            if kind == "assistant" and model is None and isinstance(message, dict):
                named = message.get("model")
                if isinstance(named, str) and named and named not in SYNTHETIC_MODELS:
                    model = named
            elif kind == "user" and copies.first_prompt is None and record.get("isSidechain") is not True:
                text = real_prompt_text(record)
                if text:
                    note_prompt(copies, text)
            if (copies.cwd is not None and model is not None and copies.first_prompt is not None) or seen >= LOOKED_AT:
                break
    return row.with_changes(cwd=row.cwd or copies.cwd, model=row.model or model, title=row.title or title_of(copies))
