"""Which slash commands an agent's CLI ran itself a ``show`` detail keeps (``SessionDetail.local_commands``).

One rule for a forward reading and for a huge Claude transcript read from its end
(``providers.claude.tail``): the commands no older, in reading order, than the oldest
prompt, reply or call of the session's own the detail keeps (the timeline ``show --full``
draws); every one when that is the session's first item, or the session has none (a
``/model`` before the first prompt, a session of commands only); the newest
``COMMANDS_KEPT`` of them.  The reader from the end has read everything after its oldest
kept item, and the whole file when it kept the first, so it gives exactly these without
reading the whole of a file whose older items it drops; a command older than every kept
item would stand alone above a timeline that does not reach back to it.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable

from agentscan.detailmodel import LocalCommand, Prompt, Response, ToolEvent

#: ``LocalCommands.first``: the session's first item was not read (a reading from the end
#: that stopped before it): it is not kept
UNREAD = 0


class LocalCommands:
    """The commands read, the newest ``kept`` in reading order (their ``seq``: the items'
    numbering), and the place of the session's first item."""

    __slots__ = ("commands", "first")

    def __init__(self, kept: int) -> None:
        self.commands: deque[LocalCommand] = deque(maxlen=kept)
        #: the ``seq`` of the session's oldest prompt, reply or call read; ``None``: none.  Of the
        #: live ones: a rewind that takes the first back restores the first left
        #: (``DetailCollector.rewind``), so a ``/model`` before an edited first prompt is kept
        self.first: int | None = None

    def item(self, seq: int) -> None:
        """One of the session's own prompts, replies or calls was read at ``seq``."""
        self.first = seq if self.first is None else min(self.first, seq)

    def kept(self, prompts: Iterable[Prompt], responses: Iterable[Response],
             tools: Iterable[ToolEvent]) -> tuple[LocalCommand, ...]:
        """Those the detail of these kept items shows, oldest first (a subagent's call is read
        from another file: its ``seq`` places nothing in this one)."""
        if not self.commands:
            return ()
        seqs = [prompt.seq for prompt in prompts if prompt.seq] + [response.seq for response in responses if response.seq]
        seqs += [tool.seq for tool in tools if tool.subagent is None and tool.seq]
        if not seqs:
            # nothing of the session's own kept: every command when it has nothing else, else none
            return tuple(self.commands) if self.first is None else ()
        oldest = min(seqs)
        if oldest == self.first:
            return tuple(self.commands)  # the timeline reaches back to its start
        return tuple(command for command in self.commands if command.seq > oldest)
