"""Where a Claude session whose transcript is gone (Claude Code deletes old ones) was, and
whether it is gone: what ``show`` (``resumedshow``) and ``tokens --by agent``
(``agenttypes.copied_task_types``) both ask, kept below both so neither layer imports the
other (``resumedshow`` runs the row's pass, which reads subagents' kinds).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentscan.detailmodel import SessionDetail


def is_gone(native_id: str | None, main: str | os.PathLike[str] | None) -> bool:
    """Whether the session ``native_id`` (named by a resumed transcript ``main``) has no
    transcript beside it, where Claude Code writes a project's sessions."""
    if native_id is None or main is None:
        return False
    return not os.path.isfile(os.path.join(os.path.dirname(main), f"{native_id}.jsonl"))


def gone_main(files: Any) -> Path | None:
    """Where a session whose transcript is gone and whose ``<id>/subagents/`` folder is left
    (``files``: its ``SessionFiles``) had its transcript, beside the sessions resumed from it
    (``resumedfiles.resumed_as``); ``None``: it has its transcript, or only legacy subagent files."""
    from agentscan.providers.claude.discovery import parentless_path

    if files is None or files.main is not None:
        return None
    where = parentless_path(files.native_id, [sub.path for sub in files.subagents.values()])
    if where is None or os.path.basename(where) != files.native_id:
        return None
    return Path(os.path.dirname(where), f"{files.native_id}.jsonl")


def in_time_order(detail: SessionDetail) -> SessionDetail:
    """The card of a session whose transcript is gone, its prompts and replies in the order
    they were made: its conversation is its subagents', read one file after another (a run
    started at 21:24 was listed above a compaction of 21:17, and its last reply, the newest,
    was not the card's ``last response``).  An item with no time goes last, in file order."""
    from dataclasses import replace

    def when(item: Any) -> tuple[bool, float]:
        return (item.timestamp is None, item.timestamp.timestamp() if item.timestamp is not None else 0.0)

    return replace(detail, prompts=tuple(sorted(detail.prompts, key=when)),
                   responses=tuple(sorted(detail.responses, key=when)))
