"""What this process was started for, as the console script saw it.

``entry.main`` sets it before the CLI is imported; the CLI reads it to
register only the command being run (Typer reads the signature of every
registered command on each start).  Anything that imports the CLI otherwise
(tests, a library user) leaves it ``None``: every command is registered.
"""

from __future__ import annotations

#: the top-level command name, or ``None`` (unknown: register them all)
requested_command: str | None = None
