"""Counted words, as every message says them: ``1 span``, ``2 spans``, ``1,204 tool calls``.

Here, not in ``cli.render``: the library's own messages (an export's warnings, a hook's
log) count things too, and must not import the CLI.
"""

from __future__ import annotations


def plural(count: int, word: str, words: str | None = None) -> str:
    """``count`` and ``word``, or ``words`` (default: ``word`` + ``s``) when it is not one."""
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def either(names: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: the choices a "did you mean" offers."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
