"""For ``doctor`` and ``hooks status``: are hooks installed, where do events go, what went wrong lately.

Read-only: the agents' config files are parsed, never changed; the events
store is listed, never opened for writing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from agentscan.hooks import store
from agentscan.errors import HookConfigError
from agentscan.hooks.configreport import config_report, empty_report
from agentscan.hooks.events import HOOK_AGENTS
from agentscan.providers import label_of
from agentscan.hooks.geminionce import SettingsFiles, other_settings
from agentscan.hooks.install import CLAUDE_DIR_VAR, uninstall_paths

ERROR_LINES = 5


def hooks_report(*, home: Path, cwd: Path, env: Mapping[str, str], home_flag: str = "") -> dict[str, Any]:
    """Installed configs (user and project scope), the events store, the last hook errors.
    ``home_flag``: `` --home DIR`` when the command reporting was given one, for each command
    its notes suggest for a user's config (left out, it would change another home's)."""
    configs = []
    seen: set[str] = set()
    files = SettingsFiles(home=home, cwd=cwd, env=env)  # each Gemini CLI settings file read and parsed once
    for agent in ("cursor", "claude", "gemini"):
        for scope in ("user", "project"):
            # The file an install writes, then (Claude, project) the shared settings.json older versions wrote.
            try:
                paths = uninstall_paths(agent, scope, home=home, cwd=cwd, env=env)
            except HookConfigError as exc:  # a CLAUDE_CONFIG_DIR (GEMINI_CLI_HOME) no install would take
                setting = "GEMINI_CLI_HOME" if agent == "gemini" else CLAUDE_DIR_VAR
                configs.append({**empty_report(agent, scope, f"${setting}"), "exists": True, "problem": str(exc)})
                continue
            for index, path in enumerate(paths):
                # Run from the home directory, a project's file is the user's own (~/.claude/settings.json):
                # reported once, as the user's, and never told to be uninstalled as a project's.
                real = os.path.realpath(path)
                if real in seen:
                    continue
                gemini = agent == "gemini"
                others = other_settings(path, home=home, cwd=cwd, env=env, files=files) if gemini else []
                report = config_report(agent, scope, path, legacy=index > 0, home=home, env=env, others=others,
                                       files=files if gemini else None, home_flag=home_flag)
                if agent == "claude" and scope == "user" and env.get(CLAUDE_DIR_VAR):
                    report["source"] = CLAUDE_DIR_VAR  # Claude Code's user settings are not in the home
                if report["exists"]:
                    seen.add(real)
                    configs.append(report)
    _note_both_project_files(configs, home_flag)
    _note_both_scopes(configs, files)
    _note_system_files(configs, files, env, home_flag)
    root = store.data_dir(env)
    ignored = store.ignored_setting(env)  # a relative AGENTSCAN_DATA_DIR: the default is used
    summaries = store.summaries(root)
    from agentscan.hooks.unlisted import unlisted_folders

    # A folder that cannot be listed (made by ``sudo``) holds sessions no count sees: said, as ``trace --list`` says it.
    unlisted = [{"path": w.path, "message": w.message} for w in unlisted_folders(root)]
    per_agent: dict[str, int] = {}
    for summary in summaries:
        per_agent[summary.session.agent] = per_agent.get(summary.session.agent, 0) + 1
    return {
        "installed": [c for c in configs if c["events"]],
        "configs": configs,
        "store": {"path": root, "source": "default" if ignored or not env.get(store.ENV_VAR) else store.ENV_VAR,
                  "exists": os.path.isdir(root), "sessions": len(summaries), "by_agent": per_agent, "unlisted": unlisted,
                  "bytes": _events_bytes(root), "ignored": ignored, "default_store": _default_store(root, env),
                  "problem": agents_store_problem(root, [c["agent"] for c in configs if c["events"]])},
        "errors": _errors(os.path.join(root, store.DIAGNOSTICS_LOG)),
    }


def agents_store_problem(root: str, agents: list[str] | tuple[str, ...]) -> str | None:
    """``store_problem`` for the agents whose hook is installed (``agents``: ``claude``…; none
    installed: every agent a hook could be installed for, what an install would meet): a folder
    no installed hook writes to loses nothing, and ``doctor --strict`` must not fail on it.
    One problem that every one of them meets is said once; otherwise each agent's is named."""
    judged = list(dict.fromkeys(agents)) or list(HOOK_AGENTS)
    plain = [store_problem(root, agent) for agent in judged]
    if len(set(plain)) == 1:
        return plain[0]
    named = [store_problem(root, agent, named=True) for agent, text in zip(judged, plain) if text]
    return "; ".join(text for text in named if text) or None


