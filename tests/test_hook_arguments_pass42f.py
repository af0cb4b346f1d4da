"""`agentscan hook` with an argument it does not know (a typo in an installed command): still
exit 0 and the event stored, but each unknown argument is a line in `hook-errors.log`, with
the option it may be a slip for, so `doctor` shows it.  And a Claude payload without
`--agent` is told from its transcript path, not stored under `unknown`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks.arguments import unknown_arguments
from agentscan.hooks.capture import detect_agent

SESSION = "7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"


def session_start(transcript_dir: str = "/home/dev/.claude/projects/-home-dev-proj") -> bytes:
    """Claude Code's SessionStart: no prompt_id, permission_mode nor effort yet."""
    return json.dumps({"session_id": SESSION, "hook_event_name": "SessionStart", "source": "startup",
                       "cwd": "/home/dev/proj", "transcript_path": f"{transcript_dir}/{SESSION}.jsonl"}).encode()


def run_hook(data_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """As the agent runs it: through the console entry's fast path, not Typer."""
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "agentscan", "hook", *args], input=session_start(),
                          capture_output=True, env=env, timeout=60)


def log_lines(data_dir: Path) -> list[str]:
    log = data_dir / "hook-errors.log"
    return log.read_text().splitlines() if log.exists() else []


