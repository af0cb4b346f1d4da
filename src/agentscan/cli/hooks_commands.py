"""``hook`` and ``hooks install|uninstall|status``: live capture and the hooks that feed it
(``trace``, the tree rebuilt from what they capture, is ``trace_commands``; what install and
uninstall say of a change, ``hooks_text``).

Only Typer is imported here; ``agentscan.hooks`` is imported inside each
command, and ``hook`` (run by the agent on every event) imports nothing but
the small capture module.
"""

from __future__ import annotations

import os
import sys

from enum import Enum
from typing import TYPE_CHECKING, Optional

import typer

from agentscan.cli.options import (
    ConfigCommand,
    GlobalOptionsCommand,
    JsonOption,
    examples,
    handle_errors,
    state_of,
)

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


class Agent(str, Enum):
    cursor = "cursor"
    claude = "claude"
    gemini = "gemini"


class Scope(str, Enum):
    user = "user"
    project = "project"


HOOKS_HELP = "Install, check or remove the hook capture in an agent's config."


class StatusCommand(GlobalOptionsCommand):
    """``hooks status``: it reads no session and keeps no cache, and warns of nothing; of the
    global options only ``--home`` (the user-scope configs) and ``--demo`` (the demo's events
    store) change what it says.  The others are taken, for a script that gives them to all."""

    unlisted = frozenset({"no_cache", "strict", "verbose", "quiet"})
    help_texts = {"home": "Check the user-scope agent configs under DIR instead of $HOME."}


def register(app: typer.Typer) -> None:
    app.command(
        "hook",
        # Unknown arguments must not become a usage error: exit 2 means "deny" to Cursor.
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        # The agents run it (`hooks install` registers it), never a person: not in
        # `agentscan --help`, though `agentscan hook --help` still answers.
        hidden=True,
    )(hook_command)
    hooks_app = typer.Typer(
        name="hooks",
        help=HOOKS_HELP,
        no_args_is_help=True,
    )
    hooks_app.command("install", cls=ConfigCommand,
                      short_help="Add `agentscan hook` to every hook event of the agent.",
                      epilog=examples("agentscan hooks install claude",
                                      "agentscan hooks install cursor --dry-run   # the change, as a diff",
                                      "agentscan hooks install claude --scope project"))(install_command)
    hooks_app.command("uninstall", cls=ConfigCommand,
                      short_help="Remove agentscan's entries (only those) from the agent's hooks.",
                      epilog=examples("agentscan hooks uninstall claude",
                                      "agentscan hooks uninstall cursor --scope project --dry-run"))(uninstall_command)
    hooks_app.command("status", cls=StatusCommand,
                      short_help="Where the hook is installed, its events store and last errors.",
                      epilog=examples("agentscan hooks status",
                                      "agentscan hooks status --json",
                                      "agentscan --home /mnt/old-laptop hooks status"))(status_command)
    # short_help: the whole line in `agentscan --help` at any width (click cuts a help to fit)
    app.add_typer(hooks_app, name="hooks", short_help=HOOKS_HELP)


def hook_command(
    ctx: typer.Context,
    agent: Optional[str] = typer.Option(
        None, "--agent", help="The agent running this hook: cursor, claude or gemini (detected from the payload if left out).", metavar="AGENT",
    ),
    otlp_endpoint: Optional[str] = typer.Option(
        None, "--otlp-endpoint", help="Also send each completed span to this OTLP/HTTP collector, from a detached sender.", metavar="URL",
    ),
    # Its own option, not only the global one before the command: listed in its --help,
    # and ``entry`` sends a command line that holds it here rather than to the capture.
    demo: bool = typer.Option(False, "--demo", help="Store nothing (no agent runs the demo; its events ship with agentscan)."),
) -> None:
    """Store one hook payload read on stdin (the agent runs this; it always exits 0)."""
    if demo or getattr(ctx.obj, "demo", False):
        # No agent runs the demo: the demo's events store ships with the package, and the
        # user's own must not take a payload typed for it.  Exit 0, as always.
        print("agentscan hook: --demo stores nothing", file=sys.stderr)
        return
    from agentscan.hooks.capture import run

    run(agent, otlp_endpoint, ctx.args)  # what click left: each logged as ignored


