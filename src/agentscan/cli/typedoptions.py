"""The words typed after ``tokens`` read as its options, as click reads them: a hint built from
them (``cli.idwords``) names each option by its flag and judges its value as the command would.

Click splits ``=`` off a long option only (``--by=day``); a short one's value may be attached
(``-pweb``: ``web``; ``-p=claude``: ``=claude``, which the command refuses as it refuses ``web``),
and short flags that take no value may lead a group (``-vpweb``: ``-v -p web``).
"""

from __future__ import annotations

from typing import Iterable


def split_typed(words: Iterable[str]) -> list[list[str]]:
    """``words`` (what was typed after ``tokens``) as ``tokens`` reads them, one list each: an
    option with the value it takes (``--since 7d``; ``--since=7d`` or ``-n5`` alone), ``--`` with
    every word after it, any other word alone."""
    from agentscan.cli.static_grammar import COMMANDS

    options: dict[str, tuple[str, str]] = COMMANDS["tokens"]["options"]
    words = list(words)
    typed: list[list[str]] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--":
            typed.append(words[at:])
            break
        flag = flag_of(word)
        if flag != word and not word.startswith("--") and options.get(flag, ("", ""))[1] == "flag":
            # Short flags grouped (``-vpweb``: ``-v -p web``): click reads each letter that takes
            # no value as its own flag and the first that takes one with the rest of the word.
            typed.append([flag])
            words[at] = "-" + word[2:]
            continue
        takes = flag == word and options.get(flag, ("", "flag"))[1] != "flag" and at + 1 < len(words)
        typed.append(words[at:at + (2 if takes else 1)])
        at += len(typed[-1])
    return typed


def flag_of(word: str) -> str:
    """The option ``word`` gives (``--by=day``: ``--by``; ``-pweb``: ``-p``), or ``word`` itself."""
    if word.startswith("--"):
        return word.partition("=")[0]
    return word[:2] if word.startswith("-") and len(word) > 2 else word


def value_of(option: list[str]) -> str:
    """The value of ``option`` (``split_typed``'s: a flag with its value), as click reads it:
    the word after the flag, else what follows ``=`` in a long one, else what follows a short
    one's letter (``-pweb``: ``web``; ``-p=claude``: ``=claude``)."""
    word = option[0]
    if len(option) > 1:
        return option[-1]
    if word.startswith("--"):
        return word.partition("=")[2]
    return word[2:] if word.startswith("-") else word
