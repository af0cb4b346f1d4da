"""A session's Agent CLI subagent chats, shown in ``show`` (docs/providers/cursor.md).

A CLI subagent keeps a store of its own (``chats/<md5>/<id>/store.db``) whose ``meta``
names its parent (``subagentInfo``) and its kind (``typeName``).  One with no transcript
rolls into its parent's session (``children``); its messages are read as a CLI store
session's are (``storechat``), in row order, and shown under it as a sub-composer's are
(``subcomposers``): its prompts and replies in the subagent pool, its calls marked as its.
The store records no tokens and no times, so they follow the session's own conversation.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Collection, Iterable

from agentscan.context import ScanContext
from agentscan.providers.cursor.chats import chat_meta, meta_json, store_meta
from agentscan.providers.cursor.records import as_dict, as_str

if TYPE_CHECKING:
    from agentscan.toolkit.detail import DetailCollector


class SubChats:
    """The runs of one session that are CLI subagent chats read from their store."""

    def __init__(self, runs: dict[str, Path], ctx: ScanContext) -> None:
        self._runs, self._ctx = runs, ctx

    @classmethod
    def of(cls, children: Iterable[str], shown: Collection[str], ctx: ScanContext) -> SubChats:
        """``shown``: the children read from elsewhere (a transcript, a composer's bubbles)."""
        from agentscan.providers.cursor.children import family

        stores = family(ctx).run_stores
        return cls({child: stores[child] for child in children if child in stores and child not in shown}, ctx)

    def __contains__(self, child: object) -> bool:
        return child in self._runs

    def agent_type(self, child: str) -> str | None:
        """``subagentInfo.typeName`` (``explore``), the store's ``meta`` before ``meta.json``'s."""
        directory = self._runs.get(child)
        if directory is None:
            return None
        for info in (store_meta(directory / "store.db", self._ctx), meta_json(directory, self._ctx)):
            kind = as_str(as_dict(info.get("subagentInfo")).get("typeName"))
            if kind is not None and kind.strip():
                return kind.strip()
        return None

    def model(self, child: str) -> str | None:
        """Its store's ``lastUsedModel``, as a CLI chat session's model (``default`` is none)."""
        meta = chat_meta(child, self._ctx) if child in self._runs else None
        return meta.model if meta is not None else None

    def path(self, child: str) -> str | None:
        directory = self._runs.get(child)
        return str(directory / "store.db") if directory is not None else None

    def stream_all(self, collector: DetailCollector) -> None:
        from agentscan.providers.cursor.detail import stream_events
        from agentscan.providers.cursor.storechat import store_events

        for child, directory in self._runs.items():
            stream_events(store_events(directory / "store.db", self._ctx), collector, subagent=child)


__all__ = ["SubChats"]
