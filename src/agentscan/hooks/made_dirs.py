"""Directories and config files `hooks install` had to create, so `hooks uninstall` can take
them away again, and the configs it found holding nothing but scaffolding, so that an
uninstall gives them back as they were.

On a home with no ``~/.claude/`` (or a project with no ``.claude/``) an
install creates the directory to hold the settings file.  Which ones it
created is recorded in agentscan's data directory (``hook-dirs.json``, see
docs/security.md): an uninstall removes a directory only when it is listed
there *and* empty, so a directory the agent or the user made, or filled
since, is never touched.  A listed directory found in use is forgotten: it
is no longer only ours.

Config files (``files``): the path of each one an install created, with ``null``, and of
each one it found holding only scaffolding (``{}``, ``{"hooks": {}}``, Cursor's
``{"version": 1, "hooks": {}}``, an empty file), with its text as it was.  An uninstall
that leaves only scaffolding removes a file listed as created, writes a listed text back
byte for byte, and keeps any other (a file the user had before an older agentscan's
install, which recorded nothing, is theirs).  Scaffolding holds no setting, so no secret.

The record itself may be what made the data directory (and its missing
parents, ``~/.local/share``): those are listed in it too, and go with it
when the last directory it lists is gone and they are empty, so that an
install and an uninstall leave nothing behind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple

from agentscan.filemodes import DIR_MODE, open_private
from agentscan.hooks.store import data_dir, make_private_dirs

RECORD = "hook-dirs.json"
#: what ``config_origin`` answers for a config file the record does not list
UNKNOWN = object()


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
    record = _read(env)
    _save(env, record.created | {str(path) for path in missing}, record.files)
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            pass
    return list(reversed(missing))


def remove_empty(directory: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """Remove ``directory`` and its parents while each is one install created and is empty."""
    record = _read(env)
    created = set(record.created)
    if not created:
        return []
    removed: list[Path] = []
    current = directory
    while str(current) in created:
        created.discard(str(current))
        try:
            os.rmdir(current)  # only an empty directory goes
        except FileNotFoundError:
            pass
        except OSError:
            break  # in use now: the agent or the user keeps it
        else:
            removed.append(current)
        current = current.parent
    _save(env, created, record.files)
    return removed


def config_origin(path: Path, env: Mapping[str, str] | None = None) -> Any:
    """What the record says a config file was before agentscan's first install into it:
    ``None`` (the install created it), its text (it held only scaffolding), or ``UNKNOWN``."""
    return _read(env).files.get(_key(path), UNKNOWN)


def remember_config(path: Path, before: str | None, env: Mapping[str, str] | None = None) -> None:
    """Record what an install found (``None``: no file), unless the record already has it:
    a second install finds the first one's hooks, not what the user had."""
    record = _read(env)
    if _key(path) not in record.files:
        _save(env, record.created, {**record.files, _key(path): before})


def forget_config(path: Path, env: Mapping[str, str] | None = None) -> None:
    """An uninstall went through: what the file becomes now is the user's alone."""
    record = _read(env)
    if _key(path) in record.files:
        _save(env, record.created, {key: text for key, text in record.files.items() if key != _key(path)})


def _key(path: Path) -> str:
    return os.path.abspath(path)


def _record_path(env: Mapping[str, str] | None) -> str:
    return os.path.join(data_dir(env), RECORD)


class _Record(NamedTuple):
    created: set[str]  # the directories listed
    data_dirs: list[str]  # the data directories the record had to create, the deepest first
    files: dict[str, str | None]  # config files: None when created, else their text as it was


def _read(env: Mapping[str, str] | None) -> _Record:
    try:
        with open(_record_path(env), encoding="utf-8") as handle:
            record = json.load(handle)
        listed, made, files = record.get("created", []), record.get("data_dirs", []), record.get("files", {})
    except (OSError, ValueError, AttributeError):
        return _Record(set(), [], {})  # none yet, or unreadable: nothing is removed on its word
    created = {item for item in listed if isinstance(item, str)} if isinstance(listed, list) else set()
    files = {key: text for key, text in files.items() if text is None or isinstance(text, str)} \
        if isinstance(files, dict) else {}
    return _Record(created, [item for item in made if isinstance(item, str)] if isinstance(made, list) else [], files)


def _save(env: Mapping[str, str] | None, created: set[str], files: dict[str, str | None]) -> None:
    path = _record_path(env)
    previous = _read(env)
    data_dirs = previous.data_dirs
    if not created and not files:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        _remove_data_dirs(data_dirs, data_dir(env))
        return
    root = data_dir(env)
    if not previous.created and not previous.files and not os.path.isdir(root):
        data_dirs = _missing(root)  # made for this record alone: it takes them away again
    make_private_dirs(root)
    temp = f"{path}.{os.getpid()}.tmp"
    with os.fdopen(open_private(temp), "w", encoding="utf-8") as handle:
        json.dump({"created": sorted(created), "data_dirs": data_dirs, "files": files}, handle, indent=2)
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
