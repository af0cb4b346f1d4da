"""Which of ``tokens``' options its grouping refuses: asked by the command itself
(``cli.actions.run_tokens``, whose usage error says why and what to give instead) and by the
hint that offers a ``tokens`` line for a word typed where an id goes (``cli.idwords``, which
leaves such an option out and says so).  One rule, so that a hint never offers a line the
command refuses; each says it in its own words.
"""

from __future__ import annotations

#: the options that shape the table of sessions (how many rows): another grouping shows every row
_SESSIONS_ONLY = frozenset({"--limit", "--all"})


def refused_under(option: str, by: str) -> bool:
    """Whether ``tokens --by BY`` refuses ``option`` (its long spelling: ``--limit``, ``--all``,
    ``--breakdown``): a table shaped by session under another grouping, or each row split by
    model when its rows are models already."""
    return (option in _SESSIONS_ONLY and by != "session") or (option == "--breakdown" and by == "model")
