"""Small user-facing defects found in an audit of the CLI: each test fails without its fix."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, fastpath
from agentscan.demo import demo_home
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from hooks_builders import CONVERSATION, Replay, prompt

runner = CliRunner()
#: the demo's newest Claude session: 2 spans in 1 trace
DEMO_SESSION = "claude:c2d4e6f8-1a3b-4c5d-8e9f-0a1b2c3d4e5f"
NATIVE = "5a5a5a5a-0000-4000-8000-000000000001"


def flat(text: str) -> str:
    """Help text with its wrapping undone."""
    return " ".join(text.split())


def option_help(help_text: str, option: str) -> str:
    """The help of one option: its line and the lines that continue it, unwrapped."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(option))
    end = start + 1
    while end < len(lines) and lines[end].strip() and not lines[end].strip().startswith("-"):
        end += 1
    return flat(" ".join(lines[start:end]))


# --- 1. prices --provider ------------------------------------------------------------


def test_prices_rejects_an_unknown_provider_as_the_other_commands_do() -> None:
    result = invoke("prices", "gpt-5", "-p", "bogus")
    assert result.exit_code == 2, result.output
    assert "unknown provider 'bogus'" in result.stderr
    assert result.stdout == ""
    listed = invoke("list", "-p", "bogus")
    # (the line under it names each command's --help)
    assert (listed.exit_code, listed.stderr.splitlines()[0]) == (result.exit_code, result.stderr.splitlines()[0])
    assert invoke("prices", "gpt-5", "-p", "codex").exit_code == 0


# --- 2. help that says what the option does for that command ---------------------------


