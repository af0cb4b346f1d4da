"""One agent's hook config file, judged for ``hooks status`` and ``doctor`` (``hooks.status``):
how many of the events an install registers it holds, and what would stop its hook from
capturing (a program gone, another agentscan, a Windows path Git Bash mangles).

Read-only: the file is parsed, never changed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from agentscan.hooks.geminionce import SCOPES
from agentscan.hooks.install import AGENT_EVENTS, CURSOR_TAB_EVENTS
from agentscan.hooks.mendtext import copy_entry, mend, reinstall, rerun_installed, set_command
from agentscan.hooks.merging import not_a_list
from agentscan.hooks.ourentries import ours_by_event, shown_on_one_line, users_running_ours
from agentscan.otlp.endpoint import shown_command

if TYPE_CHECKING:
    from agentscan.hooks.geminionce import SettingsFiles

#: Claude Code's setting that turns every hook off
DISABLE_ALL = "disableAllHooks"
_AGENT_ARG = re.compile(r"--agent[= ]+['\"]?([^\s'\"]+)")
#: a shell-form command (``<program> hook --agent NAME``); without it, Claude's exec form, whose
#: ``command`` is the program alone (``args`` hold the rest)
_SHELL_FORM = re.compile(r"\s+hook\s+--agent\b")
#: a shell-form command that runs a Python with ``-m agentscan`` (``hooks.program``)
_MODULE = re.compile(r"\s-m\s+agentscan\s+hook\s")


def empty_report(agent: str, scope: str, path: str, legacy: bool = False) -> dict[str, Any]:
    """The report of a config file that is not there (each key as ``doctor --json`` gives it)."""
    return {"agent": agent, "scope": scope, "path": path, "exists": False,
            "events": 0, "of": len(AGENT_EVENTS[agent]),
            "command": None, "problem": None, "note": None, "narrowed": [], "stored_twice": [],
            "legacy": legacy, "source": None, "also_installed": None, "by_hand": None}


def config_report(agent: str, scope: str, path: Path, *, legacy: bool = False, home: Path | None = None,
                  env: Mapping[str, str] | None = None, others: Sequence[tuple[str, Any, str]] = (),
                  files: SettingsFiles | None = None, home_flag: str = "") -> dict[str, Any]:
    """``agent``'s config at ``path`` judged (``legacy``: a project's shared settings.json, which
    older installs wrote); ``home`` and ``env`` place the program its hook runs; ``others``: the
    other settings files Gemini CLI merges with it (``gemini_hooks_off``); ``files``: the Gemini
    CLI files already read (``others``'), so that this one is read and parsed once too;
    ``home_flag``: the `` --home DIR`` a command it suggests ends with."""
    report = empty_report(agent, scope, str(path), legacy)
    try:
        from agentscan.toolkit.fsutil import read_regular_text

        # (a regular file only: a FIFO in its place hung ``hooks status``)
        text = files.text(path) if files is not None else read_regular_text(path)
    except FileNotFoundError:
        return report
    except (OSError, UnicodeDecodeError) as exc:
        report.update(exists=True, problem=f"cannot read: {exc}")
        return report
    report["exists"] = True
    from agentscan.errors import HookConfigError
    from agentscan.hooks.configjson import as_agents_read, fault, parse, reason

    remark = refusal = None  # (a Gemini CLI file with comments: what an install would not do to it)
    try:
        # Parsed once, as an install parses it (``configjson.parse``): a file it takes is the
        # file as the agent reads it too; one it refuses is read as the agent reads it, below.
        config: Any = files.parsed(path) if files is not None else parse(path, text, agent)
    except HookConfigError as exc:
        refusal = exc
    try:
        # (as the agent reads it: NaN is no JSON to it, so the entries of such a file never run)
        if refusal is not None:
            config = as_agents_read(text)
    except ValueError as exc:
        from agentscan.hooks.configjson import GEMINI_REMARK, TooDeep, as_gemini_reads, commented

        try:
            if isinstance(exc, TooDeep) or not (agent == "gemini" and commented(text)):
                report["problem"] = reason(exc, text) or f"not valid JSON: {fault(exc, text, agent)}"
                return report
            # Gemini CLI reads a file with comments and runs its entries: judged as it reads
            # it ("events: 0" and a problem said captured events were not), with a note.
            config, remark = as_gemini_reads(text), GEMINI_REMARK
        except ValueError as again:  # (its comments blanked: not JSON, or too deep)
            report["problem"] = reason(again, text) or f"not valid JSON: {fault(again)}"
            return report
    # What stops an install or uninstall from writing it back while the agent reads it (comments,
    # a key twice): its entries are mended by hand, and every fix said of it says so (``mendtext.mend``).
    report["by_hand"] = refusal.unwritten if refusal is not None else None
    refused = None if refusal is None else str(refusal).removeprefix(str(path)).lstrip(": ")
    if agent == "claude" and isinstance(config, dict) and config.get(DISABLE_ALL) is True:
        # Claude Code's switch for every hook of every file: nothing is captured while it is on.
        report["problem"] = (f'"{DISABLE_ALL}": true here turns off every Claude Code hook, agentscan\'s too, so '
                             "nothing is captured; remove it (or set it to false) to capture")
    if agent == "gemini" and (off := gemini_hooks_off(config, others, scope, str(path))):
        report["problem"] = f"{off[0]}, so {off[2]}; {off[1]} to capture"
    if agent == "gemini":
        from agentscan.hooks.geminionce import as_run, listed_before

        report["note"] = "; ".join(said for said in (remark, unjudged_note(others)) if said) or None

        # An event's hooks that are an object: one more matcher group of the list it starts as
        # (its entries run, and an install writes it as that group), else skipped by Gemini CLI.
        wrapped = listed_before(scope, others)
        config = as_run(config, wrapped)
        if remark is not None:  # (the comments' refusal, what it says of an object judged so too)
            from agentscan.hooks.configjson import commented_refusal

            refused = commented_refusal(path, text, wrapped=wrapped)
    if report["problem"] is None and remark is None:
        # What an install would refuse to change (a key twice, no object, ``"hooks": []``):
        # said here, rather than "not installed" and an install to run that only fails.
        report["problem"] = refused or _refused(agent, config)
    # Judged as an install judges them (``hooks.ourentries``): an entry under a narrower matcher
    # counts as installed, and is said to capture only what its matcher matches.
    found = ours_by_event(agent, config) if isinstance(config, dict) else []
    if remark is not None and not found and report["problem"] is None:
        # None of agentscan's entries in it yet: the install it needs would refuse it.
        report["problem"], report["note"] = refused, unjudged_note(others)
    listed = AGENT_EVENTS[agent]
    report["events"] = len({ours.event for ours in found} & set(listed))  # of the events an install registers
    command = next((ours.command for ours in found if ours.command), None)
    # As shown (``status --json``, ``doctor``): an endpoint's credentials masked.
    report["command"] = shown_command(command) if isinstance(command, str) else command
    report["narrowed"] = [{"event": ours.event, "matchers": list(ours.narrowed)} for ours in found if ours.narrowed]
    # A second entry beside one that sees every tool: each event it sees is stored twice.
    report["stored_twice"] = [{"event": ours.event, "entries": ours.entries} for ours in found if ours.stored_twice]
    if report["problem"] is not None:
        return report
    # An upgrade into a new venv, the old one deleted: the agent runs a program that is not
    # there, every event is lost, and nothing reaches the hook error log to say so.
    search = (os.environ if env is None else env).get("PATH", os.defpath)
    runs = ((_program(ours.command, home), bool(_MODULE.search(ours.command)))
            for ours in found if isinstance(ours.command, str))
    said = None  # (what the first program that says anything says: one such note)
    for program, module in dict.fromkeys(runs):
        if program is None:
            continue
        missing = _missing(program) if os.path.isabs(program) else None
        if missing:
            report["problem"] = f"the hook runs {program}, which {missing}: {mend(report, set_command(agent), home_flag=home_flag)}"
            break
        if not said:
            said = _other_agentscan(program, module, search, report, home_flag) or (
                None if os.path.isabs(program) else _by_name(program, search, report, home_flag)) \
                or _vanishing(program, report, env, home_flag)
            if said:  # (after what ``_unjudged`` said, if anything)
                report["note"] = said if report["note"] is None else f"{report['note']}; {said}"
    stripped = next((word for ours in found if (word := _bash_strips(agent, ours.command))), None)
    if stripped and report["problem"] is None:
        report["problem"] = (f"the hook runs {stripped} unquoted, and Git Bash, which Claude Code runs hooks "
                             "with on Windows when it is installed, takes its backslashes for escapes and runs nothing; "
                             f"{reinstall(agent, scope, legacy, home_flag=home_flag)} (it writes the path with forward slashes)")
    named = _AGENT_ARG.search(command) if isinstance(command, str) else None
    if named and named.group(1) != agent and report["problem"] is None:
        report["problem"] = f"the hook runs with --agent {named.group(1)}, not {agent}: it stores nothing"
    absent = [event for event in listed if event not in {ours.event for ours in found}]
    # An install by an older agentscan, which registered fewer events (or an entry removed by hand).
    # A narrowed or doubled entry's own fix is that same install: said once, there.
    if found and absent and report["problem"] is None and not report["narrowed"] and not report["stored_twice"]:
        text = (f"agentscan's hook is not on {_events_text(absent)} "
                f"({report['events']} of the {len(listed)} events an install registers): "
                + mend(report, copy_entry(found[0].event, len(absent)), f" to add {'it' if len(absent) == 1 else 'them'}",
                       home_flag=home_flag))
        report["note"] = text if report["note"] is None else f"{report['note']}; {text}"
    users = users_running_ours(agent, config) if isinstance(config, dict) else []
    if users:
        # A wrapper or pipeline of the user's own (``mywrapper agentscan hook … | tee log``): it
        # may well capture, but it is not agentscan's entry, which an install adds beside it.
        from agentscan.toolkit.words import plural

        text = (f"your own hook on {plural(len({event for event, _ in users}), 'event')} runs agentscan hook too "
                f"(`{shown_on_one_line(users[0][1])}`): not counted as agentscan's entry, and left as it is")
        report["note"] = text if report["note"] is None else f"{report['note']}; {text}"
    tab = [ours.event for ours in found if ours.event in CURSOR_TAB_EVENTS] if agent == "cursor" else []
    if tab and report["problem"] is None:
        # An older install's: a hook run on every Tab completion, for events nothing reads.
        text = (f"agentscan's hook is also on {_events_text(tab)}, which Cursor runs on every Tab completion and "
                f"agentscan no longer reads: {reinstall(agent, scope, legacy, home_flag=home_flag, tail=' to remove it')}")
        report["note"] = text if report["note"] is None else f"{report['note']}; {text}"
    return report


def gemini_hooks_off(config: Any, others: Sequence[tuple[str, Any, str]] = (), scope: str = "user",
                     path: str | None = None) -> tuple[str, str, str] | None:
    """What in Gemini CLI's settings turns agentscan's hook in ``config`` (the file of ``scope``,
    at ``path``) off, what to change, and where nothing is captured then (a project's settings
    turn it off in that project only); ``None`` when nothing does.  Every hook off
    (``hooksConfig.enabled``; before it, ``hooks.enabled``), or agentscan's listed as disabled
    (``hooksConfig.disabled``; before it, ``hooks.disabled``), which Gemini CLI matches against an
    entry's name, or its command when it has none (``hookRegistry.ts``).  ``others``: (path,
    parsed settings, scope) of the other files Gemini CLI merges with it (``settings.ts``
    ``mergeSettings``: system defaults, user, workspace, system, each later one over the
    earlier): their ``disabled`` lists are joined (``mergeStrategy: UNION``), so one listed in
    the project's turns off the user's entry too, and ``enabled`` is the last file's that sets it."""
    from agentscan.hooks.geminionce import off_names

    def sections(settings: Any) -> list[tuple[str, dict[str, Any]]]:
        return [(key, section) for key in ("hooksConfig", "hooks")
                if isinstance(section := settings.get(key) if isinstance(settings, dict) else None, dict)]

    def captured(place: str | None, file: str | None) -> str:
        project = Path(file).parent.parent if place == "project" and file else None
        return f"nothing is captured in {project}" if project is not None else "nothing is captured"

    every = sorted([("here", config, scope, path), *((f"in {file}", other, where, file) for file, other, where in others)],
                   key=lambda found: _GEMINI_ORDER[found[2]])
    decided = None  # (key, where, its value, scope, path): the last file, in Gemini CLI's order, that sets it
    for where, settings, place, file in every:
        found = dict(sections(settings))
        for key in ("hooksConfig", "hooks"):  # (the legacy key, where a file has no other)
            value = found.get(key, {}).get("enabled")
            if isinstance(value, bool):
                decided = (key, where, value, place, file)
                break
    if decided is not None and decided[2] is False:
        key, where, _, place, file = decided
        return (f'"{key}.enabled": false {where} turns off every Gemini CLI hook, agentscan\'s too',
                "remove it (or set it to true)", captured(place, file))
    # A ``"hooks"`` that is no object (null, a list) takes the place of the merged hooks of every
    # file before it (``deepMerge.ts``: only two objects are merged; ``hooks`` has no strategy of
    # its own), so a later file's (the system settings', over every other) leaves this one's none.
    places = [found[0] for found in every]
    wipes = [(where, settings["hooks"], place, file) for where, settings, place, file in every[places.index("here") + 1:]
             if isinstance(settings, dict) and "hooks" in settings and not isinstance(settings["hooks"], dict)]
    if wipes:
        where, value, place, file = wipes[-1]
        return (f'"hooks": {json.dumps(value)[:20]} {where} takes the place of the hooks of every settings file '
                "Gemini CLI merges before it, agentscan's too", "make it an object (or remove it)", captured(place, file))
    names = off_names(config)
    for where, settings, place, file in every:
        for key, section in sections(settings):
            listed = section.get("disabled")
            hit = next((name for name in listed if isinstance(name, str) and name in names), None) if isinstance(listed, list) else None
            if hit is not None:
                joined = "" if where == "here" else " (it joins the disabled lists of every settings file)"
                return (f'"{key}.disabled" {where} lists {json.dumps(hit, ensure_ascii=False)}, which turns agentscan\'s '
                        f"hook off in Gemini CLI{joined}", "remove it from that list", captured(place, file))
    return None


