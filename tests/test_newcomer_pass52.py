"""What a newcomer who read only the README and docs/ tripped over (pass 52).

- The docs' ``$ agentscan …`` examples are run and must print what the page shows: the
  ``--by agent`` table's ``REASONING`` column had drifted (``0`` where the table prints ``-``:
  Claude Code and Cursor record no reasoning apart).
- Names a newcomer gives for what agentscan calls otherwise get the word it takes: an
  agent's product name for ``-p`` (``claude-code``), a
  city or a zone's abbreviation for ``--tz`` (``Paris``, ``PST``), a date written with
  slashes (``2026/11/01``), and ``--redact=no`` for ``doctor``'s ``--no-redact``.
- Another tool's word for an option the command has (``tokens --from``, ``list --search``,
  ``list --format json``, ``tokens --days 7``) is answered with the command's own option, not
  with nothing (or, for ``--days``, with ``export``, whose ``--days`` means another thing).
- An id copied with ``list``'s running mark (``claude:7f3c9a12*``), JSON's quotes or a full
  stop is offered without them (``hint: did you mean 'claude:7f3c9a12'?``).
- ``show`` of a folder of sessions (a Claude project's, which ``ls ~/.claude/projects`` shows)
  says how many it holds and how to list them, not only that it is no transcript.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Callable

import pytest
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()
DOCS = Path(__file__).resolve().parents[1] / "docs"


def _doc_examples() -> list[tuple[str, str, list[str]]]:
    """Each ``$ agentscan …`` line of a fenced block in docs/, with the lines printed under it
    (up to the next ``$`` line or the block's end)."""
    found = []
    for page in sorted([*DOCS.glob("*.md"), *DOCS.glob("providers/*.md")]):
        if page.name == "performance-history.md":  # the history of earlier passes' outputs
            continue
        for block in re.findall(r"^```[a-z]*\n(.*?)^```", page.read_text(), flags=re.S | re.M):
            command, shown = None, []
            for line in [*block.splitlines(), "$ "]:
                if line.startswith("$ "):
                    if command is not None:
                        found.append((page.name, command, shown))
                    command, shown = (line[2:] if line.startswith("$ agentscan ") else None), []
                elif command is not None:
                    shown.append(line)
    return found


EXAMPLES = _doc_examples()


def test_the_docs_have_examples_to_check() -> None:
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("page, command, shown", EXAMPLES, ids=[command for _, command, _ in EXAMPLES])
def test_a_doc_example_prints_what_the_page_shows(page: str, command: str, shown: list[str]) -> None:
    words = shlex.split(command.split("  #")[0].strip().removesuffix("| cat"))
    assert words[0] == "agentscan"
    result = runner.invoke(app, words[1:])
    # a failure's lines are its stderr; a result's, the table on stdout (stderr's notes aside)
    printed = result.stdout if result.exit_code == 0 else result.stderr
    assert printed.splitlines() == shown, f"{page}: {command}"


def _error(*argv: str) -> tuple[int, str]:
    result = runner.invoke(app, list(argv))
    return result.exit_code, result.stderr.partition("\n")[0]


@pytest.mark.parametrize("typed, meant", [
    ("claude-code", "claude"), ("Claude_Code", "claude"), ("claudecode", "claude"), ("codex-cli", "codex"),
    ("cursor-agent", "cursor"), ("anysphere", "cursor"),
])
def test_an_agents_product_or_vendor_name_is_offered_its_provider(typed: str, meant: str) -> None:
    code, line = _error("--demo", "list", "-p", typed)
    assert code == 2
    assert line.startswith(f"error: unknown provider {typed!r} (did you mean {meant}?")  # (echoed as typed)
    assert "choose from: claude, codex, gemini, cursor" in line


@pytest.mark.parametrize("typed", ["vim", "claude-dashboard"])
def test_a_provider_name_unlike_any_gets_no_guess(typed: str) -> None:
    # (a project named for an agent is ccusage's -p: the hint says agentscan's is --cwd)
    result = runner.invoke(app, ["--demo", "list", "-p", typed])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[:2] == [
        f"error: unknown provider {typed!r}; choose from: claude, codex, gemini, cursor",
        "hint: -p is the provider (the agent); `list` and `tokens` pick a project with --cwd PATH"]


@pytest.mark.parametrize("typed, meant", [
    ("Paris", "Europe/Paris"), ("new york", "America/New_York"), ("tokyo", "Asia/Tokyo"),
    ("PST", "America/Los_Angeles or Asia/Manila"), ("pdt", "America/Los_Angeles"), ("CEST", "Europe/Paris"),
])
def test_a_city_or_a_zones_abbreviation_is_offered_its_iana_name(typed: str, meant: str,
                                                              local_zone: Callable[[str], None]) -> None:
    local_zone("UTC")  # (a machine whose zone prints the abbreviation is offered ``local``: tests/test_review_pass52b.py)
    code, line = _error("--demo", "list", "--tz", typed)
    assert code == 2
    assert line.startswith(f"error: unknown time zone {typed!r}: did you mean {meant}?")


@pytest.mark.parametrize("typed", ["+02:00", "UTC+2", "GMT+2"])
def test_an_offset_for_a_zone_is_told_how_to_name_it(typed: str) -> None:
    code, line = _error("--demo", "list", "--tz", typed)
    assert code == 2
    assert line.startswith(f"error: unknown time zone {typed!r}: did you mean Etc/GMT-2?")
    assert "inverted" in line


@pytest.mark.parametrize("typed, meant", [
    ("2026/11/01", "2026-11-01"), ("2026.11.1", "2026-11-01"), ("25/11/2026", "2026-11-25"),
    ("11/25/2026", "2026-11-25"), ("2026-11-1", "2026-11-01"), ("2026-1-5", "2026-01-05"),
    ("2026-11-01 9:00", "2026-11-01T09:00"), ("2026-W7", "2026-W07"),
])
def test_a_date_with_slashes_is_offered_as_written_iso(typed: str, meant: str) -> None:
    code, line = _error("--demo", "list", "--since", typed)
    assert code == 2
    assert line.startswith(f"error: cannot read the time {typed!r} (did you mean {meant}?)")


def test_a_date_with_a_time_that_does_not_exist_is_offered_nothing() -> None:
    code, line = _error("--demo", "list", "--since", "2026-11-01T25:00")
    assert (code, line.partition(":")[0]) == (2, "error")
    assert "did you mean" not in line


def test_a_date_that_reads_two_ways_offers_both() -> None:
    code, line = _error("--demo", "list", "--since", "01/11/2026")
    assert code == 2
    assert line.startswith("error: cannot read the time '01/11/2026' (did you mean 2026-11-01 or 2026-01-11?)")


def test_redact_given_no_names_the_option_that_turns_it_off() -> None:
    code, line = _error("--demo", "doctor", "--redact=no")
    assert (code, line) == (2, "error: --redact takes no value: give --redact, or --no-redact to turn it off")
    # a flag with no opposite is said as before
    assert _error("--demo", "list", "--json=1") == (2, "error: --json takes no value: give --json alone")


def test_a_folder_of_sessions_says_how_to_list_them(isolated_home: Path) -> None:
    """``show ~/.claude/projects/-home-me-app`` (the folder ``ls`` showed) said only that it was
    no transcript; it now says how many sessions it holds and the command that lists them, and
    a session's own ``subagents/`` folder names that session."""
    sessions = ["0000aaaa-2222-4000-8000-000000000000", "0000bbbb-2222-4000-8000-000000000000"]
    for number, native in enumerate(sessions):
        claude_session_file(isolated_home, native, [
            claude_user(native, "2026-11-02T09:00:00.000Z", f"task {number}"),
            claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(100, 10)),
        ], project="-home-me-app")
    claude_subagent_file(isolated_home, sessions[0], "a1b2c3d", [
        claude_user(sessions[0], "2026-11-02T09:00:30.000Z", "look", sidechain=True, agentId="a1b2c3d"),
    ], project="-home-me-app")
    folder = isolated_home / ".claude" / "projects" / "-home-me-app"
    result = runner.invoke(app, ["show", str(folder)])
    assert result.exit_code == 1
    assert result.stderr == (f"error: no session matches {str(folder)!r}: it is a folder that holds 2 sessions, not one "
                             f"session's transcript: `agentscan list --all --grep {folder}` lists them\n")
    listed = runner.invoke(app, ["list", "--all", "--grep", str(folder), "--json"])
    assert sorted(row["native_id"] for row in json.loads(listed.stdout)["sessions"]) == sessions
    subagents = folder / sessions[0] / "subagents"
    result = runner.invoke(app, ["tokens", str(subagents)])
    assert result.exit_code == 1
    assert result.stderr == (f"error: no session matches {str(subagents)!r}: it is a folder of claude:{sessions[0]}'s "
                             f"files, not its transcript: `agentscan show claude:{sessions[0]}` opens it\n")


