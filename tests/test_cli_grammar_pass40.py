"""Command-line grammar and help as a user of ``gh`` or ``git`` expects them.

1. ``hooks install claude``: the agent is also a word after the command, not only ``--agent``.
2. Every usage error is said alike, click's and agentscan's own, on every path (Typer, the
   fast path, the console script): ``error: …``, then ``Try 'agentscan CMD --help' for help.``;
   click's spelling neighbours are kept only when close (``--bogus`` is no ``--verbose``).
3. Each command's ``--help`` ends with ``Examples:``, and every example parses.
4. ``trace --list`` keeps a title of ``list``'s 25 characters while CWD is left to go.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders import console_env
import typer.main
from typer.testing import CliRunner

from agentscan.cli import app, fastpath
from agentscan.cli.typer_app import close_options

runner = CliRunner()


def typer_run(*argv: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(argv))
    return result.exit_code, result.stdout, result.stderr


def fast_run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = fastpath.run(argv)
    assert code is not None, f"the fast path refused {argv}"
    out, err = capsys.readouterr()
    return code, out, err


def console_run(*argv: str) -> tuple[int, str, str]:
    """As the console script runs it (the fast path first, then Typer), in a process of its own."""
    done = subprocess.run([sys.executable, "-m", "agentscan", *argv], capture_output=True, text=True,
                          env=console_env())
    return done.returncode, done.stdout, done.stderr


# -- 2. one style for every usage error -----------------------------------------------------


USAGE_ERRORS = [
    (["--demo", "list", "--bogus"], "list", "error: No such option: --bogus"),
    (["--demo", "tokens", "--by", "foo"], "tokens", "error: unknown --by 'foo'; choose from: session, day, "),
    (["--demo", "show"], "show", "error: give a session ID (`agentscan --demo list` shows the newest sessions' ids)"),
    (["--demo", "nosuchcmd"], "", "error: No such command 'nosuchcmd'."),
    (["--demo", "list", "-n", "0"], "list", "error: --limit must be a whole number of 1 or more, not 0"),
    (["--demo", "tokens", "--since", "yesterdayish"], "tokens", "error: cannot read the time 'yesterdayish' (did you mean yesterday?): "
     "use a date (2026-11-01 or 20261101, today, yesterday), a week or month (2026-W49, 2026-11), an ISO time, or a duration "
     "(3d, 12h)"),
    (["hooks", "install", "claude", "--agent", "cursor"], "hooks install",
     "error: two agents given, claude and --agent cursor: give one"),
    (["--demo", "--home", "x", "list"], "", "error: --demo reads the demo home shipped with agentscan, "
     "--home another one: give only one of them"),
    (["--demo", "list", "--home", "x"], "list", "error: --demo reads the demo home shipped with agentscan, "
     "--home another one: give only one of them"),
    # found by click's option parser, which raises without the command: its help all the same
    (["--demo", "tokens", "--cwd"], "tokens", "error: --cwd needs a value: give a directory, or leave it out"),
    (["--demo", "export", "--format"], "export", "error: --format needs a value: give one of jsonl, csv, sqlite"),
    (["--demo", "tokens", "--json=1"], "tokens", "error: --json takes no value: give --json alone"),
]


@pytest.mark.parametrize("argv, command, error", USAGE_ERRORS)
def test_every_usage_error_is_the_error_then_where_the_help_is(argv: list[str], command: str, error: str) -> None:
    """``error``: how the error line begins (a list of choices may grow)."""
    code, out, err = typer_run(*argv)
    help_line = f"Try 'agentscan{' ' + command if command else ''} --help' for help."
    assert (code, out) == (2, "")
    first, second = err.splitlines()
    assert first.startswith(error) and second == help_line, err
    assert err.endswith("\n")


@pytest.mark.parametrize("argv, command, error", [case for case in USAGE_ERRORS if fastpath.parse(case[0])])
def test_the_fast_path_says_a_usage_error_as_typer_does(argv: list[str], command: str, error: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert fast_run(argv, capsys) == typer_run(*argv)


def test_the_fast_path_takes_some_of_them() -> None:
    # (else the comparison above compares nothing)
    taken = [argv for argv, _command, _error in USAGE_ERRORS if fastpath.parse(argv)]
    assert len(taken) >= 4, taken


@pytest.mark.parametrize("argv", [["list", "--bogus"], ["tokens", "--by", "foo"], ["show"]])
def test_the_console_script_says_it_alike(argv: list[str]) -> None:
    # ``python -m agentscan``: click would name it so in its hint; the help line says agentscan.
    assert console_run("--demo", *argv) == typer_run("--demo", *argv)


def test_a_usage_error_raised_after_another_command_names_its_own() -> None:
    # The command run last in this process must not leak into the next error's help line.
    assert typer_run("--demo", "tokens", "--by", "foo")[0] == 2
    _code, _out, err = typer_run("--home", "", "list")
    assert err.splitlines()[-1] == "Try 'agentscan --help' for help."


def test_an_error_that_is_no_usage_error_has_no_help_line() -> None:
    code, out, err = typer_run("--demo", "show", "zzzzzzzzzz")  # exit 1: no such session
    assert code == 1 and out == "" and "--help" not in err


@pytest.mark.parametrize("argv, said", [
    (["list", "--bogus"], "error: No such option: --bogus"),
    (["list", "--verbos"], "error: No such option: --verbos. Did you mean --verbose?"),
    (["list", "--sinc", "1d"], "error: No such option: --sinc. Did you mean --since?"),
    (["trace", "--lst"], "error: No such option: --lst. Did you mean --last or --list?"),
    (["hooks", "install", "--dry"], "error: No such option: --dry. Did you mean --dry-run?"),
])
def test_only_a_close_spelling_is_suggested(argv: list[str], said: str) -> None:
    code, _out, err = typer_run(*argv)
    assert code == 2 and err.splitlines()[0] == said
    assert "Possible options" not in err


def test_close_options_leaves_out_what_only_shares_dashes() -> None:
    assert close_options("--bogus", ["--verbose"]) == []
    assert close_options("--sinc", ["--json", "--since", "--strict"]) == ["--since"]
    assert close_options("--lim", ["--limit"]) == ["--limit"]


# -- 1. hooks install AGENT -------------------------------------------------------------------


def config_files(home: Path) -> list[str]:
    return sorted(str(path) for path in home.rglob("*"))


@pytest.mark.parametrize("command", ["install", "uninstall"])
@pytest.mark.parametrize("agent", ["claude", "cursor"])
def test_the_agent_may_be_a_word_after_the_command(command: str, agent: str, isolated_home: Path) -> None:
    as_option = typer_run("hooks", command, "--agent", agent, "--dry-run", "--json")
    assert as_option[0] == 0
    assert typer_run("hooks", command, agent, "--dry-run", "--json") == as_option
    assert typer_run("hooks", command, agent.capitalize(), "--dry-run", "--json") == as_option
    assert typer_run("hooks", command, agent, "--agent", agent, "--dry-run", "--json") == as_option


def test_the_word_installs_as_the_option_does(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(isolated_home)
    code, out, _err = typer_run("hooks", "install", "claude")
    assert code == 0 and "agentscan hook added to" in out
    assert (isolated_home / ".claude" / "settings.json").is_file()
    assert typer_run("hooks", "install", "--agent", "claude")[1].endswith("nothing to change (already installed)\n")


@pytest.mark.parametrize("argv, error", [
    (["hooks", "install", "claude", "--agent", "cursor"], "error: two agents given, claude and --agent cursor: give one"),
    (["hooks", "uninstall", "cursor", "--agent=claude"], "error: two agents given, cursor and --agent claude: give one"),
    (["hooks", "install"], "error: AGENT is required; choose from: cursor, claude, gemini"),
    (["hooks", "uninstall", "--dry-run"], "error: AGENT is required; choose from: cursor, claude, gemini"),
    (["hooks", "install", "codex"], "error: codex has no hooks to install: agentscan reads its sessions from its files; hooks are for cursor, claude, gemini"),
    (["hooks", "install", "--agent", "codex"], "error: codex has no hooks to install: agentscan reads its sessions from its files; hooks are for cursor, claude, gemini"),
])
def test_two_agents_none_or_an_unknown_one_is_a_usage_error(argv: list[str], error: str, isolated_home: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(isolated_home)
    before = config_files(isolated_home)
    code, out, err = typer_run(*argv)
    assert (code, out, err) == (2, "", f"{error}\nTry 'agentscan hooks {argv[1]} --help' for help.\n")
    assert config_files(isolated_home) == before  # nothing written


def test_the_help_names_the_agent_argument() -> None:
    text = typer_run("hooks", "install", "--help")[1]
    assert text.startswith("Usage: agentscan hooks install [OPTIONS] [AGENT]\n")
    assert "[AGENT]  The agent whose config to change: cursor, claude or gemini" in text


# -- 3. Examples: in --help -------------------------------------------------------------------


#: the commands whose --help must end with examples
WITH_EXAMPLES = {"list", "show", "tokens", "export", "doctor", "otlp", "prices", "trace", "hooks install"}


def every_command() -> dict[str, Any]:
    found: dict[str, Any] = {}

    def walk(group: Any, prefix: str) -> None:
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                walk(command, f"{prefix}{name} ")
            else:
                found[f"{prefix}{name}"] = command

    walk(typer.main.get_command(app), "")
    return found


def example_lines() -> list[tuple[str, str]]:
    return [(name, line) for name, command in every_command().items() if command.epilog
            for line in command.epilog.splitlines()]


def parse_through_app(argv: list[str]) -> Any:
    """``argv`` (after ``agentscan``) parsed by the real commands, down to the one it runs,
    without running it: click's usage errors (an unknown option, a value a choice does not
    take, a missing or extra argument) raise here."""
    group = typer.main.get_command(app)
    ctx = group.make_context("agentscan", list(argv))
    command: Any = group
    while hasattr(command, "commands"):
        name, command, rest = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        ctx = command.make_context(name, rest, parent=ctx)
    return ctx


def test_the_commands_named_have_examples() -> None:
    having = {name for name, _line in example_lines()}
    assert WITH_EXAMPLES <= having, WITH_EXAMPLES - having
    for name in WITH_EXAMPLES:
        assert 2 <= sum(1 for shown, _line in example_lines() if shown == name) <= 4, name


@pytest.mark.parametrize("name, line", example_lines())
def test_every_example_is_a_command_line_the_app_takes(name: str, line: str) -> None:
    words = shlex.split(line, comments=True)
    assert words[0] == "agentscan"
    ctx = parse_through_app(words[1:])
    assert " ".join(ctx.command_path.split()[1:]) == name  # the example runs the command it is under
    assert len(line) <= 76  # one line of an 80-column terminal, indented


def test_a_renamed_option_would_fail_the_examples_test() -> None:
    with pytest.raises(Exception, match="No such option"):
        parse_through_app(["list", "--limt", "3"])
    with pytest.raises(Exception, match="AGENT|agent"):
        parse_through_app(["hooks", "install", "codex"])


@pytest.mark.parametrize("name, line", [(name, line) for name, line in example_lines() if " --demo " in line])
def test_the_demo_examples_run(name: str, line: str) -> None:
    code, out, err = typer_run(*shlex.split(line, comments=True)[1:])
    assert code == 0 and out, (line, err)


@pytest.mark.parametrize("name", sorted(WITH_EXAMPLES))
def test_help_ends_with_the_examples_under_their_heading(name: str) -> None:
    code, text, _err = typer_run(*name.split(), "--help")
    lines = every_command()[name].epilog.splitlines()
    assert code == 0
    assert text.endswith("\n\nExamples:\n" + "".join(f"  {line}\n" for line in lines)), text


def test_the_top_level_help_snapshot_ends_with_the_root_s_examples() -> None:
    """As gh's root help does (pass 45): the snapshot ``agentscan --help`` prints holds them."""
    from agentscan.static_help import TOP_LEVEL_HELP

    lines = typer.main.get_command(app).epilog.splitlines()
    assert TOP_LEVEL_HELP.endswith("\n\nExamples:\n" + "".join(f"  {line}\n" for line in lines))


