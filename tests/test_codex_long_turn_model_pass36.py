"""One long Codex turn: its ``turn_context`` at the start, then over 1 MiB of tool calls.  A
first ``list`` reads the rollout's last 1 MiB, which names no model, and its row said MODEL
``-`` (with a cost priced on the model all the same) until a whole pass had run (review s35,
Codex finding 6).  The row now takes the first turn's model from the head it reads for the
title; the index's model, the latest turn's, comes first when there is one."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.scanner import Scanner
from codex_builders import (at, function_call, function_output, index_row, meta, rollout_path, token_count, turn_context,
                            usage, user_message, write_rollout, write_state_db)

S = "019c6666-0000-7000-8000-0000000000b1"


def _long_turn(codex: Path, *, context_after_prompt: bool = False, calls: int = 200) -> Path:
    opening = [turn_context(at(1), "gpt-5.1-codex"), user_message(at(1), "Migrate every handler")]
    records = [meta(S, at(0)), *(reversed(opening) if context_after_prompt else opening)]
    for i in range(calls):
        records.append(function_call(at(2 + i), "shell", {"command": ["make", "test"]}, f"c{i}"))
        records.append(function_output(at(2 + i), f"c{i}", "x" * 6000))
        records.append(token_count(at(2 + i), usage(1000 * (i + 1), 0, 10 * (i + 1)), usage(1000, 0, 10)))
    path = write_rollout(rollout_path(codex, S, at(0)), records)
    assert path.stat().st_size > 1024 * 1024 + 64 * 1024  # the window cannot reach the turn_context
    return path


def _row(home: Path, **kwargs: object):
    (row,) = Scanner(home=home, env={}, provider_names=["codex"], **kwargs).list_sessions()
    return row


def test_a_first_list_names_the_long_turn_s_model(isolated_home: Path) -> None:
    _long_turn(isolated_home / ".codex")
    assert _row(isolated_home).model == "gpt-5.1-codex"
    assert _row(isolated_home, use_cache=False).model == "gpt-5.1-codex"


def test_a_turn_context_written_after_the_prompt_is_found_too(isolated_home: Path) -> None:
    # Builds of late 2025 write the turn_context right after the user_message event.
    _long_turn(isolated_home / ".codex", context_after_prompt=True)
    row = _row(isolated_home)
    assert row.model == "gpt-5.1-codex"
    assert row.title == "Migrate every handler"


def test_the_index_s_model_comes_first(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    path = _long_turn(codex)
    start = datetime.fromisoformat("2026-03-02T09:00:00+00:00")
    write_state_db(codex / "state_5.sqlite", [index_row(S, path, created=start, updated=start, model="gpt-5.2-codex")])
    assert _row(isolated_home).model == "gpt-5.2-codex"


def test_the_list_the_user_sees_agrees_with_a_whole_pass(isolated_home: Path) -> None:
    _long_turn(isolated_home / ".codex")
    runner = CliRunner()
    first = runner.invoke(app, ["list", "--json"])
    assert first.exit_code == 0, first.output
    runner.invoke(app, ["tokens"])  # a whole pass keeps the file's calls per model
    again = runner.invoke(app, ["list", "--json"])
    assert '"model":"gpt-5.1-codex"' in first.stdout.replace(" ", "")
    assert '"model":"gpt-5.1-codex"' in again.stdout.replace(" ", "")
