"""What a command was asked for (``State``), and how every command ends.

Nothing here imports Typer: ``cli.fastpath`` runs ``list``, ``show`` and
``tokens`` without it, and the Typer commands (``cli.options``) use the same
pieces.  This module and ``cli.options`` are the only ones that map the domain
errors of ``agentscan.errors`` to exit codes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Optional, Sequence

from agentscan.cli.optionvalues import reject_blank
from agentscan.errors import AgentscanError, NoReadableRoot, ProviderNotId, UnknownProvider
from agentscan.invocation import doctor_command, running_home

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


#: the running command, ``agentscan hooks install``, for the line under a usage error
#: (``say_error``; set by ``cli.fastpath`` and ``cli.options`` before a command runs)
_command_path = ["agentscan"]
#: and the words typed after its name (``daily --since 7d -p claude``): a hint for one of them
#: gives the others back, or the line it suggests answers another question (every
#: provider's, all time: ``cli.idwords``)
_typed_words: list[tuple[str, ...]] = [()]

#: the contract's exit code of a usage error (``UsageProblem``, ``UnknownProvider``, click's)
USAGE_EXIT = 2


def set_command_path(path: str, typed: Iterable[str] = ()) -> None:
    """``path``: ``agentscan`` and the command's names, always so spelt (``python -m agentscan``
    too), so that the fast path and Typer say a usage error alike (``usage_error_text``);
    ``typed``: the words after them."""
    _command_path[0] = path
    _typed_words[0] = tuple(typed)


def usage_error_text(message: str, command_path: str | None = None) -> str:
    """A usage error as every path says it, agentscan's own and click's alike, as gh and git
    do: the error on one line, then where the command's help is (click put its usage line
    and hint first, agentscan's own had neither)."""
    from agentscan.cli.term import clean, fitted_error

    return f"{fitted_error(f'error: {clean(message)}')}\n{fitted_error(help_hint(command_path))}\n"


def help_hint(command_path: str | None = None) -> str:
    """Where the command's help is, run as this agentscan is (``invocation.program_word``)."""
    from agentscan.invocation import program_word

    path = command_path or _command_path[0]
    return f"Try '{program_word()}{path.removeprefix('agentscan')} --help' for help."


class State:
    """The global options.  A plain class, not a dataclass: every command makes one at
    start-up, and a dataclass costs about a millisecond to create on import."""

    __slots__ = ("home", "demo", "no_cache", "strict", "verbose", "quiet")

    def __init__(self, home: Optional[Path | str] = None, demo: bool = False, no_cache: bool = False, strict: bool = False,
                 verbose: bool = False, quiet: bool = False) -> None:
        self.home = _absolute(home) if home is not None else None
        self.demo = demo
        self.no_cache = no_cache
        self.strict = strict
        self.verbose = verbose
        self.quiet = quiet  # --quiet: no progress, hints or warning summary on stderr
        self._refuse_demo_with_home()
        self._apply_quiet()
        running_home[0] = self.home_options()

    def merge(self, values: dict[str, Any]) -> None:
        """Global options given after the command name add to those given before it."""
        if values.get("home") is not None:
            self.home = _absolute(values["home"])
        for name in ("demo", "no_cache", "strict", "verbose", "quiet"):
            if values.get(name):
                setattr(self, name, True)
        self._refuse_demo_with_home()
        self._apply_quiet()
        running_home[0] = self.home_options()

    def home_options(self) -> str:
        """`` --demo`` or `` --home DIR`` (``home_option``): what a command agentscan suggests
        needs to read the home this one read."""
        from agentscan.invocation import home_words

        return home_words(demo=self.demo, home=self.home)

    def _refuse_demo_with_home(self) -> None:
        """``--demo`` reads the demo home shipped in the package, whatever ``--home`` says:
        given both, one would be ignored without a word (a user who meant their backup
        would be shown the demo's sessions), so neither is chosen for them."""
        if self.demo and self.home is not None:
            from agentscan.errors import UsageProblem

            raise UsageProblem("--demo reads the demo home shipped with agentscan, --home another one: give only one of them")

    def _apply_quiet(self) -> None:
        # Hints are printed from deep in the renderers: they ask ``term``.
        from agentscan.cli import term

        term.set_quiet(self.quiet)

    def scanner(self, providers: list[str] | None = None, *, memo: bool = False, home_must_exist: bool = True) -> Scanner:
        """``memo``: discovery may come from the index (``scan.memo``); for the
        commands whose every parse goes through the scanner (list, show, tokens).
        ``home_must_exist``: a ``--home`` that is not a directory is an error (exit 1, as
        any root named explicitly that cannot be read), not an empty answer; ``doctor``
        reports it instead."""
        import os

        from agentscan.context import ScanContext
        from agentscan.scan.scanner import Scanner

        env = dict(os.environ)
        home = self.home
        if home is not None and home_must_exist and not self.demo:
            check_home(home)
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


