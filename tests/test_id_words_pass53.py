"""A word typed where ``show`` or ``tokens`` takes a session id that is no id (pass 53).

``agentscan tokens today`` said ``'today' is too short: give at least 6 characters of the
id``, ``tokens week`` the same, and ``show last`` sent the newcomer to ``list --grep``: the
hint now names the option that was meant.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()


@pytest.fixture
def one_session(isolated_home: Path) -> Path:
    native = "c0c0c0c0-0000-4000-8000-000000000001"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1))])
    return isolated_home


@pytest.mark.parametrize(("words", "said"), [
    (["tokens", "today"], "hint: `agentscan tokens --since today` counts tokens from then on (tokens takes session ids)"),
    (["tokens", "3d"], "hint: `agentscan tokens --since 3d` counts tokens from then on (tokens takes session ids)"),
    (["tokens", "2026-11"], "hint: `agentscan tokens --since 2026-11` counts tokens from then on (tokens takes session ids)"),
    (["tokens", "week"], "hint: `agentscan tokens --by week` adds up tokens, one line per week (tokens takes session ids)"),
    (["tokens", "daily"], "hint: `agentscan tokens --by day` adds up tokens, one line per day (tokens takes session ids)"),
    (["show", "last"], "hint: `agentscan list -n 1` shows the newest session's id, to give to show"),
    (["show", "help"], "hint: `agentscan show --help` shows its options"),
    (["tokens", "help"], "hint: `agentscan tokens --help` shows its options"),
])
def test_a_word_that_is_no_id_names_the_option_meant(one_session: Path, words: list[str], said: str) -> None:
    result = runner.invoke(app, words)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: no session matches {words[1]!r}", said]


def test_the_demo_hint_keeps_demo(one_session: Path) -> None:
    result = runner.invoke(app, ["--demo", "show", "latest"])
    assert result.stderr.splitlines()[-1] == "hint: `agentscan --demo list -n 1` shows the newest session's id, to give to show"


def test_an_empty_home_says_both(isolated_home: Path) -> None:
    result = runner.invoke(app, ["tokens", "yesterday"])
    assert result.stderr.splitlines() == [
        "error: no session matches 'yesterday'",
        "hint: `agentscan tokens --since yesterday` counts tokens from then on (tokens takes session ids)",
        "no sessions were found in this home: `agentscan doctor` shows where agentscan looked"]


def test_other_words_keep_the_id_errors(one_session: Path) -> None:
    result = runner.invoke(app, ["show", "abc"])
    assert "'abc' is too short" in result.stderr and "list --grep TEXT" in result.stderr
    result = runner.invoke(app, ["tokens", "abc"])
    assert "'abc' is too short" in result.stderr
    result = runner.invoke(app, ["show", "today"])  # (show takes no window)
    assert "'today' is too short" in result.stderr


def test_a_session_named_so_still_opens(isolated_home: Path) -> None:
    # A Claude file stem is its id: a word that is one is no slip.
    claude_session_file(isolated_home, "yesterday-notes", [
        claude_user("yesterday-notes", "2026-11-02T09:00:00.000Z", "hello", uuid="u1")])
    assert runner.invoke(app, ["tokens", "yesterday"]).exit_code == 0


def test_version_as_a_command_or_minus_v_names_the_option() -> None:
    # ``gh version``, ``git version``, ``python -V``: agentscan's is ``--version``
    result = runner.invoke(app, ["version"])
    assert result.exit_code == 2 and "No such command 'version'. Did you mean '--version'?" in result.stderr
    result = runner.invoke(app, ["-V"])
    assert result.exit_code == 2 and "No such option: -V (agentscan --version prints the version)" in result.stderr


@pytest.mark.parametrize(("typed", "meant"), [("yesterdy", "yesterday"), ("tody", "today"), ("Yestreday", "yesterday")])
def test_a_misspelt_day_word_is_offered(typed: str, meant: str) -> None:
    from agentscan.errors import UsageProblem
    from agentscan.whentext import parse_when

    with pytest.raises(UsageProblem, match=rf"cannot read the time '{typed}' \(did you mean {meant}\?\): use a date"):
        parse_when(typed)


def test_provider_all_says_to_leave_p_out() -> None:
    # (it was told "-p is the provider; a project is --cwd PATH", which -p all never meant)
    result = runner.invoke(app, ["--demo", "list", "-p", "all"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == ("error: unknown provider 'all'; choose from: claude, codex, gemini, cursor "
                                             "(leave -p out: every provider is read by default)")
    assert "--cwd PATH" not in result.stderr


def test_tokens_of_a_provider_names_tokens_p(one_session: Path) -> None:
    # ``tokens claude`` asked for Claude's tokens; ``list -p claude`` was offered
    result = runner.invoke(app, ["tokens", "claude"])
    assert result.stderr.splitlines() == ["error: 'claude' is a provider, not a session id",
                                          "hint: `agentscan tokens -p claude` adds up its sessions' tokens"]


def test_a_transcript_path_from_its_project_folder_is_given_back_with_dot_slash() -> None:
    # ``show -home-me-app/<id>.jsonl`` was told "a project folder's name is no session's id"
    result = runner.invoke(app, ["show", "-home-me-app/abc.jsonl"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "error: No such option: -home-me-app/abc.jsonl (a value that starts with '-' is read as options; "
        "a path opens its session from ./: agentscan show ./-home-me-app/abc.jsonl)")


@pytest.mark.parametrize(("words", "said"), [
    (["--demo", "list", "--limit", "all"], "error: --limit must be a whole number of 1 or more, not 'all' (every one: --all)"),
    (["--demo", "tokens", "--sort", "price"],
     "error: unknown --sort 'price' (did you mean cost?); choose from: date, cost, tokens"),
])
def test_other_tools_values_name_ours(words: list[str], said: str) -> None:
    result = runner.invoke(app, words)
    assert result.exit_code == 2 and result.stderr.splitlines()[0] == said


@pytest.mark.parametrize(("word", "said"), [
    ("today", "a window: --since today"), ("3d", "a window: --since 3d"), ("5", "how many: -n 5"),
    ("spotter", "to search for it: --grep spotter"), ("7f3c9a12", "a session's id goes after show: show 7f3c9a12"),
])
def test_a_word_after_list_names_the_option_that_takes_it(word: str, said: str) -> None:
    # (``list today`` said only "list takes no arguments")
    result = runner.invoke(app, ["--demo", "list", word])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"error: unexpected argument {word!r}: list takes no arguments; {said}"


def test_an_ambiguous_ids_candidates_are_newest_first_by_the_time_shown(isolated_home: Path) -> None:
    # Copied files (``cp`` without -p, a restore) have mtimes unlike their records' times: the
    # candidates were ordered by mtime while each line shows its record time, out of order.
    for index, (hour, mtime) in enumerate([(9, 3_000_000_000), (11, 1_000_000_000), (10, 2_000_000_000)]):
        native = f"abcdef0{index}-0000-4000-8000-00000000000{index}"
        claude_session_file(isolated_home, native, [
            claude_user(native, f"2026-11-02T{hour:02}:00:00.000Z", "hello", uuid=f"u{index}")], mtime=mtime)
    result = runner.invoke(app, ["--no-cache", "show", "abcdef"])
    assert result.exit_code == 1
    shown = [line.split()[0] for line in result.stderr.splitlines()[1:4]]
    assert shown == ["claude:abcdef01-0000-4000-8000-000000000001", "claude:abcdef02-0000-4000-8000-000000000002",
                     "claude:abcdef00-0000-4000-8000-000000000000"]
