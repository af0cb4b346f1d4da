"""Mends of pass 44's words: ccusage's options all answered as docs/ccusage.md answers them,
WHEN's forms said alike everywhere, ``unknown_choice``'s guess given by its caller,
``token_report(sort=…)`` for the library, and a row's droppable tail named as such.

``tokens --mode calculate`` said ``Did you mean --demo?``; ``-m``, ``-i``, ``--id`` and
``--by-agent`` got no hint and ``tokens --last 1`` was sent to ``trace``.  ``--since ""``
offered ``today``, ``--until ""`` ``yesterday``, and the help said ``3d / 12h`` where the
error said ``a duration (3d, 12h)``.  ``--sort`` was the CLI's alone.
"""

from __future__ import annotations

import re
import shlex
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.misplaced import CCUSAGE_WAYS

runner = CliRunner()
DOC = Path(__file__).resolve().parents[1] / "docs" / "ccusage.md"


def error_of(*argv: str) -> str:
    result = runner.invoke(app, list(argv))
    assert result.exit_code == 2, result.output
    return result.stderr.splitlines()[0]


# --- 1. ccusage's options, as the page and the hints say them ---------------------------------

@pytest.mark.parametrize("argv, said", [
    (["tokens", "--mode", "calculate"], "No such option: --mode (agentscan's cost is always calculated: "
                                        "each call at its list price, docs/pricing.md)"),
    (["tokens", "-m", "calculate"], "No such option: -m (agentscan's cost is always calculated: "
                                    "each call at its list price, docs/pricing.md)"),
    (["tokens", "--id", "7f3c9a12"], "No such option: --id (tokens takes sessions' ids as its arguments: "
                                     "agentscan tokens ID)"),
    (["tokens", "-i"], "No such option: -i (agentscan tokens ID totals a session; --by cwd totals each project, "
                       "as ccusage's --instances does)"),
    (["tokens", "--by-agent"], "No such option: --by-agent (-p claude --by day counts one agent's days (-p codex "
                               "alike); --by day --breakdown splits each day by model; --by provider totals each "
                               "agent; --by agent totals each kind of subagent)"),
    (["tokens", "--last", "1"], "No such option: --last (tokens has --since: a duration or the first day, week "
                                "or month to count, as --since 7d, --since today, --since 2026-W45 or --since 2026-11)"),
])
def test_the_ccusage_options_that_got_no_hint_get_one(argv: list[str], said: str) -> None:
    assert error_of(*argv) == f"error: {said}"


def test_last_is_still_traces_own_and_said_so_elsewhere() -> None:
    assert error_of("list", "--last", "1") == "error: No such option: --last (--last is an option of trace)"
    result = runner.invoke(app, ["trace", "--last", "1"])
    assert "No such option" not in result.output