def _absolute(home: Path | str) -> Path:
    """``--home`` as an absolute path (paths in the output are then absolute too), with
    ``~`` expanded; not resolved: a symlink in it stays as it was given.  An empty one is
    a usage error: ``--home "$BACKUP"`` with the variable unset would read (or, for
    ``hooks install``, write) the current directory or the real home."""
    import os

    if isinstance(home, str):
        reject_blank(home=home)
    return Path(os.path.abspath(os.path.expanduser(home)))


def home_option(home: Optional[Path | str]) -> str:
    """`` --home DIR``, quoted for the shell, to end a command agentscan tells the user to run
    when the command telling it was given ``--home`` (``State.home``); ``""`` without one.
    Left out, the command suggested would read, or change, the files of another home."""
    from agentscan.invocation import home_words

    return home_words(home=home)


def check_home(home: Path) -> None:
    """A ``--home`` that is no directory: ``NoReadableRoot`` (exit 1), named as given; the
    library's own check (``Scanner(home=…)``), in the CLI's words."""
    from agentscan.context import check_home as check

    check(home, "--home")


#: progress reporters of this run, erased before an error is printed
_PROGRESS: list[Any] = []


def end_progress() -> None:
    for progress in _PROGRESS:
        progress.finish()


def start_prices_on_a_first_run(scanner: Scanner) -> None:
    """On a first run (``Scanner.first_run``), the price helper (``scan.priceahead``) is
    started before the censuses: they keep one core busy and leave the other idle, where its
    imports (≈ 0.25 CPU-s) then run.  Started later, as on any other run that will price, it
    shares both cores with discovery and its helper (``scan.aside``): a first ``list`` at the
    bench's scale 10 took 12 % longer (0.899 s against 0.799 s)."""
    if scanner.first_run():
        from agentscan.scan import priceahead

        priceahead.start(scanner)


def start_prices_before_the_index(state: State, providers: Sequence[str] | None = None) -> None:
    """``tokens`` with no index file yet (a first run, as ``start_prices_on_a_first_run`` would
    find it): the price helper is forked now, before the scanner, its imports and the index it
    creates (``scan.priceahead.start_early``); ``start_prices_on_a_first_run`` takes it then.
    Not for ``--no-cache`` or ``--demo`` (theirs start as before), nor a run refused: its arguments are
    checked first (a ``--home`` that is no directory is refused here, a ``-p`` no provider has by the scanner)."""
    if state.no_cache or state.demo:
        return
    if state.home is not None:
        check_home(state.home)
    if providers:
        from agentscan.providers import is_provider_name
        if not all(map(is_provider_name, providers)):
            return
    import os

    from agentscan.scan import priceahead

    priceahead.start_early(os.environ)


#: how a command that takes ``-p`` picks a vendor's models instead (``UnknownProvider.worded_for``):
#: ``None``, ``list``'s ``--grep``; a command not here has no way (``export``, ``otlp``, ``prices``)
_MODEL_PICKS: dict[str, str | None] = {"list": None, "tokens": "--by model counts each model"}


