"""The kinds ``doctor`` counts warnings by: a message's head (what it says before its
details), and heads that differ only in a count or an id named as one kind."""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable


_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"(\W*)(.*?)(\W*)", re.S)  # a word: its leading stops, its core, its closing stops
_OPENING, _CLOSING = "([{", ")]}"


def message_kind(message: str) -> str:
    """What a warning's message says before its details ("invalid JSON skipped: …"): up to
    the first colon that ends a clause (followed by a space, or the end), outside brackets.
    A colon in a path (``/mnt/c:/x``, ``C:\\x``) or in a parenthesis (``not used (x: y);
    …``) is part of the kind: cut there, the kind was half a sentence, its bracket unclosed."""
    depth = 0
    for index, char in enumerate(message):
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth = max(0, depth - 1)
        elif char == ":" and depth == 0 and message[index + 1:index + 2] in ("", " "):
            return message[:index]
    return message


def kind_names(heads: Iterable[str]) -> dict[str, str]:
    """Each head's kind: heads that differ only in words holding a digit are one kind, named
    by what they share, a count that differs made ``N`` and any other word ``*`` (``read the
    N complete messages``; ``no session_meta with id * in the first 64 KiB``; not ``…``, which
    an ASCII stream shows as ``~``, read as the home).  Whole words:
    each digit made ``N`` garbled a word (an id read ``NaN-N-N-N-N``, a shared limit ``N
    KiB``).  A shape only one head has keeps that head's words."""
    shapes: dict[tuple[str, ...], list[str]] = {}
    for head in heads:
        shapes.setdefault(tuple("\0" if _DIGIT.search(word) else word for word in head.split(" ")), []).append(head)
    names: dict[str, str] = {}
    for group in shapes.values():
        name = group[0] if len(group) == 1 else " ".join(map(_shared, zip(*(head.split(" ") for head in group))))
        names.update(dict.fromkeys(group, name))
    return names


def _shared(words: tuple[str, ...]) -> str:
    """One word of a kind's name from the heads' words in its place: as they are when all
    are one, else their differing core a count (``N``) or not (``*``) between the stops they share."""
    if len(set(words)) == 1:
        return words[0]
    leads, cores, tails = zip(*(_WORD.fullmatch(word).groups() for word in words))  # type: ignore[union-attr]
    core = "N" if all(core.isdigit() for core in cores) else "*"
    return (leads[0] if len(set(leads)) == 1 else "") + core + (tails[0] if len(set(tails)) == 1 else "")


def kinds(heads: Counter[str], names: dict[str, str] | None = None) -> dict[str, int]:
    """The heads counted by kind (``names``: ``kind_names(heads)``), most frequent first."""
    names = kind_names(heads) if names is None else names
    counts: Counter[str] = Counter()
    for head, count in heads.items():
        counts[names[head]] += count
    return dict(counts.most_common())


def kind_files(wanted: Iterable[str], names: dict[str, str], head_files: dict[str, dict[str, None]]) -> dict[str, list[str]]:
    """The files of each kind ``wanted``, gathered from its heads' (``names``: ``kind_names``), each once."""
    files: dict[str, dict[str, None]] = {kind: {} for kind in wanted}
    for head, paths in head_files.items():
        files[names[head]].update(paths)
    return {kind: list(paths) for kind, paths in files.items()}
