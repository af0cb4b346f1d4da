"""Where Gemini CLI keeps its chats, and which setting chose each place.

Gemini CLI writes under ``$GEMINI_CLI_HOME/.gemini`` (``~/.gemini`` when
unset): chats in ``tmp/<projectId>/chats/`` and the slug registry in
``projects.json``.  ``GEMINI_DATA_DIR`` (ccusage's convention, also honoured
here) names a ``tmp`` dir directly, and may be a comma-separated list.
"""

from __future__ import annotations

from pathlib import Path

from agentscan.context import ScanContext
from agentscan.toolkit.roots import Root, split_env_list

PROVIDER = "gemini"


def _expand(ctx: ScanContext, value: str) -> Path:
    # Path.expanduser would read os.environ; the scan's home is the only home.
    if value == "~" or value.startswith(("~/", "~\\")):
        return ctx.home / value[2:] if len(value) > 1 else ctx.home
    return Path(value)


def gemini_dir(ctx: ScanContext) -> tuple[Path, str]:
    """The ``.gemini`` dir and what chose it."""
    configured = ctx.env_value("GEMINI_CLI_HOME")
    if configured:
        return _expand(ctx, configured) / ".gemini", "GEMINI_CLI_HOME"
    return ctx.home / ".gemini", ctx.home_source


def gemini_roots(ctx: ScanContext) -> list[Root]:
    """Session roots (``tmp`` dirs), then the ``projects.json`` files that name projects."""
    base, base_source = gemini_dir(ctx)
    roots: list[Root] = []
    data_dirs = ctx.env_value("GEMINI_DATA_DIR")
    if data_dirs:
        for entry in split_env_list(data_dirs):
            roots.append(Root(PROVIDER, _expand(ctx, entry), "GEMINI_DATA_DIR", explicit=True))
    else:
        roots.append(Root(PROVIDER, base / "tmp", base_source, explicit=base_source == "GEMINI_CLI_HOME"))
    registries = [(base / "projects.json", base_source)]
    # A named tmp dir usually sits in its own .gemini dir, with its registry beside it.
    registries.extend((root.path.parent / "projects.json", root.source) for root in roots)
    seen: set[Path] = set()
    for registry, source in registries:
        if registry in seen:
            continue
        seen.add(registry)
        roots.append(Root(PROVIDER, registry, source, kind="index", note="project slug registry"))
    return roots


def session_roots(roots: list[Root]) -> list[Root]:
    return [root for root in roots if root.kind == "sessions"]


def registry_files(roots: list[Root]) -> list[Path]:
    return [root.path for root in roots if root.kind == "index"]
