"""Which turns ``trace`` shows (``--last N``, ``--turn N``) and how it names them: a
turn's id by its shortest unique prefix, the header's "turns 3-5 of 9"."""

from __future__ import annotations

from agentscan.toolkit.words import plural

#: a turn id longer than this (a UUID) is shown by its shortest unique prefix of ``SHORT_ID`` or more
LONG_ID, SHORT_ID = 12, 8


def chosen_turns(count: int | None, last: int | None, turn: int | None) -> range:
    """The indexes of the turns ``trace --last N`` or ``--turn N`` shows, of ``count`` turns
    (``None``: only check ``N``).  Raises ``UsageProblem`` for an ``N`` below 1, both options,
    or a turn the session does not have."""
    from agentscan.errors import UsageProblem

    if last is not None and turn is not None:
        raise UsageProblem("give --last or --turn, not both")
    for option, value in (("--last", last), ("--turn", turn)):
        if value is not None and value < 1:
            raise UsageProblem(f"{option} {value}: N counts turns from 1")
    if count is None:
        return range(0)
    if turn is not None:
        if turn > count:
            raise UsageProblem(f"--turn {turn}: this session has {plural(count, 'turn')}")
        return range(turn - 1, turn)
    return range(max(count - last, 0) if last is not None else 0, count)


def shown_turns(shown: range, count: int) -> str:
    if not shown:
        return f"no turn of {count}"
    if len(shown) == 1:
        return f"turn {shown[0] + 1} of {count}"
    return f"turns {shown[0] + 1}-{shown[-1] + 1} of {count}"


def short_turn_ids(ids: list[str]) -> dict[str, str]:
    """Each long turn id (a UUID) by its shortest prefix of ``SHORT_ID`` characters or more
    that no other turn id of the session starts with (``--json`` keeps them whole)."""
    import os.path

    # Sorted, an id shares its longest prefix with a neighbour: one more character tells it apart.
    ordered = sorted(set(ids))
    shown = {}
    for index, turn_id in enumerate(ordered):
        if len(turn_id) <= LONG_ID:
            continue
        neighbours = ordered[max(index - 1, 0):index] + ordered[index + 1:index + 2]
        shared = max((len(os.path.commonprefix([turn_id, other])) for other in neighbours), default=0)
        shown[turn_id] = turn_id[:max(SHORT_ID, shared + 1)]
    return shown
