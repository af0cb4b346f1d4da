"""Whether agentscan's hook in two Gemini CLI settings files runs twice on an event.

Gemini CLI merges the hooks of the user's and the project's settings, then its planner
(``hookPlanner.ts`` ``deduplicateHooks``) keeps one entry per key ``name:command``
(``types.ts`` ``getHookKey``): the entry an install writes in either scope, named
``agentscan`` with the same command, runs once.  Only an entry of the other file with
another name or command (an older install's, one edited by hand) makes a second run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar, cast

from agentscan.hooks.ourentries import is_ours
from agentscan.toolkit.fsutil import read_regular_text

T = TypeVar("T")


def keys_by_event(config: Any) -> dict[str, set[str]]:
    """The ``name:command`` keys of agentscan's entries on each event of a parsed settings file."""
    found: dict[str, set[str]] = {}
    for event, entry in _ours(config):
        found.setdefault(event, set()).add(_key(entry))
    return found


def runs_again(other: Any, this: Any) -> bool:
    """Whether ``other``'s entries of ours add a run to ``this``'s on an event both hook: one
    whose key ``this`` has on that event is dropped by Gemini CLI's planner."""
    mine = keys_by_event(this)
    return any(keys - mine[event] for event, keys in keys_by_event(other).items() if event in mine)


def files_run_twice(other: Path, this: Path, text: str | None = None, files: SettingsFiles | None = None) -> bool:
    """``runs_again`` for two settings files (``this`` as ``text`` when given: what an install is
    about to write there; else both as Gemini CLI reads them, comments too: ``as_read``); one
    that cannot be read or parsed is taken to run twice (the warning stays, as it was said
    before Gemini CLI's deduplication was known).  ``files``: where the files already read are
    kept (``hooks status`` reads each once)."""
    from agentscan.errors import HookConfigError
    from agentscan.hooks.configjson import parse

    files = SettingsFiles() if files is None else files
    try:
        # (``this`` as Gemini CLI reads it too: a comment, or a key twice, in it adds no run)
        mine = files.as_read(this) if text is None else parse(this, text)
        theirs = files.as_read(other)
    except (OSError, UnicodeDecodeError, HookConfigError):
        return True
    if isinstance(theirs, Unjudged) or isinstance(mine, Unjudged):
        return True
    # (an object there is one more matcher group where Gemini CLI runs it: ``SettingsFiles.as_run``)
    return runs_again(files.as_run(other, theirs), files.as_run(this, mine))


@dataclass(frozen=True)
class Unjudged:
    """A settings file Gemini CLI merges that it would not read either (``reason``: not JSON
    once its comments are blanked, or no object), so what it sets is not known."""

    reason: str


