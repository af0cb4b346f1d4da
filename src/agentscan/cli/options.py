"""Typer's side of the options every command shares (``cli.state`` holds the rest)."""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable, Iterable, Mapping, TypeVar

import typer
from typer.core import TyperCommand, TyperOption

# State, end_progress and finish are typer-free (cli.fastpath uses them); the
# command modules import them from here with the options.
from agentscan.cli.state import State, end_progress, finish, run_guarded, say_error, set_command_path
from agentscan.cli.typedline import words_after_command
from agentscan.cli.usagewords import count_error, extra_arguments_error, missing_value_error, one_dash_error, provider_names
from agentscan.errors import UsageProblem

F = TypeVar("F", bound=Callable[..., Any])

#: click's ``UsageError``, of the click Typer runs on (its own copy since typer 0.20-odd, so
#: not ``click.UsageError``): ``BadParameter`` is one (``typer_app`` catches it too).
UsageError: type[Exception] = typer.BadParameter.__base__  # type: ignore[assignment]

#: (name, flags, help, takes a value) of the options every command takes, before or after its name
GLOBAL_OPTIONS = (
    ("home", ("--home",), "Read agent files under DIR instead of $HOME.", True),
    ("demo", ("--demo",), "Use the small demo home shipped with agentscan.", False),
    ("no_cache", ("--no-cache",), "Do not read or write agentscan's cache.", False),
    ("strict", ("--strict",), "Exit 1 on any warning, such as skipped input or a model with no price.", False),
    ("verbose", ("--verbose", "-v"), "Print every warning on stderr.", False),
    ("quiet", ("--quiet", "-q"), "No progress, hints or warnings on stderr (errors still print).", False),
)
GLOBAL_NAMES = frozenset(name for name, *_ in GLOBAL_OPTIONS)


def command_path(ctx: Any) -> str:
    """``agentscan hooks install``: the command ``ctx`` runs, spelt ``agentscan`` however the
    program was started (click's ``command_path`` says ``python -m agentscan``), so that every
    path says a usage error alike (``state.usage_error_text``); ``agentscan`` for ``None``."""
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["agentscan", *names])


def state_of(ctx: typer.Context) -> State:
    root = ctx.find_root()
    if not isinstance(root.obj, State):
        root.obj = State()
    return root.obj


