"""A ccusage user's words: each is answered with agentscan's command line for it.

``agentscan daily`` said only ``No such command 'daily'.``, ``tokens -o desc`` sent the user
to ``export`` and ``otlp`` (ccusage's ``-o`` is the sort order), ``tokens -z UTC`` and
``--offline`` got nothing, and ``-p myproject`` (ccusage's ``-p`` is the project) was only an
unknown provider.  Each is still a usage error (exit 2), said on its ``error:`` line, with the
help line after it.  docs/ccusage.md has them in a table.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from builders import console_env
from typer.testing import CliRunner

from agentscan.cli import app, fastpath

runner = CliRunner()


def run(*argv: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(argv))
    return result.exit_code, result.stdout, result.stderr


def script(*argv: str) -> tuple[int, str, str]:
    """``argv`` as the console script runs it: the fast path first, one command module registered."""
    done = subprocess.run([sys.executable, "-m", "agentscan", *argv], capture_output=True, text=True,
                          env=console_env())
    return done.returncode, done.stdout, done.stderr


# --- ccusage's reports, as commands ---------------------------------------------------------

NO_BLOCKS = "agentscan has no 5-hour billing blocks or status line; the last 5 hours' spend: "


@pytest.mark.parametrize("argv, said", [
    (["daily"], "No such command 'daily'. Try: agentscan tokens --by day"),
    (["weekly"], "No such command 'weekly'. Try: agentscan tokens --by week"),
    (["monthly"], "No such command 'monthly'. Try: agentscan tokens --by month"),
    (["session"], "No such command 'session'. Try: agentscan tokens --sort cost"),
    # the words ``tokens`` takes come along (tests/test_words_mends_pass44.py)
    (["Daily", "--json"], "No such command 'Daily'. Try: agentscan tokens --by day --json"),
    (["codex", "daily"], "No such command 'codex'. Try: agentscan tokens -p codex --by day"),
    (["claude", "monthly"], "No such command 'claude'. Try: agentscan tokens -p claude --by month"),
    (["gemini"], "No such command 'gemini'. Try: agentscan tokens -p gemini --by day"),  # ccusage's default report
    (["blocks"], f"No such command 'blocks'. {NO_BLOCKS}agentscan tokens --since 5h"),
    (["statusline"], f"No such command 'statusline'. {NO_BLOCKS}agentscan tokens --since 5h"),
    (["claude", "blocks", "--active"], f"No such command 'claude'. {NO_BLOCKS}agentscan tokens -p claude --since 5h"),
    # the global options given before it are kept, a value that is a report's name too
    (["--demo", "-q", "weekly"], "No such command 'weekly'. Try: agentscan --demo -q tokens --by week"),
    (["--home", "daily", "codex", "daily"], "No such command 'codex'. Try: agentscan --home daily tokens -p codex --by day"),
    # ``help daily`` asks for ``daily --help``: the same error, without ``help``
    (["help", "codex", "daily"], "No such command 'codex'. Try: agentscan tokens -p codex --by day"),
])
def test_a_ccusage_report_is_answered_with_the_tokens_command_line(argv: list[str], said: str) -> None:
    assert run(*argv) == (2, "", f"error: {said}\nTry 'agentscan --help' for help.\n")


@pytest.mark.parametrize("argv, said", [
    (["nosuchcmd"], "error: No such command 'nosuchcmd'.\n"),
    (["dayly"], "error: No such command 'dayly'.\n"),
    (["hooks", "daily"], "error: No such command 'daily'.\n"),  # a report of the whole home, not of hooks
])
def test_other_unknown_commands_are_said_as_before(argv: list[str], said: str) -> None:
    code, out, err = run(*argv)
    assert (code, out, err.splitlines(keepends=True)[0]) == (2, "", said)


def test_the_suggested_command_lines_run(isolated_home: Path) -> None:
    for argv in (["--demo", "tokens", "--by", "day"], ["--demo", "tokens", "-p", "codex", "--by", "week"],
                 ["--demo", "tokens", "--since", "5h"]):
        code, _, err = run(*argv)
        assert code == 0, err


# --- ccusage's options ----------------------------------------------------------------------

TOKENS_ORDER = ("tokens shows sessions newest first; days, weeks and months oldest first; "
                "the other groupings largest first; --reverse gives the opposite order: --by day --reverse is the "
                "newest day first")
OFFLINE = ("agentscan prices calls offline, always: with the data it ships with, "
           "or what `agentscan prices --update` fetched")


@pytest.mark.parametrize("argv, said", [
    (["tokens", "-o", "desc"], f"No such option: -o ({TOKENS_ORDER})"),
    (["tokens", "--by", "day", "-o", "ASC"], f"No such option: -o ({TOKENS_ORDER})"),
    (["tokens", "-odesc"], f"No such option: -o ({TOKENS_ORDER})"),
    (["tokens", "--order=desc"], f"No such option: --order ({TOKENS_ORDER})"),
    (["list", "-o", "desc"], "No such option: -o (list shows the newest sessions first; --reverse prints them oldest first)"),
    (["tokens", "-z", "UTC"], "No such option: -z (tokens has --tz)"),
    (["tokens", "--timezone", "Europe/Paris"], "No such option: --timezone (tokens has --tz)"),
    (["tokens", "-j"], "No such option: -j (tokens has --json)"),
    (["list", "-j"], "No such option: -j (list has --json)"),
    (["tokens", "-s", "20261101"], "No such option: -s (tokens has --since)"),
    (["tokens", "-u", "20261130"], "No such option: -u (tokens has --until)"),
    (["tokens", "--offline"], f"No such option: --offline ({OFFLINE})"),
    (["list", "-O"], f"No such option: -O ({OFFLINE})"),
    # (``tokens -b``, ``--breakdown``: tokens' own since pass 54, tests/test_breakdown_pass54.py)
    (["list", "--breakdown"], "No such option: --breakdown (--breakdown is an option of tokens)"),
    (["tokens", "--instances"], "No such option: --instances (--by cwd totals each project: a project is its working directory)"),
    (["tokens", "--project", "web"], "No such option: --project (tokens has --cwd PATH: a project is its working directory)"),
])
def test_a_ccusage_option_is_answered_with_agentscans(argv: list[str], said: str) -> None:
    assert run(*argv) == (2, "", f"error: {said}\nTry 'agentscan {argv[0]} --help' for help.\n")


def test_o_with_a_value_not_an_order_is_still_said_to_be_exports() -> None:
    code, _, err = run("tokens", "-o", "out.jsonl")
    assert code == 2 and err.startswith("error: No such option: -o (-o is an option of export and otlp)\n")


@pytest.mark.parametrize("argv, said", [
    (["daily"], "error: No such command 'daily'. Try: agentscan tokens --by day\n"),
    (["tokens", "-z", "UTC"], "error: No such option: -z (tokens has --tz)\n"),
    (["tokens", "-o", "desc"], f"error: No such option: -o ({TOKENS_ORDER})\n"),
])
def test_the_console_script_says_the_same(argv: list[str], said: str, isolated_home: Path) -> None:
    code, out, err = script(*argv)
    assert (code, out, err.splitlines(keepends=True)[0]) == (2, "", said)


# --- ccusage's values: a project for -p and for --by ------------------------------------------

PROJECT_HINT = "hint: -p is the provider (the agent); `list` and `tokens` pick a project with --cwd PATH\n"
PROVIDERS = "choose from: claude, codex, gemini, cursor"


@pytest.mark.parametrize("command", ["tokens", "list"])
def test_p_given_a_project_says_cwd_picks_one(command: str, isolated_home: Path) -> None:
    assert run(command, "-p", "myproject") == (
        2, "", f"error: unknown provider 'myproject'; {PROVIDERS}\n{PROJECT_HINT}Try 'agentscan {command} --help' for help.\n")


def test_the_fast_path_says_the_project_hint_too(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert fastpath.run(["tokens", "-p", "myproject"]) == 2
    assert PROJECT_HINT in capsys.readouterr().err


def test_a_slip_for_a_provider_gets_no_project_hint(isolated_home: Path) -> None:
    code, _, err = run("tokens", "-p", "claud")
    assert code == 2 and "hint:" not in err and "did you mean claude?" in err


@pytest.mark.parametrize("value", ["project", "Projects"])
def test_by_project_is_by_cwd(value: str, isolated_home: Path) -> None:
    # (Pass 48: taken as ``--by cwd``, no longer refused with a guess: ``test_tables_pass48``.)
    assert run("--demo", "tokens", "--by", value) == run("--demo", "tokens", "--by", "cwd")


def test_a_compact_ccusage_date_is_taken(isolated_home: Path) -> None:
    code, _, err = run("--demo", "tokens", "--since", "20261101", "--by", "month")
    assert code == 0, err


# --- docs/ccusage.md: every command line it gives runs ----------------------------------------

DOC = Path(__file__).resolve().parents[1] / "docs" / "ccusage.md"


def doc_command_lines() -> list[str]:
    """The ``agentscan …`` lines of docs/ccusage.md: its table's cells and its shell block's
    lines, each up to a pipe (``| jq …``)."""
    import re

    text = DOC.read_text()
    lines = re.findall(r"`(agentscan [^`]*)`", text)
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        lines += [line.split(" | ")[0] for line in block.splitlines() if line.startswith("agentscan ")]
    return list(dict.fromkeys(lines))


def test_every_command_line_of_the_ccusage_page_runs_on_the_demo(isolated_home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    monkeypatch.chdir(tmp_path)  # ``export -o usage.sqlite`` writes here
    lines = doc_command_lines()
    assert "agentscan tokens --by day" in lines and "agentscan tokens --json" in lines
    for line in lines:
        if line == "agentscan prices --update":  # the network: not in a test
            continue
        words = shlex.split(line.replace(" ID", " 7f3c9a12").replace("NAME", "weather-app"))
        result = runner.invoke(app, ["--demo", *words[1:]])
        assert result.exit_code == 0, (line, result.output)
