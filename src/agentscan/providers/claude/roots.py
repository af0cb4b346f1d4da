"""Where Claude Code keeps its transcripts, and which setting chose each place.

Besides Claude Code's own ``projects/`` dirs, Claude Desktop's Cowork sessions
(docs/providers/claude.md): each Cowork session runs Claude Code in a folder of its
own, ``<Claude Desktop's data>/local-agent-mode-sessions/<account>/<workspace>/local_<id>/``,
whose ``.claude/projects/`` holds transcripts of the same schema.  Claude Desktop's data is
``~/Library/Application Support/Claude`` on macOS and ``%APPDATA%\\Claude`` on Windows (the
Microsoft Store build's ``%LOCALAPPDATA%\\Packages\\Claude_<id>\\LocalCache\\Roaming\\Claude``).
Each such ``projects/`` is a root of its own, so that discovery, the census and the
subagents' layout are the same as under ``~/.claude/projects``; the rest of a Cowork
folder (the files its VM made) is never walked.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from agentscan.context import ScanContext
from agentscan.toolkit.roots import Root, home_relative, platform_dir, setting_paths


def claude_roots(ctx: ScanContext) -> list[Root]:
    """Claude Code's ``projects/`` dirs, per the contract.

    ``CLAUDE_CONFIG_DIR`` replaces the defaults; each comma-separated entry may
    name a config dir or its ``projects/`` dir directly.  As with ``CODEX_HOME``,
    ``~`` is the scan's home and a relative entry is ignored (``setting_paths``);
    with none left the defaults stand, carrying the note.  The defaults are
    ``~/.claude/projects``, ``$XDG_CONFIG_HOME/claude/projects`` (else
    ``~/.config/claude/projects``) and Claude Desktop's Cowork sessions (``cowork_roots``).
    """
    configured, note = setting_paths(ctx, "CLAUDE_CONFIG_DIR")
    if configured:
        roots: list[Root] = []
        for entry in configured:
            path = entry if entry.name == "projects" else entry / "projects"
            roots.append(Root("claude", path, "CLAUDE_CONFIG_DIR", explicit=True, note=note, entry=entry))
        return _unique(roots)
    # Under ``--home DIR``, an XDG_CONFIG_HOME inside the login's own home is read inside DIR
    # (``platform_dir``): a copied home's ``~/.config/claude`` is its, not this machine's.
    ignored: list[str] = []  # a relative XDG_CONFIG_HOME, said on the root it leaves to its default
    xdg = platform_dir(ctx, "XDG_CONFIG_HOME", ignored)
    xdg_root = (
        Root("claude", xdg[0] / "claude" / "projects", xdg[1], note="; ".join(filter(None, (note, xdg[2]))) or None)
        if xdg
        else Root("claude", home_relative(ctx, ".config", "claude", "projects"), ctx.home_source,
                  note="; ".join(filter(None, (note, *ignored))) or None)
    )
    own = [Root("claude", home_relative(ctx, ".claude", "projects"), ctx.home_source, note=note), xdg_root]
    # One folder named twice (APPDATA naming macOS's folder, a link) is one root: its sessions once.
    return _unique(own + cowork_roots(ctx, note), ctx)


#: Claude Desktop's Cowork sessions, under the home (macOS)
COWORK_SESSIONS = ("Library", "Application Support", "Claude", "local-agent-mode-sessions")
#: the same below ``%APPDATA%`` (Windows; ``AppData/Roaming`` of the home without it)
COWORK_APPDATA = ("Claude", "local-agent-mode-sessions")
#: the same for the Microsoft Store (MSIX) build, whose ``%APPDATA%`` is redirected into its
#: package, ``%LOCALAPPDATA%\\Packages\\Claude_<publisher id>`` (rajbos/ai-engineering-fluency
#: PR 572 found Cowork's sessions in ``Claude_pzs8sxrjxfjjc``): every ``Claude_*`` package is looked in
COWORK_PACKAGE = "Claude_"
COWORK_STORE = ("LocalCache", "Roaming", "Claude", "local-agent-mode-sessions")
#: a Cowork session's own folder is named ``local_<id>``
_COWORK_FOLDER = "local_"
#: how deep below ``local-agent-mode-sessions`` a session folder is looked for: it is found
#: at the third level (account, workspace, session); a level more for a layout that adds one
_COWORK_DEPTH = 4
#: directory entries a look for Cowork folders reads at most, files too (a hostile or mistaken tree)
_COWORK_ENTRIES = 50_000
COWORK_NOTE = "Claude Desktop's Cowork sessions (a root per Cowork session)"
_MEMO = "claude.cowork_roots"
#: each root folder's resolved path, once a scan (``_unique``)
_CANONICAL = "claude.canonical_roots"


def cowork_roots(ctx: ScanContext, note: str | None = None) -> list[Root]:
    """The ``.claude/projects`` dir of each Cowork session folder (``local_*``) found below
    each ``local-agent-mode-sessions`` (``_cowork_bases``), in name order; where there is no
    such folder, that folder itself on the system Claude Desktop keeps it on (macOS's on macOS,
    Windows' on Windows), so that ``doctor`` says where Cowork's sessions would be (missing:
    nothing under it is walked).  One system call for each place that does not exist, as on
    any machine without Claude Desktop; found once per scan (``roots`` is asked often)."""
    kept = ctx.memo.get(_MEMO)
    if kept is None:
        kept = ctx.memo[_MEMO] = []
        for base, source, native, moved in _cowork_bases(ctx):
            found = _cowork_projects(str(base), ctx)
            # Missing, it is said where it would be only where Claude Desktop keeps it (macOS's
            # on macOS, Windows's on Windows): elsewhere a doctor's line about it is noise.
            missing = [(base, source, moved)] if native and sys.platform == native else []
            kept.extend([(Path(path), source, moved) for path in found] if found is not None else missing)
    return [Root("claude", path, source, note="; ".join(filter(None, (note, moved, COWORK_NOTE))))
            for path, source, moved in kept]


def _cowork_bases(ctx: ScanContext) -> list[tuple[Path, str, str | None, str | None]]:
    """Where Claude Desktop keeps Cowork's sessions: (the folder, what chose it, the platform
    whose doctor names it when it is missing, the note on the platform variable that placed
    it: one ``--home`` moved, or a relative one ignored).  Each place is looked at on every
    platform (a home copied from another machine holds that machine's), one system call where
    it is not; the Store build's packages folder is listed once for its ``Claude_*`` packages."""
    notes: list[str] = []
    appdata = platform_dir(ctx, "APPDATA", notes)
    roaming = appdata[0] if appdata else home_relative(ctx, "AppData", "Roaming")
    moved = "; ".join(filter(None, (appdata[2] if appdata else None, *notes))) or None
    bases: list[tuple[Path, str, str | None, str | None]] = [
        (home_relative(ctx, *COWORK_SESSIONS), ctx.home_source, "darwin", None),
        (roaming.joinpath(*COWORK_APPDATA), appdata[1] if appdata else ctx.home_source, "win32", moved),
    ]
    notes = []
    local = platform_dir(ctx, "LOCALAPPDATA", notes)
    packages = (local[0] if local else home_relative(ctx, "AppData", "Local")) / "Packages"
    moved = "; ".join(filter(None, (local[2] if local else None, *notes))) or None
    source = local[1] if local else ctx.home_source
    bases += [(packages / name / Path(*COWORK_STORE), source, None, moved) for name in _store_packages(packages)]
    return bases


def _store_packages(packages: Path) -> list[str]:
    """The Claude Desktop packages (``Claude_*``) of a Store packages folder, in name order;
    none when it cannot be listed (one system call where it is not: any machine but Windows)."""
    try:
        with os.scandir(packages) as entries:
            return sorted(entry.name for entry in entries
                          if entry.name.startswith(COWORK_PACKAGE) and entry.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _cowork_projects(base: str, ctx: ScanContext) -> list[str] | None:
    """The ``projects`` dirs of the Cowork folders below ``base``, in name order; ``None``
    when ``base`` cannot be listed (not there: the one system call a machine without Cowork
    pays).  Symlinks are not followed, ``.claude`` and ``projects`` included: a link there
    would make a root of any folder (discovery follows one only into a root)."""
    found: list[str] = []
    level, budget = [base], _COWORK_ENTRIES
    for depth in range(_COWORK_DEPTH):
        below: list[str] = []
        for folder in level:
            listed: list[tuple[str, str]] = []
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:  # counted as read: a folder of millions is not held whole
                        budget -= 1
                        if budget < 0:
                            break
                        if entry.is_dir(follow_symlinks=False):
                            listed.append((entry.name, entry.path))
            except OSError:
                if depth == 0:
                    return None
                continue  # unreadable: what it holds is not known
            for name, path in sorted(listed):
                if not name.startswith(_COWORK_FOLDER):
                    below.append(path)  # an account or a workspace: looked into
                elif _real_dir(os.path.join(path, ".claude")) and _real_dir(projects := os.path.join(path, ".claude", "projects")):
                    found.append(projects)
            if budget < 0:
                ctx.warn(base, f"more than {_COWORK_ENTRIES:,} entries under it: Cowork sessions past them "
                               "were not looked for")
                return sorted(found)
        level = below
    return sorted(found)


def _real_dir(path: str) -> bool:
    """Whether ``path`` is a directory and not a link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _unique(roots: list[Root], ctx: ScanContext | None = None) -> list[Root]:
    """``roots`` less any naming a folder one before it names; with ``ctx``, each folder resolved
    once a scan (``roots`` is asked several times a run, and a Cowork user's session folders
    are many: a ``resolve`` is several system calls)."""
    known: dict[Path, Path] = {} if ctx is None else ctx.memo.setdefault(_CANONICAL, {})
    seen: set[Path] = set()
    result = []
    for root in roots:
        key = known.get(root.path)
        if key is None:
            key = known[root.path] = _canonical(root.path)
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
