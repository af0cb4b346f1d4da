"""The questions only ``doctor`` asks of a provider (``scan.doctor``): its own lines, and
why a root it would read cannot be used.  Every one has a default that says nothing, so
a provider answers only those its storage raises; ``Provider`` inherits them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext


class DoctorQuestions:
    def diagnostics(self, ctx: ScanContext) -> list[str]:
        """Provider-specific lines for ``doctor`` (index health, DB locks, …)."""
        return []

    def database_problem(self, path: Path, ctx: ScanContext) -> str | None:
        """Why a ``database`` root whose file can be read cannot be used as one (not SQLite,
        locked, an unfamiliar schema): ``doctor``'s STATUS; ``None``: it can, or not checked."""
        return None

    def database_caveat(self, path: Path, ctx: ScanContext) -> str | None:
        """What ``doctor``'s STATUS says in place of ``ok`` of a ``database`` root that is used
        but not whole (read without its -wal); ``None``: nothing."""
        return None

    def index_problem(self, path: Path, ctx: ScanContext) -> str | None:
        """Why an ``index`` root that is a file that can be read cannot be used (not valid
        JSON): ``doctor``'s STATUS, as ``database_problem``'s; ``None``: it can, or not checked."""
        return None
