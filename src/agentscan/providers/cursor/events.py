"""What a Cursor transcript says, line by line, whatever its format.

The JSONL transcript (``transcript.py``), the older plain-text one
(``plaintext.py``) and the message stores (``messages.py``) all come out as
these events, so rows and ``show`` read every source alike.

They are named tuples (see ``cli.term.Terminal``), told apart by their class
(``isinstance``) only: as tuples, ``AssistantText("x") == ErrorLine("x")``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple, Union


class UserText(NamedTuple):
    text: str  # what the person typed, wrappers removed
    timestamp: datetime | None  # from this record's own <timestamp> wrapper only


class AssistantText(NamedTuple):
    text: str


class ToolCall(NamedTuple):
    name: str
    input: Any


class TurnEnded(NamedTuple):
    failed: bool


class ErrorLine(NamedTuple):
    message: str


Event = Union[UserText, AssistantText, ToolCall, TurnEnded, ErrorLine]

__all__ = ["AssistantText", "ErrorLine", "Event", "ToolCall", "TurnEnded", "UserText"]
