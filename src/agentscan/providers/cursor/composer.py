"""What one composer (an IDE chat) and its bubbles tell us, as frozen values.

``composerData:<id>`` and ``bubbleId:<id>:<bubble>`` values are large and
change shape between builds; each is converted here, in one function, into
the few facts a row, a detail or a token report needs (docs/providers/cursor.md).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Mapping, NamedTuple

from agentscan.bounds import token_count
from agentscan.model import TokenUsage
from agentscan.providers.cursor.records import (
    AUTO_MODEL,
    RawBubble,
    RawComposerData,
    RawHeader,
    as_dict,
    as_epoch_ms,
    as_list,
    as_str,
    bubble_moment,
    bubble_tokens,
    model_name,
    valid_composer_id,
)
from agentscan.providers.cursor.prompt_text import injected
from agentscan.timeutil import from_epoch, newest, oldest

if TYPE_CHECKING:
    from agentscan.detailmodel import PlanStep

USER_BUBBLE, ASSISTANT_BUBBLE = 1, 2


class HeaderInfo(NamedTuple):
    """A ``composerHeaders`` row (table) or ``allComposers`` entry (ItemTable); a named
    tuple (see ``cli.term.Terminal``)."""

    created: datetime | None = None
    updated: datetime | None = None
    name: str | None = None
    recency: datetime | None = None  # the ``recency`` column: the last activity (Cursor 3.x)
    workspace_id: str | None = None  # ``workspaceStorage/<id>``: the cwd of a composer naming none
    archived: bool = False  # ``isArchived``: the user archived the chat in Cursor's chat list


def archived_flag(value: object) -> bool:
    """``isArchived`` as Cursor writes it: ``true`` in JSON, ``1`` in the ``composerHeaders``
    table; anything else (absent, ``0``, a string) is not archived."""
    return value is True or (type(value) is int and value == 1)


def header_from(raw: RawHeader) -> HeaderInfo:
    return HeaderInfo(
        created=from_epoch(as_epoch_ms(raw.get("createdAt"))),
        updated=from_epoch(as_epoch_ms(raw.get("lastUpdatedAt"))),
        name=as_str(raw.get("name")),
        recency=from_epoch(as_epoch_ms(raw.get("recency"))),
        workspace_id=as_str(raw.get("workspaceId")),
        archived=archived_flag(raw.get("isArchived")),
    )


class ComposerInfo(NamedTuple):
    """A ``composerData`` value's facts (a named tuple: see ``cli.term.Terminal``)."""

    composer_id: str
    name: str | None = None
    created: datetime | None = None
    updated: datetime | None = None
    model: str | None = None
    fs_path: str | None = None
    sub_ids: tuple[str, ...] = ()
    # Only the lengths: the bubble order of every composer would be most of
    # the index's cost, and a scan needs it for the few sessions it shows.
    header_bubbles: int = 0  # len(fullConversationHeadersOnly): the live conversation
    inline_bubbles: int = 0  # legacy builds kept bubbles inside composerData
    context_tokens: int | None = None
    plan: tuple[PlanStep, ...] = ()
    #: ``subagentInfo.parentComposerId``: the child names its parent (newer builds)
    parent_id: str | None = None
    #: the live conversation's last bubble ids, newest first (``TAIL_BUBBLES`` at most): the
    #: nearest of them with a time bounds the row's (``bubbletimes``, ``row.recency``)
    tail_bubbles: tuple[str, ...] = ()
    last_inline: datetime | None = None  # a legacy inline conversation's last time (``_last_inline``)
    archived: bool = False  # ``isArchived``: archived in Cursor's chat list (``HeaderInfo``'s too)

    @property
    def has_conversation(self) -> bool:
        return bool(self.header_bubbles or self.inline_bubbles)


def _context_gauge(raw: RawComposerData) -> int | None:
    breakdown = as_dict(raw.get("promptTokenBreakdown"))
    for value in (breakdown.get("totalUsedTokens"), raw.get("contextTokensUsed")):
        if token_count(value) > 0:
            return token_count(value)
    return None


def _plan(raw: RawComposerData) -> tuple[PlanStep, ...]:
    todos = as_list(raw.get("todos"))
    if not todos:
        return ()
    # ``show``'s model (15 classes made at import): only a composer with a plan needs it.
    from agentscan.detailmodel import PlanStep

    steps = []
    for todo in todos:
        text = as_str(as_dict(todo).get("content"))
        if text:
            steps.append(PlanStep(text, as_str(todo.get("status")) or "pending"))
    return tuple(steps)


def conversation_order(raw: RawComposerData) -> tuple[str, ...]:
    """Bubble ids of the live conversation, in order (edited-away bubbles are absent)."""
    order = []
    for header in as_list(raw.get("fullConversationHeadersOnly")):
        bubble_id = header.get("bubbleId") if isinstance(header, dict) else None
        if isinstance(bubble_id, str) and bubble_id:
            order.append(bubble_id)
    return tuple(order)


#: how many bubbles from a conversation's end are looked at for one with a time: a last
#: bubble with none (a prompt not answered yet, an old build's bubble with no ``timingInfo``)
#: is passed for the one before it, at most this many reads a composer
TAIL_BUBBLES = 8


def _tail_bubbles(raw: RawComposerData) -> tuple[str, ...]:
    tail = []
    for header in reversed(as_list(raw.get("fullConversationHeadersOnly"))[-TAIL_BUBBLES:]):
        bubble_id = as_dict(header).get("bubbleId")
        if isinstance(bubble_id, str) and bubble_id:
            tail.append(bubble_id)
    return tuple(tail)


