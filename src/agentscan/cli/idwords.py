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

        # A mistyped id is no misspelt day, however close: hex of any length, a digit or not.
        meant = times_meant(typed) if not looks_like_id(word, least=0, digit=False) else []
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


#: the characters of a session id's hex form (a UUID's digits and dashes), either case
_HEX = frozenset("0123456789abcdefABCDEF-")


def looks_like_id(word: str, *, least: int = 6, digit: bool = True, prefix: str = "", not_a: str = "") -> bool:
    """Whether ``word`` reads as a session's id (or the start of one) rather than a word: hex
    digits and dashes, at least ``least`` of them, with a digit among them when ``digit``
    (``deadbeef`` and ``facade`` are words).  The one rule every hint that tells an id from
    another word asks, each caller saying how its question differs:

    ``prefix``: what may come before the hex: ``""`` nothing; ``"word"`` any lowercase word and
    a colon, unchecked (``claude:7f3c9a12``: ``list 7f3c9a12`` says where an id goes whatever
    the agent); ``"agent"`` a known agent's name and a colon, then anything at all
    (``claude:anything``: a command line's first word, where only an agent's id reads so).
    ``not_a``: what an id-shaped word is taken as instead: ``""`` nothing (the caller ruled
    times out already); ``"date"`` a bare date (``2026-11-01``, ``2026-11``); ``"time"`` any
    time ``--since`` reads (``20261101``, ``2026-11-01``)."""
    import re

    body = word
    if prefix == "agent":
        agent, colon, bare = word.partition(":")
        if colon and bare:
            from agentscan.providers import available_names

            if agent.casefold() in available_names():
                return True
    elif prefix == "word":
        named = re.match(r"[a-z]+:", word)
        body = word[named.end():] if named else word
    if len(body) < least or not all(char in _HEX for char in body):
        return False
    if digit and not any(char.isdigit() for char in body):  # (ASCII: every character is hex)
        return False
    if not_a == "date":
        return re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", word) is None
    return not_a != "time" or not is_a_time(word)


def is_a_time(word: str) -> bool:
    """Whether ``--since`` reads ``word`` (``today``, ``3d``, ``2026-11``)."""
    from agentscan.errors import UsageProblem
    from agentscan.whentext import parse_when

    try:
        parse_when(word)
    except UsageProblem:
        return False
    return True
