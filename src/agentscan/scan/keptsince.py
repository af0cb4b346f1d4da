"""``export --since``'s sessions whose kept rows are too old, left undecoded.

An export reads every session's row (``everyrow.every_row``): it has no limit to stop at,
as ``list`` has.  With ``--since 1d`` on the bench's scale-10 home, it decoded and checked
15,000 kept rows (a third of its CPU) to write 24.  A row the index keeps for the session's
files as they are, dated before ``--since``, fails it for certain; reading it would say
nothing when the row keeps no warning and is not one its provider mends on reading
(``Provider.wants_refresh``: a Codex row of partial counts, a Gemini row with no cwd, whose
mending may warn).  SQLite picks out the few fields that tell it (``Cache.row_fields``), as
``tablefacts`` picks a table's facts: no row is decoded whole here.  Whatever it cannot
settle (a row not kept, of other files, with warnings, a field not of its type) is read as
before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner

#: what a kept row is judged by: its time, its warnings, and what ``wants_refresh`` reads
_FIELDS = ("$.updated_at", "$.warnings", "$.cwd", "$.counts_partial")


def too_old(scanner: Scanner, refs: Sequence[SessionRef], filters: ListFilter) -> set[str]:
    """The ids of those of ``refs`` whose kept row fails ``filters.since`` for certain and
    whose read would say nothing (a failing row says only its warnings, ``leftout.still_ours``).
    Empty unless ``--since`` is the filter that decides first: ``--running``/``--pid``
    (``/proc``) and ``--archived`` (``ShelfUnknown`` counts the rows it reads) read every row."""
    cache = scanner.cache
    if cache is None or filters.since is None or filters.needs_liveness or filters.archived is not None or not refs:
        return set()
    from agentscan.model import SessionRow
    from agentscan.scan.keptfields import current_fields
    from agentscan.timeutil import parse_iso

    picked = cache.row_fields([ref.id for ref in refs], _FIELDS)
    since = filters.since
    old: set[str] = set()
    for ref, values in current_fields(scanner, refs, picked, len(_FIELDS)):
        updated, warnings, cwd, partial = values
        if warnings or type(updated) is not str or not (cwd is None or type(cwd) is str) or not (
                partial is None or type(partial) is bool):
            continue
        when = parse_iso(updated)  # as ``SessionRow.from_json`` reads it
        if when is None or when >= since:
            continue
        # Only the fields ``wants_refresh`` reads are the row's (a Codex row's partial counts,
        # a Gemini row's cwd); a row its provider would mend is read, and mended, as before.
        sketch = SessionRow(ref.provider, ref.native_id, None, cwd=cwd, counts_partial=partial is True)
        if scanner.provider(ref.provider).wants_refresh(sketch):
            continue
        old.add(ref.id)
    return old