def say_error(exc: AgentscanError) -> int:
    """``error: <message>`` on stderr, and the contract's exit code.  The message is one line
    of printable text (``term.clean``), and each of the error's ``details`` (an ambiguous id's
    candidates, a hint) one more: they may quote a path from the home read, a collector's
    reply or what was typed: each is said by ``term.error_line``.  A usage error (exit 2) ends
    with where the command's help is, as click's do (``help_hint``)."""
    from agentscan.cli.idwords import meant_for, provider_hint
    from agentscan.cli.term import clean, error_line as say
    from agentscan.invocation import hint, program_word
    from agentscan.toolkit.words import quoted

    command = _command_path[0].rpartition(" ")[2]
    meant = meant_for(exc, command, running_home[0], _typed_words[0])
    # ``-p openai``: how this command picks the models (``--grep`` is ``list``'s alone)
    message = exc.worded_for(_MODEL_PICKS.get(command, "")) if isinstance(exc, UnknownProvider) else str(exc)
    # ``tokens today``: no id was meant, so not "too short: give 6 characters", but the option
    say(f"error: no session matches {quoted(clean(getattr(exc, 'query', '')))}" if meant else f"error: {clean(message)}")
    if meant:
        say(meant)
    if getattr(exc, "empty_home", False):
        say(f"no sessions were found in this home: `{doctor_command()}` shows where agentscan looked")
    for line in exc.details:  # candidates to pick from, a hint: each its own line
        say(line)
    if getattr(exc, "project_hint", False):  # an unknown provider: maybe ccusage's -p, a project
        say("hint: -p is the provider (the agent); `list` and `tokens` pick a project with --cwd PATH")
    demo_query = getattr(exc, "demo_query", None)
    if demo_query is not None:  # the README's ``show 7f3c9a12`` without --demo: the command to copy
        from agentscan.scan.notfound import demo_hint

        say(demo_hint(demo_query, _command_path[0].rpartition(" ")[2]))
    if isinstance(exc, ProviderNotId) and exc.shown_by is None:  # ``show gemini``: where its sessions' ids are
        # (``tokens claude`` asked for Claude's tokens: ``tokens -p claude`` gives them)
        say(provider_hint(exc.provider, exc.query, command, running_home[0], _typed_words[0]))
    if getattr(exc, "list_hint", False) and not meant:
        # ``--grep``: the default 25 may not reach an old session, and ``--all`` alone scrolled
        # a heavy user's 1,500 ids past; the home this run read, not the user's own (``--demo
        # show 000000`` is answered with the demo's ids).
        say(hint(f"{program_word()}{running_home[0]} list --grep TEXT",
                  "finds it by title, cwd, model or path (`--all` lists every id)"))
    if exc.exit_code == USAGE_EXIT:  # last, as under click's usage errors (``usage_error_text``)
        say(help_hint())
    return exc.exit_code


def run_guarded(body: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Run a command's body; a domain error becomes a one-line message and the
    contract's exit code (returned: 0 when the body ends normally)."""
    try:
        body(*args, **kwargs)
        return 0
    except AgentscanError as exc:
        end_progress()
        if isinstance(exc.__context__, BrokenPipeError):  # ``export -o - | head``: said, exit 1
            from agentscan.cli.streams import drop_closed_output

            drop_closed_output()
        return say_error(exc)
    except KeyboardInterrupt:
        end_progress()  # a Ctrl-C in a long read leaves no progress line for the prompt to follow
        raise
    except ImportError as exc:  # agentscan's own: upgraded in place mid-run (``errors.CodeChanged``)
        from agentscan.errors import CodeChanged, own_import_failed

        if not own_import_failed(exc):
            raise
        end_progress()
        return say_error(CodeChanged(exc))  # one line, exit 1, not a traceback
    except OSError as exc:
        # A report's reader that stopped reading (``agentscan list --all | head -1``) is no
        # failure: exit 0, saying nothing (exit 1 is the contract's "failure", which a script
        # under ``set -o pipefail`` could not tell from a real one).  An export to stdout
        # says that it was cut, and fails (``export.files.to_stdout``, above).
        from agentscan.cli.streams import drop_closed_output, reader_closed, refused

        if not reader_closed(exc):
            unwritable = refused(exc)  # ``agentscan list > /dev/full``: said as ``export -o -`` says it
            if unwritable is None:
                raise
            end_progress()
            return say_error(unwritable)
        end_progress()
        drop_closed_output()
        return 0
    finally:
        # The price helper a command started (``scan.priceahead``) ends with it, whether
        # it printed or failed; a process that never started one has not imported the module.
        ahead = sys.modules.get("agentscan.scan.priceahead")
        if ahead is not None:
            ahead.stop_all()


def finish(state: State, scanner: Scanner, *, as_json: bool, first: Collection[str] = ()) -> None:
    """Report warnings on stderr (JSON carries them in the document), then fail
    for an unreadable explicitly named root, or any warning under --strict.  ``first``:
    paths whose warnings are said first and whole (``render.warn_summary``)."""
    from agentscan.cli.render import warn_summary

    end_progress()
    scanner.close()
    warnings = scanner.ctx.warnings.listed()  # not ``ScanWarning``s: a remembered answer makes none
    problems = scanner.unreadable_explicit_roots()
    if problems:  # the error names those roots: a warning about one of them would say it twice
        unread = scanner.unreadable_explicit_paths()
        warnings = [warning for warning in warnings if warning.path not in unread]
    # ``--verbose`` is "every warning on stderr": with --json too (the document on stdout is as
    # it is without it), for a script that logs stderr and reads stdout.
    if warnings and (not as_json or state.verbose) and not state.quiet:
        warn_summary(warnings, verbose=state.verbose, first=first)
    if problems:
        raise NoReadableRoot("; ".join(problems))
    from agentscan.cli.strictend import strict_end

    strict_end(state, warnings, verbose=state.verbose, first=first)
