"""A Gemini session's ``list`` row and its billed calls, from replayed chats.

Counts describe the live conversation (what ``show`` displays); tokens
describe spend: the last copy of every message id, rewound ones included
(docs/providers/gemini.md, contract "Tokens").
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from agentscan.model import Counts, SessionRow, sum_usage
from agentscan.providers.gemini.chatlog import Conversation, SessionChats
from agentscan.providers.gemini.records import as_str, collapse, is_slash_command
from agentscan.providers.gemini.usage import spend_of
from agentscan.timeutil import from_epoch, newest, oldest, parse_iso
from agentscan.toolkit.imagetext import is_images_text

TITLE_CHARS = 180


def title_of(prompts: list[str]) -> str | None:
    """The first prompt of words that is not a slash command (``/init``), else the first of
    images alone (``[image]``), else the first one."""
    images = None
    for text in prompts:
        if is_images_text(text):
            images = images or text
        elif not is_slash_command(text):
            return collapse(text, TITLE_CHARS)
    fallback = images or (prompts[0] if prompts else None)
    return collapse(fallback, TITLE_CHARS) if fallback else None


def chat_title(conversation: Conversation, prompts: list[str]) -> str | None:
    """The name Gemini CLI's ``/resume`` shows for a chat: the summary it wrote of the session
    (``$set.summary``, a legacy chat's ``summary``), else the first prompt typed (``typed_prompts``),
    else the first of ``prompts`` (``logs.json``'s, for a chat of none)."""
    summary = as_str(conversation.meta.get("summary"))
    if summary is not None and summary.strip():
        return collapse(summary, TITLE_CHARS)
    return title_of(typed_prompts(conversation) or prompts)


def typed_prompts(conversation: Conversation) -> list[str]:
    """The chat's prompts in file order (where each message first appeared, as Gemini CLI's
    ``firstUserMessage`` takes the first): the live ones and those a checkpoint or a patch took
    out (``Conversation.taken``: typed all the same), not those rewound.  Not the live order: a
    ``$patch``'s ``orderIds`` moves messages, and a prompt it moved first, or one a patch took
    out, named the chat by a later prompt (a review, pass 58)."""
    live, taken = conversation.live, conversation.taken
    return [facts.prompt for facts in conversation.spend.values()
            if facts.prompt is not None and (facts.id in live or facts.id in taken)]


def recorded_nothing(chats: SessionChats) -> bool:
    """No chat of the session recorded a message, a summary or a checkpoint (a chat of broken
    lines, an empty one, or one of its header alone: Gemini writes the header when it starts,
    before the first prompt, so a start left at once leaves one): its only facts are its
    files' (``SessionRow.recorded_nothing``), and ``list`` leaves it out."""
    # (``logged``: prompts ``logs.json`` holds for a chat of none, such as a slash command's;
    # not a legacy chat's ``raw`` messages, which only ``show`` keeps: ``list`` must agree)
    return not chats.logged and not any(conversation.spend or conversation.live or conversation.taken
                                        or conversation.meta.get("summary") for _, conversation in chats.everything())


def oldest_first(chats: SessionChats) -> list[tuple[str, Conversation]]:
    """The subagent chats by the time each began (then their ids): with the parent chat gone,
    the first one's task names the session, as a Claude or Codex orphan's does."""
    def began(item: tuple[str, Conversation]) -> tuple[bool, datetime | None, str]:
        conversation = item[1]
        stamps = [facts.timestamp for facts in conversation.spend.values() if facts.timestamp]
        start = oldest(parse_iso(conversation.meta.get("startTime")), min(stamps, default=None))
        return start is None, start, item[0]

    return sorted(chats.subagents.items(), key=began)


def _counts(conversations: list[Conversation], prompts: int) -> Counts:
    return Counts(
        prompts=prompts,
        responses=sum(1 for conversation in conversations for facts in conversation.messages if facts.has_text),
        tool_calls=sum(facts.tool_calls for conversation in conversations for facts in conversation.messages),
    )


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
    if chats.main is not None:
        prompts = [facts.prompt for facts in chats.main.messages if facts.prompt is not None]
        commands: list[str] = []
        if not prompts:
            # (a command Gemini CLI ran itself is no prompt, as Claude's are not; it names a
            # session that holds nothing else: a ``/stats`` then ``/quit``)
            prompts = [logged.text for logged in chats.logged if not logged.local]
            commands = [logged.text for logged in chats.logged if logged.local]
        title = chat_title(chats.main, prompts) or (collapse(commands[0], TITLE_CHARS) if commands else None)
        counts = _counts([chats.main], len(prompts))
    else:
        # The parent chat is gone: its subagents' own conversations are all there is
        # (docs/json.md ``parent_missing``), their counts added up.
        orphans = [chat for _, chat in oldest_first(chats)]
        said = [[facts.prompt for facts in chat.messages if facts.prompt is not None] for chat in orphans]
        title = next(filter(None, (chat_title(chat, prompts) for chat, prompts in zip(orphans, said))), None)
        counts = _counts(orphans, sum(map(len, said)))
    started: list[datetime | None] = []
    updated: list[datetime | None] = []
    nothing = recorded_nothing(chats)
    for _, conversation in chats.everything():
        # (a header's start alone is no start of anything: the row is one ``list`` leaves out)
        started.append(None if nothing else parse_iso(conversation.meta.get("startTime")))
        updated.append(parse_iso(conversation.meta.get("lastUpdated")))
        stamps = [facts.timestamp for facts in conversation.spend.values() if facts.timestamp]
        started.append(min(stamps, default=None))
        updated.append(max(stamps, default=None))
    tokens = sum_usage(spend_of(conversation) for _, conversation in chats.everything())
    # Its own chat read only up to its damage, before any usage: its usage is not known, a
    # mark the row keeps (a row taken back from the index tells it: ``unknown_usage``).
    cut = chats.main.damage if chats.main is not None and tokens is None else None
    return SessionRow(
        provider=provider,
        native_id=chats.native_id,
        path=path,
        title=title,
        cwd=cwd,
        model=main_model(chats),
        started_at=oldest(*started),
        # The mtime only when the chats recorded no time (a copied home has every
        # mtime at the copy time).
        updated_at=newest(*updated) or (from_epoch(recency) if recency else None),
        tokens=tokens,
        counts=counts,
        # A chat of broken lines is no subagent run anyone can tell of: with nothing else
        # recorded, the row is one ``list`` leaves out.
        subagents=0 if nothing else len(chats.subagents),
        usage_cut=cut,
    )