@pytest.mark.parametrize(("command", "says"), [
    ("list", "titles"), ("export", "titles"), ("otlp", "--include-content"), ("trace", "prompts"), ("show", "prompt"),
])
def test_redact_help_says_what_it_does_for_each_command(command: str, says: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0, result.output
    text = option_help(result.stdout, "--redact")
    assert says in text
    if command in ("list", "export"):  # neither has prompt, response or tool text
        assert "prompt" not in text and "response" not in text and "tool" not in text


def test_tokens_since_help_says_it_keeps_the_calls_made_since() -> None:
    text = option_help(invoke("tokens", "--help").stdout, "--since")
    assert "calls made since WHEN" in text and "sessions" not in text
    assert "sessions" in option_help(invoke("list", "--help").stdout, "--since")


# --- 3. otlp -o - ---------------------------------------------------------------------


def test_otlp_output_dash_writes_the_lines_to_stdout_and_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = invoke("--demo", "otlp", DEMO_SESSION, "-o", "-")
    assert result.exit_code == 0, result.output
    assert list(here.iterdir()) == []
    lines = result.stdout.splitlines()
    assert lines and all("resourceSpans" in orjson.loads(line) for line in lines)
    assert "exported" not in result.stdout
    both = invoke("--demo", "otlp", DEMO_SESSION, "-o", "-", "--json")
    assert both.exit_code == 2 and "--json and the spans would both write to stdout (--output -)" in both.stderr


def test_otlp_summary_says_one_trace_from_one_session(tmp_path: Path) -> None:
    out = tmp_path / "traces.jsonl"
    result = invoke("--demo", "otlp", DEMO_SESSION, "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"exported 2 spans in 1 trace from 1 session to {out}\n"


# --- 4. a --home that is not a directory ------------------------------------------------


@pytest.mark.parametrize("args", [
    ["list"], ["list", "--json"], ["tokens"], ["tokens", "--json"], ["show", "abcdef12"],
    ["export", "-f", "jsonl", "-o", "OUT"], ["otlp", "-o", "OUT"],
], ids=" ".join)
def test_a_missing_home_is_an_error(args: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    args = [str(tmp_path / "out") if arg == "OUT" else arg for arg in args]
    for argv in (["--home", str(missing), *args], [*args, "--home", str(missing)]):
        result = invoke(*argv)
        assert result.exit_code == 1, (argv, result.output)
        assert result.stderr == f"error: --home {missing}: no such directory\n"
        assert result.stdout == ""
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv", [["--home", "MISSING", "list"], ["list", "--home", "MISSING", "--json"],
                                  ["--home", "MISSING", "tokens"], ["--home", "FILE", "list"]], ids=" ".join)
def test_the_fast_path_says_the_same(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "a-file"
    file.write_text("")
    argv = [str(tmp_path / "nowhere") if arg == "MISSING" else str(file) if arg == "FILE" else arg for arg in argv]
    capsys.readouterr()
    code = fastpath.run(argv)
    out, err = capsys.readouterr()
    problem = f"{file}: not a directory" if "FILE" in argv or str(file) in argv else f"{tmp_path / 'nowhere'}: no such directory"
    assert (code, out, err) == (1, "", f"error: --home {problem}\n")
    typer = invoke(*argv)
    assert (typer.exit_code, typer.stdout, typer.stderr) == (code, out, err)


def test_doctor_still_reports_a_missing_home(tmp_path: Path) -> None:
    result = invoke("--home", str(tmp_path / "nowhere"), "doctor", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["home"] == str(tmp_path / "nowhere")


# --- 5. absolute paths ------------------------------------------------------------------


@pytest.fixture
def relative_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the demo home at ``h1``, relative to the current directory."""
    shutil.copytree(demo_home(), tmp_path / "h1")
    monkeypatch.chdir(tmp_path)
    return Path(os.getcwd()) / "h1"


def test_a_relative_home_gives_absolute_paths(relative_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    typer = invoke("--home", "h1", "list", "--json")
    assert typer.exit_code == 0, typer.output
    capsys.readouterr()
    assert fastpath.run(["--home", "h1", "list", "--json"]) == 0
    fast = capsys.readouterr().out
    for text in (typer.stdout, fast):
        paths = [row["path"] for row in orjson.loads(text)["sessions"]]
        assert paths and all(path.startswith(f"{relative_home}{os.sep}") for path in paths), paths
    after = invoke("list", "--home", "h1", "--json")
    assert orjson.loads(after.stdout)["sessions"][0]["path"].startswith(str(relative_home))


def test_export_and_otlp_report_absolute_output_paths(relative_home: Path) -> None:
    here = relative_home.parent
    document = orjson.loads(invoke("--home", "h1", "export", "-f", "jsonl", "-o", "out.jsonl", "--json").stdout)
    assert document["path"] == str(here / "out.jsonl")
    text = invoke("--home", "h1", "export", "-f", "csv", "-o", "out.csv").stdout
    assert f" to {here / 'out.csv'} (csv)" in text
    document = orjson.loads(invoke("--home", "h1", "otlp", DEMO_SESSION, "-o", "t.jsonl", "--json").stdout)
    assert document["path"] == str(here / "t.jsonl")
    text = invoke("--home", "h1", "otlp", DEMO_SESSION, "-o", "t.jsonl").stdout
    assert text.endswith(f" to {here / 't.jsonl'}\n")
    assert (here / "out.jsonl").is_file() and (here / "t.jsonl").is_file()


# --- 6. --strict's count, trace's hint --------------------------------------------------


def test_strict_says_one_warning(isolated_home: Path) -> None:
    ts = "2026-05-01T10:00:00Z"
    path = claude_session_file(isolated_home, NATIVE, [
        claude_user(NATIVE, ts, "fix the parser"),
        claude_assistant(NATIVE, ts, msg_id="m1", request_id="r1", usage=claude_usage(5, 1)),
    ])
    with path.open("ab") as handle:
        handle.write(b"{not json\n")
    result = invoke("--strict", "list")
    assert result.exit_code == 1
    assert "error: 1 warning (--strict)" in result.stderr


def test_strict_says_one_warning_for_trace(isolated_home: Path) -> None:
    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    Replay(data_dir).send(prompt("hi"))
    with (data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl").open("ab") as handle:
        handle.write(b"{not json\n")
    result = invoke("--strict", "trace", CONVERSATION)
    assert result.exit_code == 1
    assert result.stderr.endswith("error: 1 warning (--strict)\n")


def test_a_short_trace_id_points_to_trace_list(isolated_home: Path) -> None:
    Replay(Path(os.environ["AGENTSCAN_DATA_DIR"])).send(prompt("hi"))
    result = invoke("trace", "abc")
    assert result.exit_code == 1
    assert "(`agentscan trace --list` shows them)" in result.stderr
    assert "`agentscan list`" not in result.stderr
    shown = invoke("show", "abc")  # a transcript session's id is still list's: in this home of none,
    # where to look for one (pass 46), not trace's list
    assert shown.exit_code == 1 and "trace --list" not in shown.stderr
    assert "no sessions were found in this home: `agentscan doctor` shows where agentscan looked" in shown.stderr


def test_doctor_says_the_home_itself_is_missing(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-home"
    text = runner.invoke(app, ["--home", str(missing), "doctor"])
    assert text.exit_code == 0 and f"home: {missing} (from --home): no such directory" in text.stdout
    document = orjson.loads(runner.invoke(app, ["--home", str(missing), "doctor", "--json"]).stdout)
    assert document["home_exists"] is False
    assert orjson.loads(runner.invoke(app, ["--home", str(tmp_path), "doctor", "--json"]).stdout)["home_exists"] is True


@pytest.mark.parametrize("args, hint", [
    (["--demo"], "Try: agentscan --demo list"),
    (["--home", "/tmp/a b", "-q"], "Try: agentscan --home '/tmp/a b' -q list"),
])
def test_global_options_without_a_command_name_the_command_to_try(args: list[str], hint: str) -> None:
    # `agentscan --demo` alone plainly wants an answer: click said only "Missing command."
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"error: Missing command. {hint}", "Try 'agentscan --help' for help."]


@pytest.mark.parametrize("args, message", [
    (["list", "--bogus"], "No such option: --bogus"),
    (["show"], "give a session ID (`agentscan list` shows the newest sessions' ids)"),
    (["hooks", "install", "--bogus"], "No such option: --bogus"),
    (["bogus"], "No such command 'bogus'."),
    (["export", "-o", "x.txt"], "give a --format (-f): jsonl, csv or sqlite, or an --output ending in .jsonl, "
                                ".ndjson, .csv, .sqlite, .sqlite3 or .db"),
    (["list", "-n", "x"], "--limit must be a whole number of 1 or more, not 'x'"),  # (pass 46: agentscan's words)
    (["list", "--pid", "me"], "--pid must be a process id of 1 or more, not 'me'"),  # (pass 47: agentscan's words)
])
def test_click_s_usage_errors_say_error_as_agentscan_s_own_do(args: list[str], message: str) -> None:
    # agentscan's own errors print "error: …" (git's word); click's printed "Error: …".
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    first, help_line = result.stderr.splitlines()  # as agentscan's own (tests/test_cli_grammar_pass40.py)
    assert first.startswith("error: ") and message in first, result.stderr
    assert help_line.startswith("Try 'agentscan") and help_line.endswith(" --help' for help.")
    assert "Error:" not in result.stderr


@pytest.mark.parametrize("args", [
    ["--home", "", "list"], ["list", "--home", ""], ["--home", "", "tokens"], ["show", "--home", "", "abcdef"],
    ["--home", "", "doctor"], ["--home", "", "hooks", "install", "claude"], ["--home=", "export", "-o", "x.jsonl"],
])
def test_an_empty_home_is_a_usage_error_not_the_current_directory(args: list[str], isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # ``--home "$BACKUP"`` with the variable unset read the current directory (Path("") is ".");
    # ``hooks install`` would have written there.
    monkeypatch.chdir(isolated_home)
    claude_session_file(isolated_home, NATIVE, [claude_user(NATIVE, "2026-11-02T09:00:00.000Z", "hi")])
    before = sorted(str(path) for path in isolated_home.rglob("*"))
    typer = runner.invoke(app, args)
    for result in ((typer.exit_code, typer.stdout, typer.stderr), _fast(args)):
        assert result[0] == 2, (args, result)
        assert "--home" in result[2] and "is empty" in result[2], result
        assert result[1] == ""
    assert sorted(str(path) for path in isolated_home.rglob("*")) == before


def _fast(args: list[str]) -> tuple[int, str, str]:
    """``args`` run as the console script runs them (the fast path first, then Typer)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "agentscan", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return done.returncode, done.stdout, done.stderr


def test_an_error_message_is_one_printable_line(isolated_home: Path) -> None:
    # An error may quote what was typed, a path of the home read or a collector's reply:
    # an escape sequence in it reached the terminal (a screen clear, a clipboard write).
    home = str(isolated_home / "gone\x1b[2J\x1b]52;c;eA==\x07")
    typer = runner.invoke(app, ["--home", home, "list"])
    for stderr in (typer.stderr, _fast(["--home", home, "list"])[2]):
        assert stderr.startswith("error: --home ") and stderr.count("\n") == 1, stderr
        assert "\x1b" not in stderr and "\x07" not in stderr and "gone\ufffd[2J\ufffd]52;c;eA==\ufffd" in stderr


@pytest.mark.parametrize("args, usage", [
    (["show", "--help"], "Usage: agentscan show [OPTIONS] ID\n"),
    (["trace", "--help"], "Usage: agentscan trace [OPTIONS] [ID]\n"),
    (["tokens", "--help"], "Usage: agentscan tokens [OPTIONS] [ID]...\n"),
])
def test_usage_lines_write_a_required_argument_bare_as_git_and_gh_do(args: list[str], usage: str) -> None:
    # Typer writes it "{ID}", which reads as a set of choices.
    result = runner.invoke(app, args)
    assert (result.stdout + result.stderr).startswith(usage), result.output
