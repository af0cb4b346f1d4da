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
    present = {ref.native_id for ref in refs}
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
        if wanted.startswith(PREFIX):
            ids = _inline_runs(main, ctx)
        else:
            named = _named_in(main, ctx)
            # A resumed session's transcript begins with copies of the records of the session
            # it was resumed from: a run only they name is that session's, where it is found.
            others = present - {ref.native_id}  # (once a session: not once a run)
            ids = {agent_id for agent_id, sessions in named.items() if not sessions <= others}
        found.extend((ref, agent_id) for agent_id in sorted(ids - set(ref.children)) if key(agent_id).startswith(wanted))
    return found


def _named_in(main: Path, ctx: ScanContext) -> dict[str, set[str]]:
    """The agent ids the main transcript's records name -> the sessions those records name
    (their top-level ``sessionId``; ``""`` for a record naming none)."""
    data = _bytes_of(main, ctx)
    ids: dict[str, set[str]] = {}
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
                    ids.setdefault(text, set()).add(_session_named(data, data.rfind(b"\n", 0, at) + 1, at))
            at = data.find(_AGENT_ID, start)
    return ids


def _session_named(data: mmap.mmap, line_start: int, at: int) -> str:
    """The session the record of the line starting at ``line_start`` (holding ``at``) names at
    its top level (``resumes.line_session``), ``""`` for none.  Not only before ``at``: 2.1.x
    writes a progress record's ``data`` (its run's ``agentId``) before its ``sessionId``, and
    a resumed session's copy of a run of the session it was resumed from was taken for a run
    of its own (``show <run>`` was ambiguous between the two)."""
    from agentscan.providers.claude.resumes import line_session

    close = data.find(b"\n", at)
    return line_session(data, line_start, len(data) if close < 0 else close) or ""


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
