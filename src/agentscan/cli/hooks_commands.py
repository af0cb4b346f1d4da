"""``hook``, ``hooks install|uninstall`` and ``trace``: live capture and the tree built from it.

Only Typer is imported here; ``agentscan.hooks`` is imported inside each
command, and ``hook`` (run by the agent on every event) imports nothing but
the small capture module.
"""

from __future__ import annotations

from enum import Enum
from typing import Optional

import typer

from agentscan.cli.options import JsonOption, RedactOption, handle_errors, state_of


class Agent(str, Enum):
    cursor = "cursor"
    claude = "claude"


class Scope(str, Enum):
    user = "user"
    project = "project"


def register(app: typer.Typer) -> None:
    app.command(
        "hook",
        # Unknown arguments must not become a usage error: exit 2 means "deny" to Cursor.
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )(hook_command)
    hooks_app = typer.Typer(
        name="hooks",
        help="Install or remove agentscan's hook capture in an agent's config.",
        no_args_is_help=True,
    )
    hooks_app.command("install")(install_command)
    hooks_app.command("uninstall")(uninstall_command)
    app.add_typer(hooks_app, name="hooks")
    app.command("trace")(trace_command)


def hook_command(
    agent: Optional[str] = typer.Option(
        None, "--agent", help="The agent running this hook: cursor or claude (detected from the payload if left out).", metavar="AGENT",
    ),
    otlp_endpoint: Optional[str] = typer.Option(
        None, "--otlp-endpoint", help="Also send each completed span to this OTLP/HTTP collector, from a detached sender.", metavar="URL",
    ),
) -> None:
    """Store one hook payload read on stdin (the agent runs this; it always exits 0)."""
    from agentscan.hooks.capture import run

    run(agent, otlp_endpoint)


AgentOption = typer.Option(..., "--agent", help="The agent whose config to change.", case_sensitive=False)
ScopeOption = typer.Option(
    Scope.user, "--scope", help="user: the config in your home; project: the one in the current directory.", case_sensitive=False,
)
DryRunOption = typer.Option(False, "--dry-run", help="Print the change as a unified diff and write nothing.")


@handle_errors
def install_command(
    ctx: typer.Context, agent: Agent = AgentOption, scope: Scope = ScopeOption, dry_run: bool = DryRunOption,
) -> None:
    """Add `agentscan hook` to every hook event of the agent, keeping the hooks already there."""
    _change(ctx, agent, scope, dry_run, install=True)


@handle_errors
def uninstall_command(
    ctx: typer.Context, agent: Agent = AgentOption, scope: Scope = ScopeOption, dry_run: bool = DryRunOption,
) -> None:
    """Remove agentscan's entries (and only those) from the agent's hook config."""
    _change(ctx, agent, scope, dry_run, install=False)


def _change(ctx: typer.Context, agent: Agent, scope: Scope, dry_run: bool, *, install: bool) -> None:
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.errors import UsageProblem
    from agentscan.hooks import install as installer

    state = state_of(ctx)
    if state.demo:
        raise UsageProblem("--demo reads a shipped demo home; hooks are installed in your real one")
    home = ScanContext.create(home=state.home).home
    path = installer.config_path(agent.value, scope.value, home=home, cwd=Path.cwd())
    command = installer.hook_command(agent.value) if install else None
    plan = installer.plan(agent.value, path, install=install, command=command)
    if not plan.changed:
        print(f"{path}: nothing to change ({'already installed' if install else 'no agentscan hooks'})")
        return
    if dry_run:
        print(plan.diff(), end="")
        return
    installer.write(plan)
    verb = "added to" if install else "removed from"
    print(f"agentscan hook {verb} {len(plan.events)} {agent.value} events in {path}")


@handle_errors
def trace_command(
    ctx: typer.Context,
    session_id: str = typer.Argument(..., metavar="ID", help="Conversation/session id, bare or agent:-prefixed, or a unique prefix (6+ chars)."),
    redact: bool = RedactOption,
    as_json: bool = JsonOption,
) -> None:
    """The conversation tree rebuilt from the captured hook events of one session."""
    from agentscan.cli import render
    from agentscan.errors import StrictWarnings
    from agentscan.hooks.tree import trace_session

    state = state_of(ctx)
    trace = trace_session(session_id)
    if redact:
        from agentscan.hooks.redact import redact_trace

        trace = redact_trace(trace)
    if as_json:
        render.emit_json(render.envelope("trace", trace.body_json(), trace.warnings))
    else:
        from agentscan.hooks.text import render as render_text

        print(render_text(trace), end="")
        render.warn_summary(list(trace.warnings), verbose=state.verbose)
    if state.strict and trace.warnings:
        raise StrictWarnings(f"{len(trace.warnings)} warnings (--strict)")