# -- 4. trace --list's title floor --------------------------------------------------------------


def trace_list(tty: Any, width: int) -> tuple[list[str], str]:
    tty(width, color=False)
    code, out, err = typer_run("--demo", "trace", "--list")
    assert code == 0, err
    return out.splitlines(), " ".join(err.split())


@pytest.mark.parametrize("width", range(60, 121, 4))
def test_trace_list_keeps_25_characters_of_title_while_cwd_is_left_to_go(tty: Any, width: int) -> None:
    lines, note = trace_list(tty, width)
    header, row = lines[0].split(), re.split(r"  +", lines[1])
    assert header[-1] == "TITLE"
    title = row[-1]
    if "CWD" in header:
        assert len(title) >= 25, (width, lines)
    else:
        assert f"left out to fit {width} columns: CWD" in note


def test_at_80_columns_trace_list_leaves_out_cwd_as_list_does(tty: Any) -> None:
    lines, note = trace_list(tty, 80)
    assert lines[0].split() == ["ID", "UPDATED", "EVENTS", "TITLE"]
    assert len(re.split(r"  +", lines[1])[-1]) >= 25
    assert "left out to fit 80 columns: CWD;" in note


@pytest.mark.parametrize("argv, heading", [([], "Usage: agentscan [OPTIONS] COMMAND"),
                                           (["hooks"], "Usage: agentscan hooks [OPTIONS] COMMAND")])
def test_a_group_given_no_command_shows_its_help_whole(argv: list[str], heading: str) -> None:
    """A group given nothing shows its help: not a usage error of one line (and, as ``gh``
    alone does, on stdout with exit 0: pass 50)."""
    code, out, err = typer_run(*argv)
    assert code == 0 and err == "" and out.startswith(heading) and "\nCommands:\n" in out and "error:" not in out


@pytest.mark.parametrize("typed, said", [("cache", "error: No such command 'cache'."),
                                         ("tokns", "error: No such command 'tokns'. Did you mean 'tokens'?"),
                                         ("lst", "error: No such command 'lst'. Did you mean 'list'?")])
def test_an_unknown_command_gets_only_a_close_guess(typed: str, said: str) -> None:
    code, out, err = typer_run(typed)
    assert (code, out, err.splitlines()[0]) == (2, "", said)