def unjudged_note(others: Sequence[tuple[str, Any, str]]) -> str | None:
    """What is said of the other Gemini CLI settings files that could not be read as JSON
    (``geminionce.Unjudged``): whether they turn agentscan's hook off is not known."""
    from agentscan.hooks.geminionce import Unjudged

    unread = [f"{file} {settings.reason}" for file, settings, _ in others if isinstance(settings, Unjudged)]
    if not unread:
        return None
    return (f"{'; '.join(unread)}: Gemini CLI merges {'it' if len(unread) == 1 else 'them'} with this file, so "
            "whether agentscan's hook is turned off there could not be judged")


#: the order Gemini CLI merges its settings in (``settings.ts``): a later file's ``enabled``
#: replaces an earlier's; the system's (an administrator's) comes last, over the project's
_GEMINI_ORDER = {scope: place for place, scope in enumerate(SCOPES)}


def _refused(agent: str, config: Any) -> str | None:
    """Why ``hooks install`` would refuse to change a file it parses (the shapes ``merging`` will
    not change), its words without the path (said beside it), or ``None``."""
    hooks = config.get("hooks") if isinstance(config, dict) else None
    if hooks is not None and not isinstance(hooks, dict):
        return "\"hooks\" is not an object; agentscan will not change it"
    listed = AGENT_EVENTS[agent]
    wrong = next((event for event in listed if not isinstance((hooks or {}).get(event, []), list)), None)
    return None if wrong is None else not_a_list(wrong, (hooks or {})[wrong], agent == "gemini")


