"""The ``hint`` of a memo ref (``scan.memorefs``): the provider's own data was not loaded.

Apart from ``memorefs`` so that ``Scanner`` tells a memo ref from a provider's own
without importing the model: a remembered answer (``scan.answers``) is printed
without making its dataclasses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.model import SessionRef


class _Unresolved:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNRESOLVED"


UNRESOLVED = _Unresolved()


def is_memo_ref(ref: SessionRef) -> bool:
    return ref.hint is UNRESOLVED
