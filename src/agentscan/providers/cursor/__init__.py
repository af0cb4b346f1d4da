"""The Cursor provider (docs/providers/cursor.md; docs/providers/cursor.md)."""

from __future__ import annotations

from agentscan.providers.cursor.provider import CursorProvider

__all__ = ["CursorProvider"]
