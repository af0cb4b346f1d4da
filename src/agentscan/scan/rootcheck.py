"""The roots a provider variable names explicitly, checked (docs/cli.md, exit codes).

A provider none of whose explicitly named roots can be read fails the run
(``unreadable_explicit``: ``Scanner.unreadable_explicit_roots`` says them); in a
comma-separated list (``CODEX_HOME=/a,/b``) an entry none of whose roots is
there, while another root can be read, is a warning (``warn_missing_entries``),
so that ``--strict`` fails on a mistyped entry.  Both look only when a
provider's own variable is set: a run with none names no root explicitly.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from agentscan.toolkit.paths import A_FILE, MISSING, NOT_A_DIRECTORY, root_problem, root_readable
from agentscan.toolkit.roots import entry_problem

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.base import Provider
    from agentscan.toolkit.roots import Root


def warn_missing_entries(ctx: ScanContext, providers: Sequence[Provider]) -> list[str]:
    """A warning for each entry of a comma-separated setting none of whose roots is there,
    while another root of its provider can be read (with none readable, the run fails:
    ``unreadable_explicit``).  An entry that does not exist is ``no such file or directory``,
    one that is a file ``a file, not a directory`` (its roots are then not looked into, so
    discovery says nothing more of them), a folder that holds none of them ``no … in it``.
    A root that is there but cannot be read is said by discovery when it looks (``cannot
    list directory``).  A setting read whole (``CURSOR_STATE_DB``) is no list: its provider
    says what it makes of a missing one.  Returns the roots below an entry that is no folder,
    for ``hold_empty``."""
    from agentscan.toolkit.roots import WHOLE_SETTINGS, named_explicitly

    held: list[str] = []
    for provider in providers:
        if not named_explicitly(ctx, provider.env_vars):
            continue  # only its own variables name roots explicitly: a run with none resolves nothing
        explicit = [root for root in provider.roots(ctx) if root.explicit]
        if len(explicit) < 2:
            continue
        problems = [root_problem(root.path, root.kind) for root in explicit]
        # None readable: the run fails, and its error names each entry (``unreadable_explicit``);
        # the roots below an entry that is a file are still held, or ``doctor`` (which goes on)
        # said each again, ``cannot list directory: Not a directory``.
        failing = None not in problems
        entries: dict[tuple[str, Path], list[tuple[Root, str | None]]] = {}
        for root, problem in zip(explicit, problems):
            if root.source not in WHOLE_SETTINGS:
                entries.setdefault((root.source, root.entry or root.path), []).append((root, problem))
        for (source, entry), found in entries.items():
            said = _entry_said(entry, found)
            if said is None:
                continue
            if not failing:
                ctx.warn(entry, f"{said} (named by {source}); skipped")
            if said in (A_FILE, NOT_A_DIRECTORY):
                held.extend(os.fspath(root.path) for root, _ in found)
    return held


def hold_empty(ctx: ScanContext, paths: Sequence[str]) -> None:
    """``paths`` (roots below an entry that is a file: nothing can be there) taken as listed and
    empty, so that the discovery to come does not look into each and say it again (``cannot list
    directory: Not a directory``) after ``warn_missing_entries`` said their entry.  Each
    discovery round drops what is listed (``FileSystemView.drop_listings``): held again for each."""
    if paths:
        listings = ctx.listings()
        for path in paths:
            listings.setdefault(path, [])


def _entry_said(entry: Path, found: list[tuple[Root, str | None]]) -> str | None:
    """What ``warn_missing_entries`` says of ``entry`` whose roots are ``found`` (with their
    ``root_problem``); ``None``: nothing (one of them is there, or discovery says why not)."""
    for root, problem in found:
        if root.path == entry:  # the entry is the root (``GEMINI_DATA_DIR``)
            return problem if problem in (MISSING, A_FILE, NOT_A_DIRECTORY) else None
    if any(problem != MISSING for _, problem in found):
        return None  # one read, or one there that discovery says it cannot read
    held = entry_problem(found[0][0], missing=True)  # ``entry`` is each root's: ``warn_missing_entries``
    if held is not None:
        return held
    names = " or ".join(dict.fromkeys(root.path.name for root, _ in found))
    return f"no {names} in it"


def unreadable_explicit(ctx: ScanContext, providers: Sequence[Provider]) -> dict[str, list[Root]]:
    """The providers whose explicitly named roots (env vars) are all unreadable, with those roots."""
    unread: dict[str, list[Root]] = {}
    for provider in providers:
        explicit = [root for root in provider.roots(ctx) if root.explicit]
        if explicit and not any(root_readable(root.path, root.kind) for root in explicit):
            unread[provider.name] = explicit
    return unread


def unreadable_paths(unread: dict[str, list[Root]]) -> set[str]:
    """The paths the error of ``unread`` names (``unreadable_message``): its roots, and the
    entries they lie in (a warning about one would say it twice)."""
    paths = {str(root.path) for roots in unread.values() for root in roots}
    paths.update(str(root.entry) for roots in unread.values() for root in roots if root.entry is not None)
    return paths
