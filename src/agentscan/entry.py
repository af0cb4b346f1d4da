"""The console-script entry point, kept tiny on purpose.

``agentscan hook`` runs on every event of every agent session, so it must
not pay for Typer and the rest of the CLI (~80 ms): it is recognised here,
from ``sys.argv`` alone, and handed straight to the capture module.  ``agentscan --help``
(and a bare ``agentscan``, which prints the same) is answered from a snapshot of Typer's own text for the same reason (a test
keeps the two equal), and the commonest command lines of ``list``, ``show``
and ``tokens`` are parsed from a snapshot of their options (``cli.fastpath``).
Every other command line goes to the Typer app.
"""

from __future__ import annotations

import gc
import os
import sys

#: click renders help this wide on any terminal at least this wide
_SNAPSHOT_MIN_COLUMNS = 80


def _hook_option(argv: list[str], name: str) -> str | None:
    """``--name X`` / ``--name=X`` from the hook's arguments, read as ``hooks status`` reads
    them (``hooks.arguments.hook_option``, imported on the hook's path only: it imports ``re``);
    anything odd is ignored here (and said in ``hook-errors.log`` by the capture)."""
    from agentscan.hooks.arguments import hook_option

    return hook_option(argv, name)


def _hook_agent(argv: list[str]) -> str | None:
    return _hook_option(argv, "--agent")


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (what click asks) without importing
    shutil, which alone costs more than the rest of this path."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


#: the command lines answered with the top-level help: ``agentscan help``, as git and gh users
#: type it, is ``agentscan --help`` (``cli.typer_app``), and so is a bare ``agentscan`` (Typer's
#: ``no_args_is_help``): the commonest first command of all, not worth Typer's import
_HELP_ARGVS: tuple[list[str], ...] = ([], ["--help"], ["-h"], ["help"])

#: the first line of the snapshot: the program name click prints is the one part that varies
_USAGE = "Usage: agentscan "


def _program_name() -> str | None:
    """The name click would print in ``Usage:`` for this process, ``None`` when not one the
    snapshot can say (a renamed script, a wrapper): those go to Typer."""
    program = sys.argv[0]
    if os.path.basename(program) == "agentscan":
        return "agentscan"
    # ``python -m agentscan``: ``argv[0]`` is the package's ``__main__.py``.  Its usage lines
    # name it as its hints do (``invocation.program_word``, ``cli.typer_app.main``):
    # ``agentscan`` when the one on ``PATH`` is this Python's (a venv's ``bin``: a few stats),
    # else as it was run.  The file run by its path has no package: click names it
    # ``__main__.py``, and Typer says so.
    from agentscan import invocation  # (os and sys alone)

    main = sys.modules.get("__main__")
    if invocation.ran_as_module() and getattr(main, "__package__", None) == "agentscan":
        from agentscan.toolkit.onpath import which  # (os alone: hooks.program's walk, not its imports)

        found = which("agentscan")
        if found is None:
            return invocation.module_word()  # none on ``PATH``
        beside = os.path.dirname(sys.executable or "")
        if beside and os.path.dirname(os.path.abspath(found)) == beside:
            return "agentscan"
        return invocation.program_word()  # another's, or this one's by a link: told by hooks.program
    return None


def _print_static_help(argv: list[str]) -> bool:
    if argv not in _HELP_ARGVS or _terminal_columns() < _SNAPSHOT_MIN_COLUMNS:
        return False
    if not argv and "_AGENTSCAN_COMPLETE" in os.environ:
        return False  # a shell asking for completions runs the bare program: click answers it
    program = _program_name()
    if program is None:
        return False
    if sys.stdout is None:  # closed (``>&-``): Typer's help says so (``cli.streams``)
        return False
    from agentscan.static_help import TOP_LEVEL_HELP

    text = TOP_LEVEL_HELP
    if program != "agentscan" and text.startswith(_USAGE):
        text = f"Usage: {program} " + text[len(_USAGE):]
    sys.stdout.write(text)
    sys.stdout.flush()
    return True


#: the commands ``cli.fastpath`` may run without Typer (``agentscan hook`` must not even load it)
_FAST_COMMANDS = frozenset({"list", "show", "tokens"})

#: global options that take a value (the next argument is not the command)
_GLOBAL_WITH_VALUE = frozenset({"--home"})


