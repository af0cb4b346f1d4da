"""The shapes a kept ``showfacts.ShowFacts`` state and ``tailfacts.TailFacts`` document must have to be read back:
anything else in the index (another version's, a damaged row) is no facts, never a traceback."""

from __future__ import annotations

from collections import OrderedDict


def is_plan(plan: object) -> bool:
    """``None``, or ``[step, status]`` pairs of strings (``ShowFacts.plan``)."""
    return plan is None or (isinstance(plan, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in plan))


def are_errors(errors: object) -> bool:
    """``[text, ISO time or None, kind]`` triples (``ShowFacts.errors``)."""
    return _are_timed(errors, 3) and isinstance(errors, list) and all(isinstance(e[2], str) for e in errors)


def are_interruptions(interruptions: object) -> bool:
    """``[text, ISO time or None]`` pairs (``ShowFacts.interruptions``)."""
    return _are_timed(interruptions, 2)


def are_compactions(compactions: object) -> bool:
    """``[ISO time or None, trigger or None, tokens before or None]`` (``ShowFacts.compactions``)."""
    return isinstance(compactions, list) and all(
        isinstance(c, list) and len(c) == 3 and all(v is None or isinstance(v, str) for v in c[:2])
        and (c[2] is None or (type(c[2]) is int and c[2] >= 0)) for c in compactions)


def _are_timed(entries: object, width: int) -> bool:
    """Lists of ``width`` items, each a text and an ISO time or ``None`` first."""
    return isinstance(entries, list) and all(
        isinstance(e, list) and len(e) == width and isinstance(e[0], str) and (e[1] is None or isinstance(e[1], str))
        for e in entries)


def require(condition: bool) -> None:
    if not condition:
        raise ValueError("ill-shaped show facts")


def restored_keys(keys: list) -> OrderedDict[object, None]:
    """A state's call keys as ``ShowFacts`` keeps them (an id, or ``("#", n)`` for a call
    without one); raises ``ValueError`` on any other."""
    restored: OrderedDict[object, None] = OrderedDict()
    for key in keys:
        if isinstance(key, list) and len(key) == 2 and key[0] == "#" and type(key[1]) is int:
            restored[("#", key[1])] = None
        elif isinstance(key, str):
            restored[key] = None
        else:
            raise ValueError("ill-shaped call key")
    return restored
