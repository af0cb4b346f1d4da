"""Regenerates ``agentscan/cli/static_grammar.py``: the options of ``list``, ``show``
and ``tokens`` as Typer declares them, for ``cli.fastpath``.

The fast path parses the commonest command lines without importing Typer (≈ a
third of a warm ``list``), from this snapshot; ``tests/test_fastpath.py`` fails
whenever the snapshot and Typer disagree.  Run ``python -m
agentscan.cli.grammar_snapshot`` after changing an option of those commands or
a global one.

Only what the fast path can take exactly as click would is written down.  A
global option with a callback (``--version``, the completion options) is left
out: a command line that uses it goes to Typer, and one that does not is the
same without it.  Any other option the fast path could not take (a callback,
an environment variable, a prompt, a required option, an unusual type) makes
the generation fail: click would apply it even to a command line that leaves
it out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscan.cli.help_snapshot import PACKAGE_DIR, checkout_file

#: the commands the fast path runs (``cli.actions`` has a body for each)
FAST_COMMANDS = ("list", "show", "tokens")


def _kind(param: Any) -> str | None:
    """How the fast path reads one click option's value; ``None``: not at all."""
    from typer._click import types
    from typer.models import TyperPath

    if param.is_eager or param.callback is not None or param.envvar or param.prompt or param.count:
        return None
    if param.nargs != 1 or param.secondary_opts or param.required:
        return None
    if param.is_flag:
        return "flag" if isinstance(param.type, types.BoolParamType) and not param.multiple else None
    if isinstance(param.type, types.StringParamType):
        return "strs" if param.multiple else "str"
    if param.multiple:
        # ``list --limit``: a list, so that a second one of another number is refused
        # (``actions.limit_and_all``); read as ``int`` is, each value kept.
        plain_int = isinstance(param.type, types.IntParamType) and not isinstance(param.type, types.IntRange)
        return "ints" if plain_int else None
    if isinstance(param.type, TyperPath):
        plain = (not param.type.exists and param.type.file_okay and param.type.dir_okay and param.type.readable
                 and not param.type.writable and not param.type.resolve_path and not param.type.allow_dash
                 and param.type.type is None)
        return "path" if plain else None
    if isinstance(param.type, types.IntRange):
        bounded_above = param.type.max is not None or param.type.min_open or param.type.clamp
        return None if bounded_above or param.type.min is None else f"int>={param.type.min}"
    if isinstance(param.type, types.IntParamType):
        return "int"
    return None


def _options(params: list[Any], *, where: str) -> dict[str, tuple[str, str]]:
    """Each option flag -> (parameter name, kind)."""
    from typer.core import TyperOption

    table: dict[str, tuple[str, str]] = {}
    for param in params:
        if not isinstance(param, TyperOption):
            continue
        kind = _kind(param)
        if kind is None:
            if where == "group" and param.is_flag and not param.default and not param.envvar and not param.required:
                continue  # --version, --install-completion: no-ops when absent; present, Typer's
            raise ValueError(f"the fast path cannot take {where} option {param.name!r}: give the command to Typer only")
        for flag in param.opts:
            table[flag] = (str(param.name), kind)
    return dict(sorted(table.items()))


def _arguments(params: list[Any]) -> tuple[tuple[str, int], ...]:
    """(name, nargs) of each positional argument: 1, or -1 for any number."""
    from typer._click import types
    from typer.core import TyperArgument

    found = []
    for param in params:
        if isinstance(param, TyperArgument):
            if (not isinstance(param.type, types.StringParamType) or param.nargs not in (1, -1)
                    or param.callback is not None or param.envvar):
                raise ValueError(f"the fast path cannot take argument {param.name!r}: give it to Typer only")
            if param.nargs == 1 and not param.required:
                raise ValueError(f"the fast path cannot take optional argument {param.name!r}")
            found.append((str(param.name), param.nargs))
    return tuple(found)


def grammar() -> dict[str, Any]:
    """The snapshot's two tables, read from the Typer app."""
    import typer.main

    from agentscan.cli import app

    group = typer.main.get_command(app)
    commands = {}
    for name in FAST_COMMANDS:
        command = group.commands[name]  # type: ignore[attr-defined]
        commands[name] = {"options": _options(command.params, where=name), "arguments": _arguments(command.params)}
    return {"global_options": _options(group.params, where="group"), "commands": commands}


def module_source(tables: dict[str, Any]) -> str:
    from pprint import pformat

    return (
        '"""The options of ``list``, ``show`` and ``tokens`` (and the global ones) as Typer\n'
        "declares them, for ``cli.fastpath``.\n\n"
        "Generated by ``python -m agentscan.cli.grammar_snapshot``; tests/test_fastpath.py\n"
        'fails when it drifts from the commands."""\n\n'
        "from typing import Any\n\n"
        "#: each option flag -> (parameter name, how its value is read: flag, str, strs, path, int, ints, int>=N)\n"
        f"GLOBAL_OPTIONS: dict[str, tuple[str, str]] = {pformat(tables['global_options'], width=100)}\n\n"
        "#: each command -> its options (as above) and its arguments: (name, 1 or -1 for any number)\n"
        f"COMMANDS: dict[str, dict[str, Any]] = {pformat(tables['commands'], width=100)}\n"
    )


def main(package_dir: Path = PACKAGE_DIR) -> None:
    target = checkout_file("cli/static_grammar.py", "grammar_snapshot", package_dir)
    target.write_text(module_source(grammar()), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
