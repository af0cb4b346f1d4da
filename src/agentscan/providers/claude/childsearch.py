"""The sessions whose records name a subagent that has no transcript of its own.

Discovery knows a session's subagents by their files (``subagents/agent-<id>.jsonl``).
Two kinds have none: a subagent whose file is gone, known from the copies of its
records in the parent's ``agent_progress`` records (``"agentId":"<id>"``), and a run
an older build wrote inline in the parent (``sidechains``).  ``show <id>`` of one
finds it here, once no session and no subagent file matched: in the bytes of the
main transcripts, newest first, within ``BUDGET`` bytes (a mistyped id must not read
a heavy user's whole history), a candidate's id then confirmed from its records.
"""

from __future__ import annotations

import mmap
from typing import TYPE_CHECKING, Callable, Sequence

from agentscan.providers.claude.sidechains import PREFIX

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.model import SessionRef

#: bytes of main transcripts read for one id, newest sessions first: a mistyped id costs a
#: heavy user ~0.1 s more, not seconds (2 GiB took 3.6 s warm on the bench's scale-10 home)
BUDGET = 96 << 20
_AGENT_ID = b'"agentId":"'
_SIDECHAIN = b'"isSidechain":true'
#: an agent id is short: anything longer after the key is no id
_MAX_ID = 128


def recorded_children(refs: Sequence[SessionRef], wanted: str, key: Callable[[str], str],
                      ctx: ScanContext) -> list[tuple[SessionRef, str]]:
    """``(session, subagent id)`` of every subagent without a transcript whose id, as
    ``key`` folds it, is ``wanted`` or starts with it."""
    found: list[tuple[SessionRef, str]] = []
    budget = BUDGET
    for ref in sorted(refs, key=lambda r: r.recency, reverse=True):
        # (A ref kept from an earlier scan holds no discovery hint: its path and children say it all.)
        main = ref.path
        if main is None or str(main).endswith(".zst"):
            continue
        stat = ctx.stat(str(main))
        if stat is None or stat.st_size == 0:
            continue
        if stat.st_size > budget:
            continue  # one huge transcript must not end the search: the smaller ones go on
        budget -= stat.st_size
        ids = _inline_runs(main, ctx) if wanted.startswith(PREFIX) else _named_in(main, ctx)
        found.extend((ref, agent_id) for agent_id in sorted(ids - set(ref.children)) if key(agent_id).startswith(wanted))
    return found


def _named_in(main: Path, ctx: ScanContext) -> set[str]:
    """The agent ids the main transcript's records name."""
    data = _bytes_of(main, ctx)
    ids: set[str] = set()
    if data is None:
        return ids
    with data:
        at = data.find(_AGENT_ID)
        while at >= 0:
            start = at + len(_AGENT_ID)
            end = data.find(b'"', start, start + _MAX_ID)
            if end > start:
                text = data[start:end].decode("utf-8", "replace")
                if text.isprintable() and "\\" not in text:
                    ids.add(text)
            at = data.find(_AGENT_ID, start)
    return ids


def _inline_runs(main: Path, ctx: ScanContext) -> set[str]:
    """The runs written inline in the main transcript, from its row's pass (only a
    transcript that holds a sidechain record is read whole)."""
    from agentscan.providers.claude.row import summarize

    data = _bytes_of(main, ctx)
    if data is None:
        return set()
    with data:
        if data.find(_SIDECHAIN) < 0:
            return set()
    with ctx.warnings.capture():
        return set(summarize(main, ctx).inline)


def _bytes_of(path: Path, ctx: ScanContext) -> mmap.mmap | None:
    from agentscan.toolkit.fsutil import open_regular

    try:
        with open_regular(path) as handle:  # (not a FIFO or a device a transcript's name was given to)
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:
        ctx.cannot_read(path, exc)
        return None