def _command_in(argv: list[str]) -> str | None:
    """The command ``argv`` runs; ``None`` when unknown or when help comes first
    (``agentscan --help tokens`` prints the top-level help, every command in it)."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _GLOBAL_WITH_VALUE:
            skip = True
        elif arg in ("-h", "--help"):
            return None
        elif not arg.startswith("-"):
            return arg
    return None


def main() -> None:
    # A command is one short run over data that holds no reference cycles (records,
    # refs, rows, sums, and the modules it imports): reference counting frees all of it.
    # The cycle collector's passes over a heavy user's 15,000 sessions found nothing and
    # cost a fifth of a warm run (docs/performance-history.md); peak memory is the same without them.
    try:
        # (inside the ``try``: a Ctrl-C landing on this line printed a traceback)
        gc.disable()
        # A Ctrl-C that lands in a callback Python runs for itself (importlib's module-lock
        # cleanup, a finalizer) is not raised: Python printed "Exception ignored in ...
        # KeyboardInterrupt" and ran on as if no key was pressed.  Ended as any Ctrl-C is.
        sys.unraisablehook = _unraisable
        _run()
    except KeyboardInterrupt:
        interrupted()
    except OSError as exc:
        _refused_stdout(exc)  # ``--help`` or ``--version`` to a full disk: said, not a traceback
        raise
    finally:
        # First: a second Ctrl-C (the first one's store still running, ``scan.usageparse``) that
        # came as the command ended was raised in the lines below, and printed a traceback.
        _quiet_interrupts()
        # The process ends next: what is alive now is freed by module teardown, not searched
        # for cycles.  Frozen first: every object allocated while the collector was off sat in
        # its youngest generation, so the collection that turning it back on sets off, and the
        # interpreter's last one, each went over the whole heap (0.07-0.1 CPU-s of a warm
        # ``doctor``, ``prices`` or ``tokens --since`` over a heavy user's 15,000 sessions).
        gc.freeze()
        gc.enable()


def _unraisable(unraisable: object) -> None:
    """``sys.unraisablehook`` of a CLI run: a ``KeyboardInterrupt`` Python could not raise
    (it came inside a callback) ends the run as ``interrupted`` does; anything else is
    reported as Python reports it."""
    if isinstance(getattr(unraisable, "exc_value", None), KeyboardInterrupt):
        interrupted()
    sys.__unraisablehook__(unraisable)  # type: ignore[arg-type]


def _refused_stdout(exc: OSError) -> None:
    """Exit 1 with one line when ``exc`` is stdout refusing what was written (a command's
    own output is handled by ``cli.state.run_guarded``; help and the version are printed
    before a command runs); return for anything else."""
    from agentscan.cli.streams import refused

    unwritable = refused(exc)
    if unwritable is not None:
        from agentscan.cli.state import say_error

        sys.exit(say_error(unwritable))


def interrupted() -> None:
    """Exit 130, saying nothing, for a Ctrl-C that came before the command took it in hand (a
    command's own ends so: ``cli.fastpath``, click's): in the tenth of a second of imports
    and start-up it printed a ``KeyboardInterrupt`` traceback.  What was printed is flushed;
    then the process ends at once, as git does: an interrupt can leave a module half
    imported, and the interpreter's teardown of one crashed (SIGSEGV) now and then."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # (a closed pipe: nothing more to say there)
            pass
    os._exit(130)


def _quiet_interrupts() -> None:
    """A Ctrl-C once the command is done (its output printed; the interpreter joining threads,
    running finalizers) ends the process with 130, silently: Python reported it as
    ``Exception ignored in: <module 'threading'>`` with a traceback, and exited 0."""
    threading = sys.modules.get("threading")  # not imported for it: the hook's path has none
    if threading is not None and threading.current_thread() is not threading.main_thread():
        return  # a caller's thread: signals are not ours to set
    import _signal  # type: ignore[import-not-found]  # built in: ``signal`` costs an import (enum) these runs need not pay

    if _signal.getsignal(_signal.SIGINT) is not _signal.default_int_handler:
        return  # ignored (nohup, a background job of a script) or the caller's own: left so

    def exit_130(signum: int, frame: object) -> None:
        try:
            sys.stdout.flush()
        finally:
            os._exit(130)

    _signal.signal(_signal.SIGINT, exit_130)


def _run() -> None:
    argv = sys.argv[1:]
    if _print_static_help(argv):
        sys.exit(0)
    if argv[:1] != ["hook"]:  # (the hook reads no JSON with orjson: its path stays as lean)
        from agentscan import orjsonguard

        orjsonguard.install()  # a Ctrl-C in orjson's first load crashed it: held until loaded
    if not any(name.endswith("_COMPLETE") for name in os.environ):  # shell completion needs Typer
        command = _command_in(argv)
        if command in _FAST_COMMANDS:
            from agentscan.cli import fastpath

            code = fastpath.run(argv)
            if code is not None:
                sys.exit(code)
        from agentscan import invocation

        if command == "help":  # ``help list``: ``list``'s module is the one to register (and ``help``, always)
            command = _command_in(argv[argv.index("help") + 1:])
        invocation.requested_command = command
    # ``hook --demo`` stores nothing: said by the command (``cli.hooks_commands``), not captured.
    if argv[:1] == ["hook"] and not {"-h", "--help", "--demo"} & set(argv):
        from agentscan.hooks.capture import run

        # every argument too: those it does not know are ignored, and logged (``hooks.arguments``)
        run(_hook_agent(argv[1:]), _hook_option(argv[1:], "--otlp-endpoint"), argv[1:])
        sys.exit(0)
    from agentscan.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
