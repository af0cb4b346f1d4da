"""An unknown option that is known elsewhere: say where, instead of click's spelling neighbours.

click answers ``agentscan export --until 2026-11-01`` with ``No such option: --until
(Possible options: …)`` and ``agentscan list --version`` with ``(Possible options:
--json, --since, --verbose)``: close spellings of the command's own options, which send
the user the wrong way.  When the option is one of another command's, or a global option
that goes before the command, the hint says that instead.

A ccusage user's words are answered with agentscan's: ``agentscan daily`` with
``agentscan tokens --by day`` (``ccusage_command``), ``tokens -z UTC`` with ``tokens has
--tz`` (``_ccusage_option``); docs/ccusage.md says the same in a table.

The console script registers only the command being run (``cli.typer_app``), so the other
commands are read from a tree of every command module, built here: only on this error,
and the same whichever way the CLI was started (console script, fast path, ``CliRunner``).
"""

from __future__ import annotations

import importlib
from typing import Any

import typer

from agentscan.cli.typedline import command_index, flags_of, typed_again
from agentscan.toolkit.words import listed

#: click's ``NoSuchOption``, of the click Typer runs on (its own copy: see ``cli.options``)
_NoSuchOption: type[Exception] = importlib.import_module(typer.BadParameter.__module__).NoSuchOption

#: an option of another command that answers the same question on this one
_COUNTERPARTS = {"--until": "--since"}

#: ccusage's options, each with agentscan's way as docs/ccusage.md's table says it: every
#: hint below names these words, and tests/test_words_mends_pass44.py holds the page and the
#: hints to them.  ``-i`` is ``session``'s ``--id`` and ``daily``'s ``--instances`` both.
CCUSAGE_WAYS: dict[str, tuple[str, ...]] = {
    "-j": ("--json",), "-z": ("--tz",), "--timezone": ("--tz",), "-s": ("--since",), "-u": ("--until",),
    "-o": ("--reverse",), "--order": ("--reverse",),
    "-O": ("agentscan prices --update",), "--offline": ("agentscan prices --update",),
    "--instances": ("--by cwd",), "--project": ("--cwd",),
    "--id": ("agentscan tokens ID",), "-i": ("agentscan tokens ID", "--by cwd"),
    "--by-agent": ("-p claude --by day", "--by day --breakdown", "--by provider"),
    "-m": ("always calculated",), "--mode": ("always calculated",),
    "--last": ("--since",),
    "--no-offline": ("agentscan prices --update",),
    "--speed": ("read from its rollout",), "--compact": ("fits the terminal",),
    "--no-cost": ("COST is always shown",), "--color": ("FORCE_COLOR=1",), "--no-color": ("NO_COLOR=1",),
}

#: ccusage's switches that agentscan needs no counterpart of, said where typed (``tokens
#: --compact``): each text holds its ``CCUSAGE_WAYS`` words
_NONE_NEEDED = {
    "--speed": "each Codex call's service tier is read from its rollout: a priority call is counted on "
               "`gpt-5.5 (priority)`, a model row of its own (docs/pricing.md)",
    "--compact": "a table fits the terminal by itself: the columns it has no room for are left out and named, "
                 "numbers rounded; --json keeps every digit",
    "--no-cost": "COST is always shown; --json and jq keep the fields you want",
    "--color": "color is on at a terminal; FORCE_COLOR=1 turns it on in a pipe, NO_COLOR=1 off",
    "--no-color": "color is on at a terminal; NO_COLOR=1 turns it off, FORCE_COLOR=1 on in a pipe",
}

#: ccusage's options with an agentscan one of another name (``-z UTC``: ``--tz UTC``)
_CCUSAGE_COUNTERPARTS = {**{option: CCUSAGE_WAYS[option][0] for option in ("-j", "-z", "--timezone", "-s", "-u")},
                         "-b": "--breakdown"}  # (``tokens`` takes ``-b`` too: spelt out in a line suggested)

