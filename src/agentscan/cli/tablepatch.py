"""The text table of ``tokens`` patched by the sessions that changed since it was made whole.

An agent at work writes a session or two between two runs of ``agentscan
tokens``, and the remembered table (``scan.answers``) is a miss.  Made whole,
a heavy user's table takes back 15,000 kept rows of sums and 15,000 of
facts, checks every session's key hashes, and lays out 20,000 lines: 1.7 s.
``--json`` is patched (``scan.answerpatch``); this is the same for the table.

A whole table printed with no warning keeps a basis (``cli.tablebasis``). A
patch takes the changes, rows and total from ``answerpatch.patch_of``, makes
the lines of the changed and new sessions anew, reads again the rows their
providers may revise with no file changed, and takes every session's shown
id now.  Then:

- *spliced*: when the table's layout comes out as the kept one (the widths
  of the cells counted out and in, ``tablewidths.WidthCounts``), and so does its
  CWD column fitted to the paths it shows (``tablepaths.named_floors`` and
  ``paths_fitted``: the paths counted out and in), every other row is printed
  as the kept text has it, and only the new lines are laid out;
- *laid out*: else every row's lines (kept, or new) are laid out again, with
  the code a whole table is laid out with (``tokens_layout.print_lines``).

Tests compare patched tables with whole ones, byte for byte.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, Mapping

from agentscan.cli import table, tablefit, tablepaths
from agentscan.cli.tableparts import Row
from agentscan.cli.term import write_out
from agentscan.cli.tablebasis import (COMMAND, CWD, NOTHING, PARTS, Kept, Spliceable, count_paths, kept_row,
                                      recorded_nothing_rows, spliceable)
from agentscan.cli.tokens_columns import (SESSION_LEAD, reasoning_partial, reasoning_unreported, session_columns, total_agents,
                                          zero_first, zero_headers)
from agentscan.cli.tokens_folds import Folded, fold_kind, named_folds
from agentscan.cli.tokens_notes import Drawn, print_notes
from agentscan.cli.tokens_sessions import (NO_DATE, date_in, files_empty, recorded_nothing, says_nothing, session_facts,
                                           sort_key, updated_of)
from agentscan.cli.tokens_rows import Total, row_lines, total_row
from agentscan.cli.tokens_layout import choose_layout, print_lines
from agentscan.cli.tokens_text import shown_keys
from agentscan.scan import answerpatch
from agentscan.scan.answerbasis import Damaged

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.cli.term import Terminal
    from agentscan.scan.scanner import Scanner

__all__ = ["COMMAND", "patched"]


class _Session:
    """A session of the patched table: its sort key, shown id, and its lines when they are
    not the kept text's (``None``: printed as kept); ``fold``: why it has no lines
    (``tokens_folds.fold_kind``; ``None``: it has); ``parts``: it has delegated calls."""

    __slots__ = ("when", "key", "full", "rounded", "index", "fold", "parts")

    def __init__(self, when: float, key: str, full: list[Row] | None, rounded: list[Row] | None,
                 index: int | None, fold: str | None, parts: bool) -> None:
        self.when, self.key, self.full, self.rounded, self.index = when, key, full, rounded, index
        self.fold, self.parts = fold, parts


def patched(scanner: Scanner, question: Mapping[str, Any], providers: list[str], term: Terminal,
            zone: tzinfo | None = None) -> bool:
    """Print the table of every session of ``providers`` patched from the basis; ``False``
    (nothing printed): it must be made whole.  Inside a warnings capture: a warning makes
    it ``False``.  ``zone``: ``--tz``, the dates' zone (the question holds it too)."""
    patch = answerpatch.patch_of(scanner, COMMAND, question, providers)
    if patch is None:
        return False
    splice = spliceable(patch.basis, term)
    try:
        sessions = _sessions(scanner, patch, term, splice, zone)
    except Damaged:
        return False  # a row's details, read only for a row with no lines
    if sessions is None or len(scanner.ctx.warnings):
        return False
    total = (patch.total, patch.cost, patch.cost)
    # TOTAL's REASONING ``-`` when no agent of the sessions it adds up records it apart
    # (``total_agents``: a patch goes by the sessions it does not fold, a folded Gemini chat that
    # recorded nothing made a table of Claude sessions total 0 warm and ``-`` with ``--no-cache``).
    counted = total_agents((((patch.refs[at].provider,), session.fold is None) for at, session in enumerate(sessions)),
                           {ref.provider for ref in patch.refs})
    unreported = reasoning_unreported(counted)
    mixed = reasoning_partial(counted)  # (a lower bound, ``≥``, and its note)
    # The table's sessions by their DATE, newest first, as ``tokens_table.newest_first``
    # sorts a whole table's rows (stable: equal dates keep the report's order).
    order = sorted(sessions, key=lambda session: session.when, reverse=True)
    named = named_folds((session.key, session.fold) for session in order)
    parts = any(session.parts for session in sessions)
    if splice is not None and _print_spliced(patch, splice, sessions, order, total, named, parts, term, zone,
                                             unreported, mixed):
        return True
    lines: list[list[Row]] = []
    rounded: list[list[Row]] = []
    for session in order:
        if session.full is None:
            assert session.index is not None
            kept = kept_row(patch.basis, session.index, term)
            if kept is None or kept.revisable:
                return False  # (a row to read again was not printed as kept: a basis at odds with itself)
            session.full, session.rounded = _with(kept.full, session.key), _with(kept.rounded, session.key)
        lines.append(session.full)
        rounded.append(session.rounded or [])
    # Off a terminal a table is never fitted, so never rounded (``tablefit.layout``).
    folded, empty, unrecorded = named
    print_lines("session", lines, lambda: rounded, total, folded, [], term, empty=empty, unrecorded=unrecorded,
                parts=parts, zone=zone, unreported=unreported, mixed=mixed)
    return True


