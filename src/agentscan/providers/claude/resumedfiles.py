"""Which transcripts a Claude session was resumed from and as (``claude --resume`` copies the
first session's records into a new file under a new id): header reads, remembered per file,
in the session's project folder under every root.  Apart from ``discovery`` because ``show``
and the rows' lineage ask it, never a discovery."""

from __future__ import annotations

import os
from pathlib import Path

from agentscan.context import ScanContext
from agentscan.providers.claude.copychoice import Copy, choose
from agentscan.providers.claude.discovery import admitted_entries, cached_stat, project_folders
from agentscan.providers.claude.headfields import header_field
from agentscan.providers.claude.resumes import named_by_session_id
from agentscan.toolkit.fsutil import is_file


def resumed_from(native_id: str, main: Path | None, ctx: ScanContext) -> str | None:
    """The session a transcript was resumed from (``claude --resume``): Claude Code copies the
    first session's records to the start of the new transcript, with their own
    ``sessionId``, so the first ``sessionId`` of the head that is not the file's own names
    it.  ``None``: not resumed, or nothing to read.  (A header read, remembered per file.)"""
    if main is None or not named_by_session_id(native_id):
        # (a copy kept under another name, ``<id>-backup.jsonl``, ``<id> (1).jsonl``, names its
        # own session in every record: no session resumed, whose file Claude Code names by a
        # new session id, and whose records are its own after the copies)
        return None
    first = header_field(main, ctx, "sessionId")
    return first if first is not None and first != native_id and first.isprintable() else None


def resumed_as(native_id: str, main: Path | None, ctx: ScanContext, *, every: bool = False) -> list[str]:
    """The sessions resumed from this one (``resumed_from`` names it): the other transcripts of
    its project's folder under every root whose head names it, by name (heads remembered per
    file).  ``every``: every resumed one (a chain's later ones' heads name its first)."""
    return sorted(resumed_paths(native_id, main, ctx, every=every))


def resumed_paths(native_id: str, main: Path | None, ctx: ScanContext, *, every: bool = False) -> dict[str, Path]:
    """``resumed_as``'s sessions, each with its transcript: the copy a discovery counts when
    one is under several roots (``_settle``), not the first root's, which may be a stale start
    of it (``show`` named a later session by what that copy's head said)."""
    from agentscan.providers.claude.roots import claude_roots

    if main is None:
        return {}
    found: dict[str, list[os.DirEntry[str]]] = {}
    for folder in project_folders(main, [root.path for root in claude_roots(ctx)]):
        for entry in admitted_entries(str(folder), ctx, report=folder == main.parent):
            name = entry.name
            if name.endswith(".jsonl") and not name.startswith("agent-") and name != main.name and is_file(entry):
                first = header_field(Path(entry.path), ctx, "sessionId")
                if first == native_id or (every and first is not None and first != name[: -len(".jsonl")]):
                    found.setdefault(name[: -len(".jsonl")], []).append(entry)
    return {name: Path(entries[0].path) if len(entries) == 1 else _counted_copy(entries, ctx)
            for name, entries in found.items()}


def _counted_copy(entries: list[os.DirEntry[str]], ctx: ScanContext) -> Path:
    """Which of one transcript's copies (under several roots, in their order) a discovery counts."""
    copies = [Copy(entry.path, Path(entry.path), stat) for entry in entries if (stat := cached_stat(entry, ctx)) is not None]
    if len(copies) < 2:
        return copies[0].item if copies else Path(entries[0].path)
    with ctx.held_warnings():  # (how the copies differ is the discovery's to say, once)
        return choose(copies, ctx).item
