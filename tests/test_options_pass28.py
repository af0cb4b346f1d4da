"""Global and ``list`` options a demanding user tried: ``--demo`` with ``--home`` is refused
(not one of them ignored), and a ``--limit`` or ``--pid`` below 1 is a usage error said in
words, on the fast path (``cli.fastpath``) as through Typer."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.cli import fastpath
from builders import invoke

DEMO_AND_HOME = "error: --demo reads the demo home shipped with agentscan, --home another one: give only one of them\n"


def through_typer(argv: list[str]) -> tuple[int, str, str]:
    result = invoke(*argv)
    return result.exit_code, result.stdout, result.stderr


def through_fast_path(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str] | None:
    capsys.readouterr()
    code = fastpath.run(argv)
    if code is None:  # Typer's to read
        return None
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("where", [
    ["--demo", "--home", "{home}", "list"],
    ["--home", "{home}", "list", "--demo"],
    ["list", "--demo", "--home={home}"],
    ["--demo", "tokens", "--home", "{home}", "--json"],
    ["--demo", "doctor", "--home", "{home}"],
    ["--demo", "--home", "{home}", "export", "--format", "jsonl", "--output", "-"],
    ["--home", "{home}", "--demo", "hooks", "install", "--agent", "claude"],
])
def test_demo_with_home_is_refused(isolated_home: Path, capsys: pytest.CaptureFixture[str], where: list[str]) -> None:
    argv = [arg.format(home=isolated_home) for arg in where]
    typer = through_typer(argv)
    # the error, then the help to read (tests/test_cli_grammar_pass40.py)
    assert typer[:2] == (2, "") and typer[2].startswith(DEMO_AND_HOME) and typer[2].count("\n") == 2
    fast = through_fast_path(argv, capsys)
    assert fast in (None, typer)
    assert not (isolated_home / ".claude").exists()  # hooks install wrote nothing


def test_demo_alone_and_home_alone_still_run(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--demo", "list", "--json"], ["--home", str(isolated_home), "list", "--json"]):
        assert through_typer(argv)[0] == 0
        assert through_fast_path(argv, capsys)[0] == 0  # type: ignore[index]


@pytest.mark.parametrize(("argv", "message"), [
    (["list", "--limit", "0"], "--limit must be a whole number of 1 or more, not 0"),
    (["list", "-n", "0"], "--limit must be a whole number of 1 or more, not 0"),
    (["list", "-n", "-3"], "--limit must be a whole number of 1 or more, not -3"),
    (["list", "--pid", "-5"], "--pid must be a process id of 1 or more, not -5"),
    (["list", "--pid", "0"], "--pid must be a process id of 1 or more, not 0"),
    (["list", "--pid=000"], "--pid must be a process id of 1 or more, not 0"),
])
def test_a_limit_or_pid_below_one_is_a_usage_error_in_words(isolated_home: Path, capsys: pytest.CaptureFixture[str],
                                                            argv: list[str], message: str) -> None:
    """Both ways of reading the command line say it alike (the command says it, not click)."""
    code, out, err = through_typer(argv)
    assert (code, out, err) == (2, "", f"error: {message}\nTry 'agentscan list --help' for help.\n")
    fast = through_fast_path(argv, capsys)
    assert fast is None or fast == (code, out, err)  # a value starting with "-" is Typer's to read
    assert "not in the range" not in err


@pytest.mark.parametrize("argv", [["list", "--limit=2.5"], ["list", "--pid", "me"]])
def test_a_limit_or_pid_that_is_no_number_is_said_by_click(isolated_home: Path, argv: list[str]) -> None:
    code, out, err = through_typer(argv)
    assert (code, out) == (2, "")
    first = err.splitlines()[0]
    # (--limit in agentscan's words since pass 46, as --limit 0 is; --pid since pass 47)
    assert first in ("error: --limit must be a whole number of 1 or more, not '2.5'",
                     "error: --pid must be a process id of 1 or more, not 'me'")
    assert first.startswith("error: ")


def test_a_limit_or_pid_of_one_or_more_is_taken(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--demo", "list", "-n", "1", "--json"], ["list", "--pid", "1", "--json"]):
        assert through_typer(argv)[0] == 0
        assert through_fast_path(argv, capsys)[0] == 0  # type: ignore[index]
