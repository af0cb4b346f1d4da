"""An unknown option that is known elsewhere: say where, instead of click's spelling neighbours.

click answers ``agentscan export --until 2026-11-01`` with ``No such option: --until
(Possible options: …)`` and ``agentscan list --version`` with ``(Possible options:
--json, --since, --verbose)``: close spellings of the command's own options, which send
the user the wrong way.  When the option is one of another command's, or a global option
that goes before the command, the hint says that instead.

The console script registers only the command being run (``cli.typer_app``), so the other
commands are read from a tree of every command module, built here: only on this error,
and the same whichever way the CLI was started (console script, fast path, ``CliRunner``).
"""

from __future__ import annotations

import importlib
from typing import Any

import typer

from agentscan.toolkit.words import listed

#: click's ``NoSuchOption``, of the click Typer runs on (its own copy: see ``cli.options``)
_NoSuchOption: type[Exception] = importlib.import_module(typer.BadParameter.__module__).NoSuchOption

#: an option of another command that answers the same question on this one
_COUNTERPARTS = {"--until": "--since"}

#: how many commands are named before "and N other commands"
_NAMED = 4


def explain(error: Exception, command_modules: tuple[str, ...]) -> None:
    """Reword ``error`` in place when it is an unknown option known elsewhere; else leave it.
    ``command_modules``: ``typer_app.COMMAND_MODULES``, given (this module is imported by it)."""
    if not isinstance(error, _NoSuchOption):
        return
    option = getattr(error, "option_name", None)
    ctx = getattr(error, "ctx", None)
    if not option or ctx is None:
        return
    hint = _hint(option, ctx, command_modules)
    if hint is not None:
        error.possibilities = None  # type: ignore[attr-defined]
        error.message = f"{error.message} ({hint})"  # type: ignore[attr-defined]


def _hint(option: str, ctx: Any, command_modules: tuple[str, ...]) -> str | None:
    root = ctx.find_root()
    where = _path(ctx)
    own = _flags(ctx.command)
    elsewhere = [path for path, command in _commands(command_modules) if path != where and option in _flags(command)]
    if where:
        global_option = next((param for param in root.command.params if option in _flags_of(param)), None)
        if global_option is not None:
            if global_option.callback is not None:  # --version, --install-completion: the whole command line
                return f"{option} goes before the command: agentscan {option}"
            value = "" if global_option.is_flag else f" {global_option.metavar or 'VALUE'}"
            return f"{option} goes before the command: agentscan {option}{value} {where} …"
    if not elsewhere:
        return None
    if not where:
        return f"{option} goes after the command: an option of {_names(elsewhere)}"
    said = f"{option} is an option of {_names(elsewhere)}"
    counterpart = _COUNTERPARTS.get(option)
    if counterpart in own:
        return f"{where} has {counterpart}; {said}"
    return said


def _path(ctx: Any) -> str:
    """``list``, ``hooks install``; ``""`` for agentscan itself (whatever the program was called:
    ``python -m agentscan`` is ``-m agentscan`` in a ``command_path``)."""
    names: list[str] = []
    while ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(names)


def _names(paths: list[str]) -> str:
    if len(paths) <= _NAMED:
        return listed(paths)
    return f"{', '.join(paths[:_NAMED - 1])} and {len(paths) - _NAMED + 1} other commands"


def _flags(command: Any) -> set[str]:
    return {flag for param in command.params for flag in _flags_of(param)}


def _flags_of(param: Any) -> list[str]:
    if getattr(param, "param_type_name", "") != "option":
        return []
    return [*param.opts, *param.secondary_opts]


def _commands(command_modules: tuple[str, ...]) -> list[tuple[str, Any]]:
    """Every visible command, by its path (``hooks install``), in the order of ``agentscan --help``."""
    import typer.main

    every = typer.Typer()
    every.callback()(_no_options)  # a group, as the real app is
    for name in command_modules:
        importlib.import_module(name).register(every)
    found: list[tuple[str, Any]] = []

    def walk(group: Any, prefix: str) -> None:
        for name, command in group.commands.items():
            if command.hidden:  # `hook`: the agents run it, never a person
                continue
            path = f"{prefix}{name}"
            if hasattr(command, "commands"):
                walk(command, f"{path} ")
            else:
                found.append((path, command))

    walk(typer.main.get_command(every), "")
    return found


def _no_options() -> None:
    """The fresh app's callback: no options of its own."""
