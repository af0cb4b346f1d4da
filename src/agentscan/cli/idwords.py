"""A word typed where a session id goes that is no id: the option it was meant for.

``agentscan tokens today`` said ``'today' is too short: give at least 6 characters of the
id``, and ``tokens week`` or ``show last`` the same: a newcomer who meant a window, a
grouping or the newest session is told to type a longer id.  Only asked once no session
matched (``cli.state.say_error``): a word that is a session's id still opens it.
"""

from __future__ import annotations

from typing import Iterable

from agentscan.cli.typedoptions import flag_of, split_typed, value_of
from agentscan.whentext import WINDOW_UNITS, WINDOW_WORDS, parse_when, times_meant, window_said

#: ccusage's reports and the plural of each grouping, as ``tokens --by`` spells them
_BY_WORDS = {"daily": "day", "days": "day", "weekly": "week", "weeks": "week", "monthly": "month",
             "months": "month", "models": "model", "providers": "provider", "agents": "agent",
             "sessions": "session", "project": "cwd", "projects": "cwd"}
#: what a person calls the newest session
_NEWEST = frozenset({"last", "latest", "newest", "recent", "current", "@"})
#: words before a grouping, as said aloud (``tokens by day``)
_BY_SAID = frozenset({"by", "per"})

#: the global options the program's words already give (``home_options``), wherever typed
_HOME_FLAGS = frozenset({"--demo", "--home"})

def meant_for(exc: Exception, command: str, home_options: str, typed: tuple[str, ...]) -> str | None:
    """``meant_instead`` for an error about a session id (``SessionNotFound``; not ``show
    gemini``'s, which has its own hint); ``home_options``: the global options given; ``typed``:
    the words typed after the command's name (``cli.state.set_command_path``)."""
    from agentscan.errors import ProviderNotId, SessionNotFound
    from agentscan.invocation import program_word

    query = getattr(exc, "query", None)
    if not isinstance(exc, SessionNotFound) or isinstance(exc, ProviderNotId) or not isinstance(query, str):
        return None
    return meant_instead(query, command, f"{program_word()}{home_options}", typed)


def provider_hint(provider: str, query: str, command: str, home_options: str, typed: tuple[str, ...]) -> str:
    """The hint for a provider's name typed as an id (``tokens codex daily``): ``tokens -p codex``
    with the other words typed, each meant for an option given as that option (``--by day``);
    after ``show gemini``, where its sessions' ids are (``list -p gemini``)."""
    from agentscan.invocation import hint, program_word

    program = f"{program_word()}{home_options}"
    if command != "tokens":
        return hint(f"{program} list -p {provider}", "lists its sessions")
    others, _next = _others(typed, query)
    given = _by_values(others)
    if given:  # (``tokens codex models daily``: ``--by day --breakdown``, as ``tokens models daily``)
        by, others = _one_grouping(given[0], others)
        others = ["--by", by, *others] if "--by" not in others else others
    # (a provider's name is no id typed: the line is no answer to "tokens takes session ids")
    return _offer(program, ["-p", provider], others, "adds up its sessions' tokens", ids_said=False)


