"""``list --grep``'s kept rows that fail it on their own fields, judged undecoded.

A warm ``list --grep`` of a word few sessions hold decoded and checked every one of a heavy
user's 15,000 kept rows (half its CPU at the bench's scale 10) to print a few.  Whether a
row holds the word is told by five of its fields (title, cwd, folders, model, path:
``ListFilter.failed_stage``), which SQLite picks out of the kept row (``Cache.row_fields``)
as ``tablefacts`` picks a table's facts.  A row that fails ``--grep`` so is left undecoded
when reading it would say nothing and change nothing: it keeps no warning, its provider
would not mend it (``Provider.wants_refresh``), and it is no session that recorded nothing
(``list`` counts those apart).  One that recorded usage still has its calls' models looked
at (``grepmodels``), and only one they match is read, to be listed.  Whatever this cannot
settle is read as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from agentscan.pricing.modelnames import spellings
from agentscan.scan.grepmatch import grep_hit
from agentscan.titles import title_spellings

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner

#: what a kept row is judged by (``SessionRow.to_json``'s names)
_FIELDS = ("$.title", "$.cwd", "$.workspace_folders", "$.model", "$.path", "$.updated_at", "$.warnings",
           "$.counts_partial", "$.tokens")
_SUMS = ("input", "cache_read", "cache_write", "output")
#: ids looked up a query (``Cache.row_fields`` takes the whole table past 2,000)
_BY_IDS = 2_000


class Failed(NamedTuple):
    """A kept row that fails ``--grep`` on its own fields."""

    used: bool  # it recorded usage: its calls' models may still hold the word
    when: float | None  # its ``updated_at``, epoch seconds


def applies(scanner: Scanner, filters: ListFilter) -> bool:
    """Whether ``--grep`` is the one filter (with others, the row is read as before)."""
    return scanner.cache is not None and filters.active_stages == ("grep",)


def failing(scanner: Scanner, refs: Sequence[SessionRef], filters: ListFilter) -> dict[str, Failed]:
    """Those of ``refs`` whose kept row fails ``--grep`` on its own fields, and whose read
    would say nothing (see the module's note)."""
    cache = scanner.cache
    if cache is None or not refs:
        return {}
    from agentscan.model import SessionRow
    from agentscan.scan.keptfields import current_fields
    from agentscan.timeutil import parse_iso

    ids = [ref.id for ref in refs]
    # A batch of ``list``'s (4,096 at most, but the one of a ``list --all``) is looked up by
    # its ids: past ``_BY_IDS`` a query picks from the whole table, and SQLite would take
    # the fields of all 15,000 rows for each batch (four times a word's list at scale 10).
    step = _BY_IDS if len(ids) <= 4 * _BY_IDS else len(ids)
    picked = {}
    for start in range(0, len(ids), step):
        picked.update(cache.row_fields(ids[start:start + step], _FIELDS))
    needle = filters.grep_key
    found: dict[str, Failed] = {}
    for ref, values in current_fields(scanner, refs, picked, len(_FIELDS)):
        title, cwd, folders, model, path, updated, warnings, partial, tokens = values
        folders = [] if folders is None else folders
        if (warnings or not all(text is None or type(text) is str for text in (title, cwd, model, path, updated))
                or type(folders) is not list or not all(type(folder) is str for folder in folders)
                or not (partial is None or type(partial) is bool)):
            continue
        if title is None and cwd is None and model is None:
            continue  # maybe a session that recorded nothing: its row decides
        used = _used(tokens)
        if used is None:
            continue
        sketch = SessionRow(ref.provider, ref.native_id, None, cwd=cwd, counts_partial=partial is True)
        if scanner.provider(ref.provider).wants_refresh(sketch):
            continue  # mended on reading (which may warn): read as before
        # As ``ListFilter.failed_stage`` tests a row.
        haystack = (*title_spellings(title), cwd, *folders, *(spellings(model) if model else ()), path)
        if grep_hit(needle, haystack):
            continue  # listed: read
        when = parse_iso(updated)  # as ``SessionRow.from_json`` reads it
        found[ref.id] = Failed(used, when.timestamp() if when is not None else None)
    return found


def _used(tokens: object) -> bool | None:
    """Whether a row's ``tokens`` recorded usage (``grepmodels.needs_second_look``);
    ``None``: not of their shape (the row decides)."""
    if tokens is None:
        return False
    if type(tokens) is not dict or not all(type(tokens.get(name)) is int for name in _SUMS):
        return None
    return sum(tokens[name] for name in _SUMS) > 0


def settle(scanner: Scanner, waiting: list[tuple[int, SessionRef]], filters: ListFilter,
           read: Callable[[SessionRef], tuple[object, object]], admit: Callable[..., None],
           count: Callable[[str | None], None]) -> None:
    """The ``waiting`` rows (place, ref) whose calls' models ``--grep`` finds read and
    admitted, the others counted as failing it, as ``grepmodels.settle_held`` settles rows
    read; emptied."""
    if not waiting:
        return
    from agentscan.scan.grepmodels import matching_by_models

    found = matching_by_models(scanner, [ref for _, ref in waiting], filters.grep_key)
    for at, ref in waiting:
        if ref.id in found:
            row, said = read(ref)
            count(None)
            admit(at, ref, row, said)
        else:
            count("grep")
    waiting.clear()
