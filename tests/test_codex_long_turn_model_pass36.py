"""One long Codex turn: its ``turn_context`` at the start, then over 1 MiB of tool calls.  A
first ``list`` reads the rollout's last 1 MiB, which names no model, and its row said MODEL
``-`` (with a cost priced on the model all the same) until a whole pass had run (review s35,
Codex finding 6).  The window is now read again from the model of the last ``turn_context``
before it (``providers/codex/turnseed.py``): the model its calls ran on, as ``tokens`` gives
it, and not the session's first turn's (review s36)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.codex import seedwalk
from agentscan.scan.scanner import Scanner
from codex_builders import (at, function_call, function_output, index_row, meta, rollout_path, token_count, turn_context,
                            usage, user_message, write_rollout, write_state_db)

S = "019c6666-0000-7000-8000-0000000000b1"


def _turn(start: float, model: str, prompt: str, calls: int, first: int = 0, *, context_after_prompt: bool = False):
    opening = [turn_context(at(start), model), user_message(at(start), prompt)]
    records = list(reversed(opening) if context_after_prompt else opening)
    for i in range(first, first + calls):
        records.append(function_call(at(start + 1 + i), "shell", {"command": ["make", "test"]}, f"c{i}"))
        records.append(function_output(at(start + 1 + i), f"c{i}", "x" * 6000))
        records.append(token_count(at(start + 1 + i), usage(1000 * (i + 1), 0, 10 * (i + 1)), usage(1000, 0, 10)))
    return records


def _write(codex: Path, *turns: list) -> Path:
    records = [meta(S, at(0))]
    for turn in turns:
        records += turn
    path = write_rollout(rollout_path(codex, S, at(0)), records)
    assert path.stat().st_size > 1024 * 1024 + 64 * 1024  # the window cannot reach the last turn_context
    return path


def _row(home: Path, **kwargs: object):
    (row,) = Scanner(home=home, env={}, provider_names=["codex"], **kwargs).list_sessions()
    return row


def test_a_first_list_names_the_long_turn_s_model(isolated_home: Path) -> None:
    _write(isolated_home / ".codex", _turn(1, "gpt-5.1-codex", "Migrate every handler", 200))
    assert _row(isolated_home).model == "gpt-5.1-codex"
    assert _row(isolated_home, use_cache=False).model == "gpt-5.1-codex"


def test_the_model_is_the_long_turn_s_not_the_first_turn_s(isolated_home: Path) -> None:
    # A short first turn on another model: the window's calls ran on the second turn's.
    _write(isolated_home / ".codex", _turn(1, "gpt-5-mini", "Look around", 2),
           _turn(100, "gpt-5.1-codex", "Now migrate every handler", 200, first=2, context_after_prompt=True))
    row = _row(isolated_home)
    assert row.model == "gpt-5.1-codex"
    assert row.title == "Look around"


def test_a_turn_begun_too_far_back_stays_unnamed(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seedwalk, "MAX_BACK_BYTES", 64 * 1024)
    _write(isolated_home / ".codex", _turn(1, "gpt-5.1-codex", "Migrate every handler", 200))
    assert _row(isolated_home).model is None  # not guessed: a whole pass names it


def test_the_index_s_model_comes_after_the_window_s(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    path = _write(codex, _turn(1, "gpt-5.1-codex", "Migrate every handler", 200))
    start = datetime.fromisoformat("2026-03-02T09:00:00+00:00")
    write_state_db(codex / "state_5.sqlite", [index_row(S, path, created=start, updated=start, model="gpt-5.2-codex")])
    assert _row(isolated_home).model == "gpt-5.1-codex"  # the calls' own, found before the window


def test_the_list_the_user_sees_agrees_with_a_whole_pass(isolated_home: Path) -> None:
    _write(isolated_home / ".codex", _turn(1, "gpt-5-mini", "Look around", 2),
           _turn(100, "gpt-5.1-codex", "Now migrate every handler", 200, first=2))
    runner = CliRunner()
    first = runner.invoke(app, ["list", "--json"])
    assert first.exit_code == 0, first.output
    whole = runner.invoke(app, ["tokens", "--by", "model", "--json"])  # a whole pass keeps the file's calls per model
    assert whole.exit_code == 0, whole.output
    again = runner.invoke(app, ["list", "--json"])
    assert again.exit_code == 0, again.output
    assert '"model":"gpt-5.1-codex"' in first.stdout.replace(" ", "")
    assert '"model":"gpt-5.1-codex"' in again.stdout.replace(" ", "")
    assert '"key":"gpt-5.1-codex"' in whole.stdout.replace(" ", "")


def test_calls_before_the_window_s_first_turn_context_count_on_their_turn_s_model(isolated_home: Path) -> None:
    # A long turn on one model fills most of the window, a short one on another ends it: the
    # long turn's calls in the window ran on its model, which is the row's, as after a whole pass.
    _write(isolated_home / ".codex", _turn(1, "gpt-5.1-codex", "Migrate every handler", 200),
           _turn(1000, "gpt-5-mini", "Now a quick check", 2, first=200))
    assert _row(isolated_home).model == "gpt-5.1-codex"
    runner = CliRunner()
    whole = runner.invoke(app, ["tokens", "--json"])
    assert whole.exit_code == 0, whole.output
    assert _row(isolated_home).model == "gpt-5.1-codex"