#: the ``tokens`` options a ccusage report's words may carry over to it (``monthly --since
#: 2026-10 --json``), by whether each takes a value; ccusage's ``-p`` is a project, not one
_TOKENS_TAKE_A_VALUE = frozenset({"--since", "--until", "--tz"})
_TOKENS_FLAGS = frozenset({"--json", "--breakdown", "--reverse"})
#: ccusage's short options that take a value, which may be glued to it (``-pcodex``)
_GLUED = frozenset({"-p", "-s", "-u", "-z", "-i", "-o", "-w", "-m"})

#: ccusage's reports (``ccusage daily``), as the ``tokens`` options that make them
#: (ccusage's ``session`` report lists the most costly sessions first; agentscan's by-session
#: table is newest first unless sorted: ``--sort cost`` shows the same sessions at the top.)
_CCUSAGE_REPORTS = {"daily": "--by day", "weekly": "--by week", "monthly": "--by month", "session": "--sort cost"}

#: ccusage's words for what agentscan does not do, and the nearest it does
_NO_BLOCKS = ("agentscan has no 5-hour billing blocks or status line; "
              "the last 5 hours' spend: {agentscan} tokens{provider} --since 5h")

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
    ccusage = _ccusage_option(option, ctx, where, own)
    if ccusage is not None:
        return ccusage
    from agentscan.cli.optionwords import other_word

    other = other_word(option, ctx, where, own, _value_of)  # ``tokens --from``: ``--since``
    if other is not None:
        return other
    elsewhere = [path for path, command in _commands(command_modules) if path != where and option in _flags(command)]
    if where:
        global_option = next((param for param in root.command.params if option in flags_of(param)), None)
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


def ccusage_command(typed: str, ctx: Any) -> str | None:
    """What to say after ``No such command 'daily'`` when ``typed`` is a ccusage report
    (``daily``, ``codex daily``, ``blocks``): the agentscan command line that makes it, with
    the global options given before it (``--demo``); ``None`` for any other word.
    ``ctx``: the root group's."""
    import shlex

    from agentscan.providers import available_names

    given = list(ctx.meta.get("agentscan.given", ()))
    at = command_index(given, ctx.command)
    before, after = given[:at], given[at + 1:]
    from agentscan.invocation import program_word

    agentscan = " ".join([program_word(), *map(shlex.quote, before)])
    provider, report = "", typed.casefold()
    if report in available_names():  # ``ccusage codex daily``: a provider's own reports
        provider = f" -p {report}"
        # (``ccusage codex``, ``ccusage claude --since …``: ccusage's default report, daily)
        report = after[0].casefold() if after and not after[0].startswith("-") else "daily"
    if report in ("blocks", "statusline"):
        return _NO_BLOCKS.format(agentscan=agentscan, provider=provider)
    if report not in _CCUSAGE_REPORTS and not provider:
        return None
    by = _CCUSAGE_REPORTS.get(report, "")
    words, dropped = _carried(after[1:] if provider and after and after[0].casefold() == report else after,
                              providers=not provider)
    words, dropped = _ordered(by, words, dropped)
    if by == _CCUSAGE_REPORTS["session"] and any(word.partition("=")[0] in ("--id", "-i") for word in after):
        by = ""  # one session's total: no order to choose
    line = f"Try: {agentscan} tokens{provider}" + (f" {by}" if by else "") + (f" {shlex.join(words)}" if words else "")
    # A word left out changes the answer (``--project web``: every project's): said, never dropped silently.
    return line + (f"; left out: {', '.join(_way_of(typed, flag) for typed, flag in dropped)}" if dropped else "")


def _ordered(by: str, words: list[str], dropped: list[tuple[list[str], str]]
             ) -> tuple[list[str], list[tuple[list[str], str]]]:
    """ccusage's ``--order asc|desc`` (``-o``: desc the newest first, asc, its default, the
    oldest first) among the words a period report's line left out, as ``tokens`` gives that
    order: ``daily --order desc`` is ``--by day --reverse``, ``--order asc`` the line as it is.
    Any other value, or another report's (``session``'s order is no date's), stays left out, and said."""
    if by not in (_CCUSAGE_REPORTS["daily"], _CCUSAGE_REPORTS["weekly"], _CCUSAGE_REPORTS["monthly"]):
        return words, dropped
    kept: list[tuple[list[str], str]] = []
    for typed, flag in dropped:
        value = " ".join(typed)[len(flag):].lstrip(" =").casefold() if flag in ("-o", "--order") else ""
        if value not in ("asc", "desc"):
            kept.append((typed, flag))
        elif value == "desc" and "--reverse" not in words:
            words = [*words, "--reverse"]
    return words, kept


