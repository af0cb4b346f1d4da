"""Shortest unique id prefixes, as ``git log --oneline`` shows commit hashes.

A shown id is ``<provider>:<prefix>``: at least ``MIN_SHOWN`` characters of
the native id, more where two sessions of the same provider share a longer
prefix, so every id a table shows opens with ``agentscan show``.  Uniqueness
is per provider because a ``provider:`` prefix limits the lookup to that
provider's sessions (``Scanner.resolve``).

A shown prefix never ends in a separator (``claude:example-`` reads as cut off, and
``claude:example-s`` as a word): one more character is taken.  A subagent's id that
opens with a word naming its kind, shared by every run of that kind (``sidechain-``,
``acompact-``), is never cut inside or just past that word: ``sidechai`` named no run to
``show`` (which tells an inline run by its whole ``sidechain-`` stem), and ``acompact``
is every compaction run's name, so ``show`` would find it in every session that had
one.  Such a label keeps ``MIN_SHOWN`` characters past its stem, as many as a session's
own short id has.  A label is unique among every session id and every run id the scan
knows (``known``): a UUIDv7's first 8 digits are its minute, which another session or
another session's run may share, and ``show`` opens whatever a label begins alone.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Callable, Iterable, Sequence

#: never fewer characters than this after ``provider:`` (``show`` needs 6+)
MIN_SHOWN = 8
#: every session's native id and every run's id the scan knows, sorted, read when first
#: asked (``sessionids.known_ids_of``): what a run's label begins none of (``child_prefixes``)
Known = Callable[[], Sequence[str]]
#: what a shown prefix never ends in: it would look cut off
SEPARATORS = "-_."
#: a subagent id's stem: a word (not all hex digits, as a UUID's first group may be) and
#: the separator after it, shared by every run of a kind (``sidechain-cd49a45d``)
_STEM = re.compile(r"(?=[a-z]*[g-z])[a-z]+[-_]", re.IGNORECASE)


def _common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def unique_prefixes(native_ids: Iterable[str], minimum: int = MIN_SHOWN) -> dict[str, str]:
    """Each native id -> its shortest prefix (``minimum``+ chars) shared with no other id."""
    ordered = sorted(set(native_ids))
    result: dict[str, str] = {}
    for index, native in enumerate(ordered):
        shared = 0
        if index > 0:
            shared = _common(native, ordered[index - 1])
        if index + 1 < len(ordered):
            shared = max(shared, _common(native, ordered[index + 1]))
        # One more than the longest shared prefix; a native id that is itself a
        # prefix of another stays whole (an exact match wins in ``resolve``).
        result[native] = native[: _past_separators(native, max(minimum, shared + 1))]
    return result


def _past_separators(native: str, length: int) -> int:
    """``length``, or more until the cut is after no separator (an id that ends in one stays whole)."""
    while length < len(native) and native[length - 1] in SEPARATORS:
        length += 1
    return length


def _stem_length(child: str) -> int:
    """How long the word naming ``child``'s kind is, its separator included (0: none)."""
    stem = _STEM.match(child)
    return stem.end() if stem else 0


def child_prefixes(children: Iterable[str], parent: str | None, minimum: int = MIN_SHOWN,
                   known: Sequence[str] = ()) -> dict[str, str]:
    """``unique_prefixes`` of a session's subagents, none of them its ``parent``'s own
    (a UUIDv7's first 8 digits change once a minute: a run spawned at once shares them),
    nor any of ``known`` (sorted: every session's native id and every run's id the scan
    knows, ``sessionids.known_ids``; a label begun by another session's id opened that
    session), none cut inside its stem (``sidechain-``, ``acompact-``)."""
    wanted = set(children)
    found = unique_prefixes([*wanted, parent] if parent else wanted, minimum)
    # Longer where the id has a stem (see the module's doc): a prefix made longer stays unique.
    return {child: child[: _past_separators(child, max(len(prefix), _shared_among(known, child) + 1,
                                                       _stem_length(child) + minimum))]
            for child, prefix in found.items() if child in wanted}


def _shared_among(known: Sequence[str], native: str) -> int:
    """How long a prefix ``native`` shares with another id of ``known`` (sorted): only its
    neighbours in order matter, as for ``unique_prefixes``."""
    at = bisect_left(known, native)
    neighbours = known[max(at - 1, 0):at + 2]
    return max((_common(native, other) for other in neighbours if other != native), default=0)


def short_ids(session_ids: Iterable[tuple[str, str]], minimum: int = MIN_SHOWN) -> dict[str, str]:
    """``(provider, native id)`` pairs -> full id -> shortest unique shown id."""
    by_provider: dict[str, list[str]] = {}
    for provider, native in session_ids:
        by_provider.setdefault(provider, []).append(native)
    shown: dict[str, str] = {}
    for provider, natives in by_provider.items():
        for native, prefix in unique_prefixes(natives, minimum).items():
            shown[f"{provider}:{native}"] = f"{provider}:{prefix}"
    return shown