def _table_rows() -> list[tuple[str, str]]:
    """docs/ccusage.md's table: (ccusage's cell, agentscan's cell) of each row."""
    text = DOC.read_text()
    table = text.split("| ccusage | agentscan |\n|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = line.strip("|").split(" | ", 1)
        rows.append((cells[0].strip(), cells[1].strip()))
    return rows


def _ccusage_options(cell: str) -> tuple[list[str], list[str]]:
    """The options a ccusage cell spells (``--order desc``, ``-o``) and the value its first takes."""
    spans = re.findall(r"`([^`]*)`", cell)
    options: list[str] = []
    value: list[str] = []
    for span in spans:
        words = span.removeprefix("ccusage ").split()
        for index, word in enumerate(words):
            if word.startswith("-"):
                options.append(word)
                if not value and index + 1 < len(words) and not words[index + 1].startswith("-"):
                    value = [words[index + 1]]
    return options, value


TOKENS_OWN = {"-p", "--since", "--until", "--json", "--breakdown", "-b"}


def test_every_ccusage_option_of_the_page_is_in_the_map_and_its_hint_names_the_pages_way() -> None:
    seen: set[str] = set()
    for ccusage, agentscan in _table_rows():
        options, value = _ccusage_options(ccusage)
        for option in options:
            if option in TOKENS_OWN:  # agentscan's own option (``-p`` is its provider): no error
                continue
            seen.add(option)
            ways = CCUSAGE_WAYS[option]
            assert any(way in agentscan for way in ways), (option, ways, agentscan)
            said = error_of("tokens", option, *value)
            for way in ways:
                assert way in said, (option, way, said)
    assert seen == set(CCUSAGE_WAYS)  # and the map has no word the page leaves out


def test_every_ccusage_report_of_the_page_suggests_the_pages_command_line() -> None:
    reports = 0
    for ccusage, agentscan in _table_rows():
        if _ccusage_options(ccusage)[0]:
            continue
        suggested = re.findall(r"`(agentscan [^`]*)`", agentscan)[0]
        spans = re.findall(r"`([^`]*)`", ccusage)
        # ``ccusage codex daily`` (`claude`, `gemini` alike): the command; ``blocks``, ``statusline``: each one
        for span in [span for span in spans if span.startswith("ccusage ")] or spans:
            reports += 1
            assert suggested in error_of(*span.removeprefix("ccusage ").split()), (span, suggested)
    assert reports >= 7


@pytest.mark.parametrize("argv, line", [
    (["monthly", "--since", "2026-10", "--json"], "agentscan tokens --by month --since 2026-10 --json"),
    (["--demo", "daily", "-z", "UTC", "-s", "20261001", "--until=20261031"],
     "agentscan --demo tokens --by day --tz UTC --since 20261001 --until 20261031"),
    (["codex", "weekly", "--breakdown", "-p", "web", "-j"],
     "agentscan tokens -p codex --by week --breakdown --json; left out: -p web (use --cwd: agentscan's -p is a provider)"),
    (["session", "--id", "7f3c9a12"], "agentscan tokens 7f3c9a12"),
    (["daily", "-i", "--json"], "agentscan tokens --by day --json; left out: -i (use --by cwd)"),
    (["weekly", "--since"], "agentscan tokens --by week; left out: --since (see docs/ccusage.md)"),
    # a word that changes the answer is never dropped silently (``--project web``: every project's)
    (["claude", "daily", "--project", "web", "-j"],
     "agentscan tokens -p claude --by day --json; left out: --project web (use --cwd)"),
    (["monthly", "--last", "3"], "agentscan tokens --by month; left out: --last 3 (use --since)"),
    (["session", "-o", "desc", "--offline"], "agentscan tokens --sort cost; left out: -o desc (asc or "
                                             "desc: --reverse gives the opposite order), --offline (agentscan is offline "
                                             "unless told)"),
    (["weekly", "-w", "monday", "-m", "calculate"],
     "agentscan tokens --by week; left out: -w monday (weeks start on Monday), -m calculate (always calculated)"),
])
def test_a_reports_words_that_tokens_takes_come_along(argv: list[str], line: str) -> None:
    said = error_of(*argv)
    assert said.endswith(f"Try: {line}"), said


def test_the_carried_command_lines_run(isolated_home: Path) -> None:
    for argv in (["--demo", "monthly", "--since", "2026-10", "--json"], ["--demo", "session", "--id", "7f3c9a12"], ["--demo", "session"]):
        line = error_of(*argv).split("Try: ", 1)[1]
        result = runner.invoke(app, shlex.split(line)[1:])
        assert result.exit_code == 0, (line, result.output)


# --- 2. WHEN's forms, from one place ----------------------------------------------------------

def test_an_empty_since_or_until_and_an_unread_one_offer_the_same_forms() -> None:
    from agentscan.whentext import WHEN_FORMS

    assert "today, yesterday" in WHEN_FORMS
    for flag in ("--since", "--until"):
        for command in ("list", "tokens"):
            assert error_of(command, flag, "") == (
                f"error: {flag} is empty (is a variable unset?): give {WHEN_FORMS}, or leave it out")
        assert error_of("tokens", flag, "bogus") == f"error: cannot read the time 'bogus': use {WHEN_FORMS}"
    assert error_of("export", "--since", "", "-f", "jsonl").endswith(f"give {WHEN_FORMS}, or leave it out")


def _option_help(command: str, flag: str) -> str:
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    line = next(line for line in result.output.splitlines() if line.lstrip().startswith(f"{flag} WHEN"))
    return " ".join(line.split()[2:])


def test_every_since_and_until_help_says_whentexts_words() -> None:
    from agentscan.whentext import UNTIL_READING, WHEN_FORMS

    for command in ("list", "export", "otlp"):
        assert _option_help(command, "--since") == f"Only sessions updated since WHEN: {WHEN_FORMS}."
    assert _option_help("tokens", "--since") == f"Only calls made since WHEN: {WHEN_FORMS}."
    assert _option_help("tokens", "--until") == f"Only calls made before WHEN: {UNTIL_READING}."
    assert _option_help("list", "--until") == (
        f"Only sessions last updated (UPDATED) before WHEN: {UNTIL_READING}.")


def test_the_options_module_reads_whentext_only_for_a_command_module() -> None:
    import subprocess
    import sys

    code = ("import sys, agentscan.cli.options as o; before = 'agentscan.whentext' in sys.modules; "
            "o.since_option(); print(before, 'agentscan.whentext' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


# --- 3. unknown_choice: the caller's guess, the close names worked out once -------------------

def test_unknown_choice_takes_the_guess_and_an_aside() -> None:
    from agentscan.toolkit.words import unknown_choice

    assert unknown_choice("--by", "project", ["day", "cwd"], meant="cwd", aside="a project is its working directory") == (
        "unknown --by 'project' (did you mean cwd? a project is its working directory); choose from: day, cwd")
    assert unknown_choice("--by", "dya", ["day", "cwd"], meant="") == "unknown --by 'dya'; choose from: day, cwd"
    assert unknown_choice("--by", "dya", ["day", "cwd"]) == "unknown --by 'dya' (did you mean day?); choose from: day, cwd"


@pytest.mark.parametrize("name, guess", [("claud", True), ("myproject", False)])
def test_an_unknown_provider_looks_for_close_names_once(name: str, guess: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.errors import UnknownProvider
    from agentscan.toolkit import words

    calls: list[str] = []
    real = words.close_names

    def counted(typed: str, names: object) -> list[str]:
        calls.append(typed)
        return real(typed, names)  # type: ignore[arg-type]

    monkeypatch.setattr(words, "close_names", counted)
    error = UnknownProvider(name, ["claude", "codex"])
    assert calls == [name]
    assert ("did you mean claude?" in str(error)) is guess
    assert error.project_hint is not guess  # the CLI's -p/--cwd hint (pass 50: not in the library's details)


# --- 4. token_report(sort=…) --------------------------------------------------------------------

def _demo_scanner():  # type: ignore[no-untyped-def]
    from agentscan import Scanner
    from agentscan.demo import demo_home

    return Scanner(home=demo_home(), env={}, use_cache=False)


def test_token_report_sorts_as_tokens_json_does(isolated_home: Path) -> None:
    from agentscan import token_report
    from agentscan.scan.tokensort import sorted_rows

    with _demo_scanner() as scanner:
        plain = token_report(scanner, by="model")
        for key in ("cost", "tokens"):
            sorted_report = token_report(scanner, by="model", sort=key)
            assert sorted_report.rows == sorted_rows(plain.rows, key)  # type: ignore[arg-type]
            assert sorted_report.total == plain.total
        by_cost = token_report(scanner, by="session", sort="Cost")
    costs = [row.cost if row.cost is not None else Decimal(-1) for row in by_cost.rows]
    assert costs == sorted(costs, reverse=True)
    assert [row.key for row in token_report(_demo_scanner(), by="day", sort="date").rows] == sorted(
        row.key for row in token_report(_demo_scanner(), by="day").rows)


def test_token_report_refuses_an_unknown_sort_before_reading(isolated_home: Path) -> None:
    from agentscan import token_report
    from agentscan.errors import UsageProblem

    with _demo_scanner() as scanner, pytest.raises(UsageProblem, match=r"unknown sort 'costs' \(did you mean cost\?\)"):
        token_report(scanner, sort="costs")


def test_the_cli_json_prints_the_librarys_order(isolated_home: Path) -> None:
    import json

    from agentscan import token_report

    result = runner.invoke(app, ["--demo", "--no-cache", "tokens", "--by", "session", "--sort", "tokens", "--json"])
    assert result.exit_code == 0, result.output
    with _demo_scanner() as scanner:
        keys = [row.key for row in token_report(scanner, sort="tokens").rows]
    assert [row["key"] for row in json.loads(result.stdout)["rows"]] == keys


# --- 5. a row's droppable tail ------------------------------------------------------------------

def test_a_rows_droppable_tail_is_named_for_what_it_is() -> None:
    from agentscan.cli.tableparts import Row
    from agentscan.cli.tokens_runs import counted_row, has_droppable_tail, tail_at, without_droppable_tail

    week = tail_at([Row(["2026-W36 (Aug 31)", "1"])], len("2026-W36"))[0]
    assert week.droppable_at == len("2026-W36") and has_droppable_tail(week)
    assert without_droppable_tail(week).cells[0] == "2026-W36"
    runs = counted_row("Explore", 3, ["1"], None)
    assert runs.droppable_at == len("Explore") and without_droppable_tail(runs).cells[0] == "Explore"
    assert "runs_at" not in Row._fields
