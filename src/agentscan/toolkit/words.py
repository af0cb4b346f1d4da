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


def unknown_choice(what: str, given: object, names: list[str]) -> str:
    """``unknown --by 'dya' (did you mean day?); choose from: session, day, …``: a value no
    choice is, led by the one it is close to (a typo), if any; an unlike one (``--by foo``)
    gets the list alone, as an unlike command gets no guess."""
    import difflib

    text = str(given)
    close = difflib.get_close_matches(text.casefold(), [name.casefold() for name in names], n=1, cutoff=0.65)
    guess = next((f" (did you mean {name}?)" for name in names if close and name.casefold() == close[0]), "")
    return f"unknown {what} {text!r}{guess}; choose from: {', '.join(names)}"


def listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
