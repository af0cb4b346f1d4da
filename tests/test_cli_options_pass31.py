"""Options that were taken and then did nothing, or failed too late: each test fails without its fix.

1. ``otlp`` with a root named by an env var that cannot be read replaced the ``--output``
   file (or sent to the collector) before it failed; ``export`` fails before writing.
2. ``otlp --output`` took ``--protocol``, ``--header``, ``--timeout`` and ``--retries``,
   which only mean something with ``--endpoint``, and ignored them.
3. ``trace`` took ``--home`` and read the real events store all the same.
4. ``show --no-pager`` without ``--full`` (the only pager) is harmless, as git's is.
5. An unknown option that another command takes (or that goes before the command) got
   click's spelling neighbours as a hint: ``--until (Possible options: --running)``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, fastpath
from builders import console_env, claude_assistant, claude_session_file, claude_usage, claude_user
from otlp_builders import Receiver, no_proxy  # noqa: F401 - a fixture

runner = CliRunner()
SID = "aaaaaaaa-1111-4222-8333-444444444444"
DEMO_SHOW = "019ac2d4"


def cli(*argv: str):  # noqa: ANN201 - click's Result
    return runner.invoke(app, list(argv))


def script(*argv: str) -> tuple[int, str, str]:
    """``argv`` as the console script runs it: the fast path first, one command module registered."""
    done = subprocess.run([sys.executable, "-m", "agentscan", *argv], capture_output=True, text=True,
                          env=console_env())
    return done.returncode, done.stdout, done.stderr


def a_session(home: Path) -> None:
    claude_session_file(home, SID, [
        claude_user(SID, "2026-11-01T10:00:00Z", "work"),
        claude_assistant(SID, "2026-11-01T10:00:01Z", msg_id="m-1", request_id="r-1", usage=claude_usage(5, 7)),
    ])


# --- 1. an unreadable named root fails otlp before anything is written or sent -----------------


@pytest.fixture
def codex_root_unreadable(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude session to export, and CODEX_HOME naming a folder that is not there."""
    a_session(isolated_home)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nonexistent"))
    return isolated_home


