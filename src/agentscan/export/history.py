"""What an export asks of a session's history shared with another (``export.children``): one
object carried from ``run.export`` to ``children.replace_children``, where two callables were
passed through each of the four signatures between them.

A Claude session resumed from another, or a Codex fork, begins with a copy of its parent's
calls: those calls move between the two as either is deleted or restored, which is neither a
transcript that left the disk (kept as gone) nor a loss (said).  Only the session's provider
can tell (``Provider.copied_elsewhere``, ``Provider.copies_another``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.base import Provider


class History(Protocol):
    """The two questions, of a session by its full id and the main file the index held."""

    def copied_elsewhere(self, session_id: str, path: str | None) -> bool:
        """Another session's files begin with a copy of this one's history."""
        ...

    def copies_another(self, session_id: str, path: str | None) -> bool:
        """This session's files begin with a copy of another one's history."""
        ...


class _NoHistory:
    """No session shares history with another (a library caller that says nothing of it)."""

    def copied_elsewhere(self, session_id: str, path: str | None) -> bool:
        return False

    def copies_another(self, session_id: str, path: str | None) -> bool:
        return False


NO_HISTORY: History = _NoHistory()


@dataclass(frozen=True, slots=True)
class ProviderHistory:
    """``History`` as the scanner's providers tell it (``providers``, by name; ``ctx`` the scan's)."""

    providers: tuple[Provider, ...]
    ctx: ScanContext

    def copied_elsewhere(self, session_id: str, path: str | None) -> bool:
        provider, native = self._of(session_id)
        return provider is not None and bool(provider.copied_elsewhere(native, path, self.ctx))

    def copies_another(self, session_id: str, path: str | None) -> bool:
        provider, native = self._of(session_id)
        return provider is not None and bool(provider.copies_another(native, path, self.ctx))

    def _of(self, session_id: str) -> tuple[Provider | None, str]:
        """The session's provider (``None``: one this run has not, which shares nothing) and native id."""
        name, _, native = session_id.partition(":")
        for provider in self.providers:
            if provider.name == name:
                return provider, native
        from agentscan.errors import UnknownProvider
        from agentscan.providers import get_provider

        try:
            return get_provider(name), native
        except UnknownProvider:  # (a provider this agentscan no longer has: it shares nothing)
            return None, native
