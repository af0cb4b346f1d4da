"""A Codex session's DATE, PROJECT and TITLE for ``tokens``' table, without its row's tail pass.

A Codex row (``row.assemble_row``) reads each thread's last 1 MiB and decodes
every line of it (``headtail.tail_summary``) for its sums, counts, model and
last record time; the table needs only that time, beside the title (the
thread's name, else the head's first prompt) and the directory (the
header's), or the thread index's when it is newer.  Here the time is found
in the same window's bytes (``toolkit.stampscan``), and so are the renames
(only the lines naming ``thread_name_updated`` are decoded, as the row's
pass decodes them); the head and header are read as the row reads them.
``None`` (read the row) for a compressed rollout (its "tail" is the whole
file) and whatever ``stampscan`` cannot settle.
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
    from agentscan.providers.codex.names import RolloutNames

_RENAMED = b'"thread_name_updated"'


def table_facts(session: CodexSession, ctx: ScanContext) -> TableFacts | None:
    """The row's ``updated_at``, ``cwd`` and ``title`` (``row.assemble_row``), or ``None``: read the row."""
    from agentscan.providers.codex.names import chosen_name, merged
    from agentscan.providers.codex.row import index_is_newer, pick, session_head, thread_header

    threads = session.threads()
    # The thread whose name titles the row: the main one, else the first subagent.
    naming = session.main or (session.children[0] if session.children else None)
    lasts: list[datetime | None] = []
    named = None
    try:
        # One window at a time (a session of 40 subagents would hold 40 MiB): of each, its
        # newest time, and of the naming thread's, its names.
        for thread in threads:
            data = _window(thread.rollout)
            lasts.append(newest_time(data, STAMPS.findall(data), _record_at))
            if thread is naming:
                # Every file's window, in history order, as the row's tails (``row._segmented_facts``).
                own = thread.thread_id
                parts = [_names(_window(segment.rollout), own) for segment in thread.segments]
                named = chosen_name(thread, merged([*parts, _names(data, own)]))
            del data
    except (Unsure, OSError):
        return None
    recorded = newest(*lasts)
    mtime = newest(*(from_epoch(thread.rollout.mtime) for thread in threads))
    title = named.name if named else session_head(session, ctx).title
    main = session.main
    if main is None:
        first = session.children[0] if session.children else None
        return TableFacts(recorded or mtime, thread_header(first, ctx).cwd if first else None, title)
    row = main.indexed
    wins = index_is_newer(main, lasts[0])
    return TableFacts(newest(recorded, row.updated_at if row else None) or mtime,
                      pick(wins, thread_header(main, ctx).cwd, row.cwd if row else None),
                      title if named else pick(wins, title, row.title if row else None))


def _window(rollout: RolloutFile) -> bytes:
    """The bytes of the window ``headtail._read_tail`` reads."""
    from agentscan.providers.codex.headtail import tail_window

    if rollout.compressed:
        raise Unsure
    data, _ = tail_window(rollout.path)
    refuse_escaped_words(data)  # a type spelled with an escape would hide a rename from the search below
    return data


def _names(data: bytes, own: str) -> RolloutNames:
    """The renames of a window as the row's pass keeps them (``facts.LineFacts``, ``own``: the
    thread's id): each line that holds the event's type is decoded, in order (one line is
    taken once)."""
    from agentscan.providers.codex.facts import LineFacts

    facts = LineFacts(own)
    at = data.find(_RENAMED)
    while at >= 0:
        _, end = line_around(data, at)
        record = _record_at(data, at)
        if record is not None:
            facts.note_rename(record)
        at = data.find(_RENAMED, end)
    return facts.thread_names()


def _record_at(data: bytes, at: int) -> dict | None:
    """The record of the line holding byte ``at``, as ``_read_tail`` decodes it."""
    start, end = line_around(data, at)
    try:
        record = orjson.loads(data[start:end].strip())
    except orjson.JSONDecodeError:
        return None
    return record if isinstance(record, dict) else None