def test_a_mistyped_option_is_logged_with_a_guess_and_the_event_still_stored(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    result = run_hook(data_dir, "--agent", "claude", "--otlp-endpiont", "http://127.0.0.1:9")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert (data_dir / "events" / "claude" / f"{SESSION}.jsonl").is_file()
    [line] = log_lines(data_dir)
    assert line.endswith(" unknown option --otlp-endpiont ignored, with its value (did you mean --otlp-endpoint?); "
                         "the event was stored all the same"), line
    assert "agent=claude" in line and "127.0.0.1" not in line  # an option's value is never quoted
    # The same mistake on the next event is not said again (the bounded log keeps real problems).
    run_hook(data_dir, "--agent", "claude", "--otlp-endpiont", "http://127.0.0.1:9")
    assert len(log_lines(data_dir)) == 1


def test_each_unknown_argument_is_its_own_line_said_once_while_nothing_else_is_logged(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    for _ in range(2):
        assert run_hook(data_dir, "surplus", "--agent=claude", "--verbose").returncode == 0
    messages = [line.split(" ", 3)[3] for line in log_lines(data_dir)]
    assert messages == [
        "unexpected argument 'surplus' ignored (hook takes only --agent and --otlp-endpoint); "
        "the event was stored all the same",
        "unknown option --verbose ignored; the event was stored all the same",
    ]


def test_known_arguments_log_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    assert run_hook(data_dir, "--agent", "claude", "--otlp-endpoint=http://127.0.0.1:9").returncode == 0
    assert not any("ignored" in line for line in log_lines(data_dir))


def test_doctor_shows_the_line(tmp_path: Path) -> None:
    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    run_hook(data_dir, "--agnet", "claude")
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    [last] = json.loads(result.stdout)["hooks"]["errors"]["last"]
    assert "unknown option --agnet ignored, with its value (did you mean --agent?)" in last


def test_the_typer_path_logs_what_click_left(tmp_path: Path) -> None:
    """``agentscan --home X hook …`` is not the entry's fast path: the command logs alike."""
    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    result = CliRunner().invoke(app, ["--home", str(tmp_path), "hook", "--agent", "claude", "--otlp-endpiont", "x"],
                                input=session_start())
    assert result.exit_code == 0, result.output
    assert any("unknown option --otlp-endpiont ignored, with its value (did you mean --otlp-endpoint?)" in line
               for line in log_lines(data_dir))


@pytest.mark.parametrize(("argv", "said"), [
    (["--agent", "claude"], []),
    (["--x=1", "-"], ["unknown option --x ignored, with its value", "unexpected argument '-' ignored"]),
    (["--otlp-endpoint", "u", "--demo-ish"], ["unknown option --demo-ish ignored"]),
    (["--", "--agent=cursor"], []),
])
def test_what_is_unknown(argv: list[str], said: list[str]) -> None:
    messages = unknown_arguments(argv)
    assert len(messages) == len(said) and all(m.startswith(s) for m, s in zip(messages, said)), messages


@pytest.mark.parametrize(("payload", "agent"), [
    # Claude Code's SessionStart carries none of prompt_id / permission_mode / effort
    ({"session_id": "s", "hook_event_name": "SessionStart", "transcript_path": f"/home/u/.claude/projects/-p/{SESSION}.jsonl"},
     "claude"),
    ({"session_id": "s", "transcript_path": "C:\\Users\\u\\.claude\\projects\\-p\\s.jsonl"}, "claude"),
    # an event name alone tells nothing: VS Code, Gemini CLI and Codex name theirs as Claude does
    ({"session_id": "s", "hook_event_name": "SessionStart", "transcript_path": "/home/u/.gemini/tmp/x/chat.json"},
     "unknown"),
    ({"session_id": "s", "hook_event_name": "SessionStart"}, "unknown"),
    ({"conversation_id": "c", "generation_id": "g", "transcript_path": "/home/u/.cursor/projects/p/c.jsonl"},
     "cursor"),
])
def test_a_claude_transcript_path_tells_claude(payload: dict, agent: str) -> None:
    assert detect_agent(payload) == agent


def test_a_session_start_without_agent_is_stored_as_claude(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    assert run_hook(data_dir).returncode == 0
    assert [p.name for p in (data_dir / "events").iterdir()] == ["claude"]


@pytest.mark.parametrize(("argv", "unknown"), [
    ([], False), (["--agent", "claude"], False), (["--agent=cursor", "--otlp-endpoint", "http://h"], False),
    (["--agent", "claude", "extra"], True), (["--otlp-endpiont=x"], True), (["--"], True),
])
def test_the_installed_command_s_own_arguments_need_no_parser(argv: list[str], unknown: bool) -> None:
    """``hooks.arguments`` (and difflib) is imported only when something unknown was given."""
    from agentscan.hooks.arguments import has_unknown

    assert has_unknown(argv) is unknown


def test_a_stray_url_is_never_quoted_in_the_log_doctor_shows(tmp_path: Path) -> None:
    """An option pasted with a typeset dash leaves its value a stray word: a URL may hold a token."""
    data_dir = tmp_path / "store"
    result = run_hook(data_dir, "--agent", "claude", "\u2014otlp-endpoint", "http://bob:s3cretTOKEN@host:4318")
    assert result.returncode == 0
    [line] = log_lines(data_dir)
    assert "s3cretTOKEN" not in line and "bob" not in line
    assert "unknown option \u2014otlp-endpoint ignored, with its value (did you mean --otlp-endpoint?" in line
    assert ["unexpected argument (a URL or a value, not quoted)" in told
            for told in unknown_arguments(["http://bob:s3cretTOKEN@host:4318", "key=value"])] == [True, True]


def test_an_argument_with_a_newline_is_one_log_line_said_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    for _ in range(2):
        assert run_hook(data_dir, "--agent", "claude", "--foo\nbar=1").returncode == 0
    [line] = log_lines(data_dir)
    assert line.endswith("unknown option --foo ignored, with its value; the event was stored all the same"), line


@pytest.mark.parametrize("argv", [
    ["--otlp-endpoint https://otel:S3cr3tT0ken@collector.example"],  # one word (an args list)
    ["--otlp-endpoint:https://otel:S3cr3tT0ken@collector.example"],
    ["-HS3cr3tT0ken"],
    ["sk-proj-S3cr3tT0kenS3cr3tT0ken"],
    ["otel:S3cr3tT0ken"],
    ["--bogus", "https://otel:S3cr3tT0ken@collector.example"],
])
def test_no_part_of_a_value_is_quoted_however_it_is_glued(argv: list[str]) -> None:
    [told] = unknown_arguments(argv)
    assert "S3cr3tT0ken" not in told, told


def test_an_endpoint_glued_to_its_option_is_told_how_to_give_it() -> None:
    [told] = unknown_arguments(["--otlp-endpoint:https://h"])
    assert "unknown option --otlp-endpoint ignored, with its value (give --otlp-endpoint and its value as two words" in told
