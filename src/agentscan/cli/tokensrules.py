"""Which of ``tokens``' options its grouping refuses, and which ``--limit`` and ``--all`` given
together: asked by the command itself (``cli.actions``, whose usage error says why and what to
give instead; ``list``'s too) and by the hint that offers a ``tokens`` line for a word typed
where an id goes (``cli.idwords``, which leaves such an option out and says so).  One rule, so
that a hint never offers a line the command refuses; each says it in its own words after the
rule's.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, Sequence

#: the options that shape the table of sessions (how many rows): another grouping shows every row
_SESSIONS_ONLY = frozenset({"--limit", "--all"})


def refused_under(option: str, by: str) -> bool:
    """Whether ``tokens --by BY`` refuses ``option`` (its long spelling: ``--limit``, ``--all``,
    ``--breakdown``): a table shaped by session under another grouping, or each row split by
    model when its rows are models already."""
    return (option in _SESSIONS_ONLY and by != "session") or (option == "--breakdown" and by == "model")


#: ``tokens --by model --breakdown``'s usage error (the library says it in its own words,
#: ``scan.tokenmodels.check``: ``breakdown=True``, ``by='model'``)
BREAKDOWN_REFUSED = ("--breakdown splits each row by model, and --by model's rows are models already: "
                     "give --by day, week, month, session, provider, cwd or agent with it")


class Refusal(NamedTuple):
    """Why ``--limit``/``--all`` are refused: which ``rule``, and the ``words`` both the usage
    error and the hint's "left out" begin with."""

    rule: Literal["one number", "both", "range", "grouping"]
    words: str


def limit_refused(limits: Sequence[object], show_all: bool, *, by: str = "session") -> Refusal | None:
    """Why ``--limit`` given ``limits`` (each value given, in order: a hint's unread one as
    typed) with ``--all`` or not (``show_all``) is refused under ``--by by``, the first rule
    broken first; ``None``: taken.  A number given twice is taken (click keeps the last).
    ``--json`` takes it, in ``list`` and ``tokens`` alike: the JSON is the page asked for, as
    ``gh … -L N --json`` gives N."""
    if len(set(limits)) > 1:
        return Refusal("one number", "--limit takes one number")
    if show_all and limits:
        return Refusal("both", "give --limit N or --all, not both")
    # Said here, not by click (``0 is not in the range x>=1``), so that both ways of reading
    # the command line (``cli.fastpath`` and Typer) say it in the same words.
    if limits and isinstance(limits[0], int) and limits[0] < 1:
        return Refusal("range", "--limit must be a whole number of 1 or more")
    shaping = "--all" if show_all else "--limit" if limits else None
    if shaping is not None and refused_under(shaping, by):
        return Refusal("grouping", f"{shaping} shapes the table by session")
    return None
