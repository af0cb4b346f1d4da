"""``list --grep``, ``--cwd`` and ``--until``: the sessions their facts alone rule out, rows unread.

These filters test a row (its time, title, cwd, model and path), and a row not in
the index is a pass over every line of its session: a first ``list --grep``
on the bench's scale-10 home read all 15,000 rows to find a word in a few
(22 s), and a ``list --until`` of an old month reads every newer row before it.
A provider's table facts (``scan.tablefacts``: Claude's and Codex's,
from their files' bytes, equal to the row's) hold its date, cwd and title,
and, asked for, the models the row's could be (``TableFacts.models``: Claude's
and Codex's).  A session whose facts already fail a filter cannot
match it, and its row is left unread.  Whatever the facts cannot settle (a
provider without them, a model not looked for, a session with neither cwd nor
title, which may have recorded nothing) goes on to its row, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

from agentscan.pricing.modelnames import spellings
from agentscan.scan.grepmatch import grep_hit
from agentscan.titles import title_spellings

if TYPE_CHECKING:
    from agentscan.model import SessionRef, TableFacts
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner

#: fewer sessions than this are read as rows: their facts would cost a pass of their own
MIN_SESSIONS = 64


class Ruled(NamedTuple):
    """What ``ruled_out`` found: the sessions whose facts fail the filters (id -> the filter
    they fail, ``listfilter.STAGES``; their ``updated_at`` in epoch seconds), of ``looked`` looked at."""

    out: dict[str, tuple[str, float | None]]
    looked: int
    #: the working directory of each of ``out`` that fails ``--cwd`` (``SessionPage.elsewhere``)
    cwds: dict[str, str]

    @property
    def worth_it(self) -> bool:
        """Whether the facts left out at least half the sessions they were looked for: a filter
        most sessions pass (a word every path holds) is told by the rows read next anyway."""
        return 2 * len(self.out) >= self.looked


def ruled_out(scanner: Scanner, refs: Sequence[SessionRef], filters: ListFilter) -> Ruled | None:
    """Those of ``refs`` (the next sessions ``list`` reads) whose facts fail ``filters``;
    ``None``: no facts were looked for (too few to be worth it).  The caller asks only
    without ``--running``, whose test no fact answers."""
    from agentscan.scan import tablefacts

    kept_rows = scanner.rows_kept(refs)
    # Facts without models settle no ``--grep`` (a row's model may hold the word).
    settles = filters.cwd is not None or filters.until is not None
    cheap = [ref for ref in refs if ref.id not in kept_rows and tablefacts.may_have_facts(scanner, ref)
             and (settles or scanner.provider(ref.provider).facts_name_models)]
    if len(cheap) < MIN_SESSIONS:
        return None  # their rows are in the index (a warm run), or few to read
    progress = scanner.ctx.progress
    with progress.named("searching sessions"):
        progress.expect(len(cheap))
        facts = tablefacts.facts_only(scanner, cheap, models=bool(filters.grep))
        progress.advance(len(cheap) - len(facts))  # those left to their rows: looked at all the same
    ruled: dict[str, tuple[str, float | None]] = {}
    cwds: dict[str, str] = {}
    for ref in cheap:
        found = facts.get(ref.id)
        stage = _failed_stage(found, ref, filters) if found is not None else None
        if stage is not None:
            assert found is not None
            ruled[ref.id] = (stage, found.updated_at.timestamp() if found.updated_at is not None else None)
            if stage == "cwd" and found.cwd:
                cwds[ref.id] = found.cwd
    return Ruled(ruled, len(cheap), cwds)


def _failed_stage(facts: TableFacts, ref: SessionRef, filters: ListFilter) -> str | None:
    """The filter ``facts`` fail for certain, as ``ListFilter.failed_stage`` tells a row;
    ``None``: it may match (read its row)."""
    if facts.cwd is None and facts.title is None:
        return None  # perhaps a session that recorded nothing, which ``list`` leaves out unfiltered
    # A filter is failed for certain only on a field the facts know: a row that fails one it
    # does not know says every warning its read gave (``leftout.still_ours``), as the line
    # it skipped may have held that field.
    if (filters.since is not None or filters.until is not None) and facts.updated_at is None:
        return None
    if filters.since is not None and facts.updated_at is not None and facts.updated_at < filters.since:
        return "since"
    if filters.until is not None and facts.updated_at is not None and facts.updated_at >= filters.until:
        return "until"
    if filters.cwd is not None and facts.cwd is None:
        return None
    if not filters.holds_cwd(facts.cwd):
        return "cwd"
    if filters.grep:
        if facts.models is None or ref.path is None:
            return None  # its row's model (or path) is not known here
        # Each model as recorded and as ``list`` shows it (``opus-4.6``), as ``ListFilter`` tests a row.
        shown = (name for model in facts.models if model for name in spellings(model))
        haystack = (*title_spellings(facts.title), facts.cwd, str(ref.path), *shown)
        if not grep_hit(filters.grep_key, haystack):
            return "grep"
    return None
