"""Raw Cursor shapes (docs/providers/cursor.md) and defensive readers for them.

Cursor's formats change every few weeks and nothing is documented, so every
field may be missing or of another type.  These TypedDicts name what we
read; the helpers turn anything unexpected into "unknown" instead of raising.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, TypedDict

from agentscan.bounds import token_count
from agentscan.toolkit.valuewarnings import counted_field
from agentscan.model import TokenUsage
from agentscan.timeutil import from_epoch, parse_iso

# The model id Cursor writes when the user left model choice on "auto".
AUTO_MODEL = "default"


class RawTokenCount(TypedDict, total=False):
    inputTokens: int
    outputTokens: int


class RawToolFormer(TypedDict, total=False):
    name: str
    params: str | dict[str, Any]
    rawArgs: str
    result: str
    status: str


class RawBubble(TypedDict, total=False):
    """``cursorDiskKV`` value of ``bubbleId:<composerId>:<bubbleId>``."""

    type: int  # 1 user, 2 assistant
    bubbleId: str
    text: str
    createdAt: str  # ISO in current builds, absent in older ones
    timingInfo: dict[str, Any]  # {clientStartTime (uptime), clientRpcSendTime, clientSettleTime, clientEndTime (epoch ms)}
    tokenCount: RawTokenCount
    modelInfo: dict[str, Any]
    toolFormerData: RawToolFormer
    isSimulatedMsg: bool  # written by Cursor itself (simulatedMsgReason: GOAL_CONTINUATION, …)
    grouping: dict[str, Any]  # {isSimulatedMsg, …} in some builds


class RawComposerData(TypedDict, total=False):
    """``cursorDiskKV`` value of ``composerData:<composerId>``."""

    composerId: str
    name: str
    createdAt: int  # epoch ms
    lastUpdatedAt: int  # epoch ms
    modelConfig: dict[str, Any]
    workspaceIdentifier: dict[str, Any]
    fullConversationHeadersOnly: list[dict[str, Any]]
    conversation: list[RawBubble]
    subComposerIds: list[str]
    subagentComposerIds: list[str]  # newer builds' delegated runs (beside subComposerIds)
    subagentInfo: dict[str, Any]  # on the child: {parentComposerId, subagentType, …}
    isArchived: bool  # archived in Cursor's chat list
    contextTokensUsed: int
    promptTokenBreakdown: dict[str, Any]
    todos: list[dict[str, Any]]


class RawHeader(TypedDict, total=False):
    """One entry of ``composer.composerHeaders`` (or a ``composerHeaders`` row)."""

    composerId: str
    name: str
    createdAt: int
    lastUpdatedAt: int
    isSubagent: bool
    isArchived: bool | int  # archived in Cursor's chat list (``true``; ``1`` in the table)
    recency: int  # epoch ms of the composer's last activity (composerHeaders table)
    workspaceId: str  # the workspaceStorage dir of the composer's workspace (Cursor 3.0 on)


class RawChatMeta(TypedDict, total=False):
    """``store.db`` ``meta`` key ``0`` (hex JSON) merged with ``meta.json``."""

    agentId: str
    name: str
    title: str
    createdAt: int
    createdAtMs: int
    updatedAtMs: int
    lastUsedModel: str
    cwd: str


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def as_count(value: object) -> int:
    """A non-negative integer; anything else (bools, strings, NaN) is zero."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return max(int(value), 0)
    return 0


def as_epoch_ms(value: object) -> int | None:
    """A positive epoch-ms value; negatives and junk are unknown."""
    count = as_count(value)
    return count if count > 0 else None


def bubble_time(value: object) -> datetime | None:
    """A bubble's ``createdAt``: an ISO string (current builds), or a number of epoch
    milliseconds, as ``composerData`` writes its times (some builds' bubbles: a number was
    taken for no time, and the bubble's tokens went to the day ``unknown``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return from_epoch(value)
    return parse_iso(value)


#: The ``timingInfo`` fields of a bubble that hold a wall time (epoch ms: Cursor sets them
#: from ``Date.now()``), in the order a bubble with no ``createdAt`` (builds before about
#: 2025-09, the ones whose bubbles still carry real ``tokenCount``s) takes its time from:
#: the request's send, then when the reply settled, then its end.  ``clientStartTime`` is
#: the renderer's uptime (``performance.now()``: ``98813.1``), never a time.
_WALL_TIMES = ("clientRpcSendTime", "clientSettleTime", "clientEndTime")
#: 2020-01-01 in epoch ms: a smaller ``timingInfo`` number is no wall time (Cursor is younger).
_EPOCH_MS_FLOOR = 1_577_836_800_000


def bubble_moment(bubble: Mapping[str, Any]) -> datetime | None:
    """When a bubble was written: its ``createdAt`` (``bubble_time``), else, in builds that
    wrote none, the first wall time of its ``timingInfo`` (``_WALL_TIMES``) that is a time, as
    S2thend/cursor-history dates such bubbles (specs/010-fix-timestamp-fallback).  Without
    it their tokens were all dated by their composer's ``lastUpdatedAt``, a chat of several
    days counted on its last one.  A field past the supported years (``1e30``) is told
    (``from_epoch``) and the next one taken: a bad send time does not hide a good end time."""
    when = bubble_time(bubble.get("createdAt"))
    if when is not None:
        return when
    timing = bubble.get("timingInfo")
    if not isinstance(timing, dict):
        return None
    for field in _WALL_TIMES:
        value = timing.get(field)
        # (``True`` is 1, below the floor: no bool passes)
        if isinstance(value, (int, float)) and value >= _EPOCH_MS_FLOOR:
            when = from_epoch(value)
            if when is not None:
                return when
    return None


def model_name(value: object) -> str | None:
    """A concrete model name; Cursor's ``default`` (auto) says nothing.

    Cursor appends to a label as the session switches models (``"claude-4.5-sonnet,
    gpt-5"``): the last one is the model now, and the joined label names no model (it has
    no price).  The CLI's ``lastUsedModel`` may be an object (``{model|id|name}``)."""
    if isinstance(value, dict):
        value = next((value[key] for key in ("model", "id", "name") if as_str(value.get(key))), None)
    name = as_str(value)
    if name is not None and "," in name:
        name = next((part for part in reversed(name.split(",")) if part.strip()), None)
    return None if name is None or name.strip() == AUTO_MODEL else name.strip()


def bubble_tokens(bubble: RawBubble) -> TokenUsage:
    counts = as_dict(bubble.get("tokenCount"))
    return TokenUsage(input=counted_field(counts, "inputTokens", token_count, "tokenCount."),
                      output=counted_field(counts, "outputTokens", token_count, "tokenCount."))


def valid_composer_id(value: object) -> str | None:
    """A composer id we can use as a key segment.

    Tool-call sub-composers have a literal newline in their id
    (``task-call_x\\nfc_y``): they are not sessions and must never reach a
    range scan, where the newline would widen the key range.
    """
    text = as_str(value)
    if text is None or "\n" in text or "\r" in text or ":" in text:
        return None
    return text
