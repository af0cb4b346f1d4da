"""The Typer app: a thin layer over ``agentscan.scan.scanner`` (``cli.fastpath`` runs
the commonest commands without it).

Exit codes (0 ok, 1 failure, 2 usage) are known only to the CLI: ``cli.state``
maps the domain errors of ``agentscan.errors`` to them.
"""

from __future__ import annotations

import sys
from typing import Any, Optional

import typer
from typer.core import TyperGroup

from agentscan.cli import helpformat
from agentscan.cli.helpformat import write_examples
from agentscan.cli.options import GLOBAL_NAMES, GlobalOptionsCommand, State, UsageError, examples
from agentscan.cli.usagewords import missing_value_error
from agentscan.cli.state import say_error
from agentscan.errors import UsageProblem
from agentscan.toolkit.words import either, quoted


class _Group(TyperGroup):
    """The root group: a usage error that click reports (an unknown option, a missing
    argument) says ``error:`` as agentscan's own do (``cli.state``), not click's ``Error:``.
    Caught here, around parsing and running a command, so every subcommand's is too."""

    def make_context(self, info_name: Optional[str], args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as exc:
            said = missing_value_error(exc, self.params)  # ``agentscan --home`` and nothing after it
            if said is not None:
                exc.message = said  # type: ignore[attr-defined]
            raise _worded(exc) from None

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        """The root's examples under ``Examples:``, after ``Commands:``, as every command's
        (``options.GlobalOptionsCommand.format_epilog``) and as gh's: a line each, never rewrapped."""
        if self.epilog:
            write_examples(formatter, self.epilog)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta["agentscan.given"] = list(args)  # for the missing command's hint
        from agentscan.cli.usagewords import one_dash_error

        one_dash = None if ctx.resilient_parsing else one_dash_error(args, self.get_params(ctx), up_to_command=True)
        if one_dash is not None:  # ``agentscan -demo list``: before click reads it as ``-d``
            raise UsageError(one_dash, ctx)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        # ``agentscan --demo`` alone: click would say only "Missing command.", yet
        # the user plainly wanted an answer; name the commonest command with what they typed.
        # (``_protected_args`` holds the command name; click has no public spelling of it.)
        try:
            if not ctx._protected_args and not ctx.args:
                import shlex

                from agentscan.invocation import program_word

                given = " ".join([program_word(), shlex.join([*ctx.meta.get("agentscan.given", ()), "list"])])
                ctx.fail(f"Missing command. Try: {given}")
            return super().invoke(ctx)
        except UsageError as exc:
            raise _worded(exc) from None


def _worded(error: Exception) -> Exception:
    """``error`` said as agentscan says its own usage errors (``state.usage_error_text``):
    ``error: …`` and where the command's help is, not click's usage line, hint and
    ``Error:``; an unknown option that another command (or the group) takes said to be
    there (``cli.misplaced``), and click's spelling neighbours kept only when close."""
    from agentscan.cli.misplaced import explain
    from agentscan.cli.options import command_path
    from agentscan.cli.state import usage_error_text

    # ``agentscan`` or ``agentscan hooks`` alone: the group's help, on stdout with exit 0, as
    # ``gh`` and ``git`` print theirs (click 8.2 made it a usage error: stderr, exit 2, which
    # read as a mistake to someone trying the command; ``| less`` got nothing).  The error is
    # Typer's own click's, which it vendors: told by its module, as ``UsageError`` is found.
    no_args = getattr(sys.modules.get(UsageError.__module__), "NoArgsIsHelpError", None)
    if no_args is not None and isinstance(error, no_args):
        asked = error.ctx  # type: ignore[attr-defined]

        def show_help(file: Any = None) -> None:
            # On ``sys.stdout`` (agentscan's stream: closed before the process began, it says so,
            # ``cli.streams``); a reader that stops early (``| head -1``) is no failure, as for ``list``.
            try:
                sys.stdout.write(asked.get_help() + "\n")
                sys.stdout.flush()
            except BrokenPipeError:
                from agentscan.cli.streams import drop_closed_output

                drop_closed_output()

        error.show = show_help  # type: ignore[attr-defined]
        error.exit_code = 0  # type: ignore[attr-defined]
        return error
    explain(error, COMMAND_MODULES)
    _keep_close_suggestions(error)
    _keep_close_commands(error)

    def show(file: Any = None) -> None:
        text = usage_error_text(error.format_message(), command_path(getattr(error, "ctx", None)))  # type: ignore[attr-defined]
        typer.echo(text, file=file or sys.stderr, nl=False)

    error.show = show  # type: ignore[attr-defined]
    return error


def close_options(typed: str, options: list[str]) -> list[str]:
    """The ``options`` (or commands) that ``typed`` is plausibly a slip for, sorted
    (``toolkit.words.close_names``: one rule for options, commands and choices)."""
    from agentscan.toolkit.words import close_names

    return sorted(close_names(typed, options))


def _keep_close_commands(error: Exception) -> None:
    """Click's ``Did you mean 'trace'?`` under an unknown command, kept only for the close
    ones (``close_options``): ``cache`` is no slip for ``trace``, nor ``tokns`` for ``hooks``.
    A ccusage report (``daily``, ``codex daily``) is answered with agentscan's command line
    for it (``misplaced.ccusage_command``)."""
    import re

    message = getattr(error, "message", None)
    ctx = getattr(error, "ctx", None)
    found = re.match(r"No such command '(?P<typed>.*)'\.(?: Did you mean .*\?)?$", message or "", re.DOTALL)
    if found is None or ctx is None or not hasattr(ctx.command, "list_commands"):
        return
    from agentscan.cli.misplaced import ccusage_command, other_command_word, session_id_command

    # ``daily``: ccusage's report, said as agentscan's command line; ``7f3c9a12``: ``show`` it
    # (``hooks daily`` is no report, nor ``hooks 7f3c9a12`` a show)
    said = (ccusage_command(found["typed"], ctx) or session_id_command(found["typed"], ctx)) if ctx.parent is None else None
    if said is not None:
        error.message = f"No such command {quoted(found['typed'])}. {said}"  # type: ignore[attr-defined]
        return
    close = [f"'{name}'" for name in close_options(found["typed"], ctx.command.list_commands(ctx))]
    word = other_command_word(found["typed"]) if ctx.parent is None else None
    if word is not None and f"'{word}'" not in close:  # ``ls``: another tool's word for ``list``
        close.insert(0, f"'{word}'")
    said = either(close) if close else ""
    error.message = f"No such command {quoted(found['typed'])}." + (f" Did you mean {said}?" if said else "")  # type: ignore[attr-defined]


def _keep_close_suggestions(error: Exception) -> None:
    """Click's ``(Possible options: …)`` as ``Did you mean …?``, with only the close ones."""
    possibilities = getattr(error, "possibilities", None)
    option = getattr(error, "option_name", None)
    if not possibilities or not option:
        return
    close = close_options(option, list(possibilities))
    error.possibilities = None  # type: ignore[attr-defined]
    if close:
        said = either(close)
        error.message = f"{error.message}. Did you mean {said}?"  # type: ignore[attr-defined]


# Every --help wrapped to a terminal narrower than click's 50 columns (``helpformat``).
helpformat.install()

app = typer.Typer(
    cls=_Group,
    name="agentscan",
    help="Find the sessions AI coding agents left on this machine, with exact token totals.",
    # As every command's help ends (``options.examples``): the first commands to try.
    epilog=examples("agentscan --demo list   # try it on the demo home",
                    "agentscan list",
                    "agentscan show ID       # an ID from list",
                    "agentscan tokens --since 7d",
                    "agentscan tokens --by day"),
    no_args_is_help=True,
    # typer's own --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    add_completion=True,
    pretty_exceptions_show_locals=False,
    # Plain help (click's): rich's panels cost ~90 ms of every --help, and box
    # drawing is not this CLI's look anyway (docs/performance-history.md).
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from agentscan import __version__

        print(f"agentscan {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", help="Print agentscan's version and exit.", is_eager=True, callback=_print_version,
    ),
    # (text, not a Path: Path("") is ".", and an empty --home must be told from --home .)
    home: Optional[str] = typer.Option(None, "--home", help="Read agent files under DIR instead of $HOME.", metavar="DIR"),
    demo: bool = typer.Option(False, "--demo", help="Use the small demo home shipped with agentscan."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write agentscan's cache."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 on any warning, such as skipped input or a model with no price."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print every warning on stderr."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress, hints or warnings on stderr (errors still print).",
    ),
) -> None:
    from agentscan.cli.state import set_command_path

    set_command_path("agentscan")  # until a command runs (``GlobalOptionsCommand``): its help line
    try:
        ctx.obj = State(home=home, demo=demo, no_cache=no_cache, strict=strict, verbose=verbose, quiet=quiet)
    except UsageProblem as exc:
        raise typer.Exit(say_error(exc)) from None
    # Every option above except --version is also taken after the command name
    # (agentscan list --no-cache): see GlobalOptionsCommand.


#: command modules, each with ``register(app)``; they import heavy things
#: lazily inside their commands so ``--help`` stays fast.
COMMAND_MODULES = (
    "agentscan.cli.commands",
    "agentscan.cli.hooks_commands",
    "agentscan.cli.trace_commands",
    "agentscan.cli.ops_commands",
    "agentscan.cli.otlp_commands",
    "agentscan.cli.prices_commands",
)

#: each top-level command and the module that registers it (tests/test_cli_registry.py
#: keeps this equal to what the modules register)
COMMAND_HOMES = {
    "list": "agentscan.cli.commands",
    "show": "agentscan.cli.commands",
    "tokens": "agentscan.cli.commands",
    "hook": "agentscan.cli.hooks_commands",
    "trace": "agentscan.cli.trace_commands",
    "hooks": "agentscan.cli.hooks_commands",
    "export": "agentscan.cli.ops_commands",
    "doctor": "agentscan.cli.ops_commands",
    "otlp": "agentscan.cli.otlp_commands",
    "prices": "agentscan.cli.prices_commands",
    "help": __name__,  # ``help_command`` below: always registered
}


def _register_commands() -> None:
    import importlib
    import importlib.util

    from agentscan.invocation import requested_command

    # Run from the console script for one command, only its module is registered:
    # Typer reads the signature of every registered command on each start.
    only = COMMAND_HOMES.get(requested_command or "")
    if only == __name__:  # ``help``, which can name any command (``entry`` gives ``help list`` as ``list``)
        only = None
    for name in (only,) if only else COMMAND_MODULES:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name).register(app)


