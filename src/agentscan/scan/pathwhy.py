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
    shared = _shared_database(scanner, typed) or _sessions_folder(scanner, typed)
    if shared is not None:
        return shared
    if os.path.isdir(typed):  # ``show .`` in a project: its sessions are those run there
        import shlex

        return (f"it is a folder, not a session's transcript: `{scanner.ctx.command(f'list --cwd {shlex.quote(query)}')}` "
                "lists the sessions run in it")
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


def _sessions_folder(scanner: Scanner, typed: str) -> str | None:
    """Why a folder of sessions (a Claude project's ``-home-me-app``, a Codex day's
    ``2026/11/30``) opens no session: it holds several, which ``list --grep`` finds by their
    path, as a newcomer who ``cd``-ed there wants; a folder of one session's other files (its
    ``subagents/``) names that session.  ``None``: no session's file is under ``typed``."""
    import shlex

    from agentscan.toolkit.paths import is_within
    from agentscan.toolkit.words import plural

    if not os.path.isdir(typed):
        return None
    real = os.path.realpath(typed)
    # Only within a root the sessions are found under (``show /`` or ``show ~`` is no mistaken
    # id), and as the sessions' paths have it: under a linked ``~/.claude`` they keep the link's
    # path, so a folder typed by its real path is matched, and listed, by the link's.
    as_read = [os.path.normpath(os.path.join(str(root.path), os.path.relpath(real, top)))
               for provider in scanner.providers for root in provider.roots(scanner.ctx) if root.kind == "sessions"
               for top in [os.path.realpath(root.path)]
               if is_within(real, top)]
    if not as_read:
        return None
    folders = {os.path.abspath(typed), real, *as_read}

    def under(path: object) -> bool:
        return path is not None and any(is_within(str(path), folder) for folder in folders)

    refs = scanner.refs()
    held = [ref for ref in refs if under(ref.path)]
    if held:
        # (the folder as the root was read: a session's ``path`` is under it)
        listing = scanner.ctx.command(f"list --all --grep {shlex.quote(as_read[0])}")
        return f"it is a folder that holds {plural(len(held), 'session')}, not one session's transcript: `{listing}` lists them"
    owners = [ref for ref in refs if any(under(path) for path in ref.files)]
    if len(owners) == 1:
        return (f"it is a folder of {owners[0].id}'s files, not its transcript: "
                f"`{scanner.ctx.command(f'show {owners[0].id}')}` opens it")
    return None