def store_problem(root: str, agent: str | None = None, *, named: bool = False) -> str | None:
    """Why the hook cannot store events in ``root``, or ``None`` when it can (as far as the
    folders' permissions say): a data directory on a read-only mount, or made by another user
    (``sudo``), loses the events, and the hook, which must stay silent, cannot even log why
    when its ``hook-errors.log`` is in that same directory: ``doctor`` said "not created yet"
    and "hook errors: none logged".  ``agent``: only what concerns its events (its own folder),
    named in what is lost when ``named``; ``None``: any agent's (``agents_store_problem``)."""
    if agent is None:
        return agents_store_problem(root, list(HOOK_AGENTS))
    whose = f" {label_of(agent)}" if named else ""
    every = f"every{whose} event is lost"
    events = os.path.join(root, store.EVENTS_DIR)
    own = os.path.join(events, store.agent_dir_name(agent))
    log = os.path.join(root, store.DIAGNOSTICS_LOG)
    logged = os.path.isdir(root) and (os.access(log, os.W_OK) if os.path.lexists(log) else _writable(root))
    said = "each one said in hook-errors.log" if logged else "and hook-errors.log cannot say so"
    if not os.path.lexists(root):  # made by the first hook, in its nearest existing parent
        parent = os.path.dirname(os.path.abspath(root))
        while parent != os.path.dirname(parent) and not os.path.lexists(parent):
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            return f"the hook cannot create {root}: {parent} is not a directory ({every}, {said})"
        if not _writable(parent):
            return f"the hook cannot create {root}: {parent} cannot be written ({every}, {said})"
        return None
    for folder in (root, events, own):
        if os.path.lexists(folder) and not os.path.isdir(folder):
            return f"the hook cannot store events in {folder}: not a directory ({every}, {said})"
    # Each folder down to the agent's must be searched (``X_OK``: one that cannot puts every file
    # under it out of reach, the stored sessions' too), and the first missing one's parent written.
    # Only the agent's own folder, searched but not written, still takes the sessions stored in it.
    blocked, lost = None, every
    for folder, below in ((root, events), (events, own)):
        if not os.path.isdir(folder):
            break  # made by the hook, in a folder it can write
        if not os.access(folder, os.X_OK) or (not os.path.isdir(below) and not _writable(folder)):
            blocked = folder
            break
    else:
        if os.path.isdir(own) and not _writable(own):
            blocked = own
            if os.access(own, os.X_OK):
                lost = f"the events of a{whose} session not stored there yet are lost"
    if blocked is None:
        return None
    return f"the hook cannot write in {blocked} ({lost}, {said})"


def _writable(folder: str) -> bool:
    """Whether a file can be made in ``folder`` (a read-only mount says no too)."""
    return os.access(folder, os.W_OK | os.X_OK)


