"""A Gemini session's billed calls: the last copy of every message id.

Rewound messages still count: ``tokens`` means spend (docs/providers/gemini.md).
"""

from __future__ import annotations

from agentscan.model import TokenUsage, UsageEntry, pack_call, sum_usage
from agentscan.providers.gemini.chatlog import Conversation, SessionChats


def usage_entries(chats: SessionChats) -> list[UsageEntry]:
    """One entry per billed message; a message with null tokens counts nothing."""
    entries = []
    for subagent, conversation in chats.everything():
        for facts in conversation.spend.values():
            if facts.tokens is not None:
                entries.append(UsageEntry(chats.native_id, facts.tokens, facts.timestamp, facts.model, subagent))
    return entries


def usage_packed(chats: SessionChats) -> list[list]:
    """``usage_entries(chats)``, each as ``UsageEntry.pack`` gives it, none made: ``tokens``'
    pass (a frozen dataclass a call only to be taken apart again, ≈ 19,500 at scale 10)."""
    packed = []
    native_id = chats.native_id
    for subagent, conversation in chats.everything():
        for facts in conversation.spend.values():
            tokens = facts.tokens
            if tokens is not None:
                stamp = facts.timestamp
                packed.append(pack_call(native_id, subagent, None if stamp is None else stamp.timestamp(), facts.model,
                                        (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output,
                                         tokens.reasoning), None, 0))
    return packed


def spend_of(conversation: Conversation) -> TokenUsage | None:
    return sum_usage(facts.tokens for facts in conversation.spend.values())