@pytest.mark.parametrize("typed, meant", [("claude-code", "claude"), ("cursor-agent", "cursor"), ("anysphere", "cursor")])
def test_hooks_install_offers_the_agent_a_product_name_stands_for(typed: str, meant: str) -> None:
    code, line = _error("hooks", "install", typed, "--dry-run")
    assert (code, line) == (2, f"error: unknown AGENT {typed!r} (did you mean {meant}?); choose from: cursor, claude, gemini")


@pytest.mark.parametrize("argv, hint", [
    (["tokens", "--from", "2026-01-01"], "tokens has --since WHEN: 2026-11-01, 7d or today; --until WHEN ends the range"),
    (["list", "--before", "3d"], "list has --until WHEN: 2026-11-30 or yesterday, the whole day; --since WHEN starts the range"),
    (["export", "--after", "3d"], "export has --since WHEN: 2026-11-01, 7d or today; --until WHEN ends the range"),
    (["tokens", "--group-by", "day"], "tokens has --by KEY: session, day, week, month, model, provider, cwd or agent"),
    (["tokens", "--daily"], "tokens has --by day"),
    (["list", "--search", "fix"], "list has --grep TEXT: a match on title, cwd, model or path"),
    (["list", "--max", "3"], "list has --limit N, -n N, or --all"),
    (["tokens", "--dir", "."], "tokens has --cwd PATH: the sessions run in PATH or below it"),
    (["list", "--agent", "claude"], "list has -p/--provider: an agent's sessions, as -p claude, codex, gemini or cursor"),
    (["list", "--model", "opus"], "list has --grep TEXT, which matches a session's model too: --grep opus"),
    (["tokens", "--model", "opus"], "tokens has --by model: what each model cost"),
    (["prices", "--model", "gpt-5"], "prices takes the model as its argument: agentscan --demo prices gpt-5"),
    # export's --days is a record a day: tokens --days 7 was sent there
    (["tokens", "--days", "7"], "tokens has --since: --since 7d for the last 7 days; export's --days is another thing"),
    (["list", "--format", "json"], "list has --json: one JSON document on stdout"),
    (["show", "--id", "7f3c9a12"], "show takes the id as its argument: agentscan --demo show 7f3c9a12"),
    (["show", "7f3c9a12", "-o", "json"], "show has --json: one JSON document on stdout"),
])
def test_another_tools_word_for_an_option_names_this_commands_own(argv: list[str], hint: str) -> None:
    code, line = _error("--demo", *argv)
    assert (code, line) == (2, f"error: No such option: {argv[-2] if argv[-1][0] != '-' else argv[-1]} ({hint})")