def _sessions(scanner: Scanner, patch: answerpatch.Patch, term: Terminal,
              splice: Spliceable | None, zone: tzinfo | None) -> list[_Session] | None:
    """Every session of the patched table, in the report's order; ``None``: the basis cannot
    tell them.  The kept lines of a session printed as the kept text has it are not read."""
    nothing = recorded_nothing_rows(patch.basis)
    if nothing is None:
        return None
    short_ids = scanner.short_ids() if term.tty else {}
    keys = shown_keys((session_id for session_id, _ in patch.now), short_ids, term)
    changed = set(patch.changed)
    index_of = patch.basis.index
    kept: dict[int, Kept] = {}
    for position, (session_id, _) in enumerate(patch.now):
        if position in changed:
            continue
        index = index_of[session_id]
        if splice is not None and index not in splice.revisable and (
                splice.keys is None or splice.keys[index] == keys[position]):
            continue  # printed as kept, when the layout is the kept one
        found = kept_row(patch.basis, index, term)
        if found is None:
            return None
        if found.revisable and patch.refs[position].id != session_id:
            return None  # the sequence moved under us (as ``answerpatch._patch`` checks its changes)
        kept[position] = found
    # Read again in one query (as a whole table reads them): the rows of the changed sessions,
    # and those their providers may revise with none of their files changed.
    again = [position for position in range(len(patch.now))
             if position in changed or (position in kept and kept[position].revisable)]
    from agentscan.scan import tablefacts
    from agentscan.scan.sessionids import known_ids_of

    read = tablefacts.gather(scanner, [patch.refs[position] for position in again])
    known = known_ids_of(scanner)  # (a changed row's runs named as a whole table names them)
    sessions = []
    for position, (session_id, _) in enumerate(patch.now):
        key = keys[position]
        if position in changed:
            token_row = patch.new_rows[session_id]
            if token_row.recovered:
                return None  # TOTAL a lower bound (``≥``): made whole, as ``tablebasis`` keeps no basis then
            session = read[patch.refs[position].id]
            facts = session_facts(session, term, zone)
            full = row_lines(token_row, key, facts, term, compact=False, session=session, known=known)
            rounded = row_lines(token_row, key, facts, term, compact=True, session=session,
                                known=known) if term.tty else []
            fold = fold_kind(bool(full), recorded_nothing(token_row, facts, session), token_row.tokens is None,
                             partial(files_empty, patch.refs[position]))
            sessions.append(_Session(sort_key(session), key, full, rounded, None, fold,
                                     bool(full and token_row.subagents)))
            continue
        index = index_of[session_id]
        found = kept.get(position)
        flags = nothing[index]
        if found is None:
            assert splice is not None
            shown = bool(splice.places[2 * index + 1])
            fold = None if shown else fold_kind(False, bool(flags & NOTHING), partial(_unrecorded, patch, index),
                                                partial(files_empty, patch.refs[position]))
            sessions.append(_Session(splice.when[index], key, None, None, index, fold, bool(flags & PARTS)))
        elif found.revisable:
            # Its provider may revise its row with none of its files changed (a Gemini
            # cwd another provider reveals): read again.
            session = read[patch.refs[position].id]
            when = updated_of(session)
            facts = session_facts(session, term, zone)
            unrecorded = _unrecorded(patch, index)
            if unrecorded and says_nothing(facts, session) != bool(flags & NOTHING):
                return None  # it now recorded nothing, or something (a project): named anew
            sessions.append(_Session(NO_DATE if when is None else when, key, _with(found.full, key, facts),
                                     _with(found.rounded, key, facts), index,
                                     fold_kind(bool(found.full), bool(flags & NOTHING), unrecorded,
                                               partial(files_empty, patch.refs[position])), bool(flags & PARTS)))
        else:
            fold = None if found.full else fold_kind(False, bool(flags & NOTHING), partial(_unrecorded, patch, index),
                                                     partial(files_empty, patch.refs[position]))
            sessions.append(_Session(found.when, key, _with(found.full, key), _with(found.rounded, key), index,
                                     fold, bool(flags & PARTS)))
    return sessions


def _unrecorded(patch: answerpatch.Patch, index: int) -> bool:
    """Whether the basis row ``index`` recorded no usage (``null`` tokens): a row with no lines
    is then one that recorded nothing, not one of 0 tokens (asked of those rows alone)."""
    return patch.basis.details(index)[0] is None