_register_commands()


#: where ``_HelpCommand`` leaves the options it ignored, for ``help_command`` to say
_IGNORED = "agentscan.help.ignored"


class _HelpCommand(GlobalOptionsCommand):
    """``help``: it takes the global options after its name, as every command does, and lists
    none (they change no help).  The options of the command it names are ignored: ``help list
    --json`` is a request for ``list``'s help, refused as an option ``help`` does not take."""

    unlisted = GLOBAL_NAMES

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        kept = self._before_command_options(ctx, args)
        # ``help list --help`` asks for what it gets, and ``--`` is no option: neither is told
        # as ignored.
        own = self._own_flags(ctx)
        ctx.meta[_IGNORED] = [arg for arg in args[len(kept):] if arg not in ("-h", "--help", "--")
                              and not self._own_cluster(arg, own, asking_help=True)]
        return super().parse_args(ctx, kept)

    def _own_flags(self, ctx: Any) -> dict[str, Any]:
        return {flag: param for param in self.get_params(ctx) for flag in (*param.opts, *param.secondary_opts)}

    def _before_command_options(self, ctx: Any, args: list[str]) -> list[str]:
        """``args`` up to the first option after a command's name that is not ``help``'s own
        (its values skipped: ``--home DIR list``); before a name, click refuses it as it did."""
        own = self._own_flags(ctx)
        named, value_next = False, False
        for index, arg in enumerate(args):
            if value_next:
                value_next = False
            elif arg.startswith("-") and arg != "-":
                flag, equals, _ = arg.partition("=")
                param = own.get(flag)
                if named and (flag in ("-h", "--help") or param is None and not self._own_cluster(arg, own)):
                    return args[:index]  # the command's: its help is what is printed
                # ``--home=`` (an empty value) takes no next word: only ``--home DIR`` does.
                value_next = param is not None and not getattr(param, "is_flag", True) and not equals
            else:
                named = True
        return args

    @staticmethod
    def _own_cluster(arg: str, own: dict[str, Any], *, asking_help: bool = False) -> bool:
        """Whether ``arg`` is short flags of ``help``'s own run together (``-vq``), as click
        reads them; ``asking_help``: or with ``h``, which asks for the command's help as
        ``help show -h`` does (``-vh``: not ``help``'s own, and nothing ignored)."""
        letters = arg[1:]
        if arg.startswith("--") or len(letters) < 2 or ("h" in letters and not asking_help):
            return False
        return all(letter == "h" or getattr(own.get(f"-{letter}"), "is_flag", False) for letter in letters)


