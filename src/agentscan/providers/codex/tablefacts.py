"""A Codex session's DATE, PROJECT and TITLE for ``tokens``' table, without its row's tail pass.

A Codex row (``row.assemble_row``) reads each thread's last 1 MiB and decodes
every line of it (``headtail.tail_summary``) for its sums, counts, model and
last record time; the table needs only that time, beside the title (the
head's first prompt) and the directory (the header's), or the thread index's
when it is newer.  Here the time is found in the same window's bytes
(``toolkit.stampscan``), and the head and header are read as the row reads
them.  ``None`` (read the row) for a compressed rollout (its "tail" is the
whole file) and whatever ``stampscan`` cannot settle.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from agentscan.model import TableFacts
from agentscan.timeutil import from_epoch, newest
from agentscan.toolkit.stampscan import STAMPS, Unsure, line_around, newest_time, refuse_escaped_words

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.codex.discovery import CodexSession, RolloutFile


def table_facts(session: CodexSession, ctx: ScanContext) -> TableFacts | None:
    """The row's ``updated_at``, ``cwd`` and ``title`` (``row.assemble_row``), or ``None``: read the row."""
    from agentscan.providers.codex.row import index_is_newer, pick, session_head, thread_header

    threads = session.threads()
    try:
        lasts = [_tail_newest(thread.rollout) for thread in threads]
    except (Unsure, OSError):
        return None
    recorded = newest(*lasts)
    mtime = newest(*(from_epoch(thread.rollout.mtime) for thread in threads))
    title = session_head(session, ctx).title
    main = session.main
    if main is None:
        first = session.children[0] if session.children else None
        return TableFacts(recorded or mtime, thread_header(first, ctx).cwd if first else None, title)
    row = main.indexed
    wins = index_is_newer(main, lasts[0])
    return TableFacts(newest(recorded, row.updated_at if row else None) or mtime,
                      pick(wins, thread_header(main, ctx).cwd, row.cwd if row else None),
                      pick(wins, title, row.title if row else None))


def _tail_newest(rollout: RolloutFile) -> datetime | None:
    """The newest record time of the window ``headtail._read_tail`` reads (``TailSummary.last_timestamp``)."""
    from agentscan.providers.codex.headtail import tail_window

    if rollout.compressed:
        raise Unsure
    data, _ = tail_window(rollout.path)
    refuse_escaped_words(data)
    return newest_time(data, STAMPS.findall(data), _record_at)


def _record_at(data: bytes, at: int) -> dict | None:
    """The record of the line holding byte ``at``, as ``_read_tail`` decodes it."""
    start, end = line_around(data, at)
    try:
        record = orjson.loads(data[start:end].strip())
    except orjson.JSONDecodeError:
        return None
    return record if isinstance(record, dict) else None
