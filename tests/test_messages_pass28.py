"""Error messages and help said alike: a bad choice names what was given and the choices
on one line, ``hook`` (run by agents) is left out of ``agentscan --help``, ``--strict``
says what it fails on, warnings wrap on a terminal as hints do, and an unreadable root
named explicitly is said once, without a note that points elsewhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app, fastpath, render
from agentscan.demo import demo_home
from agentscan.model import ScanWarning

runner = CliRunner()


def run(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(argv), env=env)
    return result.exit_code, result.stdout, result.stderr


# -- 1. a value an option does not take ------------------------------------------------


@pytest.mark.parametrize("argv, message", [
    (["tokens", "--by", "dya"], "error: unknown --by 'dya' (did you mean day?); choose from: session, day, week, month, model, provider, cwd, agent"),
    (["export", "-f", "xml", "-o", "out.xml"], "error: unknown --format 'xml'; choose from: jsonl, csv, sqlite"),
    (["otlp", "--endpoint", "http://127.0.0.1:9", "--protocol", "grpc"],
     "error: unknown --protocol 'grpc'; choose from: auto, protobuf, json"),
    (["list", "-p", "claud"], "error: unknown provider 'claud' (did you mean claude?); choose from: claude, codex, gemini, cursor"),
], ids=lambda value: value[0] if isinstance(value, list) else "")
def test_a_bad_choice_names_the_value_and_the_choices_as_the_provider_does(
        argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(*argv)
    assert (code, out, err) == (2, "", f"{message}\nTry 'agentscan {argv[0]} --help' for help.\n")


def test_the_fast_path_says_a_bad_by_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert fastpath.run(["tokens", "--by", "dya"]) == 2
    assert capsys.readouterr().err == ("error: unknown --by 'dya' (did you mean day?); choose from: session, day, week, month, model, provider, cwd, agent\n"
                                       "Try 'agentscan tokens --help' for help.\n")


# -- 2. click's choice options, said as agentscan's own errors ---------------------------


@pytest.mark.parametrize("argv, message", [
    # (the agent is also a word after the command: tests/test_cli_grammar_pass40.py)
    (["hooks", "install", "--dry-run"], "error: AGENT is required; choose from: cursor, claude, gemini"),
    (["hooks", "uninstall"], "error: AGENT is required; choose from: cursor, claude, gemini"),
    (["hooks", "install", "--agent", "codex", "--dry-run"], "error: codex has no hooks to install: agentscan reads its sessions from its files; hooks are for cursor, claude, gemini"),
    (["hooks", "install", "--agent=codex"], "error: codex has no hooks to install: agentscan reads its sessions from its files; hooks are for cursor, claude, gemini"),
    (["hooks", "uninstall", "--agent", "claude", "--scope", "team"],
     "error: unknown --scope 'team'; choose from: user, project"),
])
def test_a_missing_or_unknown_agent_is_one_line_after_click_s_usage(argv: list[str], message: str) -> None:
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.splitlines() == [message, f"Try 'agentscan hooks {argv[1]} --help' for help."]
    assert "\t" not in err and "Error:" not in err and "Choose from" not in err


def test_an_agent_in_another_case_is_still_taken(isolated_home: Path) -> None:
    code, out, _ = run("hooks", "install", "--agent", "Claude", "--dry-run")
    assert code == 0 and "agentscan hook --agent claude" in out


# -- 3. `hook` is not in the top-level help --------------------------------------------


def test_the_hook_command_is_hidden_from_the_help_but_still_runs() -> None:
    from agentscan.static_help import TOP_LEVEL_HELP

    code, out, _ = run("--help")
    assert code == 0
    commands = out.split("Commands:", 1)[1]
    assert "  trace " in commands and "  hooks " in commands
    assert "  hook " not in commands and "hook payload" not in commands
    # The snapshot `agentscan --help` answers from (at 80 columns) leaves it out too.
    assert "  hook " not in TOP_LEVEL_HELP and "  trace " in TOP_LEVEL_HELP
    code, out, _ = run("hook", "--help")
    assert code == 0 and "--agent" in out
    # An agent's run: an empty payload is dropped, and the hook never fails.
    assert runner.invoke(app, ["hook", "--agent", "claude"], input="").exit_code == 0


# -- 4. --strict says what it fails on --------------------------------------------------


@pytest.mark.parametrize("argv", [["--help"], ["list", "--help"]])
def test_strict_s_help_says_any_warning_and_a_model_with_no_price(argv: list[str]) -> None:
    _, out, _ = run(*argv)
    strict = " ".join(out.split("--strict", 1)[1].split("-v, --verbose", 1)[0].split())
    assert "any warning" in strict and "no price" in strict, strict
    assert "had to be skipped" not in out


def test_strict_fails_on_a_model_with_no_price() -> None:
    code, out, err = run("--strict", "prices", "no-such-model-pass28")
    assert code == 1 and "no-such-model-pass28" in out and "no price" in out and "(--strict)" in err


# -- 5. warnings wrap on a terminal, never in a pipe ------------------------------------


LONG = ScanWarning("/home/someone/.claude/projects/-home-someone-src-app/5a5a5a5a.jsonl", "a line that is "
                   "not JSON was skipped, and the rest of the transcript was read as it was written", line=12)


def test_a_warning_wraps_to_the_terminal_with_its_continuation_indented(tty, capsys: pytest.CaptureFixture[str]) -> None:
    tty(80)
    render.warn_summary([LONG])
    lines = capsys.readouterr().err.rstrip("\n").split("\n")
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines), lines
    assert lines[0].startswith("warning: ") and all(line.startswith("  ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == f"warning: {LONG.path}:12: {LONG.message}"


def test_a_path_longer_than_the_terminal_is_not_cut(tty, capsys: pytest.CaptureFixture[str]) -> None:
    tty(40)  # the path and its line number: 71 columns
    render.warn_summary([LONG])
    lines = capsys.readouterr().err.rstrip("\n").split("\n")
    assert f"  {LONG.path}:12:" in lines and lines[0] == "warning:", lines
    assert all(len(line) <= 40 for line in lines if LONG.path not in line), lines


def test_a_warning_stays_one_line_in_a_pipe(tty, capsys: pytest.CaptureFixture[str]) -> None:
    tty(60, stderr=False)  # stdout a terminal, stderr piped (2>warnings.log)
    render.warn_summary([LONG, LONG, LONG, LONG, LONG, LONG])
    assert capsys.readouterr().err.splitlines() == [f"warning: {LONG.path}:12: {LONG.message}"] * 5 + [
        "warning: … and 1 more (use --verbose or --json to see all)"]


def test_a_command_s_warning_wraps_on_a_terminal(isolated_home: Path, tty) -> None:
    shutil.copytree(demo_home(), isolated_home, dirs_exist_ok=True)
    (rollout,) = (isolated_home / ".codex").rglob("rollout-*019ab7c1*.jsonl")
    rollout.write_bytes(b"")  # one warning: an empty file
    tty(50)
    _, _, err = run("list", "--verbose")  # (without it an empty file is only counted: pass 44)
    lines = err.splitlines()
    at = lines.index("warning:")  # the path, longer than a line, goes on one of its own
    shown = "~" + str(rollout)[len(str(isolated_home)):]  # (from home, as ``show`` names a path: pass 51)
    assert lines[at + 1:at + 3] == [f"  {shown}:", "  empty file"], err
    _, _, err = run("list", "--verbose", env={"COLUMNS": "400"})
    assert f"warning: {shown}: empty file" in err.splitlines(), err


# -- 6. an unreadable root named explicitly: the error alone --------------------------


@pytest.mark.parametrize("argv", [["list", "-p", "claude"], ["tokens", "-p", "claude"], ["tokens", "--by", "day", "-p", "claude"]],
                         ids=" ".join)
def test_an_unreadable_claude_config_dir_is_said_without_a_note_that_points_elsewhere(
        argv: list[str], isolated_home: Path, tmp_path: Path) -> None:
    shutil.copytree(demo_home(), isolated_home, dirs_exist_ok=True)  # sessions of other providers too
    missing = tmp_path / "nonexistent"
    code, _, err = run(*argv, env={"CLAUDE_CONFIG_DIR": str(missing)})
    assert code == 1
    assert err == f"error: Claude Code: no readable root among {missing / 'projects'} (CLAUDE_CONFIG_DIR); fix or unset CLAUDE_CONFIG_DIR\n"


def test_an_empty_list_with_readable_roots_still_says_why(isolated_home: Path) -> None:
    shutil.copytree(demo_home(), isolated_home, dirs_exist_ok=True)
    shutil.rmtree(isolated_home / ".claude")
    code, _, err = run("list", "-p", "claude")
    assert code == 0 and err.startswith("no Claude Code sessions found (")
    code, _, err = run("tokens", "-p", "claude")
    assert code == 0 and "no Claude Code sessions found" in err
