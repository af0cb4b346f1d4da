"""A word typed where a session id goes that is no id: the option it was meant for.

``agentscan tokens today`` said ``'today' is too short: give at least 6 characters of the
id``, and ``tokens week`` or ``show last`` the same: a newcomer who meant a window, a
grouping or the newest session is told to type a longer id.  Only asked once no session
matched (``cli.state.say_error``): a word that is a session's id still opens it.
"""

from __future__ import annotations

#: ccusage's reports and the plural of each grouping, as ``tokens --by`` spells them
_BY_WORDS = {"daily": "day", "days": "day", "weekly": "week", "weeks": "week", "monthly": "month",
             "months": "month", "models": "model", "providers": "provider", "agents": "agent",
             "sessions": "session", "project": "cwd", "projects": "cwd"}
#: what a person calls the newest session
_NEWEST = frozenset({"last", "latest", "newest", "recent", "current", "@"})


def meant_for(exc: Exception, command: str, home_options: str) -> str | None:
    """``meant_instead`` for an error about a session id (``SessionNotFound``; not ``show
    gemini``'s, which has its own hint); ``home_options``: the global options given."""
    from agentscan.errors import ProviderNotId, SessionNotFound
    from agentscan.invocation import program_word

    query = getattr(exc, "query", None)
    if not isinstance(exc, SessionNotFound) or isinstance(exc, ProviderNotId) or not isinstance(query, str):
        return None
    return meant_instead(query, command, f"{program_word()}{home_options}")


def meant_instead(query: str, command: str, program: str) -> str | None:
    """The hint for ``query`` typed as ``command``'s session id (``tokens``, ``show``), when it
    reads as an option's value rather than an id; ``None`` for any other word.  ``program``:
    the words that run agentscan, with the global options given (``--demo``)."""
    from agentscan.invocation import hint
    from agentscan.scan.groupby import GROUPINGS

    typed = query.strip()
    word = typed.casefold()
    if word == "help" and command in ("tokens", "show"):  # (``git commit help``: a habit)
        return hint(f"{program} {command} --help", "shows its options")
    if command == "tokens":
        by = _BY_WORDS.get(word, word if word in GROUPINGS else None)
        if by is not None:
            return hint(f"{program} tokens --by {by}", f"adds up tokens, one line per {by} (tokens takes session ids)")
        if word in _NEWEST:  # (newest first: the first row is that session's)
            return hint(f"{program} tokens -n 1", "shows the newest session's tokens first, the others summed in one line "
                        "(tokens takes session ids)")
        if is_a_time(word):
            # Echoed as typed (``2026-11-03T01``, not its casefolded ``2026-11-03t01``), when it reads so.
            when = typed if is_a_time(typed) else word
            return hint(f"{program} tokens --since {_quoted(when)}", "counts tokens from then on (tokens takes session ids)")
        from agentscan.whentext import times_meant

        meant = times_meant(typed) if not _hex_id(word) else []
        if len(meant) == 1:  # (``yesterdy``: as ``--since yesterdy`` says it)
            return hint(f"{program} tokens --since {meant[0]}",
                        f"counts tokens from then on (did you mean {meant[0]}? tokens takes session ids)")
    if command == "show" and word in _NEWEST:
        return hint(f"{program} list -n 1", "shows the newest session's id, to give to show")
    return None


def _quoted(word: str) -> str:
    """``word`` as a shell reads it back whole (``'2026-11-03 10:00'``)."""
    import shlex

    return shlex.quote(word)


def _hex_id(word: str) -> bool:
    """Whether ``word`` may be the start of a session id (hex digits and dashes): a mistyped
    id is no misspelt day, however close."""
    return all(char in "0123456789abcdef-" for char in word)


def is_a_time(word: str) -> bool:
    """Whether ``--since`` reads ``word`` (``today``, ``3d``, ``2026-11``)."""
    from agentscan.errors import UsageProblem
    from agentscan.whentext import parse_when

    try:
        parse_when(word)
    except UsageProblem:
        return False
    return True
