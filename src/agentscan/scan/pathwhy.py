"""Why a path given for a session opens none (``show``, ``tokens``, ``otlp`` of a path): no
such file, a provider's database of many sessions, or no transcript under the roots read."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


def why_no_path(scanner: Scanner, query: str) -> str:
    typed = os.path.expanduser(query)
    if not os.path.exists(typed):
        return "no such file or directory"
    shared = _shared_database(scanner, typed)
    if shared is not None:
        return shared
    return f"it is no session's transcript under the roots agentscan reads (`{scanner.ctx.command('doctor')}` lists them)"


def _shared_database(scanner: Scanner, typed: str) -> str | None:
    """Why a provider's database (Cursor's ``state.vscdb``, Codex's ``state_*.sqlite``) opens
    no session: it holds many.  It is the ``path`` of every Cursor IDE chat that has no
    transcript, so a script that passes a row's ``path`` back meets it; "no session's
    transcript" then read as if the file were unknown.  ``None``: ``typed`` is none of them."""
    from fnmatch import fnmatchcase

    real = os.path.realpath(typed)
    for provider in scanner.providers:
        for root in provider.roots(scanner.ctx):
            if root.kind != "database":
                continue
            if "*" in root.path.name:  # looked for by pattern
                held = (os.path.dirname(real) == os.path.realpath(root.path.parent)
                        and fnmatchcase(os.path.basename(real), root.path.name))
            else:
                held = os.path.realpath(root.path) == real
            if held:
                listing = scanner.ctx.command(f"list -p {provider.name}")
                # (A row's ``path`` may name it: a Cursor IDE chat's, which has no transcript.)
                return (f"it is {provider.label}'s database, which holds many sessions (a session's `path` names it "
                        f"when the session has no file of its own), no one session's file: give the session's id "
                        f"(`{listing}` shows them)")
    return None
