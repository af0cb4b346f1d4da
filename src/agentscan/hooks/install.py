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
meanwhile.  An uninstall that leaves
nothing but agentscan's own scaffolding removes the file it emptied, and the
directories an install had to create for it (``made_dirs``) when empty.

Ours are recognised by their command: ``… agentscan hook --agent …``.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from agentscan.errors import HookConfigError
from agentscan.hooks.backups import backup as backup
from agentscan.hooks.backups import project_backups as project_backups
from agentscan.hooks.configjson import parse, render

#: every Cursor hook event (docs/hooks.md, "The tree"), observed without matchers
CURSOR_EVENTS = (
    "sessionStart", "sessionEnd", "beforeSubmitPrompt", "afterAgentThought", "afterAgentResponse",
    "preToolUse", "postToolUse", "postToolUseFailure", "beforeShellExecution", "afterShellExecution",
    "beforeMCPExecution", "afterMCPExecution", "beforeReadFile", "afterFileEdit", "subagentStart",
    "subagentStop", "preCompact", "stop", "workspaceOpen", "beforeTabFileRead", "afterTabFileEdit",
)
#: Claude Code events an observer should register (docs/hooks.md, "The tree"): not WorktreeCreate
#: (its hook must answer with a path), not the high-volume MessageDisplay/FileChanged/
#: Elicitation*, not the unpublished model-switch events.
CLAUDE_EVENTS = (
    "SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest",
    "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "SubagentStart",
    "SubagentStop", "Stop", "StopFailure", "PreCompact", "PostCompact", "InstructionsLoaded",
    "ConfigChange", "CwdChanged", "DirectoryAdded", "SessionEnd",
)
TIMEOUT_SECONDS = 5  # a safety net for the agent; `agentscan hook` itself exits within 1 s
#: ``agentscan`` as a whole name (a path's last part, ``python -m agentscan``): not the end of
#: another program's (``fooagentscan hook --agent`` is not ours to update or remove)
_OURS = re.compile(r"(?<![\w.-])agentscan(?:\.exe)?['\"]?\s+hook\s+--agent\b")
#: a command that is just ``<program> hook --agent NAME`` and arguments after it (the
#: ``--otlp-endpoint`` docs/otel.md tells users to add): only the program part is ours to update.
#: One unquoted character at a time: ``[^…]+`` inside ``(…)+`` backtracks exponentially.
_PLAIN = re.compile(r"""\s*(?:"[^"]*"|'[^']*'|[^\s'"])+\s+hook\s+--agent(?:=|\s+)[^\s'"]+(?P<rest>(?:\s.*)?)""", re.S)


@dataclass(frozen=True)
class Plan:
    path: Path
    before: str | None  # None when the file does not exist
    after: str | None  # None: remove the file (an uninstall emptied it)
    events: tuple[str, ...]  # the events whose entries change
    #: the file is laid out otherwise than JSON written in its own indentation (an inline
    #: list, ``"a":1``, ``1.50``, ``\u00e9``): the rewrite keeps its values, not those bytes
    relaid: bool = False

    @property
    def changed(self) -> bool:
        return self.before != self.after and bool(self.events)

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
}


def config_path(agent: str, scope: str, *, home: Path, cwd: Path) -> Path:
    base = home if scope == "user" else cwd
    if agent == "cursor":
        return base / ".cursor" / "hooks.json"
    # In a project, settings.local.json is the file Claude Code keeps out of git;
    # settings.json there is shared with everyone who clones the project.
    return base / ".claude" / ("settings.json" if scope == "user" else "settings.local.json")


def uninstall_paths(agent: str, scope: str, *, home: Path, cwd: Path) -> list[Path]:
    """Every file an uninstall cleans: the one install writes, and the shared project
    settings an earlier agentscan wrote to (``.claude/settings.json``)."""
    paths = [config_path(agent, scope, home=home, cwd=cwd)]
    if agent == "claude" and scope == "project":
        paths.append(cwd / ".claude" / "settings.json")
    return paths


def hook_command(agent: str) -> str:
    """The command the agent will run: this very agentscan, by absolute path when it can be found."""
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).stem == "agentscan" and os.path.isfile(argv0):
        program = os.path.abspath(argv0)
    else:
        program = shutil.which("agentscan") or "agentscan"
    quoted = f'"{program}"' if os.name == "nt" and " " in program else shlex.quote(program)
    return f"{quoted} hook --agent {agent}"