def meant_instead(query: str, command: str, program: str, words: Iterable[str] = ()) -> str | None:
    """The hint for ``query`` typed as ``command``'s session id (``tokens``, ``show``), when it
    reads as an option's value rather than an id; ``None`` for any other word.  ``program``:
    the words that run agentscan, with the global options given (``--demo``); ``words``: those
    typed after the command, given back in a ``tokens`` line (``_others``)."""
    from agentscan.invocation import hint

    typed = query.strip()
    word = typed.casefold()
    if word == "help" and command in ("tokens", "show"):  # (``git commit help``: a habit)
        return hint(f"{program} {command} --help", "shows its options")
    if command == "tokens":
        others, following = _others(tuple(words), query)
        if word in WINDOW_WORDS and following is not None:  # ``tokens last week``: a window, not ``last``
            window, said = window_said(word, following.strip().casefold())
            return _offer(program, window.split(), others, f"counts the tokens of {said}")
        # ``tokens by day``: the words of ``--by day`` without its dashes
        by = _grouping(following or "") if word in _BY_SAID else _grouping(word)
        if by is not None:
            by, others = _one_grouping(by, others)
            return _offer(program, ["--by", by], others, f"adds up tokens, one line per {by}")
        if word in ("blocks", "statusline"):  # (ccusage's reports, as ``agentscan blocks`` is answered: misplaced.py)
            return _offer(program, ["--since", "5h"], others, "adds up the last 5 hours' tokens",
                          asked="agentscan has no 5-hour billing blocks or status line;")
        if word in _NEWEST:  # (newest first: the first row is that session's)
            kept, _dropped = _runnable(["-n", "1", *others])
            if "-n" in kept and "--json" in kept:  # (its JSON is the page of that one row)
                return _offer(program, ["-n", "1"], others, "gives the newest session's tokens")
            if "-n" in kept:
                return _offer(program, ["-n", "1"], others, "shows the newest session's tokens first, the others "
                              "summed in one line")
            # (``tokens last daily``: no ``-n 1`` with it; said as what it shows)
            grouped = _by_values(kept)
            if grouped and grouped[0] != "session":
                return _offer(program, ["-n", "1"], others, f"adds up tokens, one line per {grouped[0]}")
            return _offer(program, ["-n", "1"], others, "lists every session's tokens, the newest first")
        if is_a_time(word):
            # Echoed as typed (``2026-11-03T01``, not its casefolded ``2026-11-03t01``), when it reads so.
            when = typed if is_a_time(typed) else word
            return _offer(program, ["--since", when], others, "counts tokens from then on")
        # A mistyped id is no misspelt day, however close: hex of any length, a digit or not.
        meant = times_meant(typed) if not looks_like_id(word, least=0, digit=False) else []
        if len(meant) == 1:  # (``yesterdy``: as ``--since yesterdy`` says it)
            return _offer(program, ["--since", meant[0]], others, "counts tokens from then on",
                          asked=f"did you mean {meant[0]}?")
    if command == "show" and word in _NEWEST:
        return hint(f"{program} list -n 1", "shows the newest session's id, to give to show")
    return None


def _grouping(word: str) -> str | None:
    """The ``--by`` grouping ``word`` names (``daily``, ``days``, ``day``), else ``None``."""
    from agentscan.scan.groupby import GROUPINGS

    word = word.strip().casefold()
    return _BY_WORDS.get(word, word if word in GROUPINGS else None)


def _others(words: tuple[str, ...], query: str) -> tuple[list[str], str | None]:
    """The words typed after ``tokens`` but ``query`` (``daily --since 7d -p claude``: ``--since
    7d -p claude``), options as typed and each other word that reads as an option's value
    given as that option (``tokens codex daily``: ``daily`` as ``--by day``); and the word
    typed right after ``query`` when the two are one phrase (``by day``, ``last week``:
    ``_follows``), taken with it.  (Not ``misplaced._carried``: that one reads ccusage's words
    and drops what ``tokens`` lacks; these were all read by ``tokens`` already.)  A word that reads as none is kept: another session's id."""
    typed = split_typed(words)
    others: list[str] = []
    following = None
    seen = False
    at = 0
    while at < len(typed):
        option = typed[at]
        word = option[0]
        at += 1
        if word == "--":  # (what follows is ids, whatever their first character)
            others += option
            break
        if word.startswith("-") and word != "-":
            if word.partition("=")[0] not in _HOME_FLAGS:
                others += option  # with its value, whatever it reads as (``--cwd daily``)
            continue
        # (a bare word is one alone: the phrase's second word, if any, is the next one)
        phrase = at < len(typed) and _follows(word.strip().casefold(), typed[at][0].strip().casefold())
        if not seen and word.strip() == query.strip():
            seen = True
            if phrase:
                following = typed[at][0]
                at += 1
            continue
        if phrase:  # (``tokens codex by day``: a phrase wherever typed, not ``by`` kept as an id)
            others += _phrase_options(word.strip().casefold(), typed[at][0].strip().casefold())
            at += 1
            continue
        others += _as_option(word)
    return others, following


