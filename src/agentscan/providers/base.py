"""The one small contract every provider adapter implements.

A provider owns its roots, finds its sessions cheaply (``discover``), and
parses them on demand: a bounded ``row`` for ``list``, a bounded ``detail``
for ``show`` and deduplicated ``usage`` for ``tokens``.  Everything returned
is the normalized model in ``agentscan.model``; no provider knows about the
CLI, and providers never import each other.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Iterable

if TYPE_CHECKING:
    from agentscan.bounds import Bounds
    from agentscan.context import ScanContext
    from agentscan.model import SessionDetail, SessionRef, SessionRow, UsageEntry
    from agentscan.roots import Root


class Provider(ABC):
    #: the id used in session ids (``claude:…``) and ``--provider``
    name: ClassVar[str]
    #: a human label for tables and ``doctor``
    label: ClassVar[str]

    @abstractmethod
    def roots(self, ctx: ScanContext) -> list[Root]:
        """Every place this provider reads, with what chose it."""

    @abstractmethod
    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        """Every session, cheaply: stat calls and bounded header reads only."""

    @abstractmethod
    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        """The ``list`` row of one session."""

    @abstractmethod
    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        """The bounded ``show`` detail of one session."""

    @abstractmethod
    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        """Billed calls of these sessions and their delegated runs, deduplicated.

        Deduplication spans every file of the given sessions, so passing all
        sessions at once gives the exact global totals.
        """

    def known_cwds(self, ctx: ScanContext) -> set[str]:
        """Working directories this provider's sessions ran in, from cheap reads.

        Other providers use these to resolve directories that name a project
        only by a hash (Gemini's ``sha256(cwd)`` dirs).  Must not call
        ``ctx.cwd_candidates`` itself.
        """
        return set()
