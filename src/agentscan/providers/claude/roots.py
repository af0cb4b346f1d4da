"""Where Claude Code keeps its transcripts, and which setting chose each place."""

from __future__ import annotations

from pathlib import Path

from agentscan.context import ScanContext
from agentscan.toolkit.roots import Root, home_relative, platform_dir, setting_paths


def claude_roots(ctx: ScanContext) -> list[Root]:
    """Claude Code's ``projects/`` dirs, per the contract.

    ``CLAUDE_CONFIG_DIR`` replaces the defaults; each comma-separated entry may
    name a config dir or its ``projects/`` dir directly.  As with ``CODEX_HOME``,
    ``~`` is the scan's home and a relative entry is ignored (``setting_paths``);
    with none left the defaults stand, carrying the note.
    """
    configured, note = setting_paths(ctx, "CLAUDE_CONFIG_DIR")
    if configured:
        roots: list[Root] = []
        for path in configured:
            if path.name != "projects":
                path = path / "projects"
            roots.append(Root("claude", path, "CLAUDE_CONFIG_DIR", explicit=True, note=note))
        return _unique(roots)
    # Under ``--home DIR``, an XDG_CONFIG_HOME inside the login's own home is read inside DIR
    # (``platform_dir``): a copied home's ``~/.config/claude`` is its, not this machine's.
    xdg = platform_dir(ctx, "XDG_CONFIG_HOME")
    xdg_root = (
        Root("claude", xdg[0] / "claude" / "projects", xdg[1], note="; ".join(filter(None, (note, xdg[2]))) or None)
        if xdg
        else Root("claude", home_relative(ctx, ".config", "claude", "projects"), ctx.home_source, note=note)
    )
    return _unique([Root("claude", home_relative(ctx, ".claude", "projects"), ctx.home_source, note=note), xdg_root])


def _unique(roots: list[Root]) -> list[Root]:
    seen: set[Path] = set()
    result = []
    for root in roots:
        key = _canonical(root.path)
        if key in seen:
            continue
        seen.add(key)
        result.append(root)
    return result


def _canonical(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