def is_ours(entry: Any) -> bool:
    """One hook entry (Cursor's flat entry or one of Claude's inner hooks) that runs `agentscan hook`."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    if not isinstance(command, str):
        return False
    if _OURS.search(command):
        return True
    args = entry.get("args")  # Claude's exec form: command + args
    return Path(command).stem == "agentscan" and isinstance(args, list) and args[:2] == ["hook", "--agent"]


def plan(agent: str, path: Path, *, install: bool, command: str | None = None) -> Plan:
    before = _read(path)
    config = parse(path, before)
    merge = _merge_cursor if agent == "cursor" else _merge_claude
    updated, events = merge(path, copy.deepcopy(config), command if install else None)
    after: str | None = render(updated, before)
    # A symlinked config (a dotfile manager's) is emptied, never removed.
    if not install and (before is None or (_only_scaffolding(agent, updated) and not path.is_symlink())):
        after = None
    relaid = before is not None and bool(before.strip()) and render(config, before) != before
    result = Plan(path=path, before=before, after=after, events=tuple(events), relaid=relaid)
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
    """Nothing left but what install itself adds around the hooks (Cursor's ``version``)."""
    rest = {key: value for key, value in config.items() if not (key == "hooks" and value == {})}
    if agent == "cursor":
        rest.pop("version", None)
    return not rest


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
        return made_dirs.remove_empty(plan.path.parent)
    target = Path(os.path.realpath(plan.path))
    made_dirs.make_parents(target.parent)
    try:
        mode = target.stat().st_mode & 0o7777  # a file that existed keeps its own
    except FileNotFoundError:
        mode = FILE_MODE
    after = plan.after.encode("utf-8")  # its line endings as ``render`` made them
    atomic_write(plan.path, lambda handle: handle.write(after), lambda: _unchanged_since_read(plan), mode=mode)
    return []


def _unchanged_since_read(plan: Plan) -> None:
    """The agent may write its own config meanwhile (a setting changed in its UI): replacing
    the file would lose that change, so the file must still be what the plan was made from."""
    if _read(plan.path) != plan.before:
        raise HookConfigError(f"{plan.path} changed while agentscan was changing it (did the agent write it?); "
                              "agentscan left it as it is now: run the command again")


def _read(path: Path) -> str | None:
    try:
        # Bytes decoded, not read_text: that would turn CRLF into LF, in the backup too.
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise HookConfigError(f"cannot read {path}: {exc}") from None


def _hooks_of(path: Path, config: dict[str, Any], create: bool) -> dict[str, Any] | None:
    hooks = config.get("hooks")
    if hooks is None and create:
        hooks = config["hooks"] = {}
    if hooks is not None and not isinstance(hooks, dict):
        raise HookConfigError(f"{path}: \"hooks\" is not an object; agentscan will not change it")
    return hooks


def _event_list(path: Path, hooks: dict[str, Any], event: str) -> list[Any]:
    entries = hooks.get(event, [])
    if not isinstance(entries, list):
        raise HookConfigError(f"{path}: hooks.{event} is not a list; agentscan will not change it")
    return entries


def _merge_cursor(path: Path, config: dict[str, Any], command: str | None) -> tuple[dict[str, Any], list[str]]:
    if command is not None and "version" not in config:
        config = {"version": 1, **config}
    hooks = _hooks_of(path, config, create=command is not None)
    if hooks is None:
        return config, []
    events = CURSOR_EVENTS if command is not None else tuple(hooks)
    ours = {"command": command, "timeout": TIMEOUT_SECONDS}
    return config, _merge_lists(path, hooks, events, lambda entries: _place(entries, ours, command))


def _merge_claude(path: Path, config: dict[str, Any], command: str | None) -> tuple[dict[str, Any], list[str]]:
    hooks = _hooks_of(path, config, create=command is not None)
    if hooks is None:
        return config, []
    events = CLAUDE_EVENTS if command is not None else tuple(hooks)
    ours = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}

    def merge(groups: list[Any]) -> list[Any]:
        found = False
        result = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_ours(h) for h in inner):
                result.append(group)
                continue
            kept = _place(inner, ours, command if not found else None)
            found = found or command is not None
            if kept:
                result.append({**group, "hooks": kept})
        if command is not None and not found:
            result.append({"hooks": [ours]})
        return result

    changed = _merge_lists(path, hooks, events, merge)
    if command is None and changed and not hooks:
        del config["hooks"]  # it held only ours
    return config, changed


def _merge_lists(path: Path, hooks: dict[str, Any], events: tuple[str, ...], merge: Callable[[list[Any]], list[Any]]) -> list[str]:
    changed = []
    for event in events:
        before = _event_list(path, hooks, event)
        after = merge(before)
        if after == before and event in hooks:
            continue
        changed.append(event)
        if after:
            hooks[event] = after
        else:
            hooks.pop(event, None)  # only ours were there: leave no empty list behind
    return changed


def _place(entries: list[Any], ours: dict[str, Any], command: str | None) -> list[Any]:
    """Our entry replaces the first of ours (keeping the user's tweaks to it), other copies go.

    With ``command`` None every entry of ours is removed.
    """
    result: list[Any] = []
    placed = False
    for entry in entries:
        if not is_ours(entry):
            result.append(entry)
        elif command is not None and not placed:
            result.append({**ours, **entry, "command": _updated(entry["command"], command)} if "args" not in entry else entry)
            placed = True
    if command is not None and not placed:
        result.append(dict(ours))
    return result


def _updated(current: str, command: str) -> str:
    """Our command, keeping what the user added after it (``--otlp-endpoint URL``); a command
    they wrapped (``env X=1 …``, ``sh -c '…'``) is theirs to keep up to date, left as it is."""
    plain = _PLAIN.fullmatch(current)
    return command + plain.group("rest") if plain else current
