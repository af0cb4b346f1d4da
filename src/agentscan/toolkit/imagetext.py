"""What stands for a prompt of images and no words, in every provider's titles and counts.

An image pasted alone (a screenshot: "what is wrong here?" said by the picture) is a prompt
all the same; a title of ``-`` and a count of 0 prompts said the user sent nothing.  As a
title it is a fallback (``is_images_text``): the first prompt of words names a session better.
"""

from __future__ import annotations

import re

_IMAGES_TEXT = re.compile(r"\[(?:image|[0-9]+ images)\]")


def images_text(images: int) -> str:
    """``[image]``, ``[2 images]``: a prompt of ``images`` images (1 or more) and no text."""
    return "[image]" if images == 1 else f"[{images} images]"


def is_images_text(text: str) -> bool:
    """``text`` is what ``images_text`` gives: a prompt of images alone, which titles a
    session only when no prompt of words does (one typed as ``[image]`` is taken for one)."""
    return text.startswith("[") and _IMAGES_TEXT.fullmatch(text) is not None
