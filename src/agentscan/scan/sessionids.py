"""A scanner's sessions by id (``Scanner.refs_by_id``) and the shortest id that opens each
(``Scanner.short_ids``).

Both are asked about a page of ``list``'s rows: a few sessions out of a heavy
user's thousands.  While a provider's stored sessions were read only to their
top rows (``TopRefs``), those rows answer, with the shown ids stored beside
them; anything else reads every session discovered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Iterator
from weakref import WeakKeyDictionary

from agentscan.scan.memorefs import MemoRefs, TopRefs

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner


def refs_by_id(scanner: Scanner, ids: Iterable[str]) -> list[SessionRef]:
    """The discovered sessions among ``ids`` (a few rows' sessions, out of thousands)."""
    wanted: dict[str, set[str]] = {}
    for session_id in ids:
        provider, _, native_id = session_id.partition(":")
        wanted.setdefault(provider, set()).add(native_id)
    scanner.refs(list(wanted) if all(scanner.scans_provider(name) for name in wanted) else ())
    found: list[SessionRef] = []
    for name, natives in wanted.items():
        part = scanner.taken_refs().get(name, ())
        tops = part.top_indexes(natives) if isinstance(part, TopRefs) and part.unread else None
        if tops is not None:
            found.extend(part[index] for index in tops)  # the rows of ``list``: no need to read the rest
        elif isinstance(part, MemoRefs):
            found.extend(part[index] for index, native_id in enumerate(part.native_ids) if native_id in natives)
        else:
            found.extend(ref for ref in part if ref.native_id in natives)
    return found


def short_ids(scanner: Scanner, ids: Iterable[str] | None = None) -> dict[str, str]:
    """See ``Scanner.short_ids``: computed once per count of sessions discovered."""
    from agentscan.scan.short_ids import short_ids as shortest

    if ids is not None:
        known = _top_shown_ids(scanner)
        wanted = list(ids)
        if all(session_id in known for session_id in wanted):
            return {session_id: known[session_id] for session_id in wanted}
    refs = scanner.refs()
    if scanner._short is None or scanner._short[0] != len(refs):
        scanner._short = (len(refs), shortest(_id_pairs(scanner)))
    return scanner._short[1]


#: ``known_ids`` of each scanner, by its count of sessions discovered
_KNOWN: WeakKeyDictionary[Scanner, tuple[int, list[str]]] = WeakKeyDictionary()


def known_ids(scanner: Scanner) -> list[str]:
    """Every discovered session's native id and every id of its runs, sorted: what a
    subagent's shown label must begin none of (``short_ids.child_prefixes``; a run is named
    without its provider).  Read off the stored rows, as ``short_ids`` reads their ids."""
    known: set[str] = set()
    scanner.refs()
    for part in scanner.taken_refs().values():
        if isinstance(part, MemoRefs):
            for row in part.rows:
                known.add(row[0])
                known.update(row[4])
        else:
            for ref in part:
                known.add(ref.native_id)
                known.update(ref.children)
    return sorted(known)


def known_ids_of(scanner: Scanner) -> Callable[[], list[str]]:
    """``known_ids``, read when first asked (a table whose rows have no runs never asks),
    once per count of sessions discovered (a table and the basis kept of it share it)."""
    def known() -> list[str]:
        count = len(scanner.refs())
        found = _KNOWN.get(scanner)
        if found is None or found[0] != count:
            found = _KNOWN[scanner] = (count, known_ids(scanner))
        return found[1]
    return known


def _top_shown_ids(scanner: Scanner) -> dict[str, str]:
    """The shown ids stored with the top rows of providers read only that far (``TopRefs``)."""
    shown: dict[str, str] = {}
    for name, part in scanner.taken_refs().items():
        if isinstance(part, TopRefs) and part.unread:
            shown.update((f"{name}:{native_id}", f"{name}:{prefix}") for native_id, prefix in part.shown_ids().items())
    return shown


def _id_pairs(scanner: Scanner) -> Iterator[tuple[str, str]]:
    """(provider, native id) of every session discovered, without making memo refs."""
    for name, part in scanner.taken_refs().items():
        if isinstance(part, MemoRefs):
            yield from ((name, native_id) for native_id in part.native_ids)
        else:
            yield from ((ref.provider, ref.native_id) for ref in part)
