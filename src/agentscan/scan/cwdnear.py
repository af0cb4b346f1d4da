"""The project folders a ``--cwd`` that matched no session nearly names.

``--cwd weather`` typed for ``~/src/weather-app``, ``--cwd src/app`` typed from the wrong
folder (read as ``./src/app``), ``--cwd ~/src/wether-app``: nothing is under the folder
asked for, and "no sessions under it" alone sends the user guessing.  The folders offered
are the sessions' working directories and the folders above them (``--cwd src`` for
``~/src``), by the last part of the path asked for: the same name first (the more trailing
parts shared, the nearer), else a name it begins, else a name one slip away (a letter
changed, added or left out, two neighbours swapped).  Names are compared in any case: a
person types ``--cwd app`` for ``App``.  A folder ``--cwd`` itself takes in (the one asked
for, as its file system compares names: ``App`` is ``app`` on macOS, not on Linux) is never
offered: it holds no session, or the hint would not be asked.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, NamedTuple

#: a folder above a working directory is offered only this deep or deeper (``/home/me``,
#: not ``/home`` nor ``/``): a word that names ``/home`` names no project
_FEWEST_PARTS = 2

#: a name typed must be this long to be taken for the beginning of another (``--cwd we``
#: begins too many)
_SHORTEST_BEGINNING = 3

class NearFolder(NamedTuple):
    """A folder offered for a ``--cwd`` that matched nothing, with how many sessions ran at
    or below it."""

    path: str
    sessions: int


def nearly_named(asked: str, cwds: Iterable[str | None] | Counter[str], *, most: int = 3
                 ) -> tuple[list[NearFolder], int]:
    """The folders (at most ``most``) that ``asked`` (an absolute ``--cwd``) nearly names
    among ``cwds`` (each session's working directory, ``None``: none recorded; or a
    ``Counter`` of them, by sessions) and the folders above them, nearest first; and how
    many there were in all."""
    from agentscan.scan.cwdmatch import same_directory, under, wanted_forms
    from agentscan.toolkit.words import one_letter_off

    counted: Counter[str | None] | Counter[str] = cwds if isinstance(cwds, Counter) else Counter(cwds)
    # One directory spelled two ways (``c:/Users/me/App``, ``C:\\Users\\me\\App``) is one
    # folder, by the spelling met first, as ``tokens --by cwd`` makes one row of it.
    sessions: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for cwd, count in counted.items():
        if cwd:
            sessions[spelled.setdefault(same_directory(cwd), cwd)] += count
    below: Counter[str] = Counter()  # a folder -> the sessions at or below it
    for cwd, count in sessions.items():
        for folder in _self_and_above(cwd):
            below[folder] += count
    parts = _parts(asked)
    if not parts:
        return [], 0
    name = parts[-1].casefold()
    # Left out: only what ``--cwd`` takes in, as it compares (``App`` is another folder than
    # ``app`` on Linux, and offered for it).
    forms = wanted_forms(asked)
    names = {folder: _parts(folder) for folder in below if not under(folder, forms)}
    same = [folder for folder, folder_parts in names.items() if folder_parts[-1].casefold() == name]
    if same:
        # ``--cwd src/app`` from the wrong folder: the ``…/src/app`` before another ``…/app``
        found = sorted(same, key=lambda folder: (-_shared_tail(parts, names[folder]), -below[folder], folder))
    else:
        begun = [folder for folder, folder_parts in names.items()
                 if len(name) >= _SHORTEST_BEGINNING and folder_parts[-1].casefold().startswith(name)]
        found = sorted(begun, key=lambda folder: (-below[folder], folder))
        if not found:
            # one slip away (``projet-36``: ``project-36``, not ``project-3`` nor ``project-37``)
            found = sorted((folder for folder, folder_parts in names.items()
                            if one_letter_off(name, folder_parts[-1].casefold())),
                           key=lambda folder: (-below[folder], folder))
    return [NearFolder(folder, below[folder]) for folder in found[:most]], len(found)


def _self_and_above(cwd: str) -> list[str]:
    """``cwd`` and the folders above it, no higher than ``_FEWEST_PARTS`` parts deep."""
    import ntpath
    import posixpath

    from agentscan.scan.cwdmatch import is_windows_path

    path = ntpath if is_windows_path(cwd) else posixpath
    folders = [cwd.rstrip("/\\") or cwd]
    while True:
        above = path.dirname(folders[-1])
        if above == folders[-1] or len(_parts(above)) < _FEWEST_PARTS:
            return folders
        folders.append(above)


def _parts(path: str) -> list[str]:
    """A path's names, either separator, its drive (``C:``) left out."""
    if len(path) >= 2 and path[1] == ":":
        path = path[2:]
    return [part for part in path.replace("\\", "/").split("/") if part and part != "."]


def _shared_tail(asked: list[str], folder: list[str]) -> int:
    """How many trailing names ``folder`` shares with ``asked``, in any case."""
    shared = 0
    for mine, theirs in zip(reversed(asked), reversed(folder)):
        if mine.casefold() != theirs.casefold():
            break
        shared += 1
    return shared
