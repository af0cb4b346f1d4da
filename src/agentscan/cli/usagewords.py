"""Usage errors in agentscan's words where click would say its own: a number option given a
word (``--limit abc``), an option given no value (``--grep`` last), words left over
(``list --since 3 days``).  Each says what the option or command takes, and, where the
words left over follow an option's value, how to give them with it.  Click's errors carry
no code to tell them apart, so its messages are matched (the click Typer vendors)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from agentscan.toolkit.words import quoted


#: what each number option takes, as its out-of-range value's error says it (``--pid 0``)
_NUMBERS = {"--limit": "a whole number of 1 or more", "--pid": "a process id of 1 or more",
            "--lock-timeout": "0 or more seconds", "--timeout": "seconds above 0", "--retries": "a whole number, 0 or more"}


def count_error(error: Exception) -> str | None:
    """``--limit abc`` said as ``--limit 0`` is (``actions``), not in click's words
    ("Invalid value for '--limit' / '-n': 'abc' is not a valid int."); ``--pid``,
    ``--timeout`` and the other number options alike."""
    import re

    param = getattr(error, "param", None)
    found = re.search(r"""(['"])(.*)\1 is not a valid (?:int|float)""", str(getattr(error, "message", "")))
    if param is None or found is None or not getattr(param, "opts", None):
        return None
    flag = max(param.opts, key=len)
    # (``--limit all``: the option that says it)
    every = " (every one: --all)" if flag == "--limit" and found.group(2).strip().casefold() == "all" else ""
    return f"{flag} must be {_NUMBERS.get(flag, 'a number')}, not {quoted(found.group(2))}{every}"


#: what a choice option takes, by its long flag: its missing value's error lists them
_CHOICES: dict[str, Callable[[], Iterable[str]]] = {
    "--by": lambda: grouping_names(), "--sort": lambda: sort_key_names(),
    "--format": lambda: _export_formats(), "--protocol": lambda: _otlp_protocols(),
}


def provider_names() -> Iterable[str]:
    """The providers ``-p`` takes (its completion, and a provider given as an argument)."""
    from agentscan.providers import available_names

    return available_names()


def grouping_names() -> Iterable[str]:
    from agentscan.scan.groupby import GROUPINGS

    return GROUPINGS


def sort_key_names() -> Iterable[str]:
    from agentscan.scan.tokensort import SORT_KEYS

    return SORT_KEYS


def _export_formats() -> Iterable[str]:
    from agentscan.export.formats import FORMATS

    return FORMATS


def _otlp_protocols() -> Iterable[str]:
    from agentscan.otlp.sender import PROTOCOLS

    return PROTOCOLS


#: the words of a duration typed as two (``--since 3 days``), by the unit ``3d`` spells them with
_UNIT_WORDS = {
    "s": ("s", "sec", "secs", "second", "seconds"), "m": ("min", "mins", "minute", "minutes"),
    "h": ("h", "hr", "hrs", "hour", "hours"), "d": ("d", "day", "days"), "w": ("w", "wk", "wks", "week", "weeks"),
}

#: the options whose value may hold a space (a text, a path, a time): a word after one may be its rest
_SPACED_VALUES = frozenset({"--grep", "--cwd", "--since", "--until", "--home", "--output", "--at"})


def missing_value_error(error: Exception, params: Sequence[Any]) -> str | None:
    """``--grep`` given last, with no value: said as its empty value is (``cli.state``), with
    what it takes, not in click's words ("Option '--grep' requires an argument."); and
    ``--json=1`` ("Option '--json' does not take a value.")."""
    typed = getattr(error, "option_name", None)
    if type(error).__name__ != "BadOptionUsage" or not typed:
        return None
    if "does not take a value" in str(getattr(error, "message", "")):  # ``--json=1``
        # ``doctor --redact=no``: what was meant is the flag's opposite, which its name alone hides
        opposite = next((getattr(one, "secondary_opts", None) for one in params if typed in getattr(one, "opts", ())), None)
        if opposite:
            return f"{typed} takes no value: give {typed}, or {opposite[0]} to turn it off"
        return f"{typed} takes no value: give {typed} alone"
    if "requires" not in str(getattr(error, "message", "")):
        return None
    from agentscan.cli.optionvalues import wanted

    param = next((one for one in params if typed in (*getattr(one, "opts", ()), *getattr(one, "secondary_opts", ()))), None)
    flag = max(getattr(param, "opts", None) or [typed], key=len)
    said = wanted(flag)
    if said is None and flag in _CHOICES:
        said = f"give one of {', '.join(_CHOICES[flag]())}"
    if said is None:
        choices = getattr(getattr(param, "type", None), "choices", None)
        metavar = getattr(param, "metavar", None)
        if choices:
            said = f"give one of {', '.join(str(getattr(choice, 'value', choice)) for choice in choices)}"
        elif getattr(getattr(param, "type", None), "name", "") in ("int", "integer"):
            said = f"give a whole number ({typed} {metavar or 'N'})"
        else:
            said = f"{typed} {metavar or 'VALUE'}"
    return f"{typed} needs a value: {said}"


def extra_arguments_error(where: str, params: Sequence[Any], given: list[str], extra: list[str]) -> str:
    """``list --since 3 days``, ``list --grep fix bug``, ``show ID ID``: the words left over,
    said with what the command takes and, when they follow an option's value, how to give
    them with it (click said "Got unexpected extra argument(s) (days)")."""
    import shlex

    where = where.removeprefix("agentscan ")
    arguments = [param for param in params if getattr(param, "param_type_name", "") == "argument"]
    if not arguments:
        takes = "no arguments"
    else:
        name = arguments[0].human_readable_name.strip("[].")
        takes = f"one {name}" if arguments[0].required else f"at most one {name}"
    named = ", ".join(repr(word) for word in extra)
    message = f"unexpected {'argument' if len(extra) == 1 else 'arguments'} {named}: {where} takes {takes}"
    has_provider = any("--provider" in getattr(param, "opts", ()) for param in params)
    if has_provider and len(extra) == 1 and extra[0].casefold() in provider_names():
        # (beside a ``-p claude``: both providers' sessions are one comma list)
        chosen = [value for flag, value in zip(given, given[1:]) if flag in ("-p", "--provider")]
        chosen += [word.split("=", 1)[1] for word in given if word.startswith("--provider=")]
        wanted = extra[0].casefold()
        if chosen and wanted not in ",".join(chosen).casefold().split(","):
            return f"{message}; several providers' sessions are one comma list: -p {','.join([*chosen, wanted])}"
        return f"{message}; one provider's sessions: -p {wanted}"
    # where the first word left over is: the command's arguments take the first words that are
    # no option's value (``show ID extra``), the rest are left over
    takes_value = {flag for param in params if getattr(param, "param_type_name", "") == "option"
                   and not getattr(param, "is_flag", False) for flag in param.opts}
    words = [index for index, word in enumerate(given)
             if not word.startswith("-") and not (index and given[index - 1] in takes_value)]
    left = words[len(words) - len(extra):] if len(words) >= len(extra) else []
    at = left[0] if left else None
    if at is None or at < 2 or given[at - 2] not in takes_value:
        return message + (_word_meant(extra[0], params) if len(extra) == 1 else "")
    flag, value = given[at - 2], given[at - 1]
    option = next((one for one in params if flag in getattr(one, "opts", ())
                   and getattr(one, "param_type_name", "") == "option"), None)
    if option is None or max(option.opts, key=len) not in _SPACED_VALUES:
        return message
    if len(extra) == 1 and extra[0].isalpha() and value.isascii() and value.isdigit() and max(option.opts, key=len) in ("--since", "--until"):
        unit = next((short for short, names in _UNIT_WORDS.items() if extra[0].casefold() in names), None)
        if unit is None:  # (months and years: no fixed length, so no duration, as ``whentext`` says)
            return f"{message}; a duration is one word, a number and s, m, h, d or w: {flag} 90d, {flag} 12w"
        return f"{message}; a duration is one word: {flag} {value}{unit}"
    # the value's rest: the words left over that follow it, up to the next option
    rest = [given[index] for index in left if index - at == left.index(index)]
    return f"{message}; a value of more than one word is quoted: {flag} {shlex.quote(' '.join([value, *rest]))}"


def _word_meant(word: str, params: Sequence[Any]) -> str:
    """What ``list today``, ``list 5`` and ``list spotter`` meant: the option that takes the
    word (``--since``, ``-n``, ``--grep``), when the command has it; else ``""``."""
    from agentscan.cli.idwords import is_a_time, looks_like_id

    flags = {flag for param in params for flag in getattr(param, "opts", ())}
    if "--limit" in flags and word.isascii() and word.isdigit() and len(word) <= 3:  # (not a year, 2026)
        return f"; how many: -n {word}"
    if "--grep" in flags and looks_like_id(word, prefix="word", not_a="time"):
        return f"; a session's id goes after show: show {word}"  # (``list 7f3c9a12``)
    if "--since" in flags and is_a_time(word):
        return f"; a window: --since {word}"
    if "--grep" in flags and not word.startswith("-"):
        return f"; to search for it: --grep {word}"
    return ""


def one_dash_error(args: Sequence[str], params: Sequence[Any], *, up_to_command: bool = False,
                   ctx: Any = None) -> str | None:
    """``tokens -by day``, ``export -format csv``: a long option typed with one dash, said as
    the slip it is (``No such option: -by. Did you mean --by?``), before click reads it as
    short options run together (``-b``, ``-f ormat``) and answers about those.  A word is
    one when ``--`` before it is an option of the command, or begins one (3 letters or more:
    ``-out``); a real short option with its value glued on (``-pclaude``, ``-n5``, ``-fcsv``)
    is none.  The value after an option is never looked at (``--grep -by``), nor anything
    after ``--``; ``up_to_command``: only the words before the command's name (the group's);
    ``ctx``: the command's, whose command line a hint gives again (none: the fix alone)."""
    longs: list[str] = []
    takes_value: set[str] = set()
    for param in params:
        if getattr(param, "param_type_name", "") != "option":
            continue
        flags = [*param.opts, *param.secondary_opts]
        longs += [flag for flag in flags if flag.startswith("--")]
        if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
            takes_value.update(param.opts)
    value_next = False
    for word in args:
        if value_next:
            value_next = False
            continue
        if word == "--" or (up_to_command and not word.startswith("-")):
            return None
        if not word.startswith("-") or word == "-":
            continue
        flag = word.partition("=")[0]
        if flag.startswith("--") or len(flag) == 2:
            value_next = flag in takes_value and flag == word
            continue
        name = flag[1:]
        if "=" not in word:  # ``-vp claude``: the last of them takes the next word
            letters = next((name[:at + 1] for at in range(len(name)) if f"-{name[at]}" in takes_value), name)
            value_next = letters == name and f"-{name[-1]}" in takes_value
        meant = [long for long in longs if long[2:] == name] or (
            [long for long in longs if long[2:].startswith(name)] if len(name) >= 3 else [])
        if meant:
            from agentscan.toolkit.words import either

            return f"No such option: {flag}. Did you mean {either(sorted(set(meant)))}?"
        if "-" in name and "=" not in word:
            return _dashed_word_error(word, params, ctx)
    return None


def _dashed_word_error(word: str, params: Sequence[Any], ctx: Any) -> str:
    """``list -home-user-misc``: a word with a dash inside that begins with one, which no run
    of short options is: a value that starts with ``-``, as Claude Code's project folders'
    names do.  Click read it as ``-h -o -m …`` and named ``-o``; said as the word it is, with
    the command line that gives it (``--grep=-home-user-misc``, or after ``--`` for an
    argument), as git hints; the line's other words (``--demo``) are kept.  Where the argument
    is a session's id (``show``, ``trace``, ``tokens``) the word is a project folder's name,
    which no id is: ``list --grep`` finds its sessions, ``show -- WORD`` would find none."""
    import shlex

    from agentscan.invocation import program_word

    words = list(ctx.meta.get("agentscan.given", ())) if ctx is not None else []
    at = words.index(word) if word in words else None

    def retyped(*instead: str, tail: Sequence[str] = ()) -> str:
        if at is None:  # (no command line to give again: the fix alone)
            return " ".join([*instead, *tail])
        return " ".join([program_word(), shlex.join([*words[:at], *instead, *words[at + 1:], *tail])])

    longs = {flag for param in params for flag in getattr(param, "opts", ())}
    arguments = [param for param in params if getattr(param, "param_type_name", "") == "argument"]
    ways = []
    if "--grep" in longs:
        ways.append(f"to search for it: {retyped(f'--grep={word}')}")
    elif "/" in word and any("ID" in (getattr(param, "metavar", None) or "") for param in arguments):
        # (``show -home-me-app/<id>.jsonl``, a transcript's path from its project folder: it opens as ./…)
        ways.append(f"a path opens its session from ./: {retyped(f'./{word}')}")
    elif any("ID" in (getattr(param, "metavar", None) or "") for param in arguments):
        from agentscan.cli.typedline import typed_again

        found = typed_again(ctx, "list", f"--grep={word}") if ctx is not None else f"list --grep={word}"
        ways.append(f"a project folder's name is no session's id; its sessions: {found}")
    elif arguments:
        ways.append(f"as an argument, after --: {retyped(tail=['--', word])}")
    if not ways:
        ways.append(f"as an option's value, after =: --OPTION={word}")
    return f"No such option: {word} (a value that starts with '-' is read as options; {'; '.join(ways)})"
