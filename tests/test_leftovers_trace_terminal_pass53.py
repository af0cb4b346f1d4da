"""Pass 53's leftovers: `trace`'s `show` hint for a transcript under no folder agentscan reads,
`trace claude:<id>` of a session captured under Cursor, `otlp`'s hint over a store of hook
sessions, and lines at 30 columns (`tokens --by model`, a subagent's node, `--help` usage run
as `python -m agentscan`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import Replay

SESSION = "f4f68c50-6310-4805-971c-49da8a517dbd"
runner = CliRunner()


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def _claude_prompt(transcript: Path) -> dict[str, Any]:
    return {"hook_event_name": "UserPromptSubmit", "session_id": SESSION, "cwd": "/tmp/proj", "prompt": "hi",
            "prompt_id": "p-1", "transcript_path": str(transcript)}


def _transcript(path: Path) -> Path:
    path.parent.mkdir(parents=True)
    path.write_text("{}\n", encoding="utf-8")
    return path


# --- 1. `trace` suggests only a `show` that reads the transcript ------------------------


def test_a_transcript_under_another_config_dir_is_shown_with_that_setting(data_dir: Path, tmp_path: Path) -> None:
    # The agent ran with CLAUDE_CONFIG_DIR=<tmp>/alt/cfg: a bare `show` answered "no session matches".
    config = tmp_path / "alt" / "cfg"
    Replay(data_dir, agent="claude").send(_claude_prompt(_transcript(config / "projects" / "-tmp-proj" / f"{SESSION}.jsonl")))
    lines = runner.invoke(app, ["trace", SESSION]).stdout.splitlines()
    assert f"              CLAUDE_CONFIG_DIR={config} agentscan show claude:{SESSION}" in lines, lines
    assert f"              agentscan show claude:{SESSION}" not in lines
    redacted = runner.invoke(app, ["trace", SESSION, "--redact"]).stdout.splitlines()
    assert f"              CLAUDE_CONFIG_DIR={config} agentscan show claude:{SESSION}" in redacted
    # `show` of it, which finds no such session, says so too, before `trace`'s hint.
    shown = runner.invoke(app, ["show", SESSION[:8]])
    assert shown.exit_code == 1
    assert shown.stderr.splitlines()[1:] == [
        f"hint: `CLAUDE_CONFIG_DIR={config} agentscan show claude:{SESSION}` reads its transcript, kept under "
        "a folder agentscan does not read",
        f"hint: `agentscan trace claude:{SESSION}` shows its captured hook events",
    ], shown.stderr


def test_a_transcript_under_no_projects_folder_gets_no_show_command(data_dir: Path, tmp_path: Path) -> None:
    path = _transcript(tmp_path / "loose" / f"{SESSION}.jsonl")
    Replay(data_dir, agent="claude").send(_claude_prompt(path))
    text = runner.invoke(app, ["trace", SESSION]).stdout
    assert "agentscan show" not in text
    assert f"  transcript  {path} (under no folder agentscan reads)\n" in text


def test_a_transcript_under_the_homes_own_folder_gets_the_bare_show(data_dir: Path, isolated_home: Path) -> None:
    path = _transcript(isolated_home / ".claude" / "projects" / "-tmp-proj" / f"{SESSION}.jsonl")
    Replay(data_dir, agent="claude").send(_claude_prompt(path))
    assert f"\n              agentscan show claude:{SESSION}\n" in runner.invoke(app, ["trace", SESSION]).stdout


# --- 2. `trace claude:<id>` of a session captured under Cursor --------------------------

CURSOR_ID = "c0ffee00-1111-4222-8333-444455556666"


@pytest.mark.parametrize("query", ["claude:c0ffee00", f"claude:{CURSOR_ID}"])
def test_an_id_captured_under_another_agent_is_offered(data_dir: Path, tmp_path: Path, query: str) -> None:
    Replay(data_dir, agent="cursor").send({"hook_event_name": "beforeSubmitPrompt", "conversation_id": CURSOR_ID,
                                           "generation_id": "g-1", "prompt": "hi"})
    Replay(data_dir, agent="claude").send(_claude_prompt(tmp_path / "gone.jsonl"))  # claude: has sessions too
    result = runner.invoke(app, ["trace", query])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"hint: `agentscan trace cursor:{CURSOR_ID}` shows the session captured under cursor"), result.stderr


# --- 3. `otlp ID` of no session, over a home of none and a store of hook sessions -------


def test_otlp_of_no_session_names_the_hook_sessions_it_picks_from(data_dir: Path, tmp_path: Path) -> None:
    Replay(data_dir, agent="claude").send(_claude_prompt(tmp_path / "gone.jsonl"))
    result = runner.invoke(app, ["otlp", "nosuch", "-o", str(tmp_path / "out.json")])
    assert result.exit_code == 1
    assert "no sessions were found in this home" not in result.stderr  # there are, in the store
    assert result.stderr.splitlines()[1:] == [
        "no transcript sessions were found in this home: `agentscan doctor` shows where agentscan looked",
        "hint: `agentscan trace --list` lists the hook session captured, which otlp exports too",
    ], result.stderr


# --- 4. `tokens --by model` at 30 columns: rounded where that keeps the names whole -------


def test_rounded_numbers_are_taken_where_they_keep_a_models_name_whole() -> None:
    from agentscan.cli import tablefit
    from agentscan.cli.tableparts import Column
    from agentscan.cli.term import Terminal

    # The bench's `sonnet-4.5 (claude)` beside `1,549,015,039` (`1.5B` rounded), COST left out either way.
    columns = [Column("MODEL", label=True, min_width=10), Column("TOTAL", right=True), Column("COST", right=True, drop=1)]
    exact, rounded = [19, 13, 9], [19, 5, 9]
    tellings = [[(lambda: exact, False)], [(lambda: rounded, False)]]
    term = Terminal(tty=True, width=30, color=False)
    chosen = tablefit.least_lost(columns, tellings, term, {"TOTAL", "COST"}, names_whole=True)
    assert chosen is not None and chosen[0] == 1 and chosen[2] == ([0, 1], [19, 5])
    # A title or a project is not a name rounding is for: exact numbers, as ever.
    assert tablefit.least_lost(columns, tellings, term, {"TOTAL", "COST"})[0] == 0  # type: ignore[index]


def test_tokens_by_model_at_30_columns_rounds_to_keep_the_names_whole(isolated_home: Path, tty: Any) -> None:
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    native = "0badcafe-2222-4000-8000-000000000000"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "task"),
        claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id="msg-1", request_id="req-1",
                         usage=claude_usage(15, 10, cache_read=1_549_015_014), model="vendor-model-nineteen"),
    ])
    tty(30, color=False)
    result = runner.invoke(app, ["tokens", "--by", "model", "--no-cache"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert any(line.startswith("vendor-model-nineteen ") and line.endswith(" 1.5B") for line in lines), lines


# --- 5. `trace` at 30 columns: a subagent two levels down fits -----------------------------


def test_the_demo_trace_fits_30_columns_but_the_command_to_copy(tty: Any) -> None:
    from agentscan.cli.charset import width_of

    tty(30, color=False)
    result = runner.invoke(app, ["--demo", "trace", "7f3c9a12"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "  |  `- subagent\u2026  ok  44.0 s" in lines  # the kind kept, its status and time whole
    assert [line for line in lines if width_of(line) > 30 and " show " not in line] == []


# --- 6. `--help` run as `python -m agentscan` at 30 columns --------------------------------


@pytest.mark.parametrize("command", [["hooks", "install"], ["export"], ["tokens"]])
def test_usage_run_as_python_m_fits_30_columns(command: list[str]) -> None:
    import subprocess
    import sys

    # Typed ``python -m agentscan`` (``sys.orig_argv``), with no agentscan of this venv on ``PATH``:
    # the usage line names it so (``invocation.module_word``), however long this Python's path.
    as_typed = ("import runpy, sys; sys.orig_argv[:] = ['python', '-m', 'agentscan']; "
                "runpy.run_module('agentscan', run_name='__main__', alter_sys=True)")
    done = subprocess.run([sys.executable, "-c", as_typed, *command, "--help"],
                          env=dict(os.environ, COLUMNS="30", PATH="/usr/bin:/bin"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n\n")[0].splitlines()  # the usage, to its blank line
    assert lines[0] == "Usage: python -m agentscan"
    assert all(len(line) <= 30 for line in lines), lines
    assert " ".join(line.strip() for line in lines).startswith(f"Usage: python -m agentscan {' '.join(command)} [OPTIONS]")
