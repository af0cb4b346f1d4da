"""Where Gemini CLI keeps its chats, and which setting chose each place.

Gemini CLI writes under ``$GEMINI_CLI_HOME/.gemini`` (``~/.gemini`` when
unset): chats in ``tmp/<projectId>/chats/`` and the slug registry in
``projects.json``.  ``GEMINI_DATA_DIR`` (ccusage's convention, also honoured
here) names a ``tmp`` dir directly, and may be a comma-separated list.
In both, ``~`` is the scan's home and a relative entry is ignored, as for
every provider's settings (``toolkit.roots.setting_paths``).
"""

from __future__ import annotations

from pathlib import Path

from agentscan.context import ScanContext
from agentscan.toolkit.roots import Root, setting_paths

PROVIDER = "gemini"
#: what ``projects.json`` is, for doctor (Gemini CLI's own name for it is no help to a user)
REGISTRY_NOTE = ("Gemini CLI's list of project folders, each with the short name its chats are kept under; "
                 "used only to find a chat's working directory")


def gemini_dir(ctx: ScanContext) -> tuple[Path, str, str | None]:
    """The ``.gemini`` dir, what chose it, and a note on a setting ignored (one dir, not a list)."""
    configured, note = setting_paths(ctx, "GEMINI_CLI_HOME", listed=False)
    if configured:
        return configured[0] / ".gemini", "GEMINI_CLI_HOME", note
    return ctx.home / ".gemini", ctx.home_source, note


def gemini_roots(ctx: ScanContext) -> list[Root]:
    """Session roots (``tmp`` dirs), then the ``projects.json`` files that name projects."""
    base, base_source, base_note = gemini_dir(ctx)
    data_dirs, data_note = setting_paths(ctx, "GEMINI_DATA_DIR")
    # A relative entry ignored is said on the session roots built instead, for doctor.
    note = "; ".join(filter(None, [base_note, data_note])) or None
    roots: list[Root] = []
    if data_dirs:
        roots.extend(Root(PROVIDER, entry, "GEMINI_DATA_DIR", explicit=True, note=note, entry=entry) for entry in data_dirs)
    else:
        explicit = base_source == "GEMINI_CLI_HOME"
        roots.append(Root(PROVIDER, base / "tmp", base_source, explicit=explicit, note=note,
                          entry=base.parent if explicit else None))
    registries = [(base / "projects.json", base_source)]
    # A named tmp dir usually sits in its own .gemini dir, with its registry beside it.
    registries.extend((root.path.parent / "projects.json", root.source) for root in roots)
    seen: set[Path] = set()
    for registry, source in registries:
        if registry in seen:
            continue
        seen.add(registry)
        roots.append(Root(PROVIDER, registry, source, kind="index", note=REGISTRY_NOTE))
    return roots


def session_roots(roots: list[Root]) -> list[Root]:
    return [root for root in roots if root.kind == "sessions"]


def registry_files(roots: list[Root]) -> list[Path]:
    return [root.path for root in roots if root.kind == "index"]
