"""What this process was started for, as the console script saw it.

``entry.main`` sets it before the CLI is imported; the CLI reads it to
register only the command being run (Typer reads the signature of every
registered command on each start).  Anything that imports the CLI otherwise
(tests, a library user) leaves it ``None``: every command is registered.
"""

from __future__ import annotations

import os
import sys

#: the top-level command name, or ``None`` (unknown: register them all)
requested_command: str | None = None


#: the running command's `` --demo`` or `` --home DIR`` (``cli.state.State.home_options``), for
#: the hints of its errors: they reach ``cli.state.say_error`` with no ``State``
running_home = [""]

#: ``program_word``'s answer and what it was worked out from (``argv[0]``, this Python, ``PATH``)
_program: list[tuple[tuple[str, str, str], str]] = []


def program_word() -> str:
    """What a command agentscan tells the user to run starts with: ``agentscan``, or the words
    that run this agentscan when ``agentscan`` on this ``PATH`` would not (``hooks.program.
    agentscan_word``).  Worked out once per run (it looks ``PATH`` through and reads a file),
    not once per hint: a table's rows each name a command.  Keyed on what it depends on, so a
    test, or a library caller that changes ``PATH``, is not answered from before."""
    key = (sys.argv[0] if sys.argv else "", sys.executable or "", os.environ.get("PATH", ""))
    if not _program or _program[0][0] != key:
        from agentscan.hooks.program import agentscan_word

        _program[:] = [(key, agentscan_word())]
    return _program[0][1]


def command(rest: str, *, demo: bool = False, home: object = None) -> str:
    """``agentscan [--demo|--home DIR] REST`` as the user is told to run it: the program that
    ran when bare ``agentscan`` would not run it (``program_word``), and the home this run read
    (``home_words``).  Every hint that names a command to run is made here."""
    return f"{program_word()}{home_words(demo=demo, home=home)} {rest}"


def doctor_command() -> str:
    """``agentscan doctor`` with the running command's `` --home DIR`` (``running_home``): a
    "no sessions found" that sent the reader to a bare ``agentscan doctor`` had it inspect
    ``$HOME``, not the home that held nothing."""
    return f"{program_word()}{running_home[0]} doctor"


def home_words(*, demo: bool = False, home: object = None) -> str:
    """`` --demo`` or `` --home DIR`` (quoted for the shell), or ``""``: what a command agentscan
    tells the user to run needs, to read the home the command telling it read.  Left out, it
    would read, or change, the files of another home.  (The one rule: ``cli.state``'s
    suggestions and ``ScanContext.command``'s.)"""
    if demo:
        return " --demo"
    if home is None:
        return ""
    from agentscan.hooks.program import shell_word

    return f" --home {shell_word(str(home))}"


def trace_words(*, demo: bool = False) -> str:
    """``agentscan --demo trace`` or ``agentscan trace``: what a hint that names ``trace``
    starts with.  ``trace`` reads the hook events store, not a home: ``--demo`` chooses the
    demo's own store, and ``--home`` none (``trace`` says it does not apply), so it is never
    given one.  (The one rule: ``show``'s hooks line and "no session matches"' hint.)"""
    return command("trace", demo=demo)


def hint(command: str, does: str) -> str:
    """A hint that names a command to run, as every one is worded: ``hint: `COMMAND` does``
    (the command first, in backquotes, copied whole, then what it does)."""
    return f"hint: `{command}` {does}"
