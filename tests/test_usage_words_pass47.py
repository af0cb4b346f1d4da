"""Click's last English usage errors said in agentscan's words, with a hint that helps (pass 47).

A newcomer's ``agentscan list --since 3 days`` got "Got unexpected extra argument(s)
(days)", and ``agentscan list --grep`` "Option '--grep' requires an argument.", where
agentscan's own usage errors say what to give (``--grep is empty …: give the text to look
for``).  Both are now said as those are: ``error: …`` (lower case), what the option takes or
the command takes, and, where the extra word is the rest of an option's value, how to give
it (``--since 3d``, ``--grep 'fix the bug'``).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


def _error(*argv: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(argv))
    first, _, rest = result.stderr.partition("\n")
    return result.exit_code, first, rest


@pytest.mark.parametrize("argv, first", [
    (["--demo", "list", "--since", "3", "days"],
     "error: unexpected argument 'days': list takes no arguments; a duration is one word: --since 3d"),
    (["--demo", "list", "--until", "2", "Weeks"],
     "error: unexpected argument 'Weeks': list takes no arguments; a duration is one word: --until 2w"),
    (["--demo", "export", "--since", "12", "hours"],
     "error: unexpected argument 'hours': export takes no arguments; a duration is one word: --since 12h"),
    (["--demo", "list", "--since", "3", "months"],
     "error: unexpected argument 'months': list takes no arguments; a duration is one word, a number and s, m, h, "
     "d or w: --since 90d, --since 12w"),
    (["--demo", "list", "--grep", "fix", "the", "bug"],
     "error: unexpected arguments 'the', 'bug': list takes no arguments; a value of more than one word is quoted: "
     "--grep 'fix the bug'"),
    (["--demo", "list", "claude"],
     "error: unexpected argument 'claude': list takes no arguments; one provider's sessions: -p claude"),
    (["--demo", "show", "7f3c9a12", "extra"], "error: unexpected argument 'extra': show takes one ID"),
    (["--demo", "doctor", "x"], "error: unexpected argument 'x': doctor takes no arguments"),
    (["--demo", "list", "--json", "x"],  # (pass 53: the option that takes the word)
     "error: unexpected argument 'x': list takes no arguments; to search for it: --grep x"),
    # the word left over is found where it is, not where the same word is an option's value
    (["--demo", "list", "--grep", "days", "--since", "3", "days"],
     "error: unexpected argument 'days': list takes no arguments; a duration is one word: --since 3d"),
    # a zone, a number: no value of two words to quote
    (["--demo", "show", "7f3c9a12", "--tz", "utc", "x"], "error: unexpected argument 'x': show takes one ID"),
    (["--demo", "list", "-n", "3", "days"], "error: unexpected argument 'days': list takes no arguments"),
])
def test_a_word_too_many_is_said_with_what_the_command_takes(argv: list[str], first: str) -> None:
    code, line, rest = _error(*argv)
    assert (code, line) == (2, first)
    assert rest == f"Try 'agentscan {argv[1]} --help' for help.\n"


@pytest.mark.parametrize("argv, first", [
    (["--demo", "list", "--grep"], "error: --grep needs a value: give the text to look for, or leave it out"),
    (["--demo", "list", "-p"],
     "error: -p needs a value: give a provider's name (claude, codex, gemini or cursor), or leave it out"),
    (["--demo", "tokens", "--since"], "error: --since needs a value: give a date (2026-11-01 or 20261101, today, "
     "yesterday), a week or month (2026-W49, 2026-11), an ISO time, or a duration (3d, 12h), or leave it out"),
    (["--demo", "tokens", "--by"],
     "error: --by needs a value: give one of session, day, week, month, model, provider, cwd, agent"),
    (["--demo", "list", "-n"], "error: -n needs a value: give a whole number (-n N)"),
    (["--demo", "otlp", "--endpoint"], "error: --endpoint needs a value: --endpoint URL"),
    (["hooks", "install", "claude", "--scope"], "error: --scope needs a value: give one of user, project"),
    (["--demo", "list", "--json=1"], "error: --json takes no value: give --json alone"),
])
def test_an_option_given_no_value_says_what_it_takes(argv: list[str], first: str) -> None:
    code, line, _ = _error(*argv)
    assert (code, line) == (2, first)


def test_a_global_option_given_no_value_before_the_command_too() -> None:
    code, line, rest = _error("--home")
    assert (code, line, rest) == (2, "error: --home needs a value: name a directory", "Try 'agentscan --help' for help.\n")


@pytest.mark.parametrize("argv, first", [
    # ``tokens`` takes ids, so ``days`` is one: the bare number is what is said
    (["--demo", "tokens", "--since", "3", "days"], "error: cannot read the time '3': a duration is one word, the "
     "number and its unit, s, m, h, d or w: --since 3h for hours, --since 3d for days"),
    (["--demo", "list", "--until", "12"], "error: cannot read the time '12': a duration is one word, the "
     "number and its unit, s, m, h, d or w: --until 12h for hours, --until 12d for days"),
])
def test_a_number_without_its_unit_is_said_to_want_one(argv: list[str], first: str) -> None:
    code, line, _ = _error(*argv)
    assert (code, line) == (2, first)


def test_a_date_of_digits_alone_is_still_read() -> None:
    assert runner.invoke(app, ["--demo", "list", "--since", "20261101", "--json"]).exit_code == 0


@pytest.mark.parametrize("argv, first", [
    (["--demo", "list", "--pid", "x"], "error: --pid must be a process id of 1 or more, not 'x'"),
    (["--demo", "export", "--lock-timeout", "soon"], "error: --lock-timeout must be 0 or more seconds, not 'soon'"),
    (["--demo", "otlp", "--output", "-", "--retries", "x"], "error: --retries must be a whole number, 0 or more, not 'x'"),
    (["--demo", "list", "-n", "x"], "error: --limit must be a whole number of 1 or more, not 'x'"),  # (as before)
])
def test_a_number_option_given_a_word_says_what_it_takes(argv: list[str], first: str) -> None:
    code, line, _ = _error(*argv)
    assert (code, line) == (2, first)


def test_a_second_provider_after_p_is_said_as_a_comma_list() -> None:
    # (review of pass 47: ``-p claude codex`` was told ``-p codex``, losing claude)
    code, line, _ = _error("--demo", "list", "-p", "claude", "codex")
    assert (code, line) == (2, "error: unexpected argument 'codex': list takes no arguments; several providers' "
                               "sessions are one comma list: -p claude,codex")


@pytest.mark.parametrize("argv", [["--provider=claude", "codex"], ["codex", "-p", "claude"], ["-p", "claude", "--all", "codex"]])
def test_a_second_provider_anywhere_beside_p_is_said_as_a_comma_list(argv: list[str]) -> None:
    # (review of pass 47: only a ``-p`` two words before was seen)
    code, line, _ = _error("--demo", "list", *argv)
    assert (code, line) == (2, "error: unexpected argument 'codex': list takes no arguments; several providers' "
                               "sessions are one comma list: -p claude,codex")