class SettingsFiles:
    """Gemini CLI settings files, each read (``fsutil.read_regular_text``: a regular file only)
    and parsed (``configjson.parse``) at most once, the failure too: ``hooks status`` judges
    each file with the others, and both scopes' files together (``files_run_twice``)."""

    def __init__(self, *, home: Path | None = None, cwd: Path | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        #: (what, path): the text, the parse or the file as read (``_once``), or what it raised
        self._kept: dict[tuple[str, str], Any] = {}
        #: where the user's and the project's files are (``as_run``): ``None``, not known
        self._places = None if home is None or cwd is None else (home, cwd, env)

    def as_run(self, path: Path, config: Any) -> Any:
        """``config``, the file at ``path`` as read, as Gemini CLI runs it (``geminionce.as_run``:
        an object is one more matcher group where the files merged before it leave a list), the
        others read from here; as it is when the places of the files were not given, or ``path``
        is none of them."""
        import os

        if self._places is None or not isinstance(config, dict):
            return config
        home, cwd, env = self._places
        paths = settings_paths(home=home, cwd=cwd, env=env)
        real = os.path.realpath(path)
        at = next((at for at, (_, there) in enumerate(paths) if os.path.realpath(there) == real), None)
        if at is None:
            return config
        earlier = []  # (only the files merged before it count: ``listed_before``)
        for scope, there in paths[:at]:
            try:
                earlier.append((str(there), self.as_read(there), scope))
            except (OSError, UnicodeDecodeError):  # (none there)
                continue
        return as_run(config, listed_before(paths[at][0], earlier))

    def _once(self, what: str, path: Path, make: Callable[[Path], T]) -> T:
        """``make(path)``, made once for the path; what it raised (a read's error, or
        ``HookConfigError``) kept and raised again."""
        from agentscan.errors import HookConfigError

        key = (what, str(path))
        if key not in self._kept:
            try:
                self._kept[key] = make(path)
            except (OSError, UnicodeDecodeError, HookConfigError) as exc:
                self._kept[key] = exc
        found = self._kept[key]
        if isinstance(found, BaseException):
            raise found
        return cast(T, found)

    def text(self, path: Path) -> str:
        """The file's text; its ``OSError`` or ``UnicodeDecodeError`` raised again."""
        return self._once("text", path, read_regular_text)

    def parsed(self, path: Path) -> dict[str, Any]:
        """The file parsed as an install parses a Gemini CLI file (``HookConfigError`` when it
        would refuse it; the read's errors as ``text``'s)."""
        from agentscan.hooks.configjson import parse

        return self._once("parsed", path, lambda path: parse(path, self.text(path), "gemini"))

    def as_read(self, path: Path) -> dict[str, Any] | Unjudged:
        """The file as Gemini CLI reads it (``settings.ts``: ``stripJsonComments``, then
        ``JSON.parse``), for a file that is only read (another scope's, the system's): ``parsed``
        when an install would take it, else its text with the comments blanked (a key twice: the
        last, as ``JSON.parse`` keeps it); ``Unjudged`` when that is no JSON object either.  The
        read's errors raised as ``text``'s."""
        return self._once("as read", path, self._as_read)

    def _as_read(self, path: Path) -> dict[str, Any] | Unjudged:
        from agentscan.errors import HookConfigError
        from agentscan.hooks.configjson import as_gemini_reads, fault, reason

        try:
            return self.parsed(path)
        except HookConfigError:  # (comments, a key twice: what an install refuses, not Gemini CLI)
            text = self.text(path)  # (read already: ``parsed`` raised its errors)
        try:
            config = as_gemini_reads(text)
        except ValueError as exc:  # (too deep, or not JSON)
            return Unjudged(reason(exc, text) or f"is not valid JSON, even without its comments ({fault(exc, text)})")
        return config if isinstance(config, dict) else Unjudged("does not hold a JSON object")


def other_settings(this: Path, *, home: Path, cwd: Path, env: Mapping[str, str] | None = None,
                   files: SettingsFiles | None = None) -> list[tuple[str, Any, str]]:
    """(path, parsed settings, scope) of the Gemini CLI settings files merged with ``this``, in
    Gemini CLI's order (``settings.ts`` ``loadSettings``): the system defaults
    (``system_defaults_path``), the user's, the current project's and the system's
    (``system_settings_path``), each as Gemini CLI reads it (``SettingsFiles.as_read``: comments
    too, or ``Unjudged``); ``this`` and one that cannot be read left out."""
    import os

    files = SettingsFiles() if files is None else files
    found: list[tuple[str, Any, str]] = []
    seen = {os.path.realpath(this)}
    for scope, path in settings_paths(home=home, cwd=cwd, env=env):
        if os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        try:
            found.append((str(path), files.as_read(path), scope))
        except (OSError, UnicodeDecodeError):
            continue
    return found


def settings_paths(*, home: Path, cwd: Path, env: Mapping[str, str] | None = None) -> list[tuple[str, Path]]:
    """(scope, path) of each of Gemini CLI's settings files, in the order it merges them
    (``SCOPES``); the user's and the project's left out under a ``GEMINI_CLI_HOME`` no install takes."""
    from agentscan.errors import HookConfigError
    from agentscan.hooks.install import config_path

    system = dict((scope, path) for path, scope in system_files(env))
    found = []
    for scope in SCOPES:
        try:
            found.append((scope, system[scope] if scope in system
                          else config_path("gemini", scope, home=home, cwd=cwd, env=env)))
        except HookConfigError:  # a GEMINI_CLI_HOME no install takes
            continue
    return found


#: the scopes of Gemini CLI's system files, an administrator's, which no install writes (why
#: agentscan's entry in one is removed by hand: ``administrators``)
SYSTEM_DEFAULTS, SYSTEM = "system-defaults", "system"
#: Gemini CLI's settings files, in the order it merges them, each over the earlier
#: (``settings.ts`` ``mergeSettings``): an administrator's defaults, the user's, the project's,
#: an administrator's settings over them all
SCOPES = (SYSTEM_DEFAULTS, "user", "project", SYSTEM)


def administrators(scope: str) -> str:
    """Why an entry in one of Gemini CLI's system files (``scope``: ``SYSTEM_DEFAULTS`` or
    ``SYSTEM``) is edited by hand (``mendtext.by_hand``'s ``why``)."""
    name = "system defaults" if scope == SYSTEM_DEFAULTS else "system settings"
    return f"it is Gemini CLI's {name}, an administrator's file"


def system_files(env: Mapping[str, str] | None = None) -> list[tuple[Path, str]]:
    """(path, scope) of Gemini CLI's system defaults and system settings, in the order it merges
    them (``SCOPES``): under the user's and the project's, and over them."""
    return [(system_defaults_path(env), SYSTEM_DEFAULTS), (system_settings_path(env), SYSTEM)]

#: where Gemini CLI reads its system settings, an administrator's, merged over every other file
#: (``settings.ts`` ``getSystemSettingsPath``): this variable, else the platform's own place
SYSTEM_SETTINGS_VAR = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
#: where it reads its system defaults, an administrator's, under every other file
#: (``getSystemDefaultsPath``): this variable, else ``system-defaults.json`` beside the system settings
SYSTEM_DEFAULTS_VAR = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"


def system_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """Gemini CLI's system settings file (``SYSTEM_SETTINGS_VAR``)."""
    import os
    import sys

    named = (os.environ if env is None else env).get(SYSTEM_SETTINGS_VAR)
    if named:
        return Path(named)
    if sys.platform == "darwin":
        return Path("/Library/Application Support/GeminiCli/settings.json")
    if sys.platform == "win32":
        return Path("C:\\ProgramData\\gemini-cli\\settings.json")
    return Path("/etc/gemini-cli/settings.json")


def system_defaults_path(env: Mapping[str, str] | None = None) -> Path:
    """Gemini CLI's system defaults file (``SYSTEM_DEFAULTS_VAR``): in the folder of the system
    settings (``system_settings_path``, the variable's too) when the variable is not set."""
    import os

    named = (os.environ if env is None else env).get(SYSTEM_DEFAULTS_VAR)
    return Path(named) if named else system_settings_path(env).parent / "system-defaults.json"


#: the events Gemini CLI's settings schema lists under ``"hooks"`` (``settingsSchema.ts``), each
#: ``default: []`` merged ``CONCAT``: since v0.24.0 (gemini-cli #15354, "Make default settings
#: apply") ``mergeSettings`` merges the schema's defaults first, so each starts as a list
SCHEMA_EVENTS = frozenset({"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "Notification", "SessionStart",
                           "SessionEnd", "PreCompress", "BeforeModel", "AfterModel", "BeforeToolSelection"})


def listed_before(scope: str, others: Iterable[tuple[str, Any, str]]) -> frozenset[str]:
    """The events whose hooks, as Gemini CLI merged the settings files before the one of ``scope``
    (``others``: ``other_settings``'), are a list.  An event's hooks are merged as lists
    (``settingsSchema.ts``: ``mergeStrategy: CONCAT``; ``deepMerge.ts``): a later file's value
    is appended to an earlier list, an object as one more matcher group.  The schema's defaults,
    merged first, make each of its events a list (``SCHEMA_EVENTS``); a ``"hooks"`` that is no
    object (``null``, ``[]``) takes the place of them and of every earlier file's, and after it
    an object with no list before it stays one (merged with an earlier object), which Gemini CLI
    skips (``hookRegistry.ts``: "is not an array"): the entries in it never run.  An unread file
    (``Unjudged``) sets nothing known."""
    listed = dict.fromkeys(SCHEMA_EVENTS, True)
    order = SCOPES.index(scope)
    for _, settings, where in sorted(others, key=lambda found: SCOPES.index(found[2])):
        if SCOPES.index(where) >= order or not isinstance(settings, dict) or "hooks" not in settings:
            continue
        hooks = settings["hooks"]
        if not isinstance(hooks, dict):
            listed = {}
            continue
        for event, value in hooks.items():
            listed[event] = listed.get(event, False) or isinstance(value, list)
    return frozenset(event for event, found in listed.items() if found)


def as_run(config: Any, wrapped: frozenset[str]) -> Any:
    """``config`` with each event of ``wrapped`` (``listed_before``) whose hooks are an object
    made the one matcher group it is once Gemini CLI merged it: its entries run."""
    hooks = config.get("hooks") if isinstance(config, dict) else None
    if not isinstance(hooks, dict) or not any(isinstance(hooks.get(event), dict) for event in wrapped):
        return config
    return {**config, "hooks": {event: [value] if event in wrapped and isinstance(value, dict) else value
                                for event, value in hooks.items()}}


def off_names(config: Any) -> set[str]:
    """The names by which Gemini CLI's disabled hooks turn agentscan's entries off
    (``hookRegistry.ts`` ``getHookName``: the name, or the command when it has none):
    ``agentscan``, the name an install gives, and those of the file's entries of ours."""
    named = (entry.get("name") or entry.get("command") for _, entry in _ours(config))
    return {"agentscan", *(name for name in named if isinstance(name, str))}


def _ours(config: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each entry of agentscan's in a parsed settings file, with its event."""
    hooks = config.get("hooks") if isinstance(config, dict) else None
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            inner = group.get("hooks") if isinstance(group, dict) else None
            for entry in inner if isinstance(inner, list) else ():
                if is_ours(entry):
                    yield event, entry


def _key(entry: dict[str, Any]) -> str:
    # JavaScript's ``name || ''``: a missing, null or empty name is the same key.
    name, command = entry.get("name"), entry.get("command") if entry.get("type") == "command" else ""
    return f"{name or ''}:{command or ''}"
