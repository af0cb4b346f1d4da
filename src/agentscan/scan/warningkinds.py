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
    an ASCII stream shows as ``~``, read as the home).  Whole words, and inside one the parts
    between ``:``, ``-`` and ``/`` they share (``bubbleId:*:*``, ``/home/u/*``): each digit made
    ``N`` garbled a word (an id read ``NaN-N-N-N-N``, a shared limit ``N KiB``).  A size (``4
    MiB``) is part of the kind: limits that differ are kinds apart.  Differing words that are
    not ids (models: ``gpt-5``, ``claude-3``) say how many differ: one line read as one model.
    A shape only one head has, or heads that share no word, keep each head's words."""
    shapes: dict[tuple[str, ...], list[str]] = {}
    for head in heads:
        words = head.split(" ")
        shape = tuple("\0" if _DIGIT.search(word) and following not in _UNITS else word
                      for word, following in zip(words, [*words[1:], ""]))
        shapes.setdefault(shape, []).append(head)
    names: dict[str, str] = {}
    for group in shapes.values():
        named = _name(group) if len(group) > 1 else None
        if named is None:
            names.update((head, head) for head in group)
        else:
            names.update(dict.fromkeys(group, named))
    return names


#: the words after a number that make it a size, a limit (``line longer than 4 MiB``), not a count
_UNITS = frozenset({"B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "kB", "bytes"})
#: an id: hex digits and dashes (a UUID, a hash), at least one digit
_ID = re.compile(r"(?=[^0-9]*[0-9])[0-9a-fA-F-]{8,}")
_PARTS, _DASHED = re.compile(r"([:/])"), re.compile(r"(-)")
#: a part of a dashed word (``gpt-5``'s ``5``): split no further
_NAMED = re.compile(r"(?!)")


def _name(group: list[str]) -> str | None:
    """The name of the kind of ``group``'s heads (of one shape); ``None``: they share no word."""
    words = [_shared(column) for column in zip(*(head.split(" ") for head in group))]
    if all(word[0] is None for word in words):
        return None  # a bare ``*`` named nothing (the heads were all location)
    name = " ".join(word if word is not None else "*" for word, _ in words)
    return f"{name} ({len(set(group))} different)" if any(counted for _, counted in words) else name


def _shared(words: tuple[str, ...]) -> tuple[str | None, bool]:
    """One word of a kind's name from the heads' words in its place (``None``: nothing of it
    shared), and whether it names things that differ, not ids or counts (said how many)."""
    if len(set(words)) == 1:
        return words[0], False
    leads, cores, tails = zip(*(_WORD.fullmatch(word).groups() for word in words))  # type: ignore[union-attr]
    lead = leads[0] if len(set(leads)) == 1 else ""
    tail = tails[0] if len(set(tails)) == 1 else ""
    core, counted = _shared_core(cores)
    if core == "*" and not lead and not tail:
        return None, counted
    return lead + core + tail, counted


def _shared_core(cores: tuple[str, ...], parts: re.Pattern[str] = _PARTS) -> tuple[str, bool]:
    """Differing cores as one, and whether they name things that differ (not ids nor counts):
    an id ``*``, a count ``N``; else the parts between ``:`` and ``/`` (then ``-``) they share
    kept (``bubbleId:*:*``, a path's folders), each other part so made, or ``*``."""
    if all(core.isdigit() for core in cores):
        return "N", parts is _NAMED  # (a count; in a name, ``gpt-5`` and ``gpt-4``, two names)
    if all(_ID.fullmatch(core) for core in cores):
        return "*", False
    split = [parts.split(core) for core in cores]
    columns = list(zip(*split))
    if len({len(each) for each in split}) > 1:  # (paths of other depths: their shared folders, then ``*``)
        shared = next((at for at, column in enumerate(columns) if len(set(column)) > 1), len(columns))
        columns = [*columns[:shared], ("*", "**")]
    if not any(len(set(column)) == 1 and column[0] not in ("", ":", "/", "-") for column in columns):
        if parts is _PARTS:
            return _shared_core(cores, _DASHED)
        return "*", True
    kept: list[str] = []
    counted = False
    for column in columns:
        if len(set(column)) == 1:
            kept.append(column[0])
        else:
            core, differ = _shared_core(column, _DASHED if parts is _PARTS else _NAMED)
            kept.append(core)
            counted = counted or differ
    return "".join(kept), counted


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
