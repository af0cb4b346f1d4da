"""What a Cursor transcript says, line by line, whatever its format.

The JSONL transcript (``transcript.py``), the older plain-text one
(``plaintext.py``) and the message stores (``messages.py``) all come out as
these events, so rows and ``show`` read every source alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Union


@dataclass(frozen=True, slots=True)
class UserText:
    text: str  # what the person typed, wrappers removed
    timestamp: datetime | None  # from this record's own <timestamp> wrapper only


@dataclass(frozen=True, slots=True)
class AssistantText:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    input: Any


@dataclass(frozen=True, slots=True)
class TurnEnded:
    failed: bool


@dataclass(frozen=True, slots=True)
class ErrorLine:
    message: str


Event = Union[UserText, AssistantText, ToolCall, TurnEnded, ErrorLine]

__all__ = ["AssistantText", "ErrorLine", "Event", "ToolCall", "TurnEnded", "UserText"]
