"""The folders that are an agent's own (``Provider.own_folders``' default), inside which
agentscan writes nothing (``export.ownfolders``): the roots, the folders discovery reads,
and the folder holding each, bounded by the home and by what an env var names.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agentscan.toolkit.paths import is_within
from agentscan.toolkit.roots import setting_paths

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.providers.base import Provider


def default_own_folders(provider: Provider, ctx: ScanContext) -> list[Path]:
    """``Provider.own_folders`` as its docstring tells it (every built-in provider's)."""
    home = os.path.realpath(ctx.home)
    folders: list[Path] = []
    named: dict[str, list[str]] = {}
    places = [(root.path, root.source) for root in provider.roots(ctx)]
    rooted = {path for path, _ in places}
    places += [(path, "") for path in provider.confinement_roots(ctx) if path not in rooted]
    for place, source in places:
        if place not in folders:
            folders.append(place)
        folder = place.parent
        if folder == place or is_within(home, os.path.realpath(folder)):
            continue
        if source.isupper() and source != "HOME":  # an env var's name (``Root.source``)
            if source not in named:
                named[source] = [os.path.realpath(path) for path in setting_paths(ctx, source)[0]]
            if not any(is_within(os.path.realpath(folder), bound) for bound in named[source]):
                continue
        if folder not in folders:
            folders.append(folder)
    return folders
