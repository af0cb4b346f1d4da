"""The counts a ``DetailCollector`` shares with its ``child()`` collectors (``toolkit.detail``):
what was cut, how many calls the subagents made, and what of it all was copied."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ClipCounts:
    """How many texts were cut, kept apart because they are cut at different sizes and
    ``truncated`` words each as it is (``clipped_messages``, ``clipped_tools``).  One is
    shared by a collector and its ``child()``s: a subagent's calls (and, through a child,
    its prompts and replies) are shown too, so their cuts count as the session's."""

    messages: int = 0  # prompts and replies cut at ``bounds.message_bytes``
    tools: int = 0  # call summaries cut at ``SUMMARY_BYTES``


@dataclass
class SubagentCalls:
    """How many tool calls the subagents made, every one read, kept or not (the bounds keep
    the newest of all calls): the card's ``+N by subagents``, beside the row's count of the
    session's own.  One is shared by a collector and its ``child()``s, as ``ClipCounts`` is."""

    read: int = 0


@dataclass
class CopiedItems:
    """What of the items added were copies of another session's records (a resumed Claude
    session lists the copies of a gone one's: ``resumedshow``), while ``copying``: the card's
    counts are the session's own, and say these apart (``copied_listed``).  Shared by a
    collector and its ``child()``s, as ``SubagentCalls`` is."""

    copying: bool = False
    prompts: int = 0
    tool_calls: int = 0
    subagent_tool_calls: int = 0
    compactions: int = 0

    def listed(self) -> dict[str, int]:
        """``copied_listed``: every count, when any copy was added (else nothing)."""
        counts = {"prompts": self.prompts, "tool_calls": self.tool_calls,
                  "subagent_tool_calls": self.subagent_tool_calls, "compactions": self.compactions}
        return counts if any(counts.values()) else {}
