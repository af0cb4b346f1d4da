"""A session's row as the index keeps it: the row's JSON with the warnings its pass said.

A warm run reports what a cold one did, so a row is kept with its warnings,
and taken back only when every field is of its type: a damaged entry is a
miss (the session is read again), never a wrong row in front of the user.
"""

from __future__ import annotations

from typing import Iterable

from agentscan.model import ScanWarning, SessionRow


def row_document(row: SessionRow, warnings: Iterable[ScanWarning]) -> dict:
    """What the index keeps of ``row`` (``Cache.put_row``)."""
    document = row.to_json()
    document["warnings"] = [warning.to_json() for warning in warnings]
    if row.copied_runs:
        document["copied_runs"] = list(row.copied_runs)
    if row.usage_cut is not None:
        document["usage_cut"] = row.usage_cut
    return document


def row_of_document(document: dict) -> tuple[SessionRow, list[ScanWarning]] | None:
    """A row and its warnings from the cache; ``None`` (a miss) when ill-shaped."""
    try:
        warnings = [ScanWarning(w["path"], w["message"], w.get("line")) for w in document.get("warnings", ())]
        if not all(isinstance(w.path, str) and isinstance(w.message, str) and (w.line is None or type(w.line) is int)
                   for w in warnings):
            return None
        row = SessionRow.from_json(document)
        copied = document.get("copied_runs", ())
        if not (isinstance(copied, list | tuple) and all(isinstance(run, str) for run in copied)):
            return None
        row = row.with_changes(copied_runs=tuple(copied)) if copied else row
        cut = document.get("usage_cut")
        if not (cut is None or type(cut) is str):
            return None
        row = row.with_changes(usage_cut=cut) if cut is not None else row
        if not (isinstance(row.provider, str) and isinstance(row.native_id, str)):
            return None
        counted = [*(vars(row.counts).values() if hasattr(row.counts, "__dict__") else (row.counts.prompts, row.counts.responses, row.counts.tool_calls))]
        if row.tokens is not None:
            t = row.tokens
            counted += [t.input, t.cache_read, t.cache_write, t.output, t.reasoning]
        if not all(type(value) is int for value in counted) or type(row.subagents) is not int:
            return None
        # Every field of its type (the times are parsed already, or ``None``): a damaged
        # value would fail later, in front of the user (a title that is a number).
        if not all(value is None or type(value) is str for value in (row.path, row.title, row.cwd, row.model,
                                                                      row.git_branch)):
            return None
        if not isinstance(document.get("workspace_folders", []), list) or not all(
                type(folder) is str for folder in row.workspace_folders):
            return None
        if (not (row.running is None or type(row.running) is bool) or type(row.counts_partial) is not bool
                or type(row.archived) is not bool):
            return None
        return row, warnings
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
