"""Options shared by every command, and the scanner they configure."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import typer
from typer.core import TyperCommand, TyperOption

from agentscan.scan.scanner import Scanner
from agentscan.context import ScanContext
from agentscan.errors import AgentscanError, NoReadableRoot, StrictWarnings

F = TypeVar("F", bound=Callable[..., Any])

#: (name, flags, help, takes a value) of the options every command takes, before or after its name
GLOBAL_OPTIONS = (
    ("home", ("--home",), "Read agent files under DIR instead of $HOME.", True),
    ("demo", ("--demo",), "Use the small demo home shipped with agentscan.", False),
    ("no_cache", ("--no-cache",), "Do not read or write agentscan's cache.", False),
    ("strict", ("--strict",), "Exit 1 when any input had to be skipped.", False),
    ("verbose", ("--verbose", "-v"), "Print every warning on stderr.", False),
    ("quiet", ("--quiet", "-q"), "No progress, hints or warnings on stderr (errors still print).", False),
)
GLOBAL_NAMES = frozenset(name for name, *_ in GLOBAL_OPTIONS)


@dataclass
class State:
    home: Optional[Path] = None
    demo: bool = False
    no_cache: bool = False
    strict: bool = False
    verbose: bool = False
    quiet: bool = False  # --quiet: no progress, hints or warning summary on stderr

    def __post_init__(self) -> None:
        self._apply_quiet()

    def merge(self, values: dict[str, Any]) -> None:
        """Global options given after the command name add to those given before it."""
        if values.get("home") is not None:
            self.home = Path(values["home"])
        for name in ("demo", "no_cache", "strict", "verbose", "quiet"):
            if values.get(name):
                setattr(self, name, True)
        self._apply_quiet()

    def _apply_quiet(self) -> None:
        # Hints are printed from deep in the renderers: they ask ``term``.
        from agentscan.cli import term

        term.set_quiet(self.quiet)

    def scanner(self, providers: list[str] | None = None, *, memo: bool = False) -> Scanner:
        """``memo``: discovery may come from the index (``scan.memo``); for the
        commands whose every parse goes through the scanner (list, show, tokens)."""
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
        from agentscan.cli.term import stderr_is_tty

        if stderr_is_tty() and not self.quiet:
            from agentscan.cli.progress import StderrProgress

            context.progress = StderrProgress()
            _PROGRESS.append(context.progress)
        return Scanner(context=context, provider_names=providers or None, use_cache=not self.no_cache,
                       memo_discovery=memo)


#: progress reporters of this run, erased before an error is printed
_PROGRESS: list[Any] = []


def end_progress() -> None:
    for progress in _PROGRESS:
        progress.finish()


def state_of(ctx: typer.Context) -> State:
    root = ctx.find_root()
    if not isinstance(root.obj, State):
        root.obj = State()
    return root.obj


class GlobalOptionsCommand(TyperCommand):
    """A command that also takes the global options after its name
    (``agentscan list --no-cache``) and lists them in its ``--help``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, flags, text, takes_value in GLOBAL_OPTIONS:
            self.params.append(TyperOption(
                param_decls=[name, *flags],
                type=str if takes_value else None,
                is_flag=not takes_value,
                default=None if takes_value else False,
                metavar="DIR" if takes_value else None,
                help=text,
                rich_help_panel="Global options",
            ))

    def invoke(self, ctx: Any) -> Any:
        values = {name: ctx.params.pop(name, None) for name in GLOBAL_NAMES}
        state_of(ctx).merge(values)
        return super().invoke(ctx)


def handle_errors(func: F) -> F:
    """Turn domain errors into a one-line message and the contract's exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AgentscanError as exc:
            end_progress()
            print(f"error: {exc}", file=sys.stderr)
            raise typer.Exit(exc.exit_code) from None
        finally:
            # The price helper a command started (``scan.priceahead``) ends with it, whether
            # it printed or failed; a process that never started one has not imported the module.
            ahead = sys.modules.get("agentscan.scan.priceahead")
            if ahead is not None:
                ahead.stop_all()

    return wrapper  # type: ignore[return-value]


def finish(state: State, scanner: Scanner, *, as_json: bool) -> None:
    """Report warnings on stderr (JSON carries them in the document), then fail
    for an unreadable explicitly named root, or any warning under --strict."""
    from agentscan.cli.render import warn_summary

    end_progress()
    scanner.close()
    warnings = scanner.warnings
    if warnings and not as_json and not state.quiet:
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
