"""Where each provider's files live, and which setting chose each place.

One resolver per provider returns ``Root`` values that carry their
provenance (``source``), so ``doctor`` can say "CLAUDE_CONFIG_DIR chose this"
and a relative ``CODEX_HOME`` can be reported instead of silently used.

Every setting that names a place (``CODEX_HOME``, ``CLAUDE_CONFIG_DIR``,
``CURSOR_STATE_DB``, the Gemini ones) is read through ``setting_paths``, so
``~`` and relative entries mean the same for every provider.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable, NamedTuple

from agentscan.context import ScanContext, home_variables
from agentscan.toolkit.paths import under_home


class Root(NamedTuple):
    """A place a provider's files live, and what chose it (a named tuple: see ``cli.term.Terminal``)."""

    provider: str
    path: Path
    source: str  # "--home", "HOME", an env var name, or "default"
    kind: str = "sessions"  # sessions | database | index
    explicit: bool = False  # named by an env var: unreadable means an error
    note: str | None = None
    #: the path the setting's entry named (``CODEX_HOME=/x``: ``/x`` for ``/x/sessions``), when
    #: ``explicit``: a comma-separated list's entry none of whose roots exists is warned of by it
    entry: Path | None = None


def unreadable_message(provider: str, roots: list[Root]) -> str:
    """The error of a provider whose explicitly named roots are all unreadable, with what to do:
    a mistyped variable (``CLAUDE_CONFIG_DIR=/nonexistent``) is fixed or unset.  ``provider``:
    its display name (``Claude Code``), as every sentence names it, not its key (``claude:
    no readable root`` read as a command's word)."""
    from agentscan.toolkit.paths import MISSING, root_problem

    places: dict[str, None] = {}  # an ordered set: an entry that is a file, said once for its roots
    for root in roots:
        # One there but of the wrong kind (a file named as a sessions folder) says what it is;
        # one under an entry that is no folder (``CODEX_HOME`` naming a file) says the entry.
        problem = root_problem(root.path, root.kind)
        held = entry_problem(root) if problem == MISSING else None
        if held is not None and root.entry is not None:
            places[f"{root.entry} ({root.source}: {held})"] = None
        else:
            places[f"{root.path} ({root.source})" if problem in (None, MISSING)
                   else f"{root.path} ({root.source}: {problem})"] = None
    variables = sorted({root.source for root in roots if root.source.isupper() and root.source not in home_variables()})
    remedy = f"; fix or unset {' and '.join(variables)}" if variables else ""
    meant = next(filter(None, (setting_meant(root) for root in roots)), None)
    return f"{provider}: no readable root among {', '.join(places)}{remedy}{f'; {meant.said}' if meant else ''}"


class Meant(NamedTuple):
    """A setting that names the wrong level for its root, as said (``GEMINI_CLI_HOME is the
    folder that holds .gemini: did you mean GEMINI_CLI_HOME=/home/me?``) and the setting
    meant alone (``GEMINI_CLI_HOME=/home/me``: doctor's ``settings_meant``, which its last
    line points at; never scraped back out of the sentence)."""

    said: str
    setting: str


def _meant(why: str, setting: str) -> Meant:
    return Meant(f"{why}: did you mean {setting}?", setting)


def setting_meant(root: Root) -> Meant | None:
    """The setting meant by one that names the wrong level for ``root`` (``_one_level_too_deep``,
    ``_folder_for_a_file``): said by the error of a run that finds none of its roots, and by
    ``doctor``, which goes on."""
    return _one_level_too_deep(root) or _folder_for_a_file(root)


#: where, under a folder a file setting names by mistake, the file it meant is (Cursor's
#: ``globalStorage``, its ``User`` folder, its config folder: each a step up from the DB)
_FILE_BELOW = {"CURSOR_STATE_DB": ("state.vscdb", "globalStorage/state.vscdb", "User/globalStorage/state.vscdb")}


def _folder_for_a_file(root: Root) -> Meant | None:
    """A setting that names the folder of the database file it should name
    (``CURSOR_STATE_DB=…/globalStorage``), when that file is there: the setting meant
    (``CURSOR_STATE_DB names the database file, not its folder: did you mean CURSOR_STATE_DB=…/state.vscdb?``)."""
    below = _FILE_BELOW.get(root.source, ()) if root.kind == "database" else ()
    if not below or not root.path.is_dir():
        return None
    meant = next((root.path / place for place in below if (root.path / place).is_file()), None)
    if meant is None:
        return None
    return _meant(f"{root.source} names the database file, not its folder", f"{root.source}={meant}")


def _one_level_too_deep(root: Root) -> Meant | None:
    """A setting that names the folder it should hold (``GEMINI_CLI_HOME=~/.gemini``, whose
    root is ``~/.gemini/.gemini/tmp``), when the root is there one level up: the setting
    it meant (``GEMINI_CLI_HOME is the folder that holds .gemini: did you mean GEMINI_CLI_HOME=/home/me?``):
    the error of a run that finds none of its roots, and a ``doctor`` finding."""
    entry = root.entry
    if entry is None or entry == root.path or not root.source.isupper():
        return None
    try:
        below = root.path.relative_to(entry).parts
    except ValueError:
        return None
    if len(below) < 2 or below[0] != entry.name or not (entry.joinpath(*below[1:])).is_dir():
        return None
    return _meant(f"{root.source} is the folder that holds {below[0]}", f"{root.source}={entry.parent}")