def _events_text(events: list[str]) -> str:
    """``Notification``; ``A, B and C``; the first three and how many more."""
    from agentscan.toolkit.andmore import first_of
    from agentscan.toolkit.words import listed

    return first_of(events, 3, "event") if len(events) > 3 else listed(events)


def _program(command: str, home: Path | None) -> str | None:
    """The program a hook command runs, as the agent's shell finds it: its first word (the whole
    ``command`` of Claude's exec form), ``~`` made the home; ``None`` when it cannot be told."""
    if not _SHELL_FORM.search(command):
        word = command.strip()
    elif os.name == "nt":  # ``hooks.install.shell_word``'s quoting: shlex would eat an older install's backslashes
        text = command.lstrip()
        if text.startswith("& "):  # PowerShell's call operator, as docs/cli-hooks.md says to write it
            text = text[2:].lstrip()
        quote = text[:1] if text[:1] in ("'", '"') else ""
        word = text[1:].split(quote, 1)[0] if quote else text.split(None, 1)[0]
    else:
        import shlex

        try:
            words = shlex.split(command)
        except ValueError:
            return None
        word = words[0] if words else ""
    if word.startswith("~/") and home is not None:
        word = str(home / word[2:])
    return word or None


def _bash_strips(agent: str, command: object) -> str | None:
    """On Windows, the program of a Claude shell-form command written unquoted with backslashes
    (``C:\\Users\\me\\…\\agentscan.exe hook --agent claude``, as agentscan wrote it before it
    wrote forward slashes): Git Bash runs ``C:Usersme…``.  ``None`` for any other command
    (Cursor runs its hooks through PowerShell there, which keeps backslashes)."""
    if os.name != "nt" or agent != "claude" or not isinstance(command, str) or not _SHELL_FORM.search(command):
        return None
    word = command.split(None, 1)[0]
    return word if "\\" in word and word[0] not in "'\"" else None


