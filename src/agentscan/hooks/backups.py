"""The copy of an agent's config as it was, kept before ``hooks install``/``uninstall``
change it (``hooks.install``): beside it, or, for a project's, in agentscan's data directory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from agentscan.errors import HookConfigError

if TYPE_CHECKING:
    from agentscan.hooks.install import Plan


def backup(plan: Plan, *, now: float | None = None, into: Path | None = None) -> Path | None:
    """Keep the file as it was beside it, ``<name>.agentscan-<UTC time>.bak``, mode 0600
    (a file agentscan creates: docs/security.md); or in the directory ``into``, named
    also by the project it came from (``project_backups``).

    Nothing is kept for a file that did not exist, nor for one an uninstall
    removes because it held only agentscan's hooks.
    """
    import time

    from agentscan.filemodes import FILE_MODE

    if plan.before is None or plan.after is None:  # not ``plan.keeps_backup``: mypy narrows ``before`` here
        return None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    mode = FILE_MODE
    where = plan.path.parent if into is None else into
    name = plan.path.name if into is None else _project_name(plan.path)
    for attempt in range(100):
        suffix = f".agentscan-{stamp}" + (f"-{attempt}" if attempt else "") + ".bak"
        target = where / (name + suffix)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
        except FileExistsError:
            continue
        except OSError as exc:
            raise HookConfigError(f"cannot keep a backup of {plan.path} ({exc}); agentscan did not change it") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(plan.before)
        except OSError as exc:  # a full disk: no half backup left, and the config not touched
            target.unlink(missing_ok=True)
            raise HookConfigError(f"cannot keep a backup of {plan.path} ({exc}); agentscan did not change it") from None
        return target
    raise HookConfigError(f"cannot find a free backup name for {plan.path} in {where}")


def project_backups(env: Mapping[str, str] | None = None) -> Path:
    """Where a project config's backup goes: agentscan's data directory, not beside it.
    Beside it, in the project, nothing keeps it out of git (Claude Code ignores its own
    ``settings.local.json``, not the copy), and that file holds what is private to a machine.

    It creates the directory: call it only when a backup is to be kept (``Plan.keeps_backup``),
    or an install on a project with no config leaves an empty ``config-backups/`` behind."""
    from agentscan.datadir import data_dir
    from agentscan.hooks.store import make_private_dirs

    root = data_dir(env)
    try:
        make_private_dirs(root, "config-backups")
    except OSError as exc:  # AGENTSCAN_DATA_DIR under a file, a read-only disk
        raise HookConfigError(f"cannot keep a backup in {os.path.join(root, 'config-backups')} ({exc}); "
                              "agentscan changed nothing") from None
    return Path(root) / "config-backups"


def _project_name(path: Path) -> str:
    """``<project dir>-<8 hex of the config's path>-<file name>``: which project it came from."""
    from agentscan.digests import blake2b

    project = path.parent.parent  # <project>/.claude/settings.local.json, <project>/.cursor/hooks.json
    digest = blake2b(str(path.absolute()).encode("utf-8", "surrogateescape"), digest_size=4).hexdigest()
    return f"{project.name or 'root'}-{digest}-{path.name}"
