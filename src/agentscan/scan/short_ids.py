"""Shortest unique id prefixes, as ``git log --oneline`` shows commit hashes.

A shown id is ``<provider>:<prefix>``: at least ``MIN_SHOWN`` characters of
the native id, more where two sessions of the same provider share a longer
prefix, so every id a table shows opens with ``agentscan show``.  Uniqueness
is per provider because a ``provider:`` prefix limits the lookup to that
provider's sessions (``Scanner.resolve``).
"""

from __future__ import annotations

from typing import Iterable

#: never fewer characters than this after ``provider:`` (``show`` needs 6+)
MIN_SHOWN = 8


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
        result[native] = native[: max(minimum, shared + 1)]
    return result


def child_prefixes(children: Iterable[str], parent: str | None, minimum: int = MIN_SHOWN) -> dict[str, str]:
    """``unique_prefixes`` of a session's subagents, none of them its ``parent``'s own
    (a UUIDv7's first 8 digits change once a minute: a run spawned at once shares them)."""
    wanted = set(children)
    found = unique_prefixes([*wanted, parent] if parent else wanted, minimum)
    return {child: prefix for child, prefix in found.items() if child in wanted}


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