def _missing(program: str) -> str | None:
    """What is wrong with ``program``, an absolute path, as the agent would run it (``None``:
    it can run): it must be an executable file."""
    if not os.path.exists(program):  # a link to a deleted venv's file too
        return "does not exist"
    if not os.path.isfile(program) or not os.access(program, os.X_OK):
        return "is not an executable file"
    return None


def _by_name(program: str, search: str, report: dict[str, Any], home_flag: str = "") -> str | None:
    """A note for a bare name (``agentscan``, written by an install that could not find its own
    path) that this ``PATH`` does not have.  Not a problem: the agent runs it with its own
    ``PATH`` (an editor started from the desktop has another than the shell's)."""
    import shutil

    if os.sep in program or (os.altsep and os.altsep in program) or shutil.which(program, path=search):
        return None  # a relative path depends on the directory the agent runs it from
    # (the install of this config: its agent, its scope, the ``--home`` it was judged for)
    rewrite = mend(report, set_command(report["agent"]), " to write this agentscan's full path", home_flag=home_flag)
    return (f"the hook runs {program} by name, and this PATH has none: unless the agent's PATH has it, "
            f"nothing is captured; {rewrite}")


def _other_agentscan(program: str, module: bool, search: str, report: dict[str, Any], home_flag: str) -> str | None:
    """A note when the hook runs another agentscan than the one running doctor (a venv left
    from before an upgrade): its captures follow that version's rules.  Either may be a console
    script or a Python run with ``-m agentscan`` (``module``): the same install either way."""
    import shutil

    from agentscan.hooks.program import install_dir, run_as_command, temporary_place, this_program

    if not run_as_command():
        return None  # not the command line (agentscan used as a library): no "this agentscan"
    this, this_module = this_program()
    if not os.path.isabs(this) or temporary_place(this) is not None:
        # No path of its own (an embedded Python), or one in uvx's cache: not one to move the hook to.
        return None
    found = program if os.path.isabs(program) else shutil.which(program, path=search)
    if found is None or install_dir(found, module) == install_dir(this, this_module):
        return None
    shown = f"{this} -m agentscan" if this_module else this
    return (f"the hook runs {found}{' -m agentscan' if module else ''}, not this agentscan ({shown}); "
            f"to capture with this one, {mend(report, set_command(report['agent']), again='', home_flag=home_flag)}")


def _vanishing(program: str, report: dict[str, Any], env: Mapping[str, str] | None, home_flag: str = "") -> str | None:
    """A note for a hook that runs agentscan from uvx's or pipx run's cache (``hooks.program``);
    ``home_flag``: the `` --home DIR`` the install it suggests keeps."""
    from agentscan.hooks.program import for_good, temporary_place

    place = temporary_place(program, env)
    if place is None:
        return None
    agent = report["agent"]
    then = rerun_installed(agent, report["scope"], home_flag) if report["by_hand"] is None else \
        mend(report, f"set the command of agentscan's entries to that agentscan's `… hook --agent {agent}`")
    return f"the hook runs {program}, in {place}: once it is gone, nothing is captured; {for_good(then)}"
