"""The other hook configs an agent reads beside the one ``hooks install`` writes to, judged for
its warnings (``cli.hooks_text``): which of them run agentscan's hook too (``installed_elsewhere``:
the agent runs the hooks of all of them, so each event can be captured twice), and which turn
Claude Code's hooks off (``hooks_disabled``).  Read-only: each is parsed, never changed; one
that cannot be read is not reported (these are warnings, the install is what has to be right).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from agentscan.errors import HookConfigError
from agentscan.hooks.configjson import as_agents_read, parse
from agentscan.hooks.install import config_path, read_config, uninstall_paths
from agentscan.hooks.ourentries import events_with_ours, ours_by_event
from agentscan.toolkit.fsutil import read_regular_text

if TYPE_CHECKING:
    from agentscan.hooks.geminionce import SettingsFiles


@dataclass(frozen=True)
class Elsewhere:
    """Another config the agent reads beside the one installed to, which runs our hook too:
    the agent runs the hooks of all of them, so each event can be captured twice."""

    path: Path
    scope: str  # the ``--scope`` whose uninstall cleans it
    events: int  # how many events there run agentscan's hook
    #: why its entry is removed by hand, not by that uninstall (``HookConfigError.unwritten``: comments
    #: in a Gemini CLI file, a key twice), and the entry's command, to name it
    by_hand: str | None = None
    command: str = ""


def installed_elsewhere(agent: str, scope: str, *, home: Path, cwd: Path, env: Mapping[str, str] | None = None,
                        files: SettingsFiles | None = None) -> list[Elsewhere]:
    """The user config when installing in a project, the current project's when installing for the
    user (and for Claude, a project's shared settings.json an older agentscan wrote to; for Gemini
    CLI, its system defaults and system settings, an administrator's), each as the agent reads it.  ``files``: Gemini CLI's read as it reads them, each once (the caller
    judges them next)."""
    other = "project" if scope == "user" else "user"
    others = _user_paths(agent, home, cwd, env) if other == "user" else uninstall_paths(agent, other, home=home, cwd=cwd)
    candidates = [(path, other) for path in others]
    if agent == "claude" and scope == "project":
        candidates.append((cwd / ".claude" / "settings.json", "project"))
    if agent == "gemini":  # (an administrator's, which Gemini CLI merges under and over the others)
        from agentscan.hooks.geminionce import system_files

        candidates += system_files(env)
    # The same file twice (a project that is the home itself) is not a second registration.
    seen = {os.path.realpath(config_path(agent, scope, home=home, cwd=cwd, env=env))}
    found = []
    for path, where in candidates:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        found += _entries_there(agent, path, where, files)
    return found


def _entries_there(agent: str, path: Path, where: str, files: SettingsFiles | None) -> list[Elsewhere]:
    """agentscan's entries in one other config; of one an install refuses but the agent reads
    (comments in Gemini CLI's, a key twice: the last is read) too: they run all the same, and are
    removed by hand.  Gemini CLI's files read once (``files``, ``as_read``)."""
    from agentscan.hooks.geminionce import SYSTEM, SYSTEM_DEFAULTS, administrators

    try:
        text = files.text(path) if agent == "gemini" and files is not None else read_regular_text(path)
    except (OSError, UnicodeDecodeError):  # (a missing file holds none)
        return []
    refusal = None
    try:
        parsed = files.parsed(path) if agent == "gemini" and files is not None else parse(path, text, agent)
        if where not in (SYSTEM, SYSTEM_DEFAULTS):
            # (as Gemini CLI runs it: an object there one more matcher group, ``SettingsFiles.as_run``)
            events = events_with_ours(agent, files.as_run(path, parsed) if agent == "gemini" and files else parsed)
            return [Elsewhere(path, where, len(events))] if events else []
    except HookConfigError as exc:  # refused by an install: read as the agent reads it (or not)
        refusal = exc
    try:
        config = files.as_read(path) if agent == "gemini" and files is not None else as_agents_read(text)
    except ValueError:  # (no JSON to the agent either: its hooks do not run)
        return []
    if agent == "gemini" and files is not None:
        config = files.as_run(path, config)
    ours = ours_by_event(agent, config) if isinstance(config, dict) else []  # (not ``Unjudged``)
    why = administrators(where) if where in (SYSTEM, SYSTEM_DEFAULTS) else \
        (refusal.unwritten if refusal is not None else None) or "agentscan cannot write it back"
    return [Elsewhere(path, where, len(ours), why, str(ours[0].command))] if ours else []


def hooks_disabled(*, home: Path, cwd: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """The Claude settings files (the user's, this project's two) that set ``"disableAllHooks":
    true``: Claude Code then runs no hook at all, agentscan's neither.  One that cannot be
    read or parsed is left out (this is a warning)."""
    found: list[Path] = []
    for path in (*_user_paths("claude", home, cwd, env), *uninstall_paths("claude", "project", home=home, cwd=cwd)):
        try:
            text = read_config(path)
            # (as Claude Code reads it: a key twice, which an install refuses, is the last one)
            config = as_agents_read(text) if text is not None and text.strip() else {}
        except (HookConfigError, ValueError):
            continue
        if isinstance(config, dict) and config.get("disableAllHooks") is True and path not in found:
            found.append(path)
    return found


def _user_paths(agent: str, home: Path, cwd: Path, env: Mapping[str, str] | None) -> list[Path]:
    """The user's config, or none when ``CLAUDE_CONFIG_DIR`` names no place an install takes
    (a warning about that file has nothing to look at)."""
    try:
        return [config_path(agent, "user", home=home, cwd=cwd, env=env)]
    except HookConfigError:
        return []
