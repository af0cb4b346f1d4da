"""Directories `hooks install` had to create, so `hooks uninstall` can take them away again.

On a home with no ``~/.claude/`` (or a project with no ``.claude/``) an
install creates the directory to hold the settings file.  Which ones it
created is recorded in agentscan's data directory (``hook-dirs.json``, see
docs/security.md): an uninstall removes a directory only when it is listed
there *and* empty, so a directory the agent or the user made, or filled
since, is never touched.  A listed directory found in use is forgotten: it
is no longer only ours.

The record itself may be what made the data directory (and its missing
parents, ``~/.local/share``): those are listed in it too, and go with it
when the last directory it lists is gone and they are empty, so that an
install and an uninstall leave nothing behind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator, Mapping

from agentscan.filemodes import DIR_MODE, open_private
from agentscan.hooks.store import data_dir, make_private_dirs

RECORD = "hook-dirs.json"


def make_parents(directory: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """Create ``directory`` and its missing parents (0700); record the ones created."""
    missing: list[Path] = []
    current = directory
    while not current.exists() and current.parent != current:
        missing.append(current)
        current = current.parent
    if not missing:
        return []
    # Recorded before they exist: a crash in between leaves a record an
    # uninstall checks (and drops), never a directory nobody knows about.
    _save(env, _load(env) | {str(path) for path in missing})
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            pass
    return list(reversed(missing))


def remove_empty(directory: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """Remove ``directory`` and its parents while each is one install created and is empty."""
    record = _load(env)
    if not record:
        return []
    removed: list[Path] = []
    current = directory
    while str(current) in record:
        record.discard(str(current))
        try:
            os.rmdir(current)  # only an empty directory goes
        except FileNotFoundError:
            pass
        except OSError:
            break  # in use now: the agent or the user keeps it
        else:
            removed.append(current)
        current = current.parent
    _save(env, record)
    return removed


def _record_path(env: Mapping[str, str] | None) -> str:
    return os.path.join(data_dir(env), RECORD)


def _load(env: Mapping[str, str] | None) -> set[str]:
    return _read(env)[0]


def _read(env: Mapping[str, str] | None) -> tuple[set[str], list[str]]:
    """The directories listed, and the data directories the record had to create
    (``data_dirs``, the deepest first)."""
    try:
        with open(_record_path(env), encoding="utf-8") as handle:
            record = json.load(handle)
        listed, made = record.get("created", []), record.get("data_dirs", [])
    except (OSError, ValueError, AttributeError):
        return set(), []  # none yet, or unreadable: nothing is removed on its word
    created = {item for item in listed if isinstance(item, str)} if isinstance(listed, list) else set()
    return created, [item for item in made if isinstance(item, str)] if isinstance(made, list) else []


def _save(env: Mapping[str, str] | None, created: set[str]) -> None:
    path = _record_path(env)
    previous, data_dirs = _read(env)
    if not created:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        _remove_data_dirs(data_dirs, data_dir(env))
        return
    root = data_dir(env)
    if not previous and not os.path.isdir(root):
        data_dirs = _missing(root)  # made for this record alone: it takes them away again
    make_private_dirs(root)
    temp = f"{path}.{os.getpid()}.tmp"
    with os.fdopen(open_private(temp), "w", encoding="utf-8") as handle:
        json.dump({"created": sorted(created), "data_dirs": data_dirs}, handle, indent=2)
        handle.write("\n")
    os.replace(temp, path)


def _missing(directory: str) -> list[str]:
    """``directory`` and its parents that do not exist, the deepest first."""
    return list(_and_parents(directory, stop_at_existing=True))


def _and_parents(directory: str, *, stop_at_existing: bool = False) -> Iterator[str]:
    """``directory`` and its parents, the deepest first (to the first that exists, or the root)."""
    current = os.path.abspath(directory)
    while os.path.dirname(current) != current and not (stop_at_existing and os.path.isdir(current)):
        yield current
        current = os.path.dirname(current)


def _remove_data_dirs(data_dirs: list[str], root: str) -> None:
    """The data directory ``root`` and its parents the record made, each while it is empty:
    once anything else is kept there (an event, a backup, prices), it stays, and its parents
    too.  Only ``root`` and its parents: a record edited by hand (or another data directory's,
    ``AGENTSCAN_DATA_DIR`` moved since) names no other folder to remove."""
    allowed = set(_and_parents(root))
    for directory in data_dirs:
        if directory not in allowed:
            return
        try:
            os.rmdir(directory)
        except FileNotFoundError:
            continue
        except OSError:
            return
