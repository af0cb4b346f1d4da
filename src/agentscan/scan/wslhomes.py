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
from typing import TYPE_CHECKING, Iterable, Mapping

if TYPE_CHECKING:
    from agentscan.providers.base import Provider

#: where WSL mounts the Windows system drive's user folders
WINDOWS_USERS = Path("/mnt/c/Users")
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


def windows_homes(users: Path | None = None, providers: Iterable[Provider] | None = None) -> list[dict[str, object]]:
    """``[{"home": "/mnt/c/Users/me", "providers": ["claude", "cursor"]}]``: each Windows
    profile under ``users`` holding an agent's folder, in name order; ``[]`` when there
    is none or the drive is not mounted.  ``users``: default ``WINDOWS_USERS``;
    ``providers``: default every registered one."""
    try:
        with os.scandir(users or WINDOWS_USERS) as entries:
            profiles = sorted(entry.path for entry in entries
                              if entry.name.casefold() not in _NOT_PEOPLE and entry.is_dir(follow_symlinks=False))
    except OSError:
        return []
    if providers is None:
        from agentscan.providers import iter_providers

        providers = iter_providers()
    chosen = list(providers)
    found: list[dict[str, object]] = []
    for profile in profiles[:MAX_PROFILES]:
        ran = [provider.name for provider in chosen if agent_folders(provider, profile)]
        if ran:
            found.append({"home": profile, "providers": ran})
    return found


def agent_folders(provider: Provider, profile: str) -> list[str]:
    """The places under ``profile`` where ``provider`` keeps its sessions (its roots, the
    same ``--home profile`` reads) that are there.  Asked of the provider, not copied
    here: a list kept apart missed ``.codex/archived_sessions``, ``.config/claude`` and
    ``.cursor/chats``, and would miss the next root a provider gains.  Its defaults:
    the Windows side's environment is not this shell's, so no variable of this one
    (``CODEX_HOME``, ``XDG_CONFIG_HOME``) moves them.  A few ``stat`` calls a profile."""
    from agentscan.context import ScanContext

    ctx = ScanContext(home=Path(profile), env={}, home_source="--home")
    try:
        roots = provider.roots(ctx)
    except Exception:  # noqa: BLE001 - a provider's bug costs this hint, never the doctor report
        return []
    return [str(root.path) for root in roots if _inside(str(root.path), profile) and os.path.exists(root.path)]


def _inside(path: str, profile: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(profile)]) == os.path.abspath(profile)
    except ValueError:  # another drive (Windows): not under it
        return False