#: other tools' words for agentscan's commands (``ls``: ``list``), offered as a slip's are
_COMMAND_WORDS = {"ls": "list", "sessions": "list", "cat": "show", "view": "show", "usage": "tokens", "cost": "tokens",
                  "version": "--version",  # (``gh version``, ``git version``: ours is an option)
                  # (``git log``: the newest first, ``--reverse`` too; ``git status``, ``gh status``:
                  # the state of things here, which ``doctor`` says)
                  "log": "list", "status": "doctor"}


def other_command_word(typed: str) -> str | None:
    """``list`` for ``ls``: the command another tool's word (or ccusage's) asks for."""
    return _COMMAND_WORDS.get(typed.casefold())


def session_id_command(typed: str, ctx: Any) -> str | None:
    """What to say after ``No such command '7f3c9a12'`` when ``typed`` looks like a session's
    id (6 or more hex digits with a digit among them, a UUID, or ``claude:…``): ``show`` with
    it, after the global options given before it (``--demo``); ``None`` for any other word."""
    from agentscan.cli.idwords import looks_like_id

    if not looks_like_id(typed, prefix="agent", not_a="date"):  # (a date, ``2026-11-01``: no id)
        return None
    return f"Try: {typed_again(ctx, 'show', typed)} (a session's id goes after show)"




#: what a left-out ccusage word comes to where ``CCUSAGE_WAYS``' form would read as an order
#: (``--offline``: agentscan never goes online unless told; ``-o desc``: no such order to choose)
_LEFT_OUT_SAID = {"-O": "agentscan is offline unless told", "--offline": "agentscan is offline unless told",
                  "-o": "asc or desc: --reverse gives the opposite order",
                  "--order": "asc or desc: --reverse gives the opposite order",
                  "-w": "weeks start on Monday", "--start-of-week": "weeks start on Monday",
                  "--no-offline": "agentscan prices --update fetches newer prices",
                  "-p": "use --cwd: agentscan's -p is a provider", "--all": "every provider is counted",
                  # (``daily --by-agent``: its days split by agent, as one agent's table each)
                  "--by-agent": "run it once per agent: add -p claude, then -p codex and so on",
                  "--speed": "each Codex call's tier is read from its rollout", "--compact": "a table fits the terminal",
                  "--no-cost": "COST is always shown", "--color": "FORCE_COLOR=1", "--no-color": "NO_COLOR=1"}


def _way_of(typed: list[str], flag: str) -> str:
    """A ccusage word the suggested line leaves out, with agentscan's way when the map has it
    (``--instances (use --by cwd)``), else where the page gives it."""
    import shlex

    if flag in _LEFT_OUT_SAID:
        return f"{shlex.join(typed)} ({_LEFT_OUT_SAID[flag]})"
    ways = CCUSAGE_WAYS.get(flag)
    if ways is None:
        return f"{shlex.join(typed)} (see docs/ccusage.md)"
    way = ways[-1] if flag == "-i" else ways[0]  # (a report's ``-i`` is ``daily``'s ``--instances``)
    return f"{shlex.join(typed)} ({'use ' if way.startswith(('-', 'agentscan')) else ''}{way})"


