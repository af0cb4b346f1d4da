"""``list``, ``show`` and ``tokens`` without importing Typer.

Typer and the standard modules it pulls in cost a warm ``list`` about a third
of its time (docs/performance-history.md).  These three commands are the ones run
over and over, by hand and from scripts, so a command line that uses only
their plain options is parsed here, from a snapshot of what Typer declares
(``cli.static_grammar``), and handed to the same bodies (``cli.actions``).

Anything else goes to Typer, which has the only word on what is wrong with a
command line: an unknown or misspelt option, a missing or extra argument, a
value click would refuse or read otherwise (``-n 0``, ``-n5``, ``--json=1``,
``-qv``, ``--``, a value that starts with ``-``), ``--help`` and
``--version``.  ``parse`` returns ``None`` for all of them.  (``--home`` is text
on both paths: an empty one is a usage error and an unreadable one exit 1,
said alike by ``cli.state``.)
``tests/test_fastpath.py`` runs command lines both ways and compares what
they print and their exit codes, and compares what ``parse`` reads with what
click's own parser makes of random command lines.

One difference is left on purpose: a bug that escapes a command shows
Python's plain traceback here, where Typer draws its own.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any, Callable, NamedTuple

from agentscan.cli.static_grammar import COMMANDS, GLOBAL_OPTIONS


class Call(NamedTuple):
    """A command line the fast path can run: what Typer would have passed (a named
    tuple: see ``cli.term.Terminal``)."""

    command: str
    before: dict[str, Any]  # global options before the command
    after: dict[str, Any]  # global options after it (``list --no-cache``)
    options: dict[str, Any]  # the command's own, by parameter name
    words: tuple[str, ...] = ()  # as typed after the command's name, for a hint that gives them back


class _NotFast(Exception):
    """This command line is Typer's to read."""


def _value(kind: str, text: str) -> Any:
    if kind == "str" or kind == "strs":
        return text
    if kind == "path":
        # click.Path: a path that is there must be readable (a usage error otherwise).
        if not text or (os.path.exists(text) and not os.access(text, os.R_OK)):
            raise _NotFast
        return Path(text)
    # click converts with int(), which also takes " 7", "+7", "7_0" and other digits:
    # only plain ASCII digits are read here, the rest is Typer's.
    if not (text.isascii() and text.isdigit()):
        raise _NotFast
    try:
        number = int(text)
    except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
        raise _NotFast from None
    if kind.startswith("int>=") and number < int(kind[5:]):
        raise _NotFast
    return number


def _take_option(table: dict[str, tuple[str, str]], argv: list[str], index: int, into: dict[str, Any]) -> int:
    """Read the option at ``argv[index]`` into ``into``; the index after it."""
    arg = argv[index]
    if arg.startswith("--") and "=" in arg:
        flag, text = arg.split("=", 1)
        inline = True
    else:
        flag, text, inline = arg, "", False
    if flag not in table:
        raise _NotFast
    name, kind = table[flag]
    if kind == "flag":
        if inline:
            raise _NotFast
        into[name] = True
        return index + 1
    if not inline:
        if index + 1 >= len(argv) or argv[index + 1].startswith("-"):
            raise _NotFast
        index += 1
        text = argv[index]
    value = _value(kind, text)
    if kind in ("strs", "ints"):
        into.setdefault(name, []).append(value)
    else:
        into[name] = value  # given twice, the last one counts (as in click)
    return index + 1


def parse(argv: list[str]) -> Call | None:
    """What ``agentscan ARGV`` asks for, when the fast path can run it exactly as Typer would."""
    try:
        return _parse(argv)
    except _NotFast:
        return None


def _parse(argv: list[str]) -> Call:
    before: dict[str, Any] = {}
    index = 0
    while index < len(argv) and argv[index].startswith("-"):
        index = _take_option(GLOBAL_OPTIONS, argv, index, before)
    if index >= len(argv) or argv[index] not in COMMANDS:
        raise _NotFast
    command = argv[index]
    words = tuple(argv[index + 1:])
    grammar: dict[str, Any] = COMMANDS[command]
    given: dict[str, Any] = {}
    positional: list[str] = []
    index += 1
    while index < len(argv):
        if argv[index].startswith("-"):  # "--", "-" and "-x" alike: an option or Typer's
            index = _take_option(grammar["options"], argv, index, given)
        else:
            positional.append(argv[index])
            index += 1
    options = _with_arguments(grammar["arguments"], positional)
    after = {}
    for name in _GLOBAL_NAMES:
        if name in given:
            after[name] = given.pop(name)
    options.update(given)
    return Call(command, before, after, options, words)


def _with_arguments(arguments: tuple[tuple[str, int], ...], positional: list[str]) -> dict[str, Any]:
    if not arguments:
        if positional:
            raise _NotFast
        return {}
    ((name, nargs),) = arguments  # the snapshot's commands take one argument at most
    if nargs == 1:
        if len(positional) != 1:
            raise _NotFast
        return {name: positional[0]}
    return {name: positional} if positional else {}


#: global options, also taken after the command's name
_GLOBAL_NAMES = frozenset(name for name, _kind in GLOBAL_OPTIONS.values())


def _body(command: str) -> Callable[..., None]:
    from agentscan.cli import actions

    bodies: dict[str, Callable[..., None]] = {
        "list": actions.run_list, "show": actions.run_show, "tokens": actions.run_tokens,
    }
    return bodies[command]


def run(argv: list[str]) -> int | None:
    """Run ``agentscan ARGV`` here and return its exit code; ``None``: Typer's to run."""
    call = parse(argv)
    if call is None:
        return None
    from agentscan.cli.state import State, run_guarded, say_error, set_command_path
    from agentscan.cli.term import settle_streams

    settle_streams()

    # As Typer does: the global options before the command make the state, those after it add to it.
    # A usage error's help line names the command once it is the command's (as Typer's).
    from agentscan.errors import UsageProblem

    set_command_path("agentscan")
    try:
        state = State(**call.before)
        set_command_path(f"agentscan {call.command}", call.words)
        state.merge(call.after)
    except UsageProblem as exc:
        return say_error(exc)
    try:
        return run_guarded(_body(call.command), state, **call.options)
    except KeyboardInterrupt:
        return 130  # click's answer to Ctrl-C: no traceback, no message
    except EOFError:
        print("\nAborted!", file=sys.stderr)  # click's, word for word
        return 1
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # ``agentscan list | head`` ended with exit 0 in ``run_guarded``: an EPIPE here is not
        # stdout's reader leaving (stderr's, another pipe): click's exit 1, and whatever is
        # still buffered for a closed pipe dropped, or the exit's flush fails on it.
        from agentscan.cli.streams import drop_closed_output

        drop_closed_output()
        return 1
