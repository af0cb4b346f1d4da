"""A Gemini session's billed calls: the last copy of every message id.

Rewound messages still count: ``tokens`` means spend (docs/providers/gemini.md).
"""

from __future__ import annotations

from typing import Iterator

from agentscan.model import TokenUsage, UsageEntry, pack_call, sum_usage
from agentscan.providers.gemini.chatlog import Conversation, MessageFacts, SessionChats


def _billed(chats: SessionChats) -> Iterator[tuple[str | None, MessageFacts, TokenUsage]]:
    """Each billed message (the last copy of its id) with its run and tokens; one of null tokens
    counts nothing.  The one walk ``usage_entries`` and ``usage_packed`` both take."""
    for subagent, conversation in chats.everything():
        for facts in conversation.spend.values():
            if facts.tokens is not None:
                yield subagent, facts, facts.tokens


def usage_entries(chats: SessionChats) -> list[UsageEntry]:
    """One entry per billed message."""
    return [UsageEntry(chats.native_id, tokens, facts.timestamp, facts.model, subagent)
            for subagent, facts, tokens in _billed(chats)]


def usage_packed(chats: SessionChats) -> list[list]:
    """``usage_entries(chats)``, each as ``UsageEntry.pack`` gives it, none made: ``tokens``'
    pass (a frozen dataclass a call only to be taken apart again, ≈ 19,500 at scale 10)."""
    native_id = chats.native_id
    return [pack_call(native_id, subagent, None if facts.timestamp is None else facts.timestamp.timestamp(),
                      facts.model, (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output,
                                    tokens.reasoning), None, 0)
            for subagent, facts, tokens in _billed(chats)]


def spend_of(conversation: Conversation) -> TokenUsage | None:
    return sum_usage(facts.tokens for facts in conversation.spend.values())