class GlobalOptionsCommand(TyperCommand):
    """A command that also takes the global options after its name
    (``agentscan list --no-cache``) and lists them in its ``--help``."""

    #: the global options taken but not listed: they change nothing for the command (or are
    #: refused by it); taken still, so a script that passes them to every command runs
    unlisted: frozenset[str] = frozenset()
    #: a global option's help as this command takes it, by name, where ``GLOBAL_OPTIONS``'
    #: would mislead (``hooks install --home`` changes the config under DIR, it reads no session)
    help_texts: Mapping[str, str] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, flags, text, takes_value in GLOBAL_OPTIONS:
            self.params.append(TyperOption(
                param_decls=[name, *flags],
                type=str if takes_value else None,
                is_flag=not takes_value,
                default=None if takes_value else False,
                metavar="DIR" if takes_value else None,
                help=self.help_texts.get(name, text),
                hidden=name in self.unlisted,
                rich_help_panel="Global options",
            ))

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        """The epilog (``examples``) as an ``Examples:`` section under ``Options:``, as gh puts
        its EXAMPLES: one command line a line, never rewrapped (click rewraps an epilog as
        prose, and indents it under no heading)."""
        if self.epilog:
            from agentscan.cli.helpformat import write_examples

            write_examples(formatter, self.epilog)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        # Typer writes a required argument in braces (``show [OPTIONS] {ID}``), which reads as
        # a set of choices; git and gh write it bare.
        return [piece[1:-1] if piece.startswith("{") and piece.endswith("}") else piece
                for piece in super().collect_usage_pieces(ctx)]

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        given = list(args)
        one_dash = None if ctx.resilient_parsing else one_dash_error(given, self.get_params(ctx), ctx=ctx)
        if one_dash is not None:  # ``-by day``: before click reads it as ``-b y``
            raise UsageError(one_dash, ctx)
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as exc:
            message = self._choice_error(ctx, exc, given) or count_error(exc)
            if message is None:
                raise
            raise UsageError(message, ctx) from None
        except UsageError as exc:
            said = missing_value_error(exc, self.get_params(ctx))
            if said is None and str(getattr(exc, "message", "")).startswith("Got unexpected extra argument"):
                _, extra, _ = self.make_parser(ctx).parse_args(args=list(given))
                said = extra_arguments_error(command_path(ctx), self.get_params(ctx), given, extra) if extra else None
            if said is not None:
                raise UsageError(said, ctx) from None
            # Click's option parser raises without the command (``--cwd`` given no value): its
            # help line would name ``agentscan --help`` rather than this command's.
            if getattr(exc, "ctx", None) is None:
                exc.ctx = ctx  # type: ignore[attr-defined]
            raise

    def _choice_error(self, ctx: Any, error: Exception, given: list[str]) -> str | None:
        """A choice option (``hooks install --agent``) or argument (``hooks install AGENT``)
        given a value it does not take, said on one line as agentscan's own errors are (``unknown provider 'claud';
        choose from: …``), not as click's ``Choose from:`` and a tab-indented line per choice."""
        param = getattr(error, "param", None)
        choices = getattr(getattr(param, "type", None), "choices", None)
        if param is None or choices is None or param.param_type_name not in ("option", "argument"):
            return None
        # an argument by its metavar (``hooks install codex``: "unknown AGENT 'codex'")
        flag = max(param.opts, key=len) if param.param_type_name == "option" else (param.metavar or param.name).strip("[].").upper()
        names = [str(getattr(choice, "value", choice)) for choice in choices]
        # click's error keeps the value only inside its own sentence: parse the command line again for it
        opts, _, _ = self.make_parser(ctx).parse_args(args=given)
        value = opts.get(param.name)
        if isinstance(value, (list, tuple)):  # a repeatable option: the value it does not take
            value = next((one for one in value if str(one).casefold() not in map(str.casefold, names)), None)
        from agentscan.toolkit.words import agent_aside, agent_named_otherwise, close_names, unknown_choice

        if value is None:
            return None
        parent = getattr(ctx, "parent", None)
        providers = list(provider_names())
        # ``gemini-cli``, ``codex-cli``: the product's name stands for its provider as the bare one does
        named = str(value).casefold() if str(value).casefold() in providers else next(
            (one for one in agent_named_otherwise(str(value), providers) if one not in names), None)
        if getattr(parent, "info_name", None) == "hooks" and named is not None and named not in names:
            # ``hooks install codex`` read as a typo: Codex and Gemini CLI have no hooks
            # agentscan installs (``doctor`` says so), and need none.
            return (f"{named} has no hooks to install: agentscan reads its sessions from its "
                    f"files; hooks are for {', '.join(names)}")
        # ``hooks install claude-code``: the agent's product name, which no slip of a letter reaches
        meant = (close_names(str(value), names) or agent_named_otherwise(str(value), names) or [""])[0]
        text = unknown_choice(flag, value, names, meant=meant)
        if meant or getattr(parent, "info_name", None) != "hooks":
            return text
        # ``hooks install openai``: said as ``-p openai`` is (the vendor's models run in more than
        # one agent), over every provider, as the vendor's models run in sessions hooks do not see too
        aside = agent_aside(str(value), providers, pick=f"hooks {ctx.info_name} names the agent")
        return f"{text} ({aside})" if aside else text

    def invoke(self, ctx: Any) -> Any:
        # for the help line under a usage error (``say_error``), and a hint that keeps the words
        # typed (``tokens daily --since 7d``: ``--since 7d``)
        set_command_path(command_path(ctx), words_after_command(ctx))
        values = {name: ctx.params.pop(name, None) for name in GLOBAL_NAMES}
        try:
            state_of(ctx).merge(values)
        except UsageProblem as exc:
            raise typer.Exit(say_error(exc)) from None
        return super().invoke(ctx)


class ConfigCommand(GlobalOptionsCommand):
    """``hooks install`` and ``uninstall``: they read no session and keep no cache, and say
    their warnings whole and go ahead, then ``--strict`` fails on them (docs/cli-hooks.md);
    ``--demo`` is refused."""

    unlisted = frozenset({"demo", "no_cache", "verbose"})
    help_texts = {"home": "Change the agent config under DIR instead of $HOME (with --scope user).",
                  "strict": "Exit 1 (after the change, or the --dry-run's diff) on any warning."}


def examples(*command_lines: str) -> str:
    """A command's ``epilog``: its ``--help`` ends with these lines under ``Examples:``
    (``GlobalOptionsCommand.format_epilog``).  Each is a whole command line, a ``#`` comment
    after it at most: tests/test_cli_grammar_pass40.py parses every one with the real
    commands, so an option renamed fails there rather than in a user's terminal."""
    return "\n".join(command_lines)


