"""The rows a ``tokens`` table has no line for, and why (``fold_kind``): each kind is named in
a line under the table (``tokens_notes.print_notes``), or by a warning alone (empty files).
Split from ``tokens_notes``: what a row is folded for, apart from how the notes word it."""

from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, Sequence


#: why a row has no line (each named in a line under the table, ``print_notes``): it spent
#: 0 tokens, its session recorded nothing at all (``tokens_sessions.recorded_nothing``), or its
#: provider recorded no usage (current Cursor builds': ``null`` in ``--json``)
ZERO_TOKENS, RECORDED_NOTHING, NO_USAGE = "0 tokens", "recorded nothing", "no usage"
#: ... or it recorded nothing and its files are empty: an aborted start, which ``list`` leaves
#: out as no session and the warning under the table names (``2 empty files (…)``): named once,
#: by that warning, not again in the line of the sessions that recorded nothing
EMPTY_FILES = "empty files"


def fold_kind(shown: bool, nothing: bool, no_usage: bool | Callable[[], bool],
              empty: bool | Callable[[], bool] = False) -> str | None:
    """Why a row has no line, ``None`` when it is ``shown``: it recorded ``nothing`` (from
    ``empty`` files, or a call of it: ``tokens_sessions.files_empty``), else no usage
    (``no_usage``, or a call of it: a patch reads it from its basis, for such rows alone),
    else it spent 0 tokens (``tokens_rows.row_lines`` folds those, and by session the others)."""
    if shown:
        return None
    if nothing:
        return EMPTY_FILES if (empty() if callable(empty) else empty) else RECORDED_NOTHING
    return NO_USAGE if (no_usage() if callable(no_usage) else no_usage) else ZERO_TOKENS


def named_folds(folds: Iterable[tuple[str, str | None]]) -> tuple[list[str], list[str], list[str]]:
    """The keys of the rows ``fold_kind`` folded, in their order: of 0 tokens, of sessions
    that recorded nothing, of sessions that recorded no usage (those of empty files are
    named by their warning alone)."""
    named: dict[str | None, list[str]] = {ZERO_TOKENS: [], RECORDED_NOTHING: [], NO_USAGE: [], EMPTY_FILES: [], None: []}
    for key, kind in folds:
        named[kind].append(key)
    return named[ZERO_TOKENS], named[RECORDED_NOTHING], named[NO_USAGE]


def names_nothing(by: str, key: str) -> bool:
    """Whether a row's ``key`` names nothing a reader can act on: ``unknown`` (calls with no
    time, or sessions with no working directory) or a name that is no model (Claude Code's
    ``<synthetic>`` notices, Cursor's ``default``: ``pricing.aliases``).  Of 0 tokens, such
    a row is left out of the line that names the folded rows, under a table: it carried
    no information ("(+ 1 period with 0 tokens: unknown)")."""
    if by == "model":
        from agentscan.pricing.aliases import NOT_A_MODEL, UNBILLED

        return key.strip().lower() in NOT_A_MODEL | UNBILLED
    return by != "session" and by != "provider" and key == "unknown"


class Folded(NamedTuple):
    """The keys of the rows a table has no line for, each kind named in a line under it
    (``fold_kind``): of 0 tokens, of sessions that recorded nothing at all
    (``tokens_sessions.recorded_nothing``), of sessions that recorded no usage (in no row,
    ``null`` in ``--json``), of sessions that could not be read (in no row, nor in ``--json``'s),
    and of those read only up to their damage, before any usage (``cut``: a legacy Gemini chat
    caught half rewritten; in ``--json``'s ``unreadable``, its ``reason`` saying so).  (Named
    tuples here: a frozen dataclass costs a warm ``tokens`` a millisecond to create,
    ``tests/test_fastpath.py``.)"""

    zero_tokens: Sequence[str] = ()
    recorded_nothing: Sequence[str] = ()
    no_usage: Sequence[str] = ()
    unreadable: Sequence[str] = ()
    cut: Sequence[str] = ()
