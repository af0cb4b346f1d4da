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
#: how many times ``program_word`` was asked (``program_asked``)
_asked = [0]


def program_word() -> str:
    """What a command agentscan tells the user to run starts with, and what the ``Usage:``
    lines of ``python -m agentscan`` name (``cli.typer_app.main``, ``entry``): ``agentscan``,
    or the words that run this agentscan when ``agentscan`` on this ``PATH`` would not
    (``hooks.program.agentscan_word``; ``python -m agentscan`` as run: ``module_word``).  Worked out
    once per run (it looks ``PATH`` through and reads a file), not once per hint: a table's
    rows each name a command.  Keyed on what it depends on, so a test, or a library caller
    that changes ``PATH``, is not answered from before."""
    _asked[0] += 1
    key = program_key()
    if not _program or _program[0][0] != key:
        from agentscan.hooks.program import agentscan_word

        word = agentscan_word()
        # ``python -m agentscan``: as it was run, not the console script beside it (which the
        # hook runs): a ``Try '… --help'`` naming a program the user never typed read as another tool's
        _program[:] = [(key, word if word == "agentscan" else module_word() or word)]
    return _program[0][1]


def program_asked() -> int:
    """How many times this process asked ``program_word`` so far: a remembered answer that asked
    it while it was made names the program (a hint), and keeps the word to be checked on recall
    (``scan.answers``); one that did not is the same answer whatever ran it."""
    return _asked[0]


def program_key() -> tuple[str, str, str]:
    """What ``program_word`` is worked out from: ``argv[0]``, this Python, ``PATH``.  A remembered
    answer that names the program keeps it with the word (``scan.answers``): while it is the same,
    so is the word, and a warm run is spared a look through ``PATH`` and the imports that does."""
    return sys.argv[0] if sys.argv else "", sys.executable or "", os.environ.get("PATH", "")


def module_word() -> str | None:
    """``python -m agentscan`` as the user ran it, when it ran so (``None`` otherwise): the
    Python as typed when typed by name (``python3``: the one this shell's ``PATH`` finds is this
    one, which ``sys.executable`` was found as), else by its absolute path, quoted for the
    shell.  Only ``os`` and ``sys`` for a word that needs no quoting: the top-level help's
    snapshot asks it (``entry``), which ``hooks.program``'s imports would double."""
    if not ran_as_module():
        return None
    python = sys.executable or "python"
    typed = getattr(sys, "orig_argv", [])
    # (``python -X importtime -m agentscan``: the interpreter's options come first)
    if any(typed[at:at + 2] == ["-m", "agentscan"] for at in range(1, len(typed) - 1)) \
            and typed[0] and os.sep not in typed[0] and (os.altsep or os.sep) not in typed[0]:
        python = typed[0]
    if os.name == "nt" or not _PLAIN.issuperset(python):
        from agentscan.hooks.program import shell_word

        python = shell_word(python)
    return f"{python} -m agentscan"


#: what a word may hold that ``shlex.quote`` leaves as it is
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def ran_as_module() -> bool:
    """Whether this process is ``python -m agentscan`` (``argv[0]``: the package's ``__main__.py``)."""
    ran = sys.argv[0] if sys.argv else ""
    return ran.replace(os.sep, "/").endswith("agentscan/__main__.py")


def command(rest: str, *, demo: bool = False, home: object = None) -> str:
    """``agentscan [--demo|--home DIR] REST`` as the user is told to run it: the program that
    ran when bare ``agentscan`` would not run it (``program_word``), and the home this run read
    (``home_words``).  Every hint that names a command to run is made here, or on
    ``program_word`` as this is: the hooks' commands (``hooks.mendtext``), which put their
    ``--home`` after the command, as ``hooks install`` and ``uninstall`` take it."""
    return f"{program_word()}{home_words(demo=demo, home=home)} {rest}"


def running_command(rest: str) -> str:
    """``agentscan [--demo|--home DIR] REST`` with the running command's home options
    (``running_home``): for a hint made where no ``State`` is at hand (a usage error's), which
    without them sent ``--demo tokens --by day,model`` to ``tokens --by day --breakdown`` of
    ``$HOME``."""
    return f"{program_word()}{running_home[0]} {rest}"


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
