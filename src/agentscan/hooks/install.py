"""`agentscan hooks install|uninstall`: our command in an agent's hook config.

These config files are the only files agentscan writes outside its own
directories, so every change is a merge: other hooks are never touched,
re-installing changes nothing (and keeps what the user added to our command),
uninstalling removes only our entries, a file that is not valid JSON or would
not come back the same (duplicate keys, a number too large for a float) is
refused rather than replaced, and so is a read-only one.  The file as it was
is kept byte for byte in a timestamped backup (``hooks.backups``: beside it, a
project's in the data directory), and the new text, in the file's own
indentation, line endings and final newline (``hooks.configjson``), replaces
it atomically (``toolkit.atomicfile``) only if the agent has not written it
meanwhile.  An uninstall that leaves nothing but scaffolding (``{}``, an empty
``"hooks"``) removes the file only when an install created it, writes back the
very text of a file that held only that before the install, and otherwise keeps
it (``made_dirs`` records which); the directories an install had to create go
when empty.

Ours are recognised by their command: ``… agentscan hook --agent …``; an install
leaves one on each event, where it sees the whole event (``hooks.merging``), and
says which other config the agent also reads runs it too (``hooks.elsewhere``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from agentscan.errors import HookConfigError
from agentscan.hooks.backups import backup as backup
from agentscan.hooks.backups import project_backups as project_backups
from agentscan.hooks.configjson import TooDeep, copied, parse, render, too_deep
from agentscan.toolkit.fsutil import read_regular_text
from agentscan.hooks.events import CURSOR_EVENTS as _EVERY_CURSOR_EVENT
from agentscan.hooks.events import CURSOR_TAB_EVENTS as CURSOR_TAB_EVENTS
from agentscan.hooks.events import GEMINI_EVENTS as GEMINI_EVENTS
from agentscan.hooks.merging import TIMEOUT_SECONDS as TIMEOUT_SECONDS
from agentscan.hooks.merging import Replaced, merge_claude, merge_cursor
from agentscan.hooks.ourentries import is_ours as is_ours
from agentscan.hooks.program import hook_command as hook_command
from agentscan.hooks.program import shell_word as shell_word
from agentscan.toolkit.paths import under_home

#: the Cursor events an install registers, without matchers: every one but the Tab events, which
#: run on each Tab completion (a process start, ~30 ms) and hold nothing the tree reads
CURSOR_EVENTS = tuple(event for event in _EVERY_CURSOR_EVENT if event not in CURSOR_TAB_EVENTS)

#: Claude Code events an observer should register (docs/hooks.md, "The tree"): not WorktreeCreate
#: (its hook must answer with a path), not the high-volume MessageDisplay/FileChanged/
#: Elicitation*, not the unpublished model-switch events, not Setup (``claude --init`` and
#: maintenance runs: no session, nothing for the tree).  Notification (a permission prompt,
#: an idle prompt) is in the turn's tree.
CLAUDE_EVENTS = (
    "SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest",
    "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "SubagentStart",
    "SubagentStop", "Stop", "StopFailure", "PreCompact", "PostCompact", "InstructionsLoaded",
    "ConfigChange", "CwdChanged", "DirectoryAdded", "SessionEnd",
)
#: the events an install registers, by agent
AGENT_EVENTS = {"cursor": CURSOR_EVENTS, "claude": CLAUDE_EVENTS, "gemini": GEMINI_EVENTS}


@dataclass(frozen=True)
class Plan:
    path: Path
    before: str | None  # None when the file does not exist
    after: str | None  # None: remove the file (an uninstall emptied it)
    events: tuple[str, ...]  # the events whose entries change
    #: the file is laid out otherwise than JSON written in its own indentation (an inline
    #: list, ``"a":1``, ``1.50``, ``\u00e9``): the rewrite keeps its values, not those bytes
    relaid: bool = False
    added: tuple[str, ...] = ()  # install: the events that had no entry of ours
    #: install: the entries of ours it updated, widened or removed (``hooks.merging``)
    replaced: tuple[Replaced, ...] = ()
    install: bool = False
    #: install: the file is missing or holds only scaffolding, which the record keeps
    #: (``made_dirs.remember_config``) for the uninstall to give back
    remember: bool = False
    #: install: events no install registers now (Cursor's Tab events) it removed ours from
    dropped: tuple[str, ...] = ()
    #: uninstall: ``after`` is the file's text as it was before the first install
    restored: bool = False
    #: uninstall: only scaffolding is left in a file agentscan has no record of creating: kept
    kept_empty: bool = False

    @property
    def changed(self) -> bool:
        return self.before != self.after and bool(self.events)

    @property
    def keeps_backup(self) -> bool:
        """A file that exists and stays: the one change whose old text is kept (``hooks.backups``)."""
        return self.before is not None and self.after is not None

    @property
    def removes_file(self) -> bool:
        return self.after is None and self.before is not None

    def diff(self) -> str:
        import difflib

        old = (self.before or "").splitlines(keepends=True)
        lines = difflib.unified_diff(
            old, (self.after or "").splitlines(keepends=True),
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path) if self.after is not None else "/dev/null",
        )
        # A last line with no newline would run into the next one: mark it as diff(1) does.
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


#: what to tell the user once their agent's config changed
RESTART = {
    "cursor": "Restart Cursor so that it loads the changed hooks.",
    "claude": "Restart Claude Code: sessions already running keep the hooks they started with.",
    "gemini": "Start a new Gemini CLI session: one already running may keep the hooks it started with.",
}


#: Claude Code's own setting for where its user config lives (``~/.claude`` when unset)
CLAUDE_DIR_VAR = "CLAUDE_CONFIG_DIR"


def config_path(agent: str, scope: str, *, home: Path, cwd: Path, env: Mapping[str, str] | None = None) -> Path:
    """The file an install writes.  ``env``: where ``CLAUDE_CONFIG_DIR`` is read (``os.environ``
    when ``None``)."""
    if agent == "cursor":
        return (home if scope == "user" else cwd) / ".cursor" / "hooks.json"
    if agent == "gemini":  # its user settings, or the project's (in a folder Gemini CLI trusts)
        return (gemini_user_dir(home, env) if scope == "user" else cwd / ".gemini") / "settings.json"
    if scope == "user":
        return claude_user_dir(home, env) / "settings.json"
    # In a project, settings.local.json is the file Claude Code keeps out of git;
    # settings.json there is shared with everyone who clones the project.
    return cwd / ".claude" / "settings.local.json"


def claude_user_dir(home: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where Claude Code reads its user settings: ``$CLAUDE_CONFIG_DIR`` when set (one
    directory, as Claude Code takes it; a leading ``~`` is ``home``), else ``~/.claude``.
    A value Claude Code and agentscan could take for different places is refused."""
    # Claude Code takes a relative one from the directory it starts in, which agentscan cannot know.
    named = _named_dir(home, env, CLAUDE_DIR_VAR, "Claude Code reads it from the directory it is started in; ")
    if named is None:
        return home / ".claude"
    path, value = named
    if "," in value and not path.is_dir():
        # agentscan's readers take a comma-separated list; Claude Code takes one directory.
        raise HookConfigError(f"{CLAUDE_DIR_VAR} names several directories ({value}): Claude Code reads its "
                              f"settings from one; run the command with {CLAUDE_DIR_VAR} set to that one")
    return path


