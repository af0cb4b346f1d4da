"""A Gemini session's ``list`` row and its billed calls, from replayed chats.

Counts describe the live conversation (what ``show`` displays); tokens
describe spend: the last copy of every message id, rewound ones included
(docs/providers/gemini.md, contract "Tokens").
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from agentscan.model import Counts, SessionRow, sum_usage
from agentscan.providers.gemini.chatlog import Conversation, MessageFacts, SessionChats
from agentscan.providers.gemini.records import collapse, is_slash_command
from agentscan.providers.gemini.usage import spend_of
from agentscan.timeutil import from_epoch, newest, oldest, parse_iso

TITLE_CHARS = 180


def title_of(prompts: list[str]) -> str | None:
    """The first prompt that is not a slash command (``/init``), else the first one."""
    for text in prompts:
        if not is_slash_command(text):
            return collapse(text, TITLE_CHARS)
    return collapse(prompts[0], TITLE_CHARS) if prompts else None


def main_model(chats: SessionChats) -> str | None:
    """The model that answered most of the session's billed messages (first seen wins ties):
    its main chat's, else the first subagent's that has one."""
    for _, conversation in chats.everything():
        model = conversation_model(conversation)
        if model:
            return model
    return None


def conversation_model(conversation: Conversation) -> str | None:
    """The model that answered most of one chat's billed messages (first seen wins ties)."""
    models = Counter(facts.model for facts in conversation.spend.values() if facts.model)
    return models.most_common(1)[0][0] if models else None


def build_row(
    chats: SessionChats,
    *,
    provider: str,
    path: str | None,
    cwd: str | None,
    recency: float,
) -> SessionRow:
    live: list[MessageFacts] = chats.main.messages if chats.main else []
    prompts = [facts.prompt for facts in live if facts.prompt is not None]
    if not prompts:
        prompts = [logged.text for logged in chats.logged]
    started: list[datetime | None] = []
    updated: list[datetime | None] = []
    for _, conversation in chats.everything():
        started.append(parse_iso(conversation.meta.get("startTime")))
        updated.append(parse_iso(conversation.meta.get("lastUpdated")))
        stamps = [facts.timestamp for facts in conversation.spend.values() if facts.timestamp]
        started.append(min(stamps, default=None))
        updated.append(max(stamps, default=None))
    return SessionRow(
        provider=provider,
        native_id=chats.native_id,
        path=path,
        title=title_of(prompts),
        cwd=cwd,
        model=main_model(chats),
        started_at=oldest(*started),
        # The mtime only when the chats recorded no time (a copied home has every
        # mtime at the copy time).
        updated_at=newest(*updated) or (from_epoch(recency) if recency else None),
        tokens=sum_usage(spend_of(conversation) for _, conversation in chats.everything()),
        counts=Counts(
            prompts=len(prompts),
            responses=sum(1 for facts in live if facts.has_text),
            tool_calls=sum(facts.tool_calls for facts in live),
        ),
        subagents=len(chats.subagents),
    )
