"""What this process was started for, as the console script saw it.

``entry.main`` sets it before the CLI is imported; the CLI reads it to
register only the command being run (Typer reads the signature of every
registered command on each start).  Anything that imports the CLI otherwise
(tests, a library user) leaves it ``None``: every command is registered.
"""

from __future__ import annotations

#: the top-level command name, or ``None`` (unknown: register them all)
requested_command: str | None = None


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
    return f"agentscan{home_words(demo=demo)} trace"


def hint(command: str, does: str) -> str:
    """A hint that names a command to run, as every one is worded: ``hint: `COMMAND` does``
    (the command first, in backquotes, copied whole, then what it does)."""
    return f"hint: `{command}` {does}"