def _carried(after: list[str], providers: bool = True) -> tuple[list[str], list[tuple[list[str], str]]]:
    """The words after a ccusage report's name that ``tokens`` takes, in its spelling:
    ``--since 2026-10 --json``, ``-z UTC`` as ``--tz UTC``, ``--id ID`` as ``ID``; and the
    others as typed (``-p project``, ``daily``'s ``-i``), which it does not.
    ``providers``: a ``-p`` naming agentscan's providers (``daily -p codex``) is carried, as
    agentscan's ``-p`` (a report of no provider of its own: ``codex daily -p web`` is ccusage's
    project)."""
    from agentscan.providers import available_names

    carried: list[str] = []
    dropped: list[tuple[list[str], str]] = []
    at = 0
    while at < len(after):
        flag, given, value = after[at].partition("=")
        if not given and flag[:2] in _GLUED and len(flag) > 2:
            # A short option's value glued to it, as a shell user types it (``-pcodex``,
            # ``-zUTC``): the same words as ``-p codex`` (click reads ``-pcodex`` so too).
            flag, given, value = flag[:2], "=", flag[2:]
        flag = _CCUSAGE_COUNTERPARTS.get(flag, flag)
        at += 1
        typed = [after[at - 1]]
        takes_value = flag in _TOKENS_TAKE_A_VALUE or flag in ("--id", "-i")
        # (A word after one tokens does not know is taken as its value: ``--project web``.)
        if (takes_value or flag not in _TOKENS_FLAGS) and not given and at < len(after) and not after[at].startswith("-"):
            value, given = after[at], "="
            typed.append(after[at])
            at += 1
        if flag in _TOKENS_FLAGS and not given:
            carried += [flag] if flag not in carried else []  # once (``--order desc`` may have said ``--reverse``)
        elif given and flag in _TOKENS_TAKE_A_VALUE:
            carried += [flag, value]
        elif given and flag in ("--id", "-i"):
            carried.append(value)
        elif (given and providers and flag in ("-p", "--provider")
              and all(name.strip().casefold() in available_names() for name in value.split(","))):
            carried += ["-p", value]
        elif flag not in ("-h", "--help"):  # (``help daily`` asks for ``daily --help``)
            dropped.append((typed, flag))
    return carried, dropped



def _ccusage_option(option: str, ctx: Any, where: str, own: set[str]) -> str | None:
    """ccusage's meaning of ``option``, said in agentscan's words, when this command has the
    like of it (``tokens -o desc``: the order ``tokens`` keeps); else ``None``."""
    counterpart = _CCUSAGE_COUNTERPARTS.get(option)
    if counterpart in own:
        return f"{where} has {counterpart}"
    if option in _NONE_NEEDED:
        return _NONE_NEEDED[option]
    if option in ("--offline", "-O", "--no-offline"):
        from agentscan.invocation import command

        return f"agentscan prices calls offline, always: with the data it ships with, or what `{command('prices --update')}` fetched"
    if option == "--order" or (option == "-o" and str(_value_of(option, ctx)).casefold() in ("asc", "desc")):
        if where == "tokens":
            return ("tokens shows sessions newest first; days, weeks and months oldest first; the other groupings "
                    "largest first; --reverse gives the opposite order: --by day --reverse is the newest day first")
        if where == "list":
            return "list shows the newest sessions first; --reverse prints them oldest first"
    if "--cwd" in own and option in ("--instances", "--project"):
        how = "--by cwd totals each project" if option == "--instances" and "--by" in own else f"{where} has --cwd PATH"
        return f"{how}: a project is its working directory"
    if where != "tokens":
        return None
    if option in ("-m", "--mode"):
        return "agentscan's cost is always calculated: each call at its list price, docs/pricing.md"
    if option == "--id":
        return "tokens takes sessions' ids as its arguments: agentscan tokens ID"
    if option == "-i":
        return "agentscan tokens ID totals a session; --by cwd totals each project, as ccusage's --instances does"
    if option == "--by-agent":
        # (ccusage's ``daily --by-agent`` splits each day by agent: no one table of agentscan's does)
        return ("-p claude --by day counts one agent's days (-p codex alike); --by day --breakdown splits each day "
                "by model; --by provider totals each agent; --by agent totals each kind of subagent")
    if option == "--last":
        return ("tokens has --since: a duration or the first day, week or month to count, "
                "as --since 7d, --since today, --since 2026-W45 or --since 2026-11")
    return None


def _value_of(option: str, ctx: Any) -> str | None:
    """The word given with ``option`` on the command line (``-o desc``, ``-odesc``,
    ``--order=desc``): click's error does not keep it."""
    given = list(ctx.meta.get("agentscan.given", ()))
    for index, word in enumerate(given):
        if word == option:
            return given[index + 1] if index + 1 < len(given) else None
        if word.startswith(f"{option}=") or (not option.startswith("--") and word.startswith(option)):
            return word[len(option):].removeprefix("=")
    return None


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
    return {flag for param in command.params for flag in flags_of(param)}



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
