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
    from agentscan.hooks.install import shell_word

    return f" --home {shell_word(str(home))}"
