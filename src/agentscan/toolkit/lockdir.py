"""The folder an export's locks go in when not in the cache: ``AGENTSCAN_LOCK_DIR``, else
``/tmp/agentscan-<uid>/locks`` (``toolkit.meetlock``; ``locks.fallback_dir`` with another
temporary folder), only ever a folder of this user's that no one else may enter.

``/tmp`` is shared: another user can make ``/tmp/agentscan-<uid>`` first (or a symlink of
that name to their folder).  Such a folder is never used, and ``NotPrivate`` says whose it
is and what to do, for the export's warning and ``doctor``'s line (``squat_problem``):
silently, the lock every run meets at was off and a later error named only the cache.

``AGENTSCAN_LOCK_DIR`` names the folder itself: for runs that see different ``/tmp``s
(systemd's ``PrivateTmp``), and for tests, whose CLI subprocesses must not write the real
``/tmp``.  A relative one is ignored, as a relative ``AGENTSCAN_CACHE_DIR`` is.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path
from typing import Mapping

from agentscan.filemodes import DIR_MODE, make_private_dirs

LOCK_DIR_VAR = "AGENTSCAN_LOCK_DIR"


class NotPrivate(PermissionError):
    """A lock folder another user made, or may enter: not used (``why`` says why and what to do)."""

    def __init__(self, folder: Path, why: str) -> None:
        super().__init__(f"{folder} {why}")
        self.folder = folder
        self.why = why


def named_dir(env: Mapping[str, str]) -> Path | None:
    """An absolute ``AGENTSCAN_LOCK_DIR`` (a leading ``~``: the home), else ``None``; its links
    are followed only by ``trusted_named`` (``realpath`` here followed any, another user's
    in ``/tmp`` too)."""
    value = env.get(LOCK_DIR_VAR)
    if not value:
        return None
    path = Path(value).expanduser()
    return Path(os.path.abspath(path)) if path.is_absolute() else None


def trusted_named(named: Path) -> Path:
    """``named`` with its links resolved, or ``NotPrivate``: each link by the rule an export's
    output follows (``atomicfile.refuse_planted_link``: the user's or root's, and in a sticky
    ``/tmp`` the user's or its owner's), and every folder above the one reached no one else
    may replace it in: this user's or root's, and not writable by others unless sticky
    (``/tmp``, where only an entry's owner may rename it).  A folder the user named through
    a link of their own is theirs to name so."""
    from agentscan.errors import UnsafeOutput
    from agentscan.toolkit.atomicfile import refuse_planted_link

    if not hasattr(os, "geteuid"):  # Windows: no owners to compare, links as before
        return Path(os.path.realpath(named))
    current = Path(named.anchor or "/")
    pending = list(named.parts[1:])
    links = 0
    while pending:
        name = pending.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            current = current.parent  # a link before it is already resolved: the kernel's meaning
            continue
        candidate = current / name
        try:
            found = os.lstat(candidate)
        except FileNotFoundError:
            current = candidate.joinpath(*pending)  # made by ``locks_dir``, under what was checked
            break
        if not stat.S_ISLNK(found.st_mode):
            current = candidate
            continue
        try:
            refuse_planted_link(candidate, found)
        except UnsafeOutput:
            raise NotPrivate(named, f"leads through {candidate}, a symbolic link another user may have made "
                                    f"(uid {found.st_uid}): not followed, since they could point it anywhere; "
                                    f"set {LOCK_DIR_VAR} to a folder of this user's, not through it") from None
        links += 1
        if links > 40:
            raise NotPrivate(named, "leads through too many symbolic links (a loop?)")
        target = Path(os.readlink(candidate))
        if target.is_absolute():
            current = Path(target.anchor)
        pending[:0] = list(target.parts[1:] if target.is_absolute() else target.parts)
    _check_above(named, current)
    return current


def _check_above(named: Path, folder: Path) -> None:
    uid = _uid()
    if uid is None:
        return
    for above in folder.parents:
        try:
            found = os.stat(above)
        except OSError:
            continue  # not made yet
        mode = stat.S_IMODE(found.st_mode)
        if found.st_uid not in (uid, 0):
            raise NotPrivate(named, f"is inside {above}, which belongs to another user (uid {found.st_uid}), who could "
                                    f"replace it: set {LOCK_DIR_VAR} to a folder under folders only you (or root) own")
        if mode & 0o022 and not mode & stat.S_ISVTX:
            raise NotPrivate(named, f"is inside {above}, which other users can write (mode {mode:04o}), so they "
                                    f"could replace it: set {LOCK_DIR_VAR} to a folder under folders only you can write")


def ignored_lock_dir(env: Mapping[str, str]) -> str | None:
    """The relative ``AGENTSCAN_LOCK_DIR`` that was ignored, for the warning that says so."""
    from agentscan.datadir import relative_setting

    return relative_setting(env, LOCK_DIR_VAR)


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def default_base(temp: str) -> Path:
    """``<temp>/agentscan-<uid>``: the folder ``<temp>/agentscan-<uid>/locks`` is made in."""
    uid = _uid()
    return Path(temp) / (f"agentscan-{uid}" if uid is not None else "agentscan")


def squat_problem(folder: Path, *, loose: int = 0o077, named: bool = False) -> str | None:
    """Why ``folder`` (which exists) is no folder of this user's alone (``<folder> is …``), or
    ``None``: it is.  ``loose``: the mode bits others must not have (entering, for ``/tmp``'s;
    writing, for one a user named); ``named``: the user named it (``AGENTSCAN_LOCK_DIR``)."""
    why = _why(folder, loose, named)
    return None if why is None else f"{folder} {why}"


def _why(folder: Path, loose: int, named: bool = False) -> str | None:
    found = os.lstat(folder)
    uid = _uid()
    quoted = shlex.quote(str(folder))
    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode):
        kind = "a symlink" if stat.S_ISLNK(found.st_mode) else "not a folder"
        owner = f" of uid {found.st_uid}" if uid is not None and found.st_uid != uid else ""
        if named:
            return f"is {kind}{owner}, not a folder of this user's: set {LOCK_DIR_VAR} to a folder of this user's"
        return f"is {kind}{owner}, not a folder of this user's: remove it (`rm {quoted}`, as its owner or root)"
    if uid is not None and found.st_uid != uid:
        if named:
            # Someone else's folder the user pointed at: theirs to keep, not to be removed.
            return (f"belongs to another user (uid {found.st_uid}): set {LOCK_DIR_VAR} to a folder of this "
                    "user's (or leave it unset)")
        return (f"belongs to another user (uid {found.st_uid}), who made it first: remove it "
                f"(`sudo rm -r {quoted}`) or set {LOCK_DIR_VAR} to a folder of this user's")
    mode = stat.S_IMODE(found.st_mode)
    if mode & loose:
        return (f"can be entered or written by other users (mode {mode:04o}): "
                f"`chmod 700 {quoted}` (and check what is in it)")
    return None


def _checked(folder: Path, loose: int, named: bool = False) -> None:
    why = _why(folder, loose, named)
    if why is not None:
        raise NotPrivate(folder, why)


def lock_folders(env: Mapping[str, str], temp: str) -> tuple[Path | None, list[Path]]:
    """The folders the lock folder is made of, each checked before anything is made inside
    it, the lock folder last: ``AGENTSCAN_LOCK_DIR``'s (its links resolved, ``NotPrivate``
    when one cannot be trusted), else ``<temp>/agentscan-<uid>`` and its ``locks``.  With the
    folder the user named (``None``: none), which is checked as one they chose (``_checked``'s
    ``named``).  One list for ``locks_dir``, which makes them, and ``lock_dir_problem``, which
    only looks: ``doctor`` checks the folders an export uses."""
    named = named_dir(env)
    if named is not None:
        return named, [trusted_named(named)]
    base = default_base(temp)
    return None, [base, base / "locks"]


def _loose(named: Path | None) -> int:
    # A folder the user named may be readable by others (0755), never writable by them.
    return 0o022 if named is not None else 0o077


def locks_dir(env: Mapping[str, str], temp: str) -> Path:
    """The lock folder, made private if missing and checked (``NotPrivate``; ``OSError``
    when it cannot be made): ``AGENTSCAN_LOCK_DIR``, else ``<temp>/agentscan-<uid>/locks``."""
    named, folders = lock_folders(env, temp)
    for folder in folders:
        if named is not None:
            make_private_dirs(folder)  # and any folder above it: the user named it, wherever
        else:
            try:
                folder.mkdir(mode=DIR_MODE)
            except FileExistsError:
                pass
            else:
                os.chmod(folder, DIR_MODE)  # mkdir's mode is masked by the umask
        _checked(folder, _loose(named), named=named is not None)
    return folders[-1]


def lock_dir_problem(env: Mapping[str, str], temp: str) -> tuple[str, str | None]:
    """``doctor``'s view, changing nothing: the lock folder and why it cannot be used (``None``:
    it can, or it is not made yet)."""
    try:
        named, folders = lock_folders(env, temp)
    except NotPrivate as exc:
        return str(named_dir(env)), str(exc)
    except OSError as exc:
        return str(named_dir(env)), f"{named_dir(env)}: {exc.strerror or exc}"
    shown = folders[-1]
    for folder in folders:
        try:
            problem = squat_problem(folder, loose=_loose(named), named=named is not None)
        except FileNotFoundError:
            # Made by the first export; one the user named that cannot be made (a typo under a
            # file, a read-only mount) is said: every export would go without it, silently.
            return str(shown), None if named is None else cannot_make(folder)
        except OSError as exc:
            return str(shown), f"{folder}: {exc.strerror or exc}"
        if problem is not None:
            return str(shown), problem
    return str(shown), None


def cannot_make(folder: Path) -> str | None:
    """Why ``folder`` (missing) could not be made, in words, or ``None``: its nearest existing
    parent is a folder this user may write.  ``os.access``: nothing is made."""
    parent = folder.parent
    while not os.path.lexists(parent) and parent.parent != parent:
        parent = parent.parent
    if not os.path.isdir(parent):
        return f"{folder} cannot be made: {parent} is not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{folder} cannot be made: {parent} cannot be written"
    return None