#: the agent, as a word after the command (``hooks install claude``, as ``gh extension install
#: NAME``) or as ``--agent`` (the spelling the configs' commands and older scripts use)
AgentArgument = typer.Argument(None, metavar="[AGENT]", case_sensitive=False, show_default=False,
                               help="The agent whose config to change: cursor, claude or gemini (or --agent).")
AgentOption = typer.Option(None, "--agent", help="The agent whose config to change (or AGENT).", case_sensitive=False)
ScopeOption = typer.Option(
    Scope.user, "--scope", case_sensitive=False,
    help="user: the config in your home; project: the current directory's (for Claude its settings.local.json, meant to stay out of git).",
)
DryRunOption = typer.Option(False, "--dry-run", help="Print the change as a unified diff and write nothing.")


@handle_errors
def install_command(
    ctx: typer.Context, agent_word: Optional[Agent] = AgentArgument, agent: Optional[Agent] = AgentOption,
    scope: Scope = ScopeOption, dry_run: bool = DryRunOption, as_json: bool = JsonOption,
) -> None:
    """Add `agentscan hook` to every hook event of the agent, keeping the hooks already there."""
    _change(ctx, chosen_agent(agent_word, agent), scope, dry_run, install=True, as_json=as_json)


@handle_errors
def uninstall_command(
    ctx: typer.Context, agent_word: Optional[Agent] = AgentArgument, agent: Optional[Agent] = AgentOption,
    scope: Scope = ScopeOption, dry_run: bool = DryRunOption, as_json: bool = JsonOption,
) -> None:
    """Remove agentscan's entries (and only those) from the agent's hook config."""
    _change(ctx, chosen_agent(agent_word, agent), scope, dry_run, install=False, as_json=as_json)


@handle_errors
def status_command(ctx: typer.Context, as_json: bool = JsonOption) -> None:
    """Which agent configs (user and project scope) run agentscan's hook, and on how many
    events; where the events store is and what it holds; the last hook errors. The hooks
    part of `agentscan doctor`, alone. It changes nothing and exits 0."""
    from pathlib import Path

    from agentscan.cli import render
    from agentscan.cli.state import home_option
    from agentscan.hooks.status import hook_status

    state = state_of(ctx)
    # The home and environment doctor reads (``State.scanner``: --demo's home, without the
    # agents' variables); a --home that is no directory is an error, as for install.
    scanner = state.scanner()
    home, env = scanner.ctx.home, scanner.ctx.env
    report = hook_status(home=home, cwd=Path.cwd(), env=env, demo=state.demo, home_flag=home_option(state.home))
    try:
        unhooked = _unhooked_with_sessions(scanner)
    finally:
        scanner.close()
    if as_json:
        # What the text's "codex: no hooks to install" line says, for a script (additive).
        render.emit_json(render.envelope("hooks_status", {**report, "no_hooks": unhooked}, []))
        return
    from agentscan.cli.doctor_text import print_hooks_status

    print_hooks_status(report, render.terminal(), home_option(state.home), demo=state.demo, unhooked=unhooked)


def _unhooked_with_sessions(scanner: Scanner) -> list[str]:
    """The providers without hooks (Codex) whose folders hold a file, for a hint: the
    first file found is enough (no discovery, which opens every session's head: 1 s on a heavy
    home's first run), no cache is opened, and what a folder cannot say is ``doctor``'s."""
    from agentscan.hooks.events import HOOK_AGENTS

    return [provider.name for provider in scanner.providers if provider.name not in HOOK_AGENTS
            and any(root.kind == "sessions" and _holds_a_file(str(root.path)) for root in provider.roots(scanner.ctx))]


def _holds_a_file(folder: str) -> bool:
    """Whether ``folder`` or a folder under it holds a file (its first found ends the walk)."""
    import os

    for _, _, files in os.walk(folder):
        if files:
            return True
    return False