def _by_values(words: list[str]) -> list[str]:
    """The values of the ``--by`` options among ``words`` (``tokens``' options as ``_others``
    gives them: each ``--by`` followed by its value)."""
    return [words[at + 1] for at in range(len(words) - 1) if words[at] == "--by"]


def _phrase_options(word: str, following: str) -> list[str]:
    """The options of a phrase ``_follows`` reads (``by day``: ``--by day``; ``last week``:
    ``--since 2026-W49 --until 2026-W49``, as ``tokens last week``'s own hint gives it)."""
    if word in _BY_SAID:
        return ["--by", _grouping(following) or following]
    return window_said(word, following)[0].split()


def _offer(program: str, head: list[str], others: list[str], does: str, *, asked: str = "",
           ids_said: bool = True) -> str:
    """The hint ``tokens HEAD OTHERS``: what it ``does``, with why an option typed was left out
    when the line would fail with it (``_runnable``); ``asked``: a question said first;
    ``ids_said``: and that ``tokens`` takes session ids (the word typed was read as one)."""
    import shlex

    from agentscan.invocation import hint

    words, dropped = _runnable([*head, *others])
    why = " ".join(filter(None, [asked, "; ".join([*dropped, *(["tokens takes session ids"] if ids_said else [])])]))
    return hint(" ".join([program, "tokens", *map(shlex.quote, words)]), f"{does} ({why})" if why else does)


def _runnable(words: list[str]) -> tuple[list[str], list[str]]:
    """``words`` (``tokens``' options) without those ``tokens`` refuses together, and why each was
    left out, in its error's words (``cli.actions``): a hint never offers a line known to fail.
    The first ``--by`` is kept (the one the hint is about) and another grouping left out
    (``tokens weekly daily``: ``--by takes one grouping``); ``--limit``/``--all`` as the
    command refuses them (``tokensrules.limit_refused``: ``tokens daily last``), and ``--breakdown`` under ``--by model`` left out; a second ``--since`` or
    ``--until``, which would silently win over the window the hint names (``tokens last week
    --since 3d``), too."""
    from agentscan.cli.tokensrules import limit_refused, refused_under
    from agentscan.providers import BUILTIN_PROVIDERS

    typed = split_typed(words)  # (each option with its value, as one)
    flags = [flag_of(option[0]) for option in typed]
    group_of = {at: _grouping(value_of(option)) or value_of(option)
                for at, (option, flag) in enumerate(zip(typed, flags)) if flag == "--by"}
    groups = list(dict.fromkeys(group_of.values()))
    by = groups[0] if groups else "session"
    dropped: list[str] = []
    kept: list[list[str]] = []
    left: list[str] = []  # (the other groupings' options)
    limits: list[object] = []  # (every --limit typed so far: the command reads them all)
    for at, (option, flag) in enumerate(zip(typed, flags)):
        said = " ".join(option)
        named = {"-n": "--limit", "-a": "--all"}.get(flag, flag)
        if flag == "--by" and at != min(group_of):
            if group_of[at] != by:
                left.append(said)
            continue
        if flag in ("--since", "--until") and flag in flags[:at]:  # (click keeps the last one given, silently)
            dropped.append(f"{flag} takes one time: {said} left out")
            continue
        if named in ("--limit", "--all"):
            if named == "--limit":
                limits.append(_number(value_of(option)))
            show_all = any(earlier in ("-a", "--all") for earlier in flags[:at + 1])
            # (an ``--all`` is asked about beside a limit, not about two: each is left out on its own)
            refusal = limit_refused(limits if named == "--limit" else limits[:1], show_all, by=by)
            if refusal is not None:
                also = f"; --by {by} shows every row" if refusal.rule == "grouping" else ""
                dropped.append(f"{refusal.words}{also}: {said} left out")
                continue
        if flag in ("-p", "--provider") and not _agents(value_of(option)):
            # (``tokens daily -p web``: a project's name taken for ``-p``, refused as the command refuses it)
            dropped.append(f"--provider takes an agent ({', '.join(BUILTIN_PROVIDERS)}): {said} left out")
            continue
        if flag in ("-b", "--breakdown") and refused_under("--breakdown", by):
            dropped.append(f"--by model's rows are models already: {said} left out")
            continue
        kept.append(option)
    if left:  # (as ``tokens --by week --by day``'s error says it)
        dropped.insert(0, f"--by takes one grouping, not {len(groups)} ({', '.join(groups)}): {', '.join(left)} left out")
    empty = _empty_window(kept)
    if empty is not None:  # (``tokens today --until 2d``: ``--since today --until 2d`` is refused)
        dropped.append(f"--since must be before --until: {' '.join(kept.pop(empty))} left out")
    return [word for option in kept for word in option], dropped