def _print_spliced(patch: answerpatch.Patch, splice: Spliceable, sessions: list[_Session], order: list[_Session],
                   total: Total, named: tuple[list[str], list[str], list[str]], parts: bool, term: Terminal,
                   zone: tzinfo | None, unreported: bool = False, mixed: bool = False) -> bool:
    """Print the table from the kept text when its layout comes out as the kept one;
    ``False`` (nothing printed): it does not.  ``named``: the folded sessions, those that
    recorded nothing and those that recorded no usage; ``parts``: a session shown has
    delegated calls (``print_notes``); ``zone``: the dates' (``--tz``); ``unreported``: TOTAL's
    REASONING is ``-`` (``tokens_rows.total_row``); ``mixed``: a lower bound."""
    if total[0] is None:
        return False  # "not recorded" alone: laid out with no number column (``tokens_layout.print_lines``)
    full = splice.full.copy()
    paths = dict(splice.paths)
    rounded = splice.rounded.copy() if splice.rounded is not None else None
    as_kept = {session.index for session in sessions if session.full is None}
    for index in range(len(patch.basis.ids)):
        if index in as_kept:
            continue
        # Its kept lines are not printed (changed, gone, read again, shown under another id).
        kept = kept_row(patch.basis, index, term)
        if kept is None:
            return False
        full.add(kept.full, -1)
        count_paths(paths, kept.full, -1)
        if rounded is not None:
            rounded.add(kept.rounded, -1)
    for session in sessions:
        if session.full is not None:
            full.add(session.full)
            count_paths(paths, session.full)
            if rounded is not None and session.rounded is not None:
                rounded.add(session.rounded)
    # Its CWD fitted as a whole table's is, to the paths it shows (the kept text's fitted alike).
    shown = [path for path, count in paths.items() if count]
    columns = tablepaths.named_floors(session_columns(), lambda index: shown if index == CWD else [])
    whole_total = total_row("session", total, term, compact=False, unreported=unreported, partial=mixed)
    columns = zero_first(columns, list(whole_total.cells))  # as a whole table's (``tokens_layout.print_lines``)
    full.add([whole_total])
    if rounded is not None:
        rounded.add([total_row("session", total, term, compact=True, unreported=unreported, partial=mixed)])
    natural = full.natural(columns)
    chosen = choose_layout(columns, natural, lambda: rounded.natural(columns) if rounded is not None else None,
                           term) if natural is not None else None
    if chosen is None or chosen != (splice.planned, splice.compact) or any(count < 0 for count in paths.values()):
        return False
    planned = tablepaths.paths_fitted(columns, splice.planned, term, lambda index: shown if index == CWD else [])
    if planned[1] != splice.widths:
        return False
    compact = splice.compact
    pieces: list[str] = []
    text, places = splice.text, splice.places
    run: list[int] = []  # the kept text's start and end of adjacent rows printed as kept

    def flush() -> None:
        if run:
            pieces.append(text[run[0]:run[1]].tobytes().decode("utf-8", "surrogateescape"))
            run.clear()

    for session in order:
        if session.fold is not None:
            continue
        if session.full is None:
            assert session.index is not None
            start = places[2 * session.index]
            end = start + places[2 * session.index + 1]
            if run and start == run[1] + 1:
                run[1] = end
            else:
                flush()
                run[:] = [start, end]
            continue
        flush()
        lines = session.rounded if compact else session.full
        assert lines is not None
        pieces.append("\n".join(table.render(columns, lines, term, planned)[0][1:]))
    flush()
    head, *last = table.render(columns, [total_row("session", total, term, compact=compact, unreported=unreported,
                                                            partial=mixed)],
                               term, planned)[0]
    write_out("\n".join([head, *pieces, *last]) + "\n")
    folded, empty, unrecorded = named
    # The shown sessions' DATEs, as ``session_facts`` gives them (the kept text's are not read),
    # for the long-table hint alone (``fewer_sessions``: the newest, the oldest, and whether
    # one has none): two dates made, not one a row.
    whens = [session.when for session in order if session.fold is None]
    known = [when for when in whens if when != NO_DATE]
    dates = [date_in(datetime.fromtimestamp(when, timezone.utc), zone) for when in (max(known), min(known))] \
        if known else []
    dates += ["-"] if len(known) < len(whens) else []
    print_notes("session", term, Folded(folded, empty, unrecorded),
                drawn=Drawn(tablefit.hidden(columns, planned), compact, total[0], parts, len(whens), dates, zone,
                            zero=zero_headers(columns), partial=mixed))
    return True


def _with(lines: list[Row], key: str, facts: list[str] | None = None) -> list[Row]:
    """``lines`` with the first one's id as shown now and, when read again, its session's facts."""
    if not lines or (facts is None and lines[0].cells[0] == key):
        return lines
    first = lines[0]
    cells = list(first.cells)
    cells[0] = key
    if facts is not None:  # the date and cwd after the id, the title last (``tokens_columns.session_cells``)
        cells[1:SESSION_LEAD], cells[-1] = facts[:-1], facts[-1]
    return [first._replace(cells=cells), *lines[1:]]
