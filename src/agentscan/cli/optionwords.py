"""Other tools' words for an option this command has under another name: ``tokens --from``
is ``--since``, ``list --format json`` is ``--json``, ``list --search`` is ``--grep``.

A newcomer types the word ``gh``, ``docker``, ``git log`` or a SQL tool taught them; click
answered ``No such option: --from`` and nothing else, and ``tokens --days 3`` was sent to
``export``, whose ``--days`` means something else.  ``cli.misplaced`` asks here first, so
the command's own option is named rather than another command's.
"""

from __future__ import annotations

from typing import Any, Callable

#: each word, by the option of ours it stands for (``--since``: ``--from``, ``--after``, …)
_WORDS = {
    "--since": ("--from", "--after", "--start", "--begin"),
    "--until": ("--to", "--before", "--end"),
    "--by": ("--group-by", "--groupby", "--group"),
    # (not ``--filter``, docker's KEY=VALUE: ``other_word`` names the filters; not ``--count``,
    # which is git's and grep's "print how many", not "show this many")
    "--grep": ("--search", "--query", "--match", "--find"),
    "--limit": ("--max", "--head", "--top", "--number", "--num"),
    "--cwd": ("--dir", "--directory", "--path", "--workdir", "--folder", "--repo"),
    "--provider": ("--agent", "--agents", "--tool"),
}
_OURS = {word: ours for ours, words in _WORDS.items() for word in words}

#: what each of ours takes, said after its name
_SAID = {
    "--since": "--since WHEN: 2026-11-01, 7d or today; --until WHEN ends the range",
    "--until": "--until WHEN: 2026-11-30 or yesterday, the whole day; --since WHEN starts the range",
    "--by": "--by KEY: session, day, week, month, model, provider, cwd or agent",
    "--grep": "--grep TEXT: a match on title, cwd, model or path",
    "--limit": "--limit N, -n N, or --all",
    "--cwd": "--cwd PATH: the sessions run in PATH or below it",
    "--provider": "-p/--provider: an agent's sessions, as -p claude, codex, gemini or cursor",
}

#: ccusage's and other tools' report words as options (``--daily``): the grouping they ask for
_PERIODS = {"--daily": "day", "--weekly": "week", "--monthly": "month"}


def other_word(option: str, ctx: Any, where: str, own: set[str], value_of: Callable[[str, Any], str | None]) -> str | None:
    """What to say after ``No such option: OPTION`` when ``where`` (``list``, ``tokens``) has
    what another tool calls ``option``; ``None`` otherwise.  ``own``: the command's flags;
    ``value_of``: the word typed after ``option`` (``cli.misplaced._value_of``)."""
    # python's and pip's -V; after a command too (``list -V``: the version is the program's)
    if option == "-V" and ("--version" in own or where):
        return "agentscan --version prints the version"
    ours = _OURS.get(option)
    if ours is not None and ours in own and option not in own:
        return f"{where} has {_SAID[ours]}"
    if option in _PERIODS and "--by" in own:
        return f"{where} has --by {_PERIODS[option]}"
    if option in ("--format", "-f", "--output", "-o") and "--json" in own:
        if str(value_of(option, ctx)).casefold() == "json":  # ``list --format json``, as docker's
            return f"{where} has --json: one JSON document on stdout"
    if option == "--filter" and "--grep" in own:  # docker's ``--filter status=running``: which of ours
        from agentscan.toolkit.words import listed

        picks = ["--grep TEXT", *(flag for flag in ("--running", "--provider", "--since", "--cwd") if flag in own)]
        return f"{where} picks sessions with {listed(picks)}"
    if option in ("--id", "--session", "--session-id") and where in ("show", "trace", "otlp"):
        # (``tokens --id`` is ccusage's, answered in ``cli.misplaced``, and worded as it is)
        return _as_argument(ctx, where, "id", value_of(option, ctx))
    if option in ("--model", "--models"):
        if where == "prices":
            return _as_argument(ctx, where, "model", value_of(option, ctx))
        if "--by" in own:
            return f"{where} has --by model: what each model cost"
        if "--grep" in own:
            return f"{where} has --grep TEXT, which matches a session's model too: --grep opus"
    if option == "--days" and "--since" in own:  # (export's --days is a record a day, not a window)
        typed = value_of(option, ctx)
        days = typed if typed and typed.isdigit() else "N"
        return f"{where} has --since: --since {days}d for the last {days} days; export's --days is another thing"
    return None


def _as_argument(ctx: Any, where: str, what: str, typed: str | None) -> str:
    """``show takes the id as its argument: agentscan --demo show 'claude:7f3c'``: the
    program's word and the global options typed kept (``cli.typedline.typed_again``)."""
    from agentscan.cli.typedline import typed_again

    return f"{where} takes the {what} as its argument: {typed_again(ctx, where, typed or what.upper())}"