def test_otlp_leaves_the_output_file_as_it_was(isolated_home: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    a_session(isolated_home)
    out = tmp_path / "traces.jsonl"
    done = cli("otlp", "-o", str(out), "--json")  # every root reads: the session is exported
    assert done.exit_code == 0 and orjson.loads(done.stdout)["spans"] > 0, done.output
    out.write_text('{"old":1}\n')
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nonexistent"))
    for extra in ((), ("--json",)):
        result = cli("otlp", "-o", str(out), *extra)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith("error: Codex CLI: no readable root among "), result.stderr
        assert result.stdout == ""  # neither "exported …" nor a document
        assert out.read_text() == '{"old":1}\n'


def test_otlp_to_stdout_writes_no_line(codex_root_unreadable: Path) -> None:
    result = cli("otlp", "-o", "-")
    assert result.exit_code == 1 and "no readable root" in result.stderr
    assert result.stdout == ""


def test_otlp_sends_nothing_to_the_collector(codex_root_unreadable: Path, no_proxy: None) -> None:  # noqa: F811
    with Receiver() as receiver:
        result = cli("otlp", "--endpoint", receiver.url, "--retries", "0")
    assert result.exit_code == 1 and "no readable root" in result.stderr
    assert receiver.received == []


# --- 2. options of sending are refused without --endpoint ------------------------------------


@pytest.mark.parametrize("args, named", [
    (["--protocol", "protobuf"], "--protocol needs --endpoint: "),
    (["--protocol", "auto"], "--protocol needs --endpoint: "),  # given, though it is the default
    (["--header", "A=B"], "--header needs --endpoint: "),
    (["--timeout", "3"], "--timeout needs --endpoint: "),
    (["--retries", "9"], "--retries needs --endpoint: "),
    (["--protocol", "protobuf", "--header", "A=B", "--timeout", "3", "--retries", "9"],
     "--protocol, --header, --timeout and --retries need --endpoint: "),
])
@pytest.mark.parametrize("output", ["FILE", "-"])
def test_sending_options_without_an_endpoint_are_a_usage_error(args: list[str], named: str, output: str,
                                                                tmp_path: Path) -> None:
    target = str(tmp_path / "f.jsonl") if output == "FILE" else "-"
    result = cli("--demo", "otlp", "-o", target, *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {named}"), result.stderr
    assert result.stdout == "" and not (tmp_path / "f.jsonl").exists()


def test_an_invalid_header_name_is_refused_with_output_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "f.jsonl"
    result = cli("--demo", "otlp", "-o", str(out), "--header", "bad key=secret")
    assert result.exit_code == 2
    assert "'bad key' is not a valid HTTP header name" in result.stderr and "secret" not in result.stderr
    assert not out.exists()
    refused = cli("--demo", "otlp", "--endpoint", "http://127.0.0.1:9", "--header", "bad key=secret")
    assert (refused.exit_code, refused.stderr) == (result.exit_code, result.stderr)
    # OTEL_EXPORTER_OTLP_HEADERS is set for other tools too: it says nothing about a file.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "bad key=1")
    assert cli("--demo", "-q", "otlp", "-o", str(out)).exit_code == 0


# --- 3. trace says --home does not apply to it ------------------------------------------------


@pytest.mark.parametrize("args", [
    ["--home", "HOME", "trace", "--list"], ["trace", "--list", "--home", "HOME"],
    ["--home", "/nonexistent", "trace", "--list"], ["--home", "HOME", "trace", "--list", "--json"],
])
def test_trace_says_home_does_not_apply(args: list[str], isolated_home: Path) -> None:
    # Said, not refused: a script may pass --home to every command it runs.
    result = cli(*[str(isolated_home) if arg == "HOME" else arg for arg in args])
    plain = cli(*[arg for arg in args if arg not in ("--home", "HOME", "/nonexistent")])
    assert result.exit_code == plain.exit_code == 0, result.output
    assert result.stdout == plain.stdout  # the events store, as without it
    assert "note: --home does not apply to trace: it reads the hook events store" in result.stderr
    assert "--home" not in plain.stderr
    assert "--home" not in cli("-q", *[str(isolated_home) if arg == "HOME" else arg for arg in args]).stderr


# --- 4. show --no-pager without --full is harmless ----------------------------------------------


@pytest.mark.parametrize("args", [["--no-pager"], ["--no-pager", "--json"]])
def test_no_pager_without_full_changes_nothing_both_ways(args: list[str], capsys: pytest.CaptureFixture[str],
                                                          isolated_home: Path) -> None:
    # Taken as git takes it (an alias may give it always): only --full pages, so it does nothing here.
    argv = ["--demo", "show", DEMO_SHOW, *args]
    typer = cli(*argv)
    capsys.readouterr()
    fast = fastpath.run(argv)
    out, err = capsys.readouterr()
    assert (fast, out, err) == (typer.exit_code, typer.stdout, typer.stderr)
    plain = cli("--demo", "show", DEMO_SHOW, *args[1:])
    assert (typer.exit_code, typer.stdout) == (plain.exit_code, plain.stdout) == (0, plain.stdout)


# --- 5. an unknown option known elsewhere says where -------------------------------------------


@pytest.mark.parametrize("args, last", [
    (["--demo", "trace", "--until", "2026-11-01"],
     "error: No such option: --until (--until is an option of list, tokens, export and otlp)"),
    (["doctor", "--until=2026-11-01"],
     "error: No such option: --until (--until is an option of list, tokens, export and otlp)"),
    (["list", "--version"], "error: No such option: --version (--version goes before the command: agentscan --version)"),
    (["--demo", "tokens", "--running"], "error: No such option: --running (--running is an option of list)"),
    (["list", "--full"], "error: No such option: --full (--full is an option of show)"),
    (["show", "abcdef12", "--limit", "3"], "error: No such option: --limit (--limit is an option of list and tokens)"),
    (["trace", "--since", "3d"], "error: No such option: --since (--since is an option of list, tokens, export and otlp)"),
    (["--json", "list"],
     "error: No such option: --json (--json goes after the command: an option of list, show, tokens and 8 other commands)"),
    (["hooks", "--agent", "claude", "install"],
     "error: No such option: --agent (--agent is an option of hooks install and hooks uninstall)"),
    (["hooks", "--demo", "install"], "error: No such option: --demo (--demo goes before the command: agentscan --demo hooks …)"),
])
def test_an_option_of_another_command_is_said_to_be_there(args: list[str], last: str, isolated_home: Path) -> None:
    typer = cli(*args)
    assert typer.exit_code == 2
    # the error, then where the help is (tests/test_cli_grammar_pass40.py)
    assert typer.stderr.splitlines()[0] == last, typer.stderr
    assert "Possible options" not in typer.stderr
    assert typer.stderr.splitlines()[1].startswith("Try 'agentscan")


@pytest.mark.parametrize("args, last", [
    (["--demo", "trace", "--until", "2026-11-01"],
     "error: No such option: --until (--until is an option of list, tokens, export and otlp)"),
    (["list", "--version"], "error: No such option: --version (--version goes before the command: agentscan --version)"),
    (["tokens", "--running"], "error: No such option: --running (--running is an option of list)"),
])
def test_the_console_script_says_the_same(args: list[str], last: str, isolated_home: Path) -> None:
    # It registers only the command run (cli.typer_app): the other commands must still be found.
    typer = cli(*args)
    code, out, err = script(*args)
    assert (code, out, err) == (typer.exit_code, typer.stdout, typer.stderr)
    assert typer.stderr.splitlines()[0] == last
    # A misspelling known nowhere keeps click's close suggestions, on both paths.
    typo = cli("list", "--sinc", "1d")
    said = "error: No such option: --sinc. Did you mean --since?"
    assert typo.stderr.splitlines()[0] == said == script("list", "--sinc", "1d")[2].splitlines()[0]


@pytest.mark.parametrize("columns", ["60", "80", "120"])
def test_help_names_every_command_whole_at_any_width(columns: str) -> None:
    # click cuts a command's help to fit its line with "..." unless it has a short help
    # (CliRunner's help is not fitted to COLUMNS: a real process is).
    env = {**os.environ, "COLUMNS": columns}
    result = subprocess.run([sys.executable, "-m", "agentscan", "--help"], env=env, capture_output=True, text=True, check=True)
    commands = result.stdout.split("Commands:", 1)[1]
    assert "..." not in commands, commands
    assert "hook capture in an agent's config." in " ".join(commands.split())
