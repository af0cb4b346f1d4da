"""The merge behind ``hooks install|uninstall`` (``hooks.install``); which entries are
agentscan's, and which see the whole event, is ``hooks.ourentries``'s judgment.

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

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agentscan.errors import HookConfigError
from agentscan.hooks.ourentries import exact_command, inner_entries, is_ours, matcher_text, sees_whole_event

TIMEOUT_SECONDS = 5  # a safety net for the agent; `agentscan hook` itself exits within 1 s
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
        keeper = _keeper([(i, sees_whole_event("cursor", event, entry.get("matcher")))
                          for i, entry in enumerate(entries) if is_ours(entry)])
        result = []
        for i, entry in enumerate(entries):
            if not is_ours(entry):
                result.append(entry)
                continue
            matcher = matcher_text(entry.get("matcher"))
            if i != keeper:
                merged.replaced.append(Replaced(event, "removed", _shown(entry), matcher))
                continue
            kept = _ours_updated(entry, ours, command)
            if not sees_whole_event("cursor", event, entry.get("matcher")):
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
                 agent: str = "claude", wrapped: frozenset[str] = frozenset()) -> Merged:
    """Claude Code's matcher groups, or Gemini CLI's (same shape; ours named, timeout in ms).
    ``wrapped``: Gemini CLI's events whose hooks are a list before this file's (``geminionce.
    listed_before``), where an object is one more matcher group: an install writes it as that
    group in a list; one where Gemini CLI skips an object is refused (``not_a_list``).  An
    uninstall takes agentscan's entries out of an object, and leaves it an object."""
    merged = Merged(config)
    hooks = _hooks_of(path, config, create=command is not None)
    if hooks is None:
        return merged
    ours = {"type": "command", "command": command, **({"name": "agentscan", "timeout": GEMINI_TIMEOUT_MS}
                                                      if agent == "gemini" else {"timeout": TIMEOUT_SECONDS})}

    def place(event: str, groups: list[Any]) -> list[Any]:
        def whole(group: Any) -> bool:
            return sees_whole_event(agent, event, group.get("matcher"))

        keeper = _keeper([((g, h), whole(group)) for g, group in enumerate(groups)
                          for h, entry in enumerate(inner_entries(group) or []) if is_ours(entry)])
        result = []
        widened = None
        for g, group in enumerate(groups):
            inner = inner_entries(group)
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
                matcher = matcher_text(group.get("matcher"))
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
    objects = frozenset(wrapped if command is not None else every) if agent == "gemini" else None
    merged.events = _merge_lists(path, hooks, events if command is not None else every, place, objects,
                                 command is None)
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
    found = exact_command(current)
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
                 merge: Callable[[str, list[Any]], list[Any]], objects: frozenset[str] | None = None,
                 kept: bool = False) -> list[str]:
    """Each event's list merged; ``objects`` (Gemini CLI's, ``merge_claude``; ``None`` for another
    agent): the events whose hooks, if an object, are merged as the one matcher group it is, and
    written back an object when ``kept`` (an uninstall), else as that group in a list; unchanged,
    it is left as it was."""
    changed = []
    for event in events:
        before = hooks.get(event, [])
        single = isinstance(before, dict) and event in (objects or ())
        if not isinstance(before, list) and not single:
            raise HookConfigError(f"{path}: {not_a_list(event, before, objects is not None)}")
        groups = [before] if single else before
        after = merge(event, groups)
        if after == groups and event in hooks:
            continue
        changed.append(event)
        if after:
            hooks[event] = after[0] if single and kept and len(after) == 1 else after
        else:
            hooks.pop(event, None)  # only ours were there: leave no empty list behind
    return changed


def not_a_list(event: str, value: Any, gemini: bool = False) -> str:
    """Why an install refuses an event whose hooks are no list (``value``); for Gemini CLI, an
    object it skips (``geminionce.listed_before``: an earlier file's ``"hooks"`` that is no object
    took away the list each of its events starts as, and no list follows on this one)."""
    if gemini and isinstance(value, dict):
        return (f"hooks.{event} is an object, not a list, and Gemini CLI skips it (it runs an object there as one "
                "more matcher group of the list the event starts as, but a settings file merged before this one "
                "sets \"hooks\" to no object, which takes that list away; releases before v0.24.0 skip an object "
                "always): put it in a list (`[{…}]`) for its entries to run; agentscan will not change it")
    return f"hooks.{event} is not a list; agentscan will not change it"
