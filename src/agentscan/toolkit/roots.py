"""Where each provider's files live, and which setting chose each place.

One resolver per provider returns ``Root`` values that carry their
provenance (``source``), so ``doctor`` can say "CLAUDE_CONFIG_DIR chose this"
and a relative ``CODEX_HOME`` can be reported instead of silently used.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from agentscan.context import ScanContext


class Root(NamedTuple):
    """A place a provider's files live, and what chose it (a named tuple: see ``cli.term.Terminal``)."""

    provider: str
    path: Path
    source: str  # "--home", "HOME", an env var name, or "default"
    kind: str = "sessions"  # sessions | database | index
    explicit: bool = False  # named by an env var: unreadable means an error
    note: str | None = None

    def describe(self) -> str:
        return f"{self.path} ({self.kind}, from {self.source})"


def split_env_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def home_relative(ctx: ScanContext, *parts: str) -> Path:
    return ctx.home.joinpath(*parts)