def entry_problem(root: Root, *, missing: bool = False) -> str | None:
    """What is wrong with the entry that names the folder ``root`` lies in when that entry is
    no folder (``CODEX_HOME=/x`` naming a file: ``A_FILE``), so nothing under it can be there;
    with ``missing``, also when it is not there (``MISSING``); ``None`` for any other (one that
    is the root itself is said by its own ``root_problem``)."""
    from agentscan.toolkit.paths import A_FILE, MISSING, NOT_A_DIRECTORY, root_problem

    if root.entry is None or root.entry == root.path:
        return None
    problem = root_problem(root.entry, "sessions")
    return problem if problem in (A_FILE, NOT_A_DIRECTORY) or (missing and problem == MISSING) else None


def named_explicitly(ctx: ScanContext, env_vars: Iterable[str]) -> bool:
    """Whether one of a provider's own variables (``env_vars``) is set: only they name roots
    explicitly (the platform's, ``PLATFORM_VARIABLES``, only move a default).  Cheap, so that a
    run with none never imports ``scan.rootcheck``."""
    return any(ctx.env_value(name) for name in env_vars if name not in PLATFORM_VARIABLES)


#: the settings that name one place and are read whole (``setting_paths(listed=False)``: a file
#: name may hold a comma), never a comma-separated list; every other setting that names places is
#: (tests/test_root_mends_pass45.py checks that the calls agree)
WHOLE_SETTINGS = frozenset({"CURSOR_STATE_DB", "GEMINI_CLI_HOME"})


def split_env_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def home_relative(ctx: ScanContext, *parts: str) -> Path:
    return ctx.home.joinpath(*parts)


def expand_home(ctx: ScanContext, value: str) -> Path:
    """``value`` with a leading ``~`` as the scan's home (``--home`` included): ``paths.under_home``."""
    return under_home(ctx.home, value)


def setting_paths(ctx: ScanContext, name: str, *, listed: bool = True) -> tuple[list[Path], str | None]:
    """The absolute paths env var ``name`` names, ``~`` expanded, and a note on the ones ignored.

    Each comma-separated entry when ``listed``, else the whole value (a file name may
    hold a comma).  A relative entry is ignored with a warning: the agent resolved it
    against the directory it was started in, which we cannot know, and our own
    working directory is no better guess.  The note is for the roots built instead
    (``Root.note``), which ``doctor`` prints.
    """
    value = ctx.env_value(name)
    if value is None:
        return [], None
    kept: list[Path] = []
    ignored: list[str] = []
    for entry in split_env_list(value) if listed else [value]:
        path = expand_home(ctx, entry)
        if path.is_absolute():
            kept.append(path)
        else:
            ignored.append(entry)
    if not ignored:
        return kept, None
    for entry in ignored:
        ctx.warn(entry, f"{name} is relative, so it was ignored (only absolute paths are used)")
    shown = ", ".join(repr(entry) for entry in ignored)
    return kept, f"{name} entry {shown} ignored: not an absolute path"


#: the platform's variables ``platform_dir`` reads: they move a default, never name a root explicitly
PLATFORM_VARIABLES = ("XDG_CONFIG_HOME", "APPDATA", "LOCALAPPDATA")


#: a Windows drive path (``C:\\…``, ``c:/…``): absolute on Windows, relative elsewhere
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


def platform_dir(ctx: ScanContext, name: str, notes: list[str] | None = None) -> tuple[Path, str, str | None] | None:
    """A platform variable (``XDG_CONFIG_HOME``, ``APPDATA``, ``LOCALAPPDATA``) as this scan takes it: (the
    dir, what chose it, a note).  Under ``--home DIR`` one that lies inside the login's own
    home (``$HOME``, as a desktop session sets ``~/.config``) stands for the same place
    inside ``DIR``: ``DIR`` replaces the home, and a copied home's files (Cursor's database,
    Claude Code's ``~/.config/claude``) must not give way to this machine's.  One elsewhere
    was set on purpose, and is taken as it is (docs/cli.md, ``--home``).  One that is not
    absolute is ignored (``None``), as every relative setting is (``setting_paths``): it was
    read from the current directory, which names no place an agent wrote; a warning says so,
    and ``notes`` (the roots' note, which ``doctor`` prints) gets a line."""
    value = ctx.env_value(name)
    if value is None:
        return None
    if not os.path.isabs(value):
        # (a Windows path seen from WSL or a shell that copies Windows' variables, ``C:\\Users\\…``,
        # names a place, only not one this system can open: noted, never a warning, which
        # would fail every ``--strict`` run of such a machine)
        if not _WINDOWS_DRIVE.match(value):
            ctx.warn(value, f"{name} is relative, so it was ignored (only absolute paths are used)")
        if notes is not None:
            notes.append(f"{name} {value!r} ignored: not an absolute path here")
        return None
    first, second = home_variables()
    login = ctx.env_value(first) or ctx.env_value(second)
    if ctx.home_source != "--home" or login is None or not inside_home(value, login):
        return Path(value), name, None
    relative = os.path.relpath(os.path.abspath(value), os.path.abspath(login))
    rebased = ctx.home if relative == os.curdir else ctx.home / relative
    if rebased == Path(os.path.abspath(value)):
        return rebased, name, None  # --home is the login's home
    return rebased, ctx.home_source, f"{name}={value} is under $HOME, so read under --home as {rebased}"


def inside_home(value: str, home: str) -> bool:
    """Whether ``value`` lies in ``home`` (absolute both; never a home of ``/``, which holds all)."""
    if not (os.path.isabs(value) and os.path.isabs(home)):
        return False
    home = os.path.abspath(home)
    return os.path.dirname(home) != home and os.path.commonpath([os.path.abspath(value), home]) == home