def _agents(value: str) -> bool:
    """Whether ``--provider VALUE`` names only agents (``optionvalues.provider_names`` reads it)."""
    from agentscan.providers import is_provider_name

    return all(is_provider_name(name.strip().casefold()) for name in value.split(","))


def _number(text: str) -> object:
    """A ``--limit``'s value as the command reads it (``int``), or as typed when it reads as none."""
    try:
        return int(text)
    except ValueError:
        return text


def _empty_window(options: list[list[str]]) -> int | None:
    """Where in ``options`` (each with its value) the ``--until`` is that ends the window before
    the ``--since`` starts it, which ``tokens`` refuses (``scan.arguments.check_window``); ``None``
    when there is no such pair, or a time or zone cannot be read (its own error says so)."""
    values = {flag_of(option[0]): (at, value_of(option)) for at, option in enumerate(options)}
    if "--since" not in values or "--until" not in values:
        return None
    from agentscan.errors import UsageProblem

    from agentscan.scan.arguments import check_window
    from agentscan.timeutil import zone
    from agentscan.whentext import read_when

    try:  # (as ``cli.optionvalues.parse_window`` reads them)
        tz = zone(values.get("--tz", (0, None))[1])
        check_window(read_when("--since", values["--since"][1], tz), read_when("--until", values["--until"][1], tz),
                     ("--since", "--until"))
    except UsageProblem:
        return values["--until"][0]
    return None


def _follows(word: str, following: str) -> bool:
    """Whether ``following`` ends the phrase ``word`` begins (``by day``, ``last week``)."""
    return (word in _BY_SAID and _grouping(following) is not None) or (word in WINDOW_WORDS and following in WINDOW_UNITS)


def _one_grouping(by: str, others: list[str]) -> tuple[str, list[str]]:
    """``by`` and ``others`` as one ``--by``, which ``tokens`` takes: ``daily --by model``
    (``models daily``) is ``--by day --breakdown``, as ``--by day --by model``'s error says it;
    the same grouping twice said once.  Others are left to that error (crossing them is an
    export's)."""
    given = _by_values(others)
    groups = list(dict.fromkeys([by, *given]))
    if len(groups) == 2 and "model" in groups:
        by = groups[0] if groups[1] == "model" else groups[1]
        given = [*given, "model"]
    elif len(groups) != 1:
        return by, others
    kept: list[str] = []
    at = 0
    while at < len(others):
        if others[at] == "--by" and at + 1 < len(others) and others[at + 1] in given:
            at += 2
            continue
        kept.append(others[at])
        at += 1
    if len(groups) == 2 and "--breakdown" not in kept and "-b" not in kept:
        kept.append("--breakdown")
    return by, kept


def _as_option(word: str) -> list[str]:
    """``word``, typed where ``tokens`` takes an id, as the option it reads as (``codex``:
    ``-p codex``; ``weekly``: ``--by week``; ``today``: ``--since today``); else as typed."""
    from agentscan.providers import available_names

    folded = word.strip().casefold()
    if folded.rstrip(":") in available_names():
        return ["-p", folded.rstrip(":")]
    by = _grouping(folded)
    if by is not None:
        return ["--by", by]
    if folded in _NEWEST:
        return ["-n", "1"]
    if is_a_time(word):
        return ["--since", word]
    return [word]


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

    try:
        parse_when(word)
    except UsageProblem:
        return False
    return True