def _last_inline(raw: RawComposerData) -> datetime | None:
    """The time of a legacy inline conversation's last bubble that has one, of its last
    ``TAIL_BUBBLES`` (as ``bubbletimes`` walks back a conversation of bubble rows)."""
    for inline in reversed(as_list(raw.get("conversation"))[-TAIL_BUBBLES:]):
        when = bubble_moment(as_dict(inline))
        if when is not None:
            return when
    return None


def composer_from(composer_id: str, raw: RawComposerData) -> ComposerInfo:
    workspace = as_dict(as_dict(raw.get("workspaceIdentifier")).get("uri"))
    # ``subagentComposerIds`` (newer builds) beside ``subComposerIds``: both name delegated runs.
    linked = as_list(raw.get("subComposerIds")) + as_list(raw.get("subagentComposerIds"))
    subs = tuple(dict.fromkeys(s for s in map(valid_composer_id, linked) if s))
    info = raw.get("subagentInfo")
    parent = valid_composer_id(as_dict(info).get("parentComposerId"))
    return ComposerInfo(
        composer_id=composer_id,
        name=as_str(raw.get("name")),
        created=from_epoch(as_epoch_ms(raw.get("createdAt"))),
        updated=from_epoch(as_epoch_ms(raw.get("lastUpdatedAt"))),
        model=model_name(as_dict(raw.get("modelConfig")).get("modelName")),
        fs_path=as_str(workspace.get("fsPath")),
        sub_ids=tuple(s for s in subs if s != composer_id),
        header_bubbles=len(as_list(raw.get("fullConversationHeadersOnly"))),
        inline_bubbles=len(as_list(raw.get("conversation"))),
        context_tokens=_context_gauge(raw),
        plan=_plan(raw),
        parent_id=parent if parent != composer_id else None,
        tail_bubbles=_tail_bubbles(raw),
        last_inline=_last_inline(raw),
        archived=archived_flag(raw.get("isArchived")),
    )


def simulated(raw: Mapping[str, object]) -> bool:
    """A user bubble Cursor wrote itself (``isSimulatedMsg``: a goal's continuation, a
    background task's notification), or context it injected: no prompt, no title; its
    tokens, if any, are still spend."""
    if raw.get("isSimulatedMsg") is True or as_dict(raw.get("grouping")).get("isSimulatedMsg") is True:
        return True
    text = as_str(raw.get("text"))
    return text is not None and injected(text)


def user_prompt(raw: Mapping[str, object]) -> str | None:
    """The prompt a bubble holds, as every count, title and ``show`` takes it: a user
    bubble's text, unless it is blank or Cursor wrote it (``simulated``)."""
    if raw.get("type") != USER_BUBBLE:
        return None
    text = as_str(raw.get("text"))
    return text if text and not simulated(raw) else None


class BubbleUsage(NamedTuple):
    """One bubble that recorded tokens: a billed call (a named tuple: see ``cli.term.Terminal``)."""

    bubble_id: str
    tokens: TokenUsage
    timestamp: datetime | None
    model: str | None


class BubbleStats:
    """Everything a row needs from one composer's bubbles, built in one scan.  A plain
    class, not a dataclass: a cold ``list`` imports it, and a dataclass costs
    about a millisecond to create on import."""

    __slots__ = ("usage", "bubbles", "prompts", "responses", "tool_calls", "first_ts", "last_ts", "models", "requests")

    def __init__(self) -> None:
        self.usage: list[BubbleUsage] = []
        self.bubbles = self.prompts = self.responses = self.tool_calls = 0
        self.first_ts: datetime | None = None
        self.last_ts: datetime | None = None
        self.models: Counter[str] = Counter()
        #: the live bubbles' request ids, in order: newer builds keep the text of
        #: a turn in ``agentKv`` rows under the request id, not in the bubbles
        self.requests: dict[str, None] = {}

    @property
    def textless(self) -> bool:
        """Bubbles exist but carry no text (the conversation is in ``agentKv``)."""
        return self.bubbles > 0 and self.prompts == 0 and self.responses == 0

    def tokens(self) -> TokenUsage | None:
        """Summed bubble tokens; ``None`` when every bubble said ``{0,0}``."""
        if not self.usage:
            return None
        total = TokenUsage()
        for item in self.usage:
            total = total + item.tokens
        return total

    def add(self, bubble_id: str, raw: RawBubble, *, live: bool) -> None:
        """Count one bubble; only ``live`` ones (in the header order) are conversation."""
        self.bubbles += 1
        when = bubble_moment(raw)
        recorded = as_dict(raw.get("modelInfo")).get("modelName")
        model = model_name(recorded)
        tokens = bubble_tokens(raw)
        # Spend counts every bubble, orphans of edited turns included.  A bubble that says
        # "default" (auto) keeps it: the model that ran is unknown, so it must not be priced
        # as the session's model (docs/providers/cursor.md).
        if tokens.total > 0:
            auto = isinstance(recorded, str) and recorded.strip() == AUTO_MODEL
            self.usage.append(BubbleUsage(bubble_id, tokens, when, AUTO_MODEL if auto else model))
        if not live:
            return
        self.first_ts, self.last_ts = oldest(self.first_ts, when), newest(self.last_ts, when)
        request = as_str(raw.get("requestId"))
        if request is not None and len(self.requests) < 10_000:
            self.requests[request] = None
        kind = raw.get("type")
        if kind == USER_BUBBLE and user_prompt(raw) is not None:
            self.prompts += 1
        elif kind == ASSISTANT_BUBBLE:
            if model:
                self.models[model] += 1
            if as_str(raw.get("text")):
                self.responses += 1
            if as_dict(raw.get("toolFormerData")):
                self.tool_calls += 1
