"""A prompt typed while Claude Code was busy: written only as an ``attachment`` record
(``queued_prompt_text``), never as a ``user`` record, so read apart from the prompts
``records.real_prompt_text`` reads.  Every pass that lists prompts asks both.
"""

from __future__ import annotations

from typing import Any

from agentscan.providers.claude.senders import teammate_wrapped
from agentscan.toolkit.imagetext import images_text


def queued_prompt_text(record: dict[str, Any]) -> str | None:
    """The text of a prompt typed while the agent was busy, or ``None``.

    Claude Code (2.1 on) folds such a prompt into the running turn and writes it only as
    ``{"type": "attachment", "attachment": {"type": "queued_command", "prompt": …,
    "commandMode": "prompt"}}``, never as a ``user`` record (agentsview PR 406; Claude Code's
    interactive-mode docs, "When Claude Code sends what you queued").  ``prompt`` is a string
    or a list of blocks (text and images).  A queued shell command or task notification
    (another ``commandMode``), a message from another agent (an ``origin`` whose ``kind``
    is not ``human``), and one Claude Code queued itself (``isMeta``: a scheduled task's,
    which its own transcript view hides as system-generated) are no prompt of the user's.

    A slash command typed while the agent was busy is never written so: Claude Code leaves
    one out of the turn it folds prompts into and runs it after the turn, written by its own
    records (``real_prompt_text``, ``ran_command_text``; the real sample
    ``spotter-tool-heavy-v2.1.38.jsonl``: a queued ``/mcp``).  So an attachment holding
    ``/…`` is text the model was sent as a message (a bridge's, or a build before that
    rule): a prompt, as any other."""
    attachment = record.get("attachment")
    if attachment.__class__ is not dict or attachment.get("type") != "queued_command":
        return None
    if attachment.get("commandMode", "prompt") != "prompt" or attachment.get("isMeta") is True:
        return None
    origin = attachment.get("origin")
    if origin is not None and (origin.__class__ is not dict or origin.get("kind", "human") != "human"):
        return None
    prompt = attachment.get("prompt")
    images = 0
    if prompt.__class__ is list:
        images = sum(1 for block in prompt if block.__class__ is dict and block.get("type") == "image")
        prompt = "\n".join(block["text"] for block in prompt if block.__class__ is dict
                           and block.get("type") == "text" and isinstance(block.get("text"), str))
    if not isinstance(prompt, str):
        return None
    text = prompt.strip()
    if teammate_wrapped(text, origin):  # a teammate's, queued (``real_prompt_text``)
        return None
    return text or (images_text(images) if images else None)
