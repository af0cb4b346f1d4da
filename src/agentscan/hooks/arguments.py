"""The arguments ``agentscan hook`` does not know, said in ``hook-errors.log``.

The hook ignores them (a usage error, exit 2, would mean "deny" to Cursor), so a typo in
an installed command (``--otlp-endpiont URL``) would otherwise go unseen: the event is
stored, but nothing is exported.  Each one gets a line in the log, which ``doctor``
shows.  Stdlib only (the hook imports it on every event: ``has_unknown``); ``difflib``
(for the "did you mean") only for an unknown option.
"""

from __future__ import annotations

import re
from typing import Sequence

from agentscan.toolkit.words import quoted

#: the options ``hook`` takes, each with a value (``cli.hooks_commands.hook_command``)
VALUED = ("--agent", "--otlp-endpoint")

#: every option of ``hook`` a slip may be offered (``--demo`` never reaches the capture)
KNOWN = (*VALUED, "--demo")
#: what an option given no value (``--agent`` last in the command) leaves the hook to do
_NO_VALUE = {"--agent": "the agent is told from the payload; one it cannot tell is stored under 'unknown'",
             "--otlp-endpoint": "nothing is sent"}
#: the end of each line: the hook did its work all the same
_STORED = "the event was stored all the same"
#: how much of a stray word a log line quotes
_QUOTED = 60
#: a dash an option may begin with, as typed or as a page typesets it (en and em dash)
_DASHES = "-\u2013\u2014"
#: a long option's name, the word after its dashes: all a log line quotes of it
_OPTION_NAME = re.compile(r"--[A-Za-z0-9_-]{0,30}")
#: a short option's name: its dash and one letter
_SHORT_NAME = re.compile(r"-.?", re.S)
#: a stray word short and plain enough to quote (``surplus``, ``claude``): anything else may be a secret
_PLAIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,23}|-")


def _no_value(arg: str) -> bool:
    """``--agent=``: an ``=`` and nothing after it.  (A value may end in ``=`` itself: an
    endpoint's base64 token, ``…?sig=YWJj==``, is a value, and must not be quoted.)"""
    _, equals, value = arg.partition("=")
    return bool(equals) and not value


def _given(arguments: Sequence[str]) -> list[tuple[str, str]]:
    """Each ``VALUED`` option given a value, with it, in order (``--agent X``, ``--agent=X``);
    a value is never read as an option (``--otlp-endpoint --agent`` gives the endpoint
    ``--agent``, as click would)."""
    given = []
    words = iter(arguments)
    for arg in words:
        if arg in VALUED:
            value = next(words, None)
            if value is not None:
                given.append((arg, value))
        elif arg.partition("=")[0] in VALUED and not _no_value(arg):
            given.append((arg.partition("=")[0], arg.partition("=")[2]))
    return given


def hook_option(arguments: Sequence[str], name: str) -> str | None:
    """The value the hook takes for option ``name`` (``--otlp-endpoint``): the first given,
    as ``hook`` (``entry``) and ``hooks status`` both read it; a second one is ignored, and
    said in the log (``unknown_arguments``)."""
    return next((value for option, value in _given(arguments) if option == name), None)


def has_unknown(arguments: Sequence[str]) -> bool:
    """Whether anything but ``--agent X`` and ``--otlp-endpoint X`` (or ``=X``), each once, was
    given: the installed command's own arguments pass without a look at the rest of this module."""
    words = iter(arguments)
    for arg in words:
        if arg in VALUED:
            if next(words, None) is None:  # ``--agent`` last, with no value: said too
                return True
        elif arg.partition("=")[0] not in VALUED or _no_value(arg):  # ``--agent=``: no value either
            return True
    options = [option for option, _ in _given(arguments)]
    return len(options) != len(set(options))  # (a second ``--otlp-endpoint``: ignored, said)


def unknown_arguments(argv: list[str]) -> list[str]:
    """One message per argument of ``argv`` (what follows ``hook``) that ``hook`` ignores.

    A word after an unknown ``--option`` is taken as its value, as it would be for a real
    one: ``--otlp-endpiont http://…`` is one slip, not two.  An option's value is never
    quoted (an endpoint may hold a token); a stray word is, cut short.
    """
    problems: list[str] = []
    options = [option for option, _ in _given(argv)]
    for option in dict.fromkeys(one for one in options if options.count(one) > 1):
        # (the value is not quoted: an endpoint may hold a token)
        problems.append(f"option {option} given {options.count(option)} times: only the first is used; {_STORED}")
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg in VALUED and index < len(argv):
            index += 1  # its value (``entry._hook_option`` reads it)
            continue
        flag = arg.partition("=")[0]
        if arg in VALUED or (flag in VALUED and _no_value(arg)):
            problems.append(f"option {flag} given no value, ignored ({_NO_VALUE[flag]}); {_STORED}")
            continue
        if arg == "--" or arg.partition("=")[0] in VALUED:
            continue
        # ``—otlp-endpoint`` pasted from a page that typesets two dashes as one long one: an
        # option all the same (its value is not quoted), offered as it should be typed.
        dashes = len(arg) - len(arg.lstrip("".join(_DASHES)))
        if arg[:dashes].strip("-"):
            typed, arg = arg, "--" + arg[dashes:]
        else:
            typed = arg
        if arg.startswith("-") and arg != "-":
            # Only the option's name is quoted: what is glued to it (``=value``, ``:value``, a
            # value in the same word) may hold a token, and the log is shown by ``doctor``.
            # (A short option's name is its letter: ``-Htoken`` glues a value to it.)
            pattern = _OPTION_NAME if arg.startswith("--") else _SHORT_NAME
            matched = pattern.match(arg)
            name = matched.group() if matched is not None else arg[:2]  # (both match a dash and on)
            shown = typed[:len(typed) - len(arg) + len(name)]
            took_value = len(name) < len(arg)
            if not took_value and index < len(argv) and argv[index][:1] not in _DASHES:
                index += 1
                took_value = True
            value = ", with its value" if took_value else ""
            if name not in KNOWN:
                guess = _guess(name)
            elif typed != arg:
                guess = f" (did you mean {name}? its dashes are typeset)"
            else:  # ``--otlp-endpoint:URL``, or one word with a space in it (an args list)
                guess = f" (give {name} and its value as two words, or {name}=VALUE)"
            problems.append(f"unknown option {_quoted(shown)} ignored{value}{guess}; {_STORED}")
        elif _PLAIN_WORD.fullmatch(arg):
            problems.append(f"unexpected argument {quoted(arg)} ignored (hook takes only {' and '.join(VALUED)}); {_STORED}")
        else:
            # A URL, a key, a setting (``http://user:token@host``, ``sk-…``, ``key=…``): what it
            # is, never what it says.
            problems.append(f"unexpected argument (a URL or a value, not quoted) ignored (hook takes only "
                            f"{' and '.join(VALUED)}); {_STORED}")
    return problems


def _guess(name: str) -> str:
    """`` (did you mean --otlp-endpoint?)`` when ``name`` is a slip for a known option."""
    from agentscan.toolkit.words import close_names

    close = close_names(name, KNOWN)
    return f" (did you mean {close[0]}?)" if close else ""


def _quoted(text: str) -> str:
    """``text`` cut short, a character no terminal shows as it is (a newline) escaped."""
    if not text.isprintable():
        text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
    return text if len(text) <= _QUOTED else text[: _QUOTED - 1] + "…"