def chosen_agent(word: Optional[Agent], option: Optional[Agent]) -> Agent:
    """The agent of ``hooks install claude`` or ``--agent claude``: either, or both when they
    agree; two different ones, or none, is a usage error (nothing is written)."""
    from agentscan.errors import UsageProblem

    if word is not None and option is not None and word != option:
        raise UsageProblem(f"two agents given, {word.value} and --agent {option.value}: give one")
    chosen = word or option
    if chosen is None:
        raise UsageProblem(f"AGENT is required; choose from: {', '.join(agent.value for agent in Agent)}")
    return chosen


def _change(ctx: typer.Context, agent: Agent, scope: Scope, dry_run: bool, *, install: bool, as_json: bool) -> None:
    from pathlib import Path

    from agentscan.cli.hooks_text import change_json, change_lines, dry_run_summary, elsewhere_warnings, users_hook_warnings
    from agentscan.context import ScanContext
    from agentscan.errors import UsageProblem
    from agentscan.hooks import install as installer

    state = state_of(ctx)
    if state.demo:
        raise UsageProblem("--demo reads a shipped demo home; hooks are installed in your real one")
    if state.home is not None:
        from agentscan.cli.state import check_home

        check_home(state.home)  # a mistyped --home is an error, not a home made for the hooks
    home = ScanContext.create(home=state.home).home
    cwd = Path.cwd()
    refused = None  # the store problem a real install refuses on, which a --dry-run says
    if install:  # the store it records where it made folders, and the hook its events
        from agentscan.datadir import check, data_dir
        from agentscan.errors import HookConfigError
        from agentscan.hooks.status import store_problem

        if not dry_run:
            check(data_dir())
        if problem := store_problem(data_dir(), agent.value):
            # Refused before the config is touched: the install's own record could not be kept
            # there (it said "cannot change <config>" with the config changed), and the hook
            # would store nothing.
            fix = "fix that (or set AGENTSCAN_DATA_DIR to a folder you can write)"
            if not dry_run:
                raise HookConfigError(f"{problem}: {fix}, then run this command again; nothing was changed")
            refused = (data_dir(), f"{problem}; the install would be refused: {fix}")
    if install:
        paths = [installer.config_path(agent.value, scope.value, home=home, cwd=cwd)]
    else:
        paths = installer.uninstall_paths(agent.value, scope.value, home=home, cwd=cwd)
    command = installer.hook_command(agent.value) if install else None
    others: list = []  # (Gemini CLI's other settings files, merged with this one: ``geminionce``)
    wrapped: frozenset[str] = frozenset()
    if agent.value == "gemini":
        from agentscan.hooks.geminionce import listed_before, other_settings

        others = other_settings(paths[0], home=home, cwd=cwd)
        wrapped = listed_before(scope.value, others)  # (where an object is one more matcher group)
    plans = [installer.plan(agent.value, path, install=install, command=command, wrapped=wrapped) for path in paths]
    warnings = elsewhere_warnings(agent.value, scope.value, paths[0], home, cwd, state.home,
                                  plans[0].after) if install else []
    warnings += users_hook_warnings(agent.value, plans, install, wrapped)
    if refused is not None:
        from agentscan.model import ScanWarning

        warnings.append(ScanWarning(*refused))
    if install:
        from agentscan.cli.state import home_option
        from agentscan.hooks.mendtext import rerun_installed
        from agentscan.hooks.program import install_warning, this_program
        from agentscan.model import ScanWarning

        # uvx's or pipx run's environment: a hook that works today and runs nothing once it is cleaned.
        program = this_program()[0]
        vanishing = install_warning(program, rerun_installed(agent.value, scope.value, home_option(state.home)))
        warnings += [ScanWarning(program, vanishing)] if vanishing else []
    if install and agent.value == "claude":
        from agentscan.hooks.elsewhere import hooks_disabled
        from agentscan.model import ScanWarning

        warnings += [ScanWarning(str(path), '"disableAllHooks": true here turns off every Claude Code hook, '
                                 "agentscan's too: nothing is captured until it is removed (or set to false)")
                     for path in hooks_disabled(home=home, cwd=cwd)]
    if install and agent.value == "gemini":
        from agentscan.hooks.configreport import gemini_hooks_off, unjudged_note
        from agentscan.hooks.configjson import parse
        from agentscan.model import ScanWarning

        # Gemini CLI's switch for every hook (``hooksConfig.enabled``), or agentscan's entry listed as
        # disabled (``hooksConfig.disabled``), in the file as this install leaves it: said as Claude's
        # ``disableAllHooks``.
        off = gemini_hooks_off(parse(paths[0], plans[0].after), others, scope.value, str(paths[0]))
        warnings += [ScanWarning(str(paths[0]), f"{off[0]}: {off[2]} until you {off[1]}")] if off else []
        # (a file Gemini CLI merges that is no JSON: said as ``hooks status`` says it)
        unjudged = unjudged_note(others)
        warnings += [ScanWarning(str(paths[0]), unjudged)] if unjudged else []
    changing = [plan for plan in plans if plan.changed]
    # What the person at the terminal is told; --quiet keeps it to errors (a script, cron).
    # A --dry-run's diff and the --json document are the output asked for: they stay.
    from agentscan.cli import render
    from agentscan.cli.term import home_short_text, stderr_is_tty

    # On a terminal a path in the home reads ``~/…``, as ``hooks status`` and ``doctor`` name the
    # same settings file (``render.path_text``); in a pipe it stays whole.  The diff stays as it is.
    tty = render.terminal().tty
    say = (lambda text: None) if state.quiet or as_json else (lambda text: print(home_short_text(text) if tty else text))

    def noted(text: str) -> str:  # (said on stderr)
        return home_short_text(text) if stderr_is_tty() else text
    if agent.value == "claude" and scope.value == "user" and os.environ.get(installer.CLAUDE_DIR_VAR) \
            and not (state.quiet or as_json):
        # Not the file in the home: said, so that nobody looks for the hooks in ~/.claude.
        render.note(noted(f"note: {installer.CLAUDE_DIR_VAR} is set: Claude Code reads its user settings from {paths[0]}"))
    # The document of --json: what changed (or, with --dry-run, would), file by file.
    changes: list[dict] = []
    if not changing:
        say(f"{paths[0]}: nothing to change ({'already installed' if install else 'no agentscan hooks'})")
    elif dry_run:
        for plan in changing:
            if as_json:
                changes.append(change_json(plan, None, [], plan.diff()))
            else:
                print(plan.diff(), end="")
        if not as_json:
            # On stderr: stdout holds the diff alone, for a patch tool; a 200-line diff
            # said nothing of what it amounts to, nor that nothing was written.
            render.note(noted(dry_run_summary(changing, agent.value, install=install)))
    else:
        # A project's backups go to the data directory, made only when one is kept (a config
        # created or removed has none: no empty folder is left) and before any file changes.
        keeping = scope.value == "project" and any(plan.keeps_backup for plan in changing)
        into = installer.project_backups() if keeping else None
        for plan in changing:
            saved = installer.backup(plan, into=into)
            emptied = installer.write(plan)
            changes.append(change_json(plan, saved, emptied, None))
            for line in change_lines(plan, agent.value, install, saved, emptied):
                say(line)
            if install and agent.value == "claude" and scope.value == "project" and plan.path == paths[0]:
                from agentscan.cli.hooks_text import not_ignored_note

                note = not_ignored_note(plan.path)
                if note is not None:
                    say(note)
        say(installer.RESTART[agent.value])
    if as_json:
        restart = installer.RESTART[agent.value] if changing and not dry_run else None
        render.emit_json(render.envelope("hooks", {
            "action": "install" if install else "uninstall", "agent": agent.value, "scope": scope.value,
            "dry_run": dry_run, "changes": changes, "restart": restart}, warnings))
    if warnings and (not as_json or state.verbose):  # --verbose: on stderr with --json too (``state.finish``)
        render.warn_summary(warnings, verbose=True)  # on stderr; --quiet drops them
    from agentscan.cli.strictend import strict_end

    strict_end(state, warnings, verbose=True)  # exit 1 after the result, as every command's --strict
