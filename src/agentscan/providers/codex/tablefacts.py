"""A Codex session's DATE, CWD and TITLE for ``tokens``' table, without its row's tail pass.

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

With ``models`` (``list --grep``), the names the row's ``model`` is chosen
among and every other thread's models (``TableFacts.models``; ``--grep`` finds a
session by any of its calls' models, ``scan.grepmodels``, and a subagent's
window or kept tally names each of its calls' as the naming thread's does): the row's model is the most used of the
naming thread's calls and turns (``modeluse``) in its files' windows, or in
a large file's kept tally, else the index row's.  Every call and turn a
window's pass counts is named by a ``"model"`` key in that window (a call's
own, or a ``turn_context``'s, and no pass of a window goes on from an earlier
one), so every such key's string in the bytes is taken, with the kept
tally's models and the index's.  Left ``None`` (the row is read) where that
may miss one: a name spelled with an escape; a file larger than its window
without a kept tally (the row's model may be the one a long turn began on
before the window, ``turnseed``; and a whole pass may keep a tally later,
naming what no window holds, while these facts stay kept for the same files);
and a fork or subagent larger than its window, whose copied history may be
read whole for its own calls (``row._own_facts``).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from agentscan.toolkit import laxjson

from agentscan.model import TableFacts
from agentscan.timeutil import from_epoch, newest
from agentscan.toolkit.stampscan import STAMPS, Unsure, add_model_names, line_around, newest_time, refuse_escaped_words

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.providers.codex.discovery import CodexSession, RolloutFile, Thread
    from agentscan.providers.codex.header import RolloutHeader
    from agentscan.providers.codex.names import RolloutNames

_RENAMED = b'"thread_name_updated"'


def table_facts(session: CodexSession, ctx: ScanContext, *, models: bool = False) -> TableFacts | None:
    """The row's ``updated_at``, ``cwd`` and ``title`` (``row.assemble_row``), or ``None``: read the row.
    ``models``: the names its ``model`` is one of too (the module's doc), where they are sure."""
    from agentscan.providers.codex.names import chosen_name, merged
    from agentscan.providers.codex.row import archived, index_is_newer, marked_title, pick, session_head
    from agentscan.providers.codex.header import thread_header

    threads = session.threads()
    # The thread whose name titles the row, and whose model is the row's: the main one, else
    # the first subagent.
    naming = session.main or (session.children[0] if session.children else None)
    lasts: list[datetime | None] = []
    named = None
    choosing: set[str] | None = set() if models else None
    # The naming thread's header, read once: its cwd, its title's mark and whether it replays
    # a copied history all come from it (each once read it again).
    naming_header: RolloutHeader | None = None
    try:
        # One window at a time (a session of 40 subagents would hold 40 MiB): of each, its
        # newest time, and of the naming thread's, its names.
        for thread in threads:
            data, cut = _window(thread.rollout)
            lasts.append(newest_time(data, STAMPS.findall(data), _record_at))
            if thread is naming:
                # Every file's window, in history order, as the row's tails (``row._segmented_facts``).
                own = thread.thread_id
                parts = []
                for segment in thread.segments:
                    part, part_cut = _window(segment.rollout)
                    parts.append(_names(part, own))
                    choosing = _file_models(part, part_cut, segment.rollout.path, ctx, choosing)
                    del part
                named = chosen_name(thread, merged([*parts, _names(data, own)]))
                choosing = _file_models(data, cut, thread.rollout.path, ctx, choosing)
                if cut and choosing is not None:
                    naming_header = thread_header(thread, ctx)
                    if _replays(thread, naming_header):
                        choosing = None
            elif choosing is not None:
                # ``list --grep`` finds a session by any of its calls' models, a subagent's too
                # (``grepmodels``): each other thread's names join the naming thread's.  A
                # paginated one's earlier files are not read here: unsure.
                choosing = None if thread.segments else _file_models(data, cut, thread.rollout.path, ctx, choosing)
            del data
    except (Unsure, OSError):
        return None
    recorded = newest(*lasts)
    mtime = newest(*(from_epoch(thread.rollout.mtime) for thread in threads))
    main = session.main
    # As the row has it (``row.assemble_row``), from discovery alone: the files' places and the index
    shelved = archived(main) if main is not None else bool(session.children) and all(map(archived, session.children))
    if naming is None:
        return TableFacts(recorded or mtime, None, session_head(session, ctx).title, _sorted(choosing), shelved)
    header = naming_header if naming_header is not None else thread_header(naming, ctx)
    # (a fork's title is its own first prompt: ``session_head`` asks its header)
    title = named.name if named else session_head(session, ctx, header).title
    if main is None:  # the first subagent names the row
        return TableFacts(recorded or mtime, _cwd(header, session, ctx), title, _sorted(choosing), shelved)
    row = main.indexed
    if choosing is not None and row is not None and row.model is not None:
        choosing.add(row.model)  # the row's model when no window or tally names one
    wins = index_is_newer(main, lasts[0])
    return TableFacts(newest(recorded, row.updated_at if row else None) or mtime,
                      pick(wins, _cwd(header, session, ctx), row.cwd if row else None),
                      marked_title(title if named else pick(wins, title, row.title if row else None), header),
                      _sorted(choosing), shelved)


def _cwd(header: RolloutHeader, session: CodexSession, ctx: ScanContext) -> str | None:
    """The cwd as the row takes it (``row.assemble_row``): the header's, else the head's."""
    from agentscan.providers.codex.row import session_head

    return header.cwd or session_head(session, ctx, header).cwd


def _sorted(names: set[str] | None) -> tuple[str, ...] | None:
    return None if names is None else tuple(sorted(names))


def _replays(thread: Thread, header: RolloutHeader) -> bool:
    """Whether the row tells the thread's own calls from a copied history (``row._own_facts``,
    which a paginated thread's ``row._segmented_facts`` never does)."""
    return not thread.segments and header.history_base is None and header.link.replays_history


def _file_models(data: bytes, cut: bool, path: Path, ctx: ScanContext, names: set[str] | None) -> set[str] | None:
    """``names`` with the models the row may take from one file of the naming thread
    (``row._file_tail``): its window's, and when the window cut it, its kept tally's.
    ``None``: not sure of them (the module's doc)."""
    from agentscan.providers.codex.fullcounts import exact_tally

    if names is None:
        return None
    if not add_model_names(data, names):
        return None  # spelled with an escape: its bytes are not its name
    if cut:
        tally = exact_tally(path, ctx)  # as the row takes it: brought up to date if the file grew
        if tally is None or tally.models is None:
            return None  # the row's model may be named before the window (``turnseed``), or later kept
        names.update(model for model, _ in (*tally.models.calls, *tally.models.turns))
    return names


def _window(rollout: RolloutFile) -> tuple[bytes, bool]:
    """The bytes of the window ``headtail._read_tail`` reads, and whether it cut the file."""
    from agentscan.providers.codex.headtail import tail_window

    if rollout.compressed:
        raise Unsure
    data, cut = tail_window(rollout.path)
    # A key or a type spelled with an escape would hide a rename (or a model) from the searches below.
    refuse_escaped_words(data)
    return data, cut


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
        record = laxjson.loads(data[start:end].strip())
    except orjson.JSONDecodeError:
        return None
    return record if isinstance(record, dict) else None
