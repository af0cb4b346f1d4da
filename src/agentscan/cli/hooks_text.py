"""What ``hooks install|uninstall`` say of a change (``hooks_commands``): each file's lines,
the ``--dry-run`` summary, the ``--json`` record, and the warnings of a hook installed in
two configs.  Imported only by those two commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.hooks.install import Plan
    from agentscan.model import ScanWarning


def dry_run_summary(plans: list[Plan], agent: str, *, install: bool) -> str:
    """``--dry-run``'s one line: what the diff would do, file by file, and that nothing
    was written (``dry run: would add agentscan's hook to 21 claude events in PATH; nothing
    written``)."""
    from agentscan.cli.render import plural

    said = []
    for plan in plans:
        if not install:
            what = f"remove agentscan's hook from {plural(len(plan.events), agent + ' event')}"
        elif plan.added:
            what = f"add agentscan's hook to {plural(len(plan.added), agent + ' event')}"
        else:
            what = f"change agentscan's hook entries in {plural(len(plan.events), agent + ' event')}"
        said.append(f"{what} in {plan.path}" + (" (and remove the file)" if plan.removes_file else ""))
    return f"dry run: would {'; would '.join(said)}; nothing written"


def change_lines(plan: Plan, agent: str, install: bool, saved: Path | None, emptied: list[Path]) -> list[str]:
    """What one file's change is said to be: every entry of ours an install did not just
    add (a command updated, an entry widened, a second copy removed) is named."""
    from agentscan.cli.render import plural

    if not install:
        lines = [f"agentscan hook removed from {plural(len(plan.events), agent + ' event')} in {plan.path}"]
    elif plan.added:
        lines = [f"agentscan hook added to {plural(len(plan.added), agent + ' event')} in {plan.path}"]
    else:
        lines = [f"agentscan hook entries changed in {plural(len(plan.events), agent + ' event')} in {plan.path}"]
    from agentscan.cli.term import clean
    from agentscan.otlp.endpoint import shown_command

    for (action, written, matcher_written), events in _by_entry(plan).items():
        # Written by whoever edited the file: an escape sequence there is shown, not obeyed;
        # a credential in it (an endpoint's password, ``?api_key=``) is not shown at all.
        command, matcher = clean(shown_command(written)), None if matcher_written is None else clean(matcher_written)
        where = ", ".join(clean(event) for event in events) if len(events) <= 5 else f"{len(events)} events"
        if action == "updated":
            lines.append(f"updated agentscan's command in {where} (it was {command})")
        elif action == "widened" and agent == "claude":
            lines.append(f"moved agentscan's entry in {where} out of the matcher group \"{matcher}\", which runs "
                         f"it only for what that matches, into a group that matches everything: {command}")
        elif action == "widened":
            lines.append(f"removed the matcher \"{matcher}\" from agentscan's entry in {where}, which ran it "
                         f"only for what that matches: {command}")
        else:
            under = f" (under the matcher \"{matcher}\")" if matcher is not None else ""
            lines.append(f"removed a second agentscan entry from {where}{under}, which would have "
                         f"captured each event twice: {command}")
    if plan.dropped:
        lines.append(f"removed agentscan's hook from {', '.join(plan.dropped)}: Cursor runs these on every Tab "
                     "completion, and agentscan reads nothing of them")
    if saved is not None:
        lines.append(f"the previous version is kept in {saved}")
        if plan.relaid and plan.after is not None and not plan.restored:
            lines.append(f"note: {plan.path} was laid out by hand; it is written back as JSON in its own "
                         "indentation, with the same values (its bytes are in that backup)")
    if plan.removes_file:
        lines.append(f"removed {plan.path}: the install had created it, and it held nothing but agentscan's hooks")
    if plan.restored:
        lines.append(f"{plan.path} is back as it was before agentscan's hooks were installed")
    if plan.kept_empty:
        lines.append(f"kept {plan.path}, though it holds no setting now: agentscan has no record of creating it "
                     "(delete it if it was not yours)")
    lines.extend(f"removed {directory}: the install had created it, and it is empty now" for directory in emptied)
    return lines


def _by_entry(plan: Plan) -> dict[tuple[str, str, str | None], list[str]]:
    """The replaced entries grouped by what was done to which command: one line for the
    20 events whose old command was updated, not 20 lines."""
    grouped: dict[tuple[str, str, str | None], list[str]] = {}
    for replaced in plan.replaced:
        grouped.setdefault((replaced.action, replaced.command, replaced.matcher), []).append(replaced.event)
    return grouped


def change_json(plan: Plan, saved: Path | None, emptied: list[Path], diff: str | None) -> dict:
    return {"path": str(plan.path), "events": list(plan.events), "backup": None if saved is None else str(saved),
            "removed_file": plan.removes_file, "removed_dirs": [str(path) for path in emptied],
            "relaid": plan.relaid, "diff": diff,
            "added": list(plan.added), "replaced": [replaced.to_json() for replaced in plan.replaced]}


#: why Gemini CLI runs both: it runs entries of the same name and command once (``hooks.geminionce``)
GEMINI_DIFFERS = " (the entries differ in name or command; Gemini CLI runs equal ones once)"


def elsewhere_warnings(agent: str, scope: str, path: Path, home: Path, cwd: Path, home_given: Path | None,
                       written: str | None = None) -> list[ScanWarning]:
    """Installed for the user and in this project too: the agent runs both, so every event
    can be stored twice. Said, not refused (the user may be moving from one to the other).
    Each way out is a whole command, with the ``--home`` this one was given for the user
    scope (run without it, it would uninstall from the real home's config instead), and
    the file it changes named beside it: ``path`` is the one this install wrote to, ``written``
    what it holds once written.  Gemini CLI runs an entry once whatever file it is in, keyed
    by name and command (``hooks.geminionce``): warned of only when the other file's differs."""
    from agentscan.cli.render import plural
    from agentscan.cli.state import home_option
    from agentscan.hooks.elsewhere import installed_elsewhere
    from agentscan.providers import label_of
    from agentscan.hooks.geminionce import SettingsFiles, files_run_twice
    from agentscan.hooks.mendtext import uninstall_fix
    from agentscan.model import ScanWarning

    def uninstall(where: str) -> str:  # (a project's config is the current directory's)
        return uninstall_fix(agent, where, home_option(home_given), directory=cwd, named=True)

    name = label_of(agent)
    warnings = []
    files = SettingsFiles(home=home, cwd=cwd)  # (Gemini CLI's, each read once: found, then judged)
    for other in installed_elsewhere(agent, scope, home=home, cwd=cwd, files=files):
        if agent == "gemini" and not files_run_twice(other.path, path, written, files):
            continue
        if other.by_hand is not None:  # (``hooks uninstall`` would refuse it: a Gemini file with comments)
            from agentscan.hooks.ourentries import shown_on_one_line

            fix = (uninstall_fix(agent, other.scope, path=other.path, why=other.by_hand,
                                 entries=f"agentscan's entry (`{shown_on_one_line(other.command)}`)")
                   + f", or {uninstall(scope)} to remove it from {path}")
        elif other.scope == scope:  # a project's shared settings.json, which an older agentscan wrote to
            fix = (f"{uninstall(scope)}, which removes agentscan's entries from both {other.path} and {path}, "
                   "then install again in the scope you want")
        else:
            fix = (f"{uninstall(other.scope)} to remove it from {other.path}, "
                   f"or {uninstall(scope).removeprefix('run ')} to remove it from {path}")
        warnings.append(ScanWarning(str(other.path), (
            f"agentscan's hook is also installed in this file ({plural(other.events, agent + ' event')}), not only "
            f"in {path}: {name} runs the hooks of both{GEMINI_DIFFERS if agent == 'gemini' else ''}, so each event can "
            f"be captured twice; to keep one, {fix}")))
    return warnings


def not_ignored_note(path: Path) -> str | None:
    """A note when git would commit a project's ``.claude/settings.local.json`` that this
    install wrote: Claude Code keeps the file out of git when it creates it, agentscan does not
    edit a ``.gitignore``, and the file now holds this machine's path to agentscan.  ``None``
    when git ignores it, or the project is no git work tree, or git cannot be run."""
    import subprocess

    try:
        found = subprocess.run(["git", "check-ignore", "-q", "--", path.name], cwd=path.parent,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if found.returncode != 1:  # 0: ignored; 128: no work tree (or another failure)
        return None
    return (f"note: git does not ignore {path}, which holds this machine's path to agentscan: add "
            f"{path.parent.name}/{path.name} to the project's .gitignore to keep it out of commits "
            "(agentscan leaves .gitignore alone)")


def users_hook_warnings(agent: str, plans: list[Plan], install: bool,
                        wrapped: frozenset[str] = frozenset()) -> list[ScanWarning]:
    """A hook of the user's own that runs ``agentscan hook`` (``mywrapper agentscan hook …``,
    ``… | tee log``): agentscan leaves it as it is, and says so, since the agent runs it beside
    agentscan's own entry (each event captured twice) or, after an uninstall, still runs it.
    ``wrapped``: Gemini CLI's events where an object is a matcher group it runs
    (``geminionce.listed_before``): a hook in it is found too."""
    from agentscan.cli.render import plural
    from agentscan.hooks.configjson import parse
    from agentscan.hooks.geminionce import as_run
    from agentscan.hooks.ourentries import shown_on_one_line, users_running_ours
    from agentscan.model import ScanWarning

    warnings = []
    for plan in plans:
        found = users_running_ours(agent, as_run(parse(plan.path, plan.before), wrapped)) \
            if plan.before is not None else []
        if not found:
            continue
        commands = sorted({shown_on_one_line(command) for _, command in found})  # an endpoint's password masked
        shown = "; ".join(f"`{command}`" for command in commands[:2]) + ("; …" if len(commands) > 2 else "")
        events = plural(len({event for event, _ in found}), "event")
        why = ("the agent runs it beside agentscan's own entry, so each event can be captured twice (`trace` counts "
               "a repeat once): remove one of them" if install else
               "the agent still runs it: remove it yourself if you no longer want it")
        warnings.append(ScanWarning(str(plan.path), (
            f"your own hook on {events} runs agentscan hook too ({shown}); agentscan leaves a hook it did not write "
            f"as it is: {why}")))
    return warnings