def test_a_word_this_command_has_is_not_renamed() -> None:
    # hooks install has --agent: its slip is a slip, and export's --days is its own
    assert _error("hooks", "install", "--agents", "claude") == (2, "error: No such option: --agents. Did you mean --agent?")
    assert runner.invoke(app, ["--demo", "export", "-f", "csv", "--days"]).exit_code == 0
    # a --format that is not json keeps saying where --format is
    assert _error("--demo", "list", "--format", "table") == (2, "error: No such option: --format (--format is an option of export)")


@pytest.mark.parametrize("typed, meant", [
    ("claude:7f3c9a12*", "claude:7f3c9a12"),  # list's running mark, copied with the id
    ('"claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d",', "claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"),  # from --json
    ("7f3c9a12.", "7f3c9a12"), ("claude: 7f3c9a12", "claude:7f3c9a12"),
])
def test_an_id_copied_with_what_surrounds_it_is_offered_bare(typed: str, meant: str) -> None:
    for command in ("show", "tokens"):
        result = runner.invoke(app, ["--demo", command, typed])
        assert result.exit_code == 1
        lines = result.stderr.splitlines()
        assert lines[0] == f"error: no session matches {typed!r}"
        why = " (the * after an id in `list` marks a running session)" if typed.endswith("*") else ""
        assert lines[1:] == [f"hint: did you mean {meant!r}?{why}"]


def test_an_unknown_id_with_a_mark_keeps_the_usual_hint() -> None:
    result = runner.invoke(app, ["--demo", "show", "zzzzzzzz*"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[1].startswith("hint: `agentscan --demo list --grep TEXT`")


def test_a_folder_of_many_sessions_counts_them_as_numbers_are_written(isolated_home: Path) -> None:
    """The count of the sessions a folder holds is written as every count is (``1,200``)."""
    from agentscan.scan import pathwhy
    from agentscan.scan.scanner import Scanner

    native = "0000aaaa-3333-4000-8000-000000000000"
    claude_session_file(isolated_home, native, [claude_user(native, "2026-11-02T09:00:00.000Z", "task")],
                        project="-home-me-app")
    folder = isolated_home / ".claude" / "projects" / "-home-me-app"
    with Scanner(env={"HOME": str(isolated_home)}, use_cache=False) as scanner:
        [ref] = scanner.refs()
        scanner.refs = lambda: [ref] * 1200  # type: ignore[method-assign]
        reason = pathwhy._sessions_folder(scanner, str(folder))
    assert reason is not None and "holds 1,200 sessions, not one" in reason, reason
