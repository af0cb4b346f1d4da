"""The older plain-text agent transcript (``agent-transcripts/<id>.txt``).

Before the JSONL transcripts, Cursor wrote the same conversation as text::

    user:
    <user_query>
    start the app
    </user_query>

    assistant:
    [Thinking] **Starting dev server**
    [Tool call] Shell
      command: npm run dev
      working_directory: /Users/me/app

    [Tool result] Shell

    assistant:
    [Thinking] **Prompting the user**

    I'll tell the user where to look.
    The dev server is running on port 3000.

A turn starts at a line ``user:`` or ``assistant:`` (``A:`` in some builds).
In an assistant turn, ``[Tool call] <Name>`` is followed by its arguments,
one ``key: value`` per line indented by two spaces; ``[Tool result] <Name>``
is followed by the result, which is skipped; ``[Thinking]`` is reasoning.
A reasoning summary has the shape ``[Thinking] **Title**``, a blank line and
one paragraph line; otherwise only the ``[Thinking]`` line itself is
reasoning.  Everything else is reply text.  The same events as a JSONL
transcript come out (``transcript.iter_events``), so rows, ``show`` and
delegation read both alike.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from agentscan.context import ScanContext
from agentscan.providers.cursor.events import AssistantText, Event, ToolCall, UserText
from agentscan.providers.cursor.prompt_text import injected, split_user_text
from agentscan.toolkit.jsonl import MAX_LINE_BYTES, open_binary

_ROLE = re.compile(r"^(user|assistant|A):\s*$")
_TOOL_CALL = re.compile(r"^\[Tool call\]\s*(.*?)\s*$")
_TOOL_RESULT = re.compile(r"^\[Tool result\]")
_THINKING = re.compile(r"^\[Thinking\](.*)$")
_ARGUMENT = re.compile(r"^  ([A-Za-z_][\w-]*):(?: (.*))?$")
_BOLD_TITLE = re.compile(r"^\s*\*\*.+\*\*\s*$")


def _lines(path: Path, ctx: ScanContext) -> Iterator[str]:
    try:
        handle = open_binary(path)
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return
    with handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                ctx.warn(path, "line too long; skipped", number)
                while raw and not raw.endswith(b"\n"):  # drop the rest of the line
                    raw = handle.readline(MAX_LINE_BYTES + 1)
                continue
            yield raw.decode("utf-8", "replace").rstrip("\r\n")


class _Turn:
    """The lines of one turn, turned into events when the turn ends."""

    def __init__(self, role: str) -> None:
        self.role = role
        self.text: list[str] = []
        self.events: list[Event] = []
        self.tool: tuple[str, dict[str, str]] | None = None
        self.last_key: str | None = None
        self.in_result = False
        self.thinking = 0  # 2: right after "[Thinking] **Title**"; 1: after its blank line

    def feed(self, line: str) -> None:
        if self.role == "user":
            self.text.append(line)
            return
        call = _TOOL_CALL.match(line)
        if call:
            self._close_tool()
            self._flush_text()
            self.tool, self.last_key, self.in_result = (call.group(1) or "tool", {}), None, False
            return
        if _TOOL_RESULT.match(line):
            self._close_tool()
            self._flush_text()
            self.in_result = True
            return
        if self.tool is not None:
            argument = _ARGUMENT.match(line)
            if argument:
                self.last_key = argument.group(1)
                self.tool[1][self.last_key] = argument.group(2) or ""
                return
            if line.startswith("   ") and self.last_key is not None:  # a value that goes on
                self.tool[1][self.last_key] += "\n" + line.strip()
                return
            self._close_tool()
        if self.in_result:
            return  # the result's text: not part of the conversation
        thinking = _THINKING.match(line)
        if thinking:
            self._flush_text()
            self.thinking = 2 if _BOLD_TITLE.match(thinking.group(1)) else 0
            return
        if self.thinking == 2 and not line.strip():
            self.thinking = 1
            return
        if self.thinking == 1 and line.strip():
            self.thinking = 0  # the summary's one paragraph line
            return
        self.thinking = 0
        self.text.append(line)

    def _close_tool(self) -> None:
        if self.tool is not None:
            self.events.append(ToolCall(self.tool[0], self.tool[1]))
            self.tool, self.last_key = None, None

    def _flush_text(self) -> None:
        text = "\n".join(self.text).strip()
        self.text = []
        if text and self.role == "assistant":
            self.events.append(AssistantText(text))

    def finish(self) -> list[Event]:
        if self.role == "user":
            text, when = split_user_text("\n".join(self.text))
            return [UserText(text, when)] if text and not injected(text) else []
        self._close_tool()
        self._flush_text()
        return self.events


def iter_text_events(path: Path, ctx: ScanContext) -> Iterator[Event]:
    turn: _Turn | None = None
    for line in _lines(path, ctx):
        role = _ROLE.match(line)
        if role:
            if turn is not None:
                yield from turn.finish()
            turn = _Turn("user" if role.group(1) == "user" else "assistant")
        elif turn is not None:
            turn.feed(line)
    if turn is not None:
        yield from turn.finish()
