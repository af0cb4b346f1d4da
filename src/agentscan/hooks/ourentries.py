"""Which entries of an agent's hook config are agentscan's, and whether each sees the whole
event: the judgment behind ``hooks install|uninstall`` (``hooks.merging``, which changes
them) and ``hooks status``/``doctor`` (``hooks.configreport``, which reports them).

An entry of agentscan's runs exactly the command an install writes; one that merely mentions
``agentscan hook`` (a wrapper, a pipeline) is the user's own, never changed.  An entry sees the
whole event when no matcher narrows it: for Claude Code and Gemini CLI its matcher group matches
every tool (no ``matcher``, ``""`` or ``"*"``), for Cursor it has no matcher.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

#: an entry of agentscan's: exactly the command an install writes, ``<program> hook --agent NAME``,
#: and only arguments after it (the ``--otlp-endpoint URL`` docs/otel.md tells users to add), no
#: shell operator; the program agentscan by any path (``_is_agentscan``), or ``python -m
#: agentscan``; a PowerShell call operator before a quoted path (docs/cli-hooks.md) is allowed.
#: Anything more (``mywrapper agentscan hook --agent claude | tee log``, ``env X=1 agentscan …``)
#: is the user's own hook: never updated, widened or removed.  Words are separated by blanks
#: only: a newline separates commands as ``;`` does (``exact_command`` refuses a command holding one).
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
    return exact_command(command) is not None


def exact_command(command: str) -> re.Match[str] | None:
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
        inner = [entry for group in entries for entry in inner_entries(group) or []] if agent in NESTED else entries
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
        whole = any(sees_whole_event(agent, event, matcher) for _, matcher in ours)
        narrowed = () if whole else tuple(str(matcher_text(matcher)) for _, matcher in ours)
        found.append(OursOnEvent(event, ours[0][0].get("command"), len(ours), narrowed))
    return found


def events_with_ours(agent: str, config: dict[str, Any]) -> list[str]:
    """The events of a parsed config that run agentscan's hook, in any group or matcher."""
    return [ours.event for ours in ours_by_event(agent, config)]


def _ours_with_matchers(agent: str, entries: list[Any]) -> Iterator[tuple[dict[str, Any], Any]]:
    """Each entry of ours in one event's list, with the matcher it sits under (Claude's: its group's)."""
    if agent in NESTED:
        for group in entries:
            for entry in inner_entries(group) or []:
                if is_ours(entry):
                    yield entry, group.get("matcher")
    else:
        for entry in entries:
            if is_ours(entry):
                yield entry, entry.get("matcher")


def sees_whole_event(agent: str, event: str, matcher: Any) -> bool:
    """Whether an entry under ``matcher`` (Claude: its group's) runs for every ``event``."""
    if agent == "claude":
        return event in _CLAUDE_UNMATCHED or matcher in _CLAUDE_MATCH_ALL
    if agent == "gemini":  # (hookPlanner.ts: no matcher, or one that is "" or "*" once trimmed)
        return matcher is None or (isinstance(matcher, str) and matcher.strip() in ("", "*"))
    return matcher in _CURSOR_MATCH_ALL


def inner_entries(group: Any) -> list[Any] | None:
    inner = group.get("hooks") if isinstance(group, dict) else None
    return inner if isinstance(inner, list) else None


def matcher_text(matcher: Any) -> str | None:
    if matcher is None or isinstance(matcher, str):
        return matcher
    return json.dumps(matcher, ensure_ascii=False)  # not a string: shown as it is written
