"""What stands for a prompt of images and no words, in every provider's titles and counts.

An image pasted alone (a screenshot: "what is wrong here?" said by the picture) is a prompt
all the same; a title of ``-`` and a count of 0 prompts said the user sent nothing.
"""

from __future__ import annotations


def images_text(images: int) -> str:
    """``[image]``, ``[2 images]``: a prompt of ``images`` images (1 or more) and no text."""
    return "[image]" if images == 1 else f"[{images} images]"
