"""A command line given back in a hint: the program's word, the global options typed before
the command (``--demo``, ``--home DIR``: without them it would read another home), then the
words the hint offers.  One way, for ``cli.misplaced``, ``cli.optionwords`` and
``cli.usagewords`` (``show takes the id as its argument: agentscan --demo show 7f3c``)."""

from __future__ import annotations

from typing import Any


def typed_again(ctx: Any, *words: str) -> str:
    """The command line ``words`` make (``show 7f3c``), after the program's word and the
    global options typed before the command (``--demo``, ``--home DIR``: without them it
    would read another home).  ``ctx``: any of this run's contexts."""
    import shlex

    from agentscan.invocation import program_word

    given = list(ctx.meta.get("agentscan.given", ()))
    before = given[:command_index(given, ctx.find_root().command)]
    return " ".join([program_word(), *map(shlex.quote, [*before, *words])])


def words_after_command(ctx: Any) -> list[str]:
    """The words typed after the command's name (``daily --since 7d``), as the root group was
    given them; ``ctx``: any of this run's contexts."""
    given = list(ctx.meta.get("agentscan.given", ()))
    return given[command_index(given, ctx.find_root().command) + 1:]


def command_index(given: list[str], group: Any) -> int:
    """Where the command's name is in ``given``, the root group's words: the first that is
    neither an option nor the value of one (``--home DIR daily``).  (Click empties the
    group's ``args`` before it looks the name up.)"""
    takes_value = {flag for param in group.params if not getattr(param, "is_flag", True) for flag in flags_of(param)}
    value_next = False
    for index, word in enumerate(given):
        if value_next:
            value_next = False
        elif word.startswith("-"):
            value_next = word in takes_value
        else:
            return index
    return len(given)


def flags_of(param: Any) -> list[str]:
    """An option's flags, both ways (``--json``, ``--no-json``); none for an argument."""
    if getattr(param, "param_type_name", "") != "option":
        return []
    return [*param.opts, *param.secondary_opts]