def _default_store(root: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    """The default store (``AGENTSCAN_DATA_DIR`` unset) when ``AGENTSCAN_DATA_DIR`` chose
    another and the default one holds sessions: an agent started from the desktop runs its
    hook without the variables of the shell that set it, and stores there, where ``trace``
    does not look; ``None`` otherwise."""
    if not env.get(store.ENV_VAR) or store.ignored_setting(env) is not None:
        return None
    from agentscan.toolkit.userdirs import user_data_dir

    default = user_data_dir({name: value for name, value in env.items() if name != store.ENV_VAR})
    if os.path.realpath(default) == os.path.realpath(root):
        return None
    sessions = len(store.stored_sessions(default))
    return {"path": default, "sessions": sessions} if sessions else None


def hook_status(*, home: Path, cwd: Path, env: Mapping[str, str], demo: bool = False,
                home_flag: str = "") -> dict[str, Any]:
    """The hooks as ``doctor`` and ``hooks status`` report them: ``hooks_report``, with the
    hook's live OTLP export counted beside its events store (``live_export``: ``None``
    before its first span).  ``demo``: the demo's own events store (as ``trace`` reads it),
    never the user's.  ``home_flag``: ``hooks_report``'s."""
    from agentscan.otlp.livecounts import read_counts

    if demo:
        from agentscan.demo import with_demo_events

        env = with_demo_events(env)
    report = hooks_report(home=home, cwd=cwd, env=env, home_flag=home_flag)
    if demo:
        report["store"]["source"] = "--demo"
        report["store"]["problem"] = None  # no hook writes there (it may be a read-only site-packages)
    report["live_export"] = read_counts(report["store"]["path"])
    return report


def live_endpoints(report: dict[str, Any]) -> list[str]:
    """The collectors the installed hooks send spans to (``hook --otlp-endpoint URL``), each
    once, masked as ``otlp`` shows one (``shown_url``: a token in it is a secret)."""
    import shlex

    from agentscan.hooks.arguments import hook_option
    from agentscan.otlp.endpoint import shown_url

    found: list[str] = []
    for config in report.get("installed") or ():
        try:
            words = shlex.split(config.get("command") or "")
        except ValueError:  # an unbalanced quote: the hook's own log says what it ignored
            continue
        # (the hook's own arguments, after ``hook``, read as it reads them: the first endpoint only)
        url = hook_option(words[words.index("hook") + 1:] if "hook" in words else words, "--otlp-endpoint")
        if url and shown_url(url) not in found:
            found.append(shown_url(url))
    return found


def _events_bytes(root: str) -> int:
    """The bytes of every file in the events store (``events/<agent>/*``): what it takes on
    disk, as the hooks append to it on every event of every session."""
    total = 0
    try:
        agents = list(os.scandir(os.path.join(root, store.EVENTS_DIR)))
    except OSError:
        return 0
    for agent in agents:
        try:
            if not agent.is_dir(follow_symlinks=False):
                continue
            with os.scandir(agent.path) as files:
                total += sum(entry.stat(follow_symlinks=False).st_size for entry in files
                             if entry.is_file(follow_symlinks=False))
        except OSError:
            continue  # a folder or file gone or unreadable: the rest is still counted
    return total


def _note_both_project_files(configs: list[dict[str, Any]], home_flag: str = "") -> None:
    """A project's shared settings.json, which the first agentscan installed to, beside the
    settings.local.json installs write now: Claude Code runs the hooks of both files, so each
    event can be stored twice (``hooks install`` warns so; doctor said nothing)."""
    from agentscan.hooks.mendtext import install_command, uninstall_fix

    local = [c for c in configs if c["agent"] == "claude" and c["scope"] == "project" and not c["legacy"] and c["events"]]
    for config in configs:
        if config["legacy"] and config["events"] and local:
            # (an uninstall would refuse a file of ``configreport``'s ``by_hand``: that file by hand)
            fix = uninstall_fix("claude", "project", home_flag, directory=Path(config["path"]).parent.parent,
                                path=config["path"], why=config["by_hand"])
            if not config["by_hand"]:
                fix += (f", which removes agentscan's entries from both, then "
                        f"`{install_command('claude', 'project', home_flag)}`")
            note = (f"agentscan's hook is also installed in {local[0]['path']}: Claude Code runs the hooks of both "
                    f"files, so each event can be captured twice; {fix}")
            config["note"] = note  # its fix also points the hook at this agentscan (``configreport._other_agentscan``)


def _note_both_scopes(configs: list[dict[str, Any]], files: SettingsFiles | None = None) -> None:
    """Installed for the user and in this project too: the agent runs the hooks of both files,
    so each event can be captured twice (``hooks install`` warns so).  The project's config
    names the user's (``also_installed``); ``doctor``'s text says what to run.  Gemini CLI runs
    the entries of both files once when their name and command are the same (``hooks.geminionce``)."""
    from agentscan.hooks.geminionce import files_run_twice

    for config in configs:
        if config["scope"] != "project" or not config["events"] or config["legacy"]:
            continue
        user = [c for c in configs if c["agent"] == config["agent"] and c["scope"] == "user" and c["events"]]
        if user and config["agent"] == "gemini" \
                and not files_run_twice(Path(user[0]["path"]), Path(config["path"]), files=files):
            continue
        if user:
            config["also_installed"] = user[0]["path"]


def _note_system_files(configs: list[dict[str, Any]], files: SettingsFiles, env: Mapping[str, str],
                       home_flag: str = "") -> None:
    """Gemini CLI's system defaults and system settings (an administrator's files, merged under
    and over the user's and the project's) holding an entry of agentscan's that runs beside the
    user's or the project's (another name or command: ``geminionce``): each event can be captured
    twice, as ``hooks install`` warns (``hooks.elsewhere``).  That file is edited by hand, by
    whoever may; or agentscan's entries leave the user's and the project's: when both hold one,
    both uninstalls are named, in one note (on the first), since either alone leaves the other's
    running beside the system file's."""
    from agentscan.hooks.geminionce import administrators, files_run_twice, system_files
    from agentscan.hooks.mendtext import by_hand, each, uninstall_fix
    from agentscan.hooks.ourentries import ours_by_event, shown_on_one_line

    def out_of(config: dict[str, Any]) -> str:
        return uninstall_fix("gemini", config["scope"], home_flag, directory=Path(config["path"]).parent.parent,
                             path=config["path"], why=config.get("by_hand"))

    gemini = [config for config in configs if config["agent"] == "gemini" and config["events"]]
    for path, scope in system_files(env):
        try:
            theirs = files.as_read(path)
        except (OSError, UnicodeDecodeError):  # (none there)
            continue
        # (as Gemini CLI runs it: an object there one more matcher group, ``SettingsFiles.as_run``)
        ours = ours_by_event("gemini", files.as_run(path, theirs)) if isinstance(theirs, dict) else []
        beside = [config for config in gemini if ours and os.path.realpath(path) != os.path.realpath(config["path"])
                  and files_run_twice(path, Path(config["path"]), files=files)]
        if not beside:
            continue
        # (named by its command, an endpoint's credentials masked: to find the entry, not to write one)
        theirs_out = by_hand(path, f"remove agentscan's entry (`{shown_on_one_line(str(ours[0].command))}`)",
                             administrators(scope))
        ours_out = each([out_of(config) for config in beside])
        note = (f"agentscan's hook is also in {path} (Gemini CLI runs the hooks of both files; the entries differ "
                f"in name or command, and it runs equal ones once), so each event can be captured twice; to keep "
                f"one, {theirs_out}, or {ours_out}")
        config = beside[0]
        config["note"] = note if config["note"] is None else f"{config['note']}; {note}"


def _errors(path: str) -> dict[str, Any]:
    """The hook error log's path, its last lines, and why it cannot be read (``problem``, else
    ``None``): one that is there but unreadable is not "none logged"."""
    try:
        return {"path": path, "last": _tail(path), "problem": None}
    except (FileNotFoundError, NotADirectoryError):  # none yet (a store that is a file is said as the store's problem)
        return {"path": path, "last": [], "problem": None}
    except OSError as exc:
        return {"path": path, "last": [], "problem": f"cannot read: {exc.strerror or exc}"}


def _tail(path: str, count: int = ERROR_LINES, limit: int = 64 * 1024) -> list[str]:
    """The last ``count`` lines of the hook error log (reading only its last ``limit`` bytes)."""
    from agentscan.toolkit.fsutil import read_tail

    data, cut = read_tail(path, limit)
    lines = data.decode("utf-8", "replace").splitlines()
    if cut and lines:
        lines = lines[1:]  # the first one is probably cut
    return [line for line in lines if line.strip()][-count:]