@app.command("help", cls=_HelpCommand, short_help="Show the help of a command (as COMMAND --help does).",
             epilog=examples("agentscan help list", "agentscan help hooks install", "agentscan help"))
def help_command(
    ctx: typer.Context,
    command: Optional[str] = typer.Argument(None, metavar="[COMMAND]", help="The command whose help to show."),
    subcommand: Optional[str] = typer.Argument(None, metavar="[SUBCOMMAND]", help="One of its commands (hooks install)."),
) -> None:
    """Show the help of COMMAND (and SUBCOMMAND), the text `agentscan COMMAND --help` shows, as
    `git help` and `gh help` do; alone, that of `agentscan --help`."""
    root = ctx.find_root()
    group = root.command
    words = [word for word in (command, subcommand) if word is not None]
    named = None if command is None else group.get_command(root, command)  # type: ignore[attr-defined]
    if subcommand is not None:
        if named is not None and not hasattr(named, "commands"):
            raise UsageError(f"No such command {quoted(subcommand)}: agentscan {command} has no commands of its own.", ctx)
        named = None if named is None else named.get_command(root, subcommand)
    ignored = ctx.meta.get(_IGNORED)
    if ignored and named is not None:  # an unknown name: its error alone, below
        from agentscan.cli import render

        render.note(f"note: ignored {' '.join(ignored)} (this is the help of agentscan {' '.join(words)}, not its output)")
    # ``agentscan COMMAND --help``, parsed and run by the app as it is typed: the same text,
    # and an unknown COMMAND the same error (``_Group``: ``Did you mean 'list'?``).
    with group.make_context(root.info_name, [*words, "--help"]) as asked:
        group.invoke(asked)


def main() -> None:
    from agentscan.cli.term import settle_streams
    from agentscan.errors import StdoutClosed

    settle_streams()
    from agentscan.invocation import program_word, ran_as_module

    # ``python -m agentscan``: its ``Usage:`` lines name the program as its ``Try '… --help'``
    # and hints do (click says ``python -m agentscan`` whatever Python ran it, and whether or
    # not ``agentscan`` on ``PATH`` is this one); a console script, by its name
    prog = program_word() if ran_as_module() else None
    try:
        app(prog_name=prog)
    except StdoutClosed as exc:  # ``--version`` or ``--help`` with stdout closed: a command's own is said by it
        sys.exit(say_error(exc))


__all__ = ["app", "main"]
