"""Where Codex keeps its files, and which setting chose each place.

``CODEX_HOME`` (a comma-separated list) replaces ``~/.codex`` but only its
absolute entries are used: Codex resolves a relative one against whatever
directory it was started in, so we cannot know which directory was meant.
A relative entry is ignored with a warning and a ``Root.note`` for doctor; a
leading ``~`` is the scan's home (``toolkit.roots.setting_paths``).
``CODEX_SQLITE_HOME`` moves the thread index (``state_<n>.sqlite``) and
follows the same rule.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from agentscan.context import ScanContext
from agentscan.toolkit.roots import Root, setting_paths

PROVIDER = "codex"
SESSION_DIRS = ("sessions", "archived_sessions")
#: thread names, beside ``sessions/`` (``names``)
SESSION_INDEX = "session_index.jsonl"
_STATE_DB = re.compile(r"^state_(\d+)\.sqlite$")
#: the place of a thread index not found: what is looked for, not a file name made up (doctor prints
#: it).  One that appears later still ends a remembered discovery: the roots and their notes change
#: with it (``scan.memo``; tests/test_doctor_pass28.py).
STATE_DB_PATTERN = "state_*.sqlite"


class _Setting(NamedTuple):
    """The places one setting chose (a NamedTuple: every run creates this class, and a
    dataclass costs about a millisecond to create, ten times as much)."""

    paths: tuple[Path, ...]
    source: str
    explicit: bool
    note: str | None


def _homes(ctx: ScanContext) -> _Setting:
    homes, note = setting_paths(ctx, "CODEX_HOME")
    if homes:
        return _Setting(tuple(_unique(homes)), "CODEX_HOME", True, note)
    return _Setting((ctx.home / ".codex",), ctx.home_source, False, note)


def _generation(name: str) -> int | None:
    match = _STATE_DB.match(name)
    return int(match.group(1)) if match else None


def state_dbs(directory: Path) -> list[Path]:
    """The generations of ``state_<n>.sqlite`` in ``directory``, newest first; never hard-code 5."""
    return _listed_state_dbs(directory) or []


def _listed_state_dbs(directory: Path) -> list[Path] | None:
    """``state_dbs``, or ``None`` when ``directory`` cannot be listed (missing, not a directory,
    no permission): a folder listed that holds none yet is not an unreadable one."""
    found: list[tuple[int, Path]] = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                generation = _generation(entry.name)
                if generation is not None:
                    found.append((generation, Path(entry.path)))
    except OSError:
        return None
    return [path for _, path in sorted(found, key=lambda pair: pair[0], reverse=True)]


def older_state_dbs(database: Path) -> list[Path]:
    """The generations older than ``database`` beside it, newest first: what the thread index
    falls back to when the newest cannot be read (``index.load_index``)."""
    generation = _generation(database.name)
    if generation is None:
        return []
    return [path for path in state_dbs(database.parent) if (_generation(path.name) or 0) < generation]


def codex_roots(ctx: ScanContext) -> list[Root]:
    """Session trees (active and archived) of every Codex home, then the thread index(es)."""
    homes = _homes(ctx)
    roots = [
        Root(PROVIDER, home / sub, homes.source, "sessions", homes.explicit, homes.note, home if homes.explicit else None)
        for home in homes.paths
        for sub in SESSION_DIRS
    ]
    db_dirs, db_note = setting_paths(ctx, "CODEX_SQLITE_HOME")
    if db_dirs:
        db_setting = _Setting(tuple(_unique(db_dirs)), "CODEX_SQLITE_HOME", True, db_note)
    else:
        db_setting = _Setting(homes.paths, homes.source, homes.explicit, db_note or homes.note)
    for directory in db_setting.paths:
        listed = _listed_state_dbs(directory)
        found = listed[0] if listed else None
        note = db_setting.note
        explicit = db_setting.explicit
        if found is None and (listed is not None or not explicit):
            # Not of a folder named on purpose that is not there (``CODEX_HOME=/missing``): this
            # read as all was well, beside a status of ``folder does not exist`` that fails the run.
            note = "; ".join(filter(None, [note, f"no {STATE_DB_PATTERN} in {directory} (Codex's index of its "
                                                 "sessions; older versions write none): sessions are found from "
                                                 "their rollout-*.jsonl files alone"]))
        if found is None:
            # A folder named on purpose that can be listed but holds no database yet (a fresh
            # CODEX_SQLITE_HOME) is no error: there is nothing unread.  One missing or unlistable
            # still is, as any explicitly named root (docs/cli.md, exit codes).
            explicit = explicit and listed is None
        path = found or directory / STATE_DB_PATTERN
        roots.append(Root(PROVIDER, path, db_setting.source, "database", explicit, note, directory if explicit else None))
    return roots


def session_roots(roots: list[Root]) -> list[Root]:
    return [root for root in roots if root.kind == "sessions"]


def session_index_paths(roots: list[Root]) -> list[Path]:
    """Each Codex home's ``session_index.jsonl`` (thread names, ``names``): beside its
    ``sessions/`` (``CODEX_SQLITE_HOME`` moves only the databases)."""
    return _unique([root.path.parent / SESSION_INDEX for root in session_roots(roots)])


def database_roots(roots: list[Root]) -> list[Root]:
    return [root for root in roots if root.kind == "database"]


def in_archived_sessions(path: Path) -> bool:
    """Whether the rollout ``path`` is in an ``archived_sessions/`` tree, at any depth (flat, as
    Codex moves it there, or by date, ``YYYY/MM/DD/``): the nearest of its folders named
    ``sessions`` or ``archived_sessions`` is ``archived_sessions``.  The one rule of discovery
    (a walked file, one the index names) and of a ref the index remembered (``index.archived_at``):
    two rules had a warm windowed ``tokens`` drop the mark of a rollout filed by date."""
    place = session_place(str(path))
    return place is not None and place[0] == SESSION_DIRS[1]


def session_place(path: str) -> tuple[str, ...] | None:
    """``path``'s parts from its last ``sessions``/``archived_sessions`` folder on (a Windows
    path as a Windows home's index writes it too: ``C:\\Users\\…``), ``None`` outside one:
    where a rollout is filed, whatever home holds it (``index.names_file``)."""
    parts = tuple(re.split(r"[\\/]+", path))
    for at in range(len(parts) - 2, -1, -1):
        if parts[at] in SESSION_DIRS:
            return parts[at:]
    return None


def _unique(paths: list[Path]) -> list[Path]:
    seen: set[str] = set()
    result = []
    for path in paths:
        key = os.path.normcase(os.path.normpath(str(path)))
        if key not in seen:
            seen.add(key)
            result.append(path)
    return result
