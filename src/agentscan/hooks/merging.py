"""Which entries of an agent's hook config are agentscan's, and the merge behind
``hooks install|uninstall`` (``hooks.install``).

An install leaves exactly one entry of ours on each event, and one that sees
the whole event: for Claude Code and Gemini CLI in a matcher group that matches
every tool (no ``matcher``, ``""`` or ``"*"``), for Cursor an entry without a matcher.
An entry of ours only in a narrower place (``"matcher": "Bash"``) would capture
that event for some tools only, and adding a second entry beside it would
capture those tools twice: so it is widened (Claude: moved into a group of its
own; Cursor: its matcher dropped), keeping the command the user wrote.  Every
other copy is removed.  All of it is told back as ``Replaced`` records.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from agentscan.errors import HookConfigError

TIMEOUT_SECONDS = 5  # a safety net for the agent; `agentscan hook` itself exits within 1 s
#: an entry of agentscan's: exactly the command an install writes, ``<program> hook --agent NAME``,
#: and only arguments after it (the ``--otlp-endpoint URL`` docs/otel.md tells users to add), no
#: shell operator; the program agentscan by any path (``_is_agentscan``), or ``python -m
#: agentscan``; a PowerShell call operator before a quoted path (docs/cli-hooks.md) is allowed.
#: Anything more (``mywrapper agentscan hook --agent claude | tee log``, ``env X=1 agentscan …``)
#: is the user's own hook: never updated, widened or removed.  Words are separated by blanks
#: only: a newline separates commands as ``;`` does (``_exact`` refuses a command holding one).
#: The program is any run of quoted pieces and plain characters, as ``shlex.quote`` writes a
#: path with a ``'`` in it (``'/a/q'"'"'dir/agentscan'``).  One piece or character at a time
#: in the repeated groups, each starting with its own character: ``[^…]+`` inside ``(…)+``
#: backtracks exponentially.
_EXACT = re.compile(r"""[ \t]*(?P<call>&[ \t]+)?(?P<program>(?:"[^"]*"|'[^']*'|[^\s'"|&;<>()$`])+)"""
                    r"""(?P<module>[ \t]+-m[ \t]+agentscan)?"""
                    r"""[ \t]+hook[ \t]+--agent(?:=|[ \t]+)[A-Za-z]+"""
                    r"""(?P<rest>(?:[ \t]+(?:"[^"$`\\]*"|'[^']*'|[^\s'"|&;<>()$`\\])+)*)[ \t]*""")
#: one piece of a word ``_EXACT`` took: single-quoted, double-quoted, or one plain character
_PIECE = re.compile(r"""'([^']*)'|"([^"]*)"|(.)""", re.S)
#: ``agentscan hook --agent`` anywhere in a command: a user's own hook that runs agentscan's
#: (a wrapper, a pipeline), which an install leaves as it is and says so (``users_running_ours``)
_MENTIONS = re.compile(r"(?<![\w.-])agentscan(?:\.(?i:exe))?['\"]?[ \t]+hook[ \t]+--agent\b")
#: the programs ``python -m agentscan`` may start with (``python3``, ``python3.12``, ``py``)
_PYTHON = re.compile(r"(?:(?:python|pypy)[0-9.]*t?|py)(?:\.exe)?", re.I)
#: Claude Code events whose matcher is ignored (docs/hooks.md): any group there sees every event
_CLAUDE_UNMATCHED = frozenset({
    "UserPromptSubmit", "PostToolBatch", "Stop", "TeammateIdle", "TaskCreated", "TaskCompleted",
    "WorktreeCreate", "WorktreeRemove", "MessageDisplay",
})
#: the matchers Claude Code documents as matching everything (``None``: no matcher at all)
_CLAUDE_MATCH_ALL = (None, "", "*")
#: Cursor's matchers are regexes and it documents no match-all pattern: only none, or ""
_CURSOR_MATCH_ALL = (None, "")
#: the agents whose config holds matcher groups, each with its ``hooks`` list (Cursor's: flat entries)
NESTED = frozenset({"claude", "gemini"})
#: settings Gemini CLI's ``hooks`` held before ``hooksConfig``: not events, left as they are
GEMINI_SETTINGS = frozenset({"enabled", "disabled", "notifications"})
GEMINI_TIMEOUT_MS = TIMEOUT_SECONDS * 1000  # Gemini CLI's timeouts are in ms (reference.md)


@dataclass(frozen=True)
class Replaced:
    """An entry of ours an install changed other than by adding one: ``updated`` (its
    program moved), ``widened`` (it saw only what its matcher matched) or ``removed``
    (a second copy: the agent would have run both)."""

    event: str
    action: str
    command: str  # as it was, with an exec-form entry's args
    matcher: str | None  # the one it was under (Claude: its group's), None for none

    def to_json(self) -> dict[str, Any]:
        from agentscan.otlp.endpoint import shown_command

        # Its credentials masked (an ``--otlp-endpoint`` with a password or an ``?api_key=``).
        return {"event": self.event, "action": self.action, "command": shown_command(self.command),
                "matcher": self.matcher}


@dataclass
class Merged:
    config: dict[str, Any]
    events: list[str] = field(default_factory=list)  # whose entries changed
    added: list[str] = field(default_factory=list)  # where there was no entry of ours at all
    replaced: list[Replaced] = field(default_factory=list)
    #: install: events an older install registered that no install does now (Cursor's Tab
    #: events), whose entries of ours it removed
    dropped: list[str] = field(default_factory=list)


def is_ours(entry: Any) -> bool:
    """One hook entry (Cursor's flat entry or one of Claude's inner hooks) that runs `agentscan hook`."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    if not isinstance(command, str):
        return False
    args = entry.get("args")  # Claude's exec form: command + args
    if "args" in entry:
        return _is_agentscan(command) and isinstance(args, list) and args[:2] == ["hook", "--agent"]
    return _exact(command) is not None


def _exact(command: str) -> re.Match[str] | None:
    """The match of a command that is agentscan's own (``_EXACT``), else ``None``."""
    if "\n" in command or "\r" in command:
        return None  # another command after ours (sh runs each line): the user's own hook
    found = _EXACT.fullmatch(command)
    if found is None:
        return None
    program = _unquoted(found.group("program"))
    if found.group("module"):
        return found if _PYTHON.fullmatch(_last_part(program)) else None
    return found if _is_agentscan(program) else None


def _unquoted(word: str) -> str:
    """The text of a word ``_EXACT`` took as a program, its quotes removed."""
    return "".join(single or double or plain for single, double, plain in _PIECE.findall(word))


def _is_agentscan(program: str) -> bool:
    """A path whose last part is ``agentscan`` (``.exe``, in any case: PATHEXT's), not another
    program whose name ends so (``fooagentscan``, ``my-agentscan``)."""
    return _last_part(program).lower() in ("agentscan", "agentscan.exe")


def _last_part(path: str) -> str:
    return re.split(r"[\\/]", path)[-1]


def _events(config: dict[str, Any]) -> Iterator[tuple[Any, list[Any]]]:
    """Each event of a parsed config with its list of entries: an event of another shape (a hand
    edit) holds no entry of ours, and is not ours to change."""
    hooks = config.get("hooks")
    if isinstance(hooks, dict):
        for event, entries in hooks.items():
            if isinstance(entries, list):
                yield event, entries


def users_running_ours(agent: str, config: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, command) of each entry of the user's own whose command runs ``agentscan hook``
    (a wrapper, a pipeline): not agentscan's to change, but the agent runs it beside ours."""
    found = []
    for event, entries in _events(config):
        inner = [entry for group in entries for entry in _inner(group) or []] if agent in NESTED else entries
        for entry in inner:
            command = entry.get("command") if isinstance(entry, dict) else None
            if isinstance(command, str) and not is_ours(entry) and _MENTIONS.search(command):
                found.append((str(event), command))
    return found


def shown_on_one_line(command: str) -> str:
    """A user's hook command as a message quotes it (``shown_command``), its line breaks
    written ``\\n``: a terminal shows them as nothing readable."""
    from agentscan.otlp.endpoint import shown_command

    return shown_command(command).replace("\r", "\\r").replace("\n", "\\n")


@dataclass(frozen=True)
class OursOnEvent:
    """The entries of ours on one event of a config, as an install would judge them."""

    event: str
    command: Any  # the first one's ``command``, as written
    entries: int  # more than one: the agent runs each, so what they all see is stored twice
    #: when none of them sees the whole event, the matchers they sit under (an install widens
    #: one of them): the agent runs our hook only for what those match
    narrowed: tuple[str, ...]

    @property
    def stored_twice(self) -> bool:
        """Another entry of ours beside one that sees the whole event: the agent runs both, so
        what the other sees is stored twice (an install removes it)."""
        return self.entries > 1 and not self.narrowed


def ours_by_event(agent: str, config: dict[str, Any]) -> list[OursOnEvent]:
    """The events of a parsed config that run agentscan's hook, in any group or matcher, each
    with whether it sees the whole event (``doctor`` says what an install would change)."""
    found = []
    for event, entries in _events(config):
        ours = list(_ours_with_matchers(agent, entries))
        if not ours:
            continue
        whole = any(_sees_whole_event(agent, event, matcher) for _, matcher in ours)
        narrowed = () if whole else tuple(str(_matcher_text(matcher)) for _, matcher in ours)
        found.append(OursOnEvent(event, ours[0][0].get("command"), len(ours), narrowed))
    return found


def events_with_ours(agent: str, config: dict[str, Any]) -> list[str]:
    """The events of a parsed config that run agentscan's hook, in any group or matcher."""
    return [ours.event for ours in ours_by_event(agent, config)]


def _ours_with_matchers(agent: str, entries: list[Any]) -> Iterator[tuple[dict[str, Any], Any]]:
    """Each entry of ours in one event's list, with the matcher it sits under (Claude's: its group's)."""
    if agent in NESTED:
        for group in entries:
            for entry in _inner(group) or []:
                if is_ours(entry):
                    yield entry, group.get("matcher")
    else:
        for entry in entries:
            if is_ours(entry):
                yield entry, entry.get("matcher")


def _sees_whole_event(agent: str, event: str, matcher: Any) -> bool:
    """Whether an entry under ``matcher`` (Claude: its group's) runs for every ``event``."""
    if agent == "claude":
        return event in _CLAUDE_UNMATCHED or matcher in _CLAUDE_MATCH_ALL
    if agent == "gemini":  # (hookPlanner.ts: no matcher, or one that is "" or "*" once trimmed)
        return matcher is None or (isinstance(matcher, str) and matcher.strip() in ("", "*"))
    return matcher in _CURSOR_MATCH_ALL


def merge_cursor(path: Path, config: dict[str, Any], events: tuple[str, ...], command: str | None,
                 *, into: Merged | None = None) -> Merged:
    """``command``: install it on ``events``; ``None``: remove ours from every event, or, with
    ``into`` (the install's merge so far), from ``events`` only (those no install registers
    now), recorded in ``into``."""
    if command is not None and "version" not in config:
        config = {"version": 1, **config}
    merged = into or Merged(config)
    hooks = _hooks_of(path, config, create=command is not None)
    if hooks is None:
        return merged
    ours = {"command": command, "timeout": TIMEOUT_SECONDS}

    def place(event: str, entries: list[Any]) -> list[Any]:
        if command is None:
            return [entry for entry in entries if not is_ours(entry)]
        keeper = _keeper([(i, _sees_whole_event("cursor", event, entry.get("matcher")))
                          for i, entry in enumerate(entries) if is_ours(entry)])
        result = []
        for i, entry in enumerate(entries):
            if not is_ours(entry):
                result.append(entry)
                continue
            matcher = _matcher_text(entry.get("matcher"))
            if i != keeper:
                merged.replaced.append(Replaced(event, "removed", _shown(entry), matcher))
                continue
            kept = _ours_updated(entry, ours, command)
            if not _sees_whole_event("cursor", event, entry.get("matcher")):
                kept.pop("matcher")
                merged.replaced.append(Replaced(event, "widened", _shown(entry), matcher))
            elif kept["command"] != entry["command"]:
                merged.replaced.append(Replaced(event, "updated", _shown(entry), matcher))
            result.append(kept)
        if keeper is None:
            result.append(dict(ours))
            merged.added.append(event)
        return result

    if into is not None:
        dropped = _merge_lists(path, hooks, tuple(event for event in events if event in hooks), place)
        merged.events += dropped
        merged.dropped += dropped
        return merged
    merged.events = _merge_lists(path, hooks, events if command is not None else tuple(hooks), place)
    return merged


def merge_claude(path: Path, config: dict[str, Any], events: tuple[str, ...], command: str | None,
                 agent: str = "claude") -> Merged:
    """Claude Code's matcher groups, or Gemini CLI's (same shape; ours named, timeout in ms)."""
    merged = Merged(config)
    hooks = _hooks_of(path, config, create=command is not None)
    if hooks is None:
        return merged
    ours = {"type": "command", "command": command, **({"name": "agentscan", "timeout": GEMINI_TIMEOUT_MS}
                                                      if agent == "gemini" else {"timeout": TIMEOUT_SECONDS})}

    def place(event: str, groups: list[Any]) -> list[Any]:
        def whole(group: Any) -> bool:
            return _sees_whole_event(agent, event, group.get("matcher"))

        keeper = _keeper([((g, h), whole(group)) for g, group in enumerate(groups)
                          for h, entry in enumerate(_inner(group) or []) if is_ours(entry)])
        result = []
        widened = None
        for g, group in enumerate(groups):
            inner = _inner(group)
            if inner is None or not any(is_ours(entry) for entry in inner):
                result.append(group)
                continue
            kept = []
            for h, entry in enumerate(inner):
                if not is_ours(entry):
                    kept.append(entry)
                    continue
                if command is None:
                    continue
                matcher = _matcher_text(group.get("matcher"))
                if (g, h) != keeper:
                    merged.replaced.append(Replaced(event, "removed", _shown(entry), matcher))
                    continue
                updated = _ours_updated(entry, ours, command)
                if not whole(group):
                    widened = updated  # out of its group: the rest of that group stays as it was
                    merged.replaced.append(Replaced(event, "widened", _shown(entry), matcher))
                    continue
                if updated["command"] != entry["command"]:
                    merged.replaced.append(Replaced(event, "updated", _shown(entry), matcher))
                kept.append(updated)
            if kept:
                result.append({**group, "hooks": kept})
        if widened is not None:
            result.append({"hooks": [widened]})
        elif command is not None and keeper is None:
            result.append({"hooks": [dict(ours)]})
            merged.added.append(event)
        return result

    every = tuple(event for event in hooks if agent != "gemini" or event not in GEMINI_SETTINGS)
    merged.events = _merge_lists(path, hooks, events if command is not None else every, place)
    if command is None and merged.events and not hooks:
        del config["hooks"]  # it held only ours
    return merged


def _keeper(found: list[tuple[Any, bool]]) -> Any:
    """Where the entry of ours that stays is: the first one that sees the whole event,
    else the first one at all (to be widened), else None (one is added)."""
    for where, whole in found:
        if whole:
            return where
    return found[0][0] if found else None


def _inner(group: Any) -> list[Any] | None:
    inner = group.get("hooks") if isinstance(group, dict) else None
    return inner if isinstance(inner, list) else None


def _matcher_text(matcher: Any) -> str | None:
    if matcher is None or isinstance(matcher, str):
        return matcher
    return json.dumps(matcher, ensure_ascii=False)  # not a string: shown as it is written


def _shown(entry: dict[str, Any]) -> str:
    args = entry.get("args")
    if isinstance(args, list):
        return shlex.join([str(entry["command"]), *map(str, args)])
    return str(entry["command"])


def _ours_updated(entry: dict[str, Any], ours: dict[str, Any], command: str) -> dict[str, Any]:
    """Our entry, keeping the user's tweaks to it (a longer timeout); an exec-form one as it is."""
    if "args" in entry:
        return dict(entry)
    return {**ours, **entry, "command": _updated(entry["command"], command)}


def _updated(current: str, command: str) -> str:
    """Our command, keeping what the user added after it (``--otlp-endpoint URL``); one they
    gave PowerShell's call operator (``& "C:/…/agentscan.exe" hook …``) is left as it is: it
    runs only so there."""
    found = _exact(current)
    if found is None or found.group("call"):
        return current
    return command + found.group("rest").rstrip()


def _hooks_of(path: Path, config: dict[str, Any], create: bool) -> dict[str, Any] | None:
    hooks = config.get("hooks")
    if hooks is None and create:
        hooks = config["hooks"] = {}
    if hooks is not None and not isinstance(hooks, dict):
        raise HookConfigError(f"{path}: \"hooks\" is not an object; agentscan will not change it")
    return hooks


def _merge_lists(path: Path, hooks: dict[str, Any], events: tuple[str, ...],
                 merge: Callable[[str, list[Any]], list[Any]]) -> list[str]:
    changed = []
    for event in events:
        before = hooks.get(event, [])
        if not isinstance(before, list):
            raise HookConfigError(f"{path}: hooks.{event} is not a list; agentscan will not change it")
        after = merge(event, before)
        if after == before and event in hooks:
            continue
        changed.append(event)
        if after:
            hooks[event] = after
        else:
            hooks.pop(event, None)  # only ours were there: leave no empty list behind
    return changed
