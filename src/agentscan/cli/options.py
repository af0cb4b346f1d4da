"""Options shared by every command, and the scanner they configure."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import typer

from agentscan.scan.scanner import Scanner
from agentscan.context import ScanContext
from agentscan.errors import AgentscanError, NoReadableRoot, StrictWarnings

F = TypeVar("F", bound=Callable[..., Any])

@dataclass
class State:
    home: Optional[Path] = None
    demo: bool = False
    no_cache: bool = False
    strict: bool = False
    verbose: bool = False

    def scanner(self, providers: list[str] | None = None) -> Scanner:
        import os

        env = dict(os.environ)
        home = self.home
        if self.demo:
            from agentscan.demo import demo_home

            from agentscan.providers import provider_env_vars

            home = demo_home()
            # The demo must never mix in the user's real sessions.
            for name in provider_env_vars():
                env.pop(name, None)
        context = ScanContext.create(home=home, env=env)
        if self.demo:
            context.home_source = "--demo"
        return Scanner(context=context, provider_names=providers or None, use_cache=not self.no_cache)


def state_of(ctx: typer.Context) -> State:
    state = ctx.find_root().obj
    return state if isinstance(state, State) else State()


def handle_errors(func: F) -> F:
    """Turn domain errors into a one-line message and the contract's exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AgentscanError as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise typer.Exit(exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def finish(state: State, scanner: Scanner, *, as_json: bool) -> None:
    """Report warnings on stderr (JSON carries them in the document), then fail
    for an unreadable explicitly named root, or any warning under --strict."""
    from agentscan.cli.render import warn_summary

    scanner.close()
    warnings = scanner.warnings
    if warnings and not as_json:
        warn_summary(warnings, verbose=state.verbose)
    problems = scanner.unreadable_explicit_roots()
    if problems:
        raise NoReadableRoot("; ".join(problems))
    if state.strict and warnings:
        raise StrictWarnings(f"{len(warnings)} warnings (--strict)")


JsonOption = typer.Option(False, "--json", help="Print one JSON document on stdout.")
ProviderOption = typer.Option(None, "--provider", "-p", help="Only this provider (repeatable).", metavar="P")
SinceOption = typer.Option(None, "--since", help="Only sessions active since WHEN: 2026-11-01, an ISO time, or 3d / 12h.", metavar="WHEN")
RedactOption = typer.Option(
    False, "--redact", help="Replace prompt, response and tool text with a length and hash; mask secrets."
)
