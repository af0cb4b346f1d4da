"""On WSL, the agents' folders on the Windows side, for ``doctor`` to point at.

A developer on WSL often runs an agent on both sides: Claude Code in the Linux shell
(``~/.claude``) and Cursor, or another Claude Code, on Windows (``C:\\Users\\me\\.cursor``,
seen here as ``/mnt/c/Users/me/.cursor``).  agentscan reads one home at a time, the
Linux one by default; the Windows one is read with ``--home /mnt/c/Users/me`` (Cursor's
Windows state database is found there, under ``AppData``, as on Windows).  Without being
told, a user sees half their sessions and no reason: ``doctor`` names the Windows homes
that hold an agent's folder, and the command that reads them.  Never read otherwise:
the sessions stay where ``--home`` puts them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

#: where WSL mounts the Windows system drive's user folders
WINDOWS_USERS = Path("/mnt/c/Users")
#: the folders that tell an agent ran there, and the provider each is
AGENT_FOLDERS = ((".claude/projects", "claude"), (".codex/sessions", "codex"), (".gemini/tmp", "gemini"),
                 (".cursor/projects", "cursor"), ("AppData/Roaming/Cursor", "cursor"))
# (the folders their sessions are in: a profile with only an agent's settings has none)
#: Windows' own profiles, no person's
_NOT_PEOPLE = frozenset({"all users", "default", "default user", "public", "wsldefault"})
#: a drive with more profiles than this is no one's laptop: not listed past it
MAX_PROFILES = 64


def on_wsl(env: Mapping[str, str] | None = None) -> bool:
    """Whether this is Linux under WSL: WSL sets ``WSL_DISTRO_NAME`` in every shell; its
    kernel names Microsoft in its release (a ``sudo -i`` shell drops the variable)."""
    env = os.environ if env is None else env
    if env.get("WSL_DISTRO_NAME"):
        return True
    try:
        with open("/proc/sys/kernel/osrelease", "rb") as release:
            return b"microsoft" in release.read(256).lower()
    except OSError:
        return False


def windows_homes(users: Path | None = None) -> list[dict[str, object]]:
    """``[{"home": "/mnt/c/Users/me", "providers": ["claude", "cursor"]}]``: each Windows
    profile under ``users`` holding an agent's folder, in name order; ``[]`` when there
    is none or the drive is not mounted.  ``users``: default ``WINDOWS_USERS``."""
    try:
        with os.scandir(users or WINDOWS_USERS) as entries:
            profiles = sorted(entry.path for entry in entries
                              if entry.name.casefold() not in _NOT_PEOPLE and entry.is_dir(follow_symlinks=False))
    except OSError:
        return []
    found: list[dict[str, object]] = []
    for profile in profiles[:MAX_PROFILES]:
        providers: list[str] = []
        for folder, provider in AGENT_FOLDERS:
            if provider not in providers and os.path.isdir(os.path.join(profile, folder)):
                providers.append(provider)
        if providers:
            found.append({"home": profile, "providers": providers})
    return found
