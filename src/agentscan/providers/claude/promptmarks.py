"""A prompt as ``show`` lists it: the text typed, and a mark for the images sent with it.

``records.real_prompt_text`` names a prompt of images alone
(``[image]``), but a prompt of words and an image read as the words alone: the image left
no trace.  ``show`` marks it (``why is the header red? [image]``) unless Claude Code's own
placeholder (``[Image #1]``) already says so.  Titles and counts are unchanged: only what
``show`` lists (the forward read, the read from the end, and the facts of a huge transcript,
which count the marked text's clipping) goes through here.
"""

from __future__ import annotations

from typing import Any

from agentscan.toolkit.imagetext import images_text, is_images_text


def _images(record: dict[str, Any]) -> int:
    """The image blocks a prompt's ``user`` record sent (a queued prompt's, an ``attachment``
    of ``queuedprompts.queued_prompt_text``, is listed as its words: not marked)."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return 0
    return sum(1 for block in content if isinstance(block, dict) and block.get("type") == "image")


def shown_prompt(record: dict[str, Any], text: str) -> str:
    """``text`` (the prompt ``record`` holds) with `` [image]`` (`` [2 images]``) after it
    when the record sent images the text does not already tell of."""
    images = _images(record)  # (first: a typed prompt's content is a string, on every prompt of a huge pass)
    if not images or "[Image #" in text or is_images_text(text):
        return text
    return f"{text} {images_text(images)}"