def handle_errors(func: F) -> F:
    """Turn domain errors into a one-line message and the contract's exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        code = run_guarded(func, *args, **kwargs)
        if code:
            raise typer.Exit(code)

    return wrapper  # type: ignore[return-value]


def completing(names: Callable[[], Iterable[str]]) -> Callable[[str], list[str]]:
    """A shell completion of an option's value from ``names()`` (imported when a shell asks,
    never on a command's run); after a comma (``-p claude,co``), the last name of a comma list.
    (Typer keeps the offers that begin with what was typed, as typed: no case is folded.)"""

    def complete(incomplete: str) -> list[str]:
        done, comma, typed = incomplete.rpartition(",")
        return [done + comma + name for name in names() if name.startswith(typed)]

    return complete


def recent_session_ids(ctx: typer.Context, incomplete: str) -> list[str]:
    """A shell completion of a session ``ID`` (``show``, ``tokens``): the ids of the newest
    sessions of the home read (``--home``, ``--demo`` as typed; ``list``'s, through the
    cache, so a warm one reads nothing new) that begin with what was typed, with their
    provider or bare as typed.  Nothing when the home cannot be read: a completion never
    prints an error into the shell's line."""
    given: dict[str, Any] = {}
    at: Any = ctx
    while at is not None:  # a global option may be typed before the command or after it
        given.update({name: value for name, value in at.params.items() if value and name not in given})
        at = at.parent
    try:
        from agentscan.cli.state import State

        # The scanner a command of these options reads with (``~`` in a typed --home, --demo's
        # environment, --no-cache): the same sessions ``list`` would show.
        state = State(home=given.get("home"), demo=bool(given.get("demo")), no_cache=bool(given.get("no_cache")),
                      quiet=True)
        with state.scanner(memo=True) as scanner:
            rows = scanner.list_sessions(limit=_COMPLETED_SESSIONS)
    except Exception:  # noqa: BLE001 - no home, --demo with --home, no cache: no offer
        return []
    typed = incomplete.casefold()
    offered = []
    for row in rows:
        found = next((name for name in (row.id, row.native_id) if name.casefold().startswith(typed)), None)
        if found is not None:
            offered.append(found)
    return offered


#: how many of the newest sessions a shell is offered the ids of (``recent_session_ids``)
_COMPLETED_SESSIONS = 50


JsonOption = typer.Option(False, "--json", help="Print one JSON document on stdout.")
ProviderOption = typer.Option(None, "--provider", "-p", help="Only these providers: repeatable, or a comma list (claude,codex).", metavar="P",
                              autocompletion=completing(provider_names))


def since_option() -> Any:
    """``--since``, for a command that takes it.  A function, not a module constant: its help
    says WHEN's forms from ``whentext``, which ``--help`` and the commands that take no WHEN
    need not import, so only the command modules that call it pay for that import."""
    from agentscan.whentext import WHEN_FORMS

    return typer.Option(None, "--since", help=f"Only sessions updated since WHEN: {WHEN_FORMS}.", metavar="WHEN")


def until_option(text: str) -> Any:
    """``--until``, its help ``text`` (what it selects) and WHEN's reading, as ``since_option``."""
    from agentscan.whentext import UNTIL_READING

    return typer.Option(None, "--until", help=f"{text}: {UNTIL_READING}.", metavar="WHEN")


def redact_option(text: str) -> Any:
    """``--redact``, with what it does for this command (docs/cli.md says it for each)."""
    return typer.Option(False, "--redact", help=text)


#: ``show``'s; the other commands' say what it does for them (``redact_option``)
RedactOption = redact_option("Replace prompt, response, tool and plan text with a length and hash; mask secrets.")



class MissingHintCommand(GlobalOptionsCommand):
    """A command whose required parameters, when missing, are asked for with what to give
    (``missing``), as agentscan's own usage errors say what to do next (``trace``: "give a
    session ID (`agentscan trace --list` shows the captured ones)"), not with click's bare
    "Missing argument 'ID'".  Typer still declares them required: the usage line, the help
    and the fast path's grammar (``cli.static_grammar``) are as they were."""

    #: parameter name -> the usage error's message, given the global options that choose the
    #: home (`` --demo``: the ids to list are the demo's)
    missing: Mapping[str, Callable[[str], str]] = {}

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        given = list(args)
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as exc:
            name = getattr(getattr(exc, "param", None), "name", None)
            said = self.missing.get(name) if isinstance(name, str) else None
            # By class name: click's ``MissingParameter``, of the click Typer vendors (as ``UsageError``).
            if type(exc).__name__ != "MissingParameter" or said is None:
                raise
            raise UsageError(said(_home_options(ctx, given)), ctx) from None


def _home_options(ctx: Any, args: list[str]) -> str:
    """`` --demo`` or `` --home DIR``, given before the command or after it (not merged into
    the state yet: the command's parameters are what is being read)."""
    from agentscan.cli.state import home_option

    state = state_of(ctx)
    home: str | None = None
    for index, arg in enumerate(args):
        if arg == "--home" and index + 1 < len(args):
            home = args[index + 1]
        elif arg.startswith("--home="):
            home = arg[len("--home="):]
    if state.demo or "--demo" in args:
        return " --demo"
    if not home:
        return state.home_options()
    import os

    return home_option(os.path.abspath(os.path.expanduser(home)))  # as ``State`` makes it absolute


__all__ = [
    "GLOBAL_NAMES", "GLOBAL_OPTIONS", "ConfigCommand", "GlobalOptionsCommand", "JsonOption", "MissingHintCommand", "ProviderOption", "RedactOption",
    "State", "command_path", "end_progress", "examples", "finish", "handle_errors", "redact_option",
    "since_option", "state_of", "UsageError",
]