def gemini_user_dir(home: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where Gemini CLI keeps its user settings: ``$GEMINI_CLI_HOME/.gemini`` when set (as
    agentscan reads its sessions: ``providers/gemini/roots.py``), else ``~/.gemini``."""
    named = _named_dir(home, env, "GEMINI_CLI_HOME")
    return (home if named is None else named[0]) / ".gemini"


def _named_dir(home: Path, env: Mapping[str, str] | None, variable: str, why: str = "") -> tuple[Path, str] | None:
    """The directory an agent's ``variable`` names (``None``: unset or empty), a leading ``~``
    as ``home`` (``paths.under_home``), with the value as set; a relative one is refused
    (``why``: the agent's own reason, before what to do)."""
    value = (os.environ if env is None else env).get(variable) or ""
    if not value:
        return None
    path = under_home(home, value)
    if not path.is_absolute():
        raise HookConfigError(f"{variable} is a relative path ({value}): {why}set it to an absolute path, or unset it")
    return path, value


def uninstall_paths(agent: str, scope: str, *, home: Path, cwd: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """Every file an uninstall cleans: the one install writes, and the shared project
    settings an earlier agentscan wrote to (``.claude/settings.json``)."""
    paths = [config_path(agent, scope, home=home, cwd=cwd, env=env)]
    if agent == "claude" and scope == "project":
        paths.append(cwd / ".claude" / "settings.json")
    return paths


def plan(agent: str, path: Path, *, install: bool, command: str | None = None,
         wrapped: frozenset[str] = frozenset()) -> Plan:
    """``wrapped``: Gemini CLI's events where an object is one more matcher group (``merge_claude``)."""
    before = read_config(path)
    config = parse(path, before, agent, install=install, wrapped=wrapped)
    try:
        if agent == "cursor":
            merged = merge_cursor(path, copied(config), CURSOR_EVENTS, command if install else None)
            if install:  # an older install's entries on the Tab events go
                merged = merge_cursor(path, merged.config, CURSOR_TAB_EVENTS, None, into=merged)
        else:
            merged = merge_claude(path, copied(config), AGENT_EVENTS[agent], command if install else None, agent,
                                  wrapped)
        after: str | None = render(merged.config, before)
        relaid = before is not None and bool(before.strip()) and render(config, before) != before
    except TooDeep:  # (read, but too deep to copy or write back)
        raise too_deep(path) from None
    restored = kept_empty = False
    if not install and before is None:
        after = None
    elif not install and _only_scaffolding(agent, merged.config):
        from agentscan.hooks import made_dirs

        origin = made_dirs.config_origin(path)
        if origin is None and not path.is_symlink():  # a dotfile manager's link is emptied, never removed
            after = None
        elif isinstance(origin, str) and _scaffold(agent, parse(path, origin)) == _scaffold(agent, merged.config):
            after, restored = origin, True  # byte for byte: ``{}`` is not re-rendered as ``{"hooks": {}}``
        else:
            kept_empty = origin is made_dirs.UNKNOWN
    remember = install and (before is None or _only_scaffolding(agent, config))
    result = Plan(path=path, before=before, after=after, events=tuple(merged.events), relaid=relaid,
                  added=tuple(merged.added), replaced=tuple(merged.replaced), dropped=tuple(merged.dropped),
                  install=install,
                  remember=remember, restored=restored, kept_empty=kept_empty)
    if result.changed and before is not None:
        _check_writable(path)
    return result


def _check_writable(path: Path) -> None:
    """A config the user made read-only is one they want left alone: the rename would
    replace it all the same, so refuse (root's ``os.access`` is always true: the mode too)."""
    target = os.path.realpath(path)
    try:
        read_only = not os.stat(target).st_mode & 0o222 or not os.access(target, os.W_OK)
    except OSError:
        return  # gone since it was read: the write reports what it finds
    if read_only:
        raise HookConfigError(f"{path} is read-only; agentscan will not change it (make it writable first)")


def _only_scaffolding(agent: str, config: dict[str, Any]) -> bool:
    """Nothing but what install itself adds around the hooks: ``"hooks"`` with no entry
    (``{}``, or events with empty lists) and Cursor's ``version``."""
    hooks = config.get("hooks", {})
    empty_hooks = isinstance(hooks, dict) and all(value == [] for value in hooks.values())
    return empty_hooks and not set(config) - {"hooks", *(("version",) if agent == "cursor" else ())}


def _scaffold(agent: str, config: dict[str, Any]) -> Any:
    """What of a scaffolding-only config an uninstall must not undo: Cursor's ``version``
    (1, as an install adds it, when missing); a user who changed it since keeps theirs."""
    return config.get("version", 1) if agent == "cursor" else None


def write(plan: Plan) -> list[Path]:
    """Atomically replace the file (through a symlink, so dotfile managers keep their link),
    or remove it when the plan says so.

    A file that exists keeps its mode; a new one is 0600, in directories
    created 0700 and recorded (``made_dirs``), which an uninstall that
    removes the file removes too when they are empty.  Returns those removed.
    """
    try:
        return _write(plan)
    except OSError as exc:  # a full disk, a read-only directory: a message, not a traceback
        raise HookConfigError(f"cannot change {plan.path} ({exc})") from None


def _write(plan: Plan) -> list[Path]:
    from agentscan.filemodes import FILE_MODE
    from agentscan.hooks import made_dirs
    from agentscan.toolkit.atomicfile import atomic_write

    if plan.after is None:
        if plan.before is None:
            return []
        _unchanged_since_read(plan)
        os.unlink(plan.path)
        made_dirs.forget_config(plan.path)
        return made_dirs.remove_empty(plan.path.parent)
    target = Path(os.path.realpath(plan.path))
    made_dirs.make_parents(target.parent)
    try:
        mode = target.stat().st_mode & 0o7777  # a file that existed keeps its own
    except FileNotFoundError:
        mode = FILE_MODE
    after = plan.after.encode("utf-8")  # its line endings as ``render`` made them
    atomic_write(plan.path, lambda handle: handle.write(after), lambda: _unchanged_since_read(plan), mode=mode)
    # Recorded once written: a crash in between leaves a file the uninstall keeps, never
    # a record that would remove a file the user had.
    try:
        if plan.remember:
            made_dirs.remember_config(plan.path, plan.before)
        elif not plan.install:
            made_dirs.forget_config(plan.path)
    except OSError as exc:  # not "cannot change" the config: it is changed
        raise HookConfigError(f"{plan.path} was changed, but agentscan could not record so in its data directory "
                              f"({exc}): an uninstall will keep that file rather than remove it") from None
    return []


def _unchanged_since_read(plan: Plan) -> None:
    """The agent may write its own config meanwhile (a setting changed in its UI): replacing
    the file would lose that change, so the file must still be what the plan was made from."""
    if read_config(plan.path) != plan.before:
        raise HookConfigError(f"{plan.path} changed while agentscan was changing it (did the agent write it?); "
                              "agentscan left it as it is now: run the command again")


def read_config(path: Path) -> str | None:
    """A config's text, ``None`` when there is none; ``HookConfigError`` when it cannot be read."""
    try:
        # Bytes decoded, not read_text: that would turn CRLF into LF, in the backup too (and
        # only a regular file: a FIFO in its place would be waited on).
        return read_regular_text(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise HookConfigError(f"cannot read {path}: {exc}") from None
