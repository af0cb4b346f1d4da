"""``tokens --by model`` on a terminal: one model recorded by two agents reads as one model.

Claude Code's ``claude-sonnet-4-5-20250929`` and Cursor's ``claude-4.5-sonnet`` are both
``sonnet-4.5`` as ``list`` names them: the table showed them as ``claude-sonnet-4-5`` and
``claude-4.5-sonnet``, two names that did not say they were one model recorded by two
agents.  Now ``sonnet-4.5 (claude)`` and ``sonnet-4.5 (cursor)`` (``cli.tokens_models``);
two snapshots of one agent's keep the longer names; a pipe and ``--json`` give the names
as recorded.  Which agent recorded which model is asked (``recorded_models``) only where
two names read alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import orjson
import pytest

from agentscan.cli.tableparts import Column, Row
from agentscan.cli.term import Terminal
from agentscan.cli.tokens_models import fitted, model_names, told_apart
from agentscan.scan import recordedmodels
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, forget_remembered_answers, invoke
from cursor_builders import (assistant, bubble, composer_data, make_state_db, state_db_path, turn_ended, user,
                             write_transcript)

TERM = Terminal(tty=True, width=100, color=False)
SONNET = "claude-sonnet-4-5-20250929"
CURSOR_SONNET = "claude-4.5-sonnet"
COMPOSER = "7c0a1e55-0000-4000-8000-000000000046"


def _claude(home: Path, native: str, model: str) -> None:
    at = "2026-11-01T10:00:00Z"
    claude_session_file(home, native, [
        claude_user(native, at, "hi"),
        claude_assistant(native, at, msg_id=f"m-{native}", request_id=f"r-{native}", usage=claude_usage(10, 5),
                         model=model)])


def _cursor(home: Path, model: str) -> None:
    write_transcript(home, "home-me-app", COMPOSER, [user("write the cart"), assistant("cart written"), turn_ended()])
    bubbles = [bubble("u1", 1, "write the cart"), bubble("a1", 2, "cart written", tokens=(1000, 100), model=model)]
    make_state_db(state_db_path(home), composers=[
        composer_data(COMPOSER, name="Cart", model=model, bubbles=[b["bubbleId"] for b in bubbles])],
        bubbles={COMPOSER: bubbles})


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the table asked which agents recorded which models."""
    calls: list[int] = []
    real = recordedmodels.recorded_models

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(recordedmodels, "recorded_models", spy)
    return calls


def _keys(*args: str) -> list[str]:
    """The first column of ``tokens --by model``'s rows (two spaces end a cell)."""
    result = invoke("tokens", "--by", "model", *args)
    assert result.exit_code == 0, result.output
    return [line.split("  ")[0] for line in result.stdout.splitlines()[1:-1]]


def test_one_model_of_two_agents_names_the_agents_on_a_terminal(isolated_home: Path, tty, asked: list[int]) -> None:  # noqa: ANN001
    _claude(isolated_home, "1a2b3c4d-0000-4000-8000-000000000001", SONNET)
    _cursor(isolated_home, CURSOR_SONNET)
    piped = _keys()
    assert sorted(piped) == sorted([SONNET, CURSOR_SONNET])  # a pipe: as recorded
    rows = orjson.loads(invoke("tokens", "--by", "model", "--json").stdout)["rows"]
    assert sorted(row["key"] for row in rows) == sorted([SONNET, CURSOR_SONNET])
    assert asked == []  # neither a pipe nor --json asks
    tty(100)
    assert sorted(_keys()) == ["sonnet-4.5 (claude)", "sonnet-4.5 (cursor)"]
    assert asked == [1]
    tty(100)
    assert _keys("-p", "claude") == ["sonnet-4.5"]  # alone: no agent to name


def test_the_same_table_cold_warm_and_remembered(isolated_home: Path, tty) -> None:  # noqa: ANN001
    _claude(isolated_home, "1a2b3c4d-0000-4000-8000-000000000001", SONNET)
    _cursor(isolated_home, CURSOR_SONNET)
    tty(80)
    cold = invoke("tokens", "--by", "model").stdout
    remembered = invoke("tokens", "--by", "model").stdout
    forget_remembered_answers()
    warm = invoke("tokens", "--by", "model").stdout
    assert "sonnet-4.5 (claude)" in cold and "sonnet-4.5 (cursor)" in cold
    assert cold == remembered == warm


def test_two_snapshots_of_one_agent_keep_the_longer_names(isolated_home: Path, tty) -> None:  # noqa: ANN001
    _claude(isolated_home, "1a2b3c4d-0000-4000-8000-000000000001", SONNET)
    _claude(isolated_home, "1a2b3c4d-0000-4000-8000-000000000002", "claude-sonnet-4-5-20250101")
    tty(100)
    assert sorted(_keys()) == ["claude-sonnet-4-5-20250101", SONNET]
    _cursor(isolated_home, CURSOR_SONNET)  # and another agent's spelling beside them: its own named
    tty(100)
    assert sorted(_keys()) == ["claude-sonnet-4-5-20250101", SONNET, "sonnet-4.5 (cursor)"]


def test_no_names_alike_asks_no_agent(isolated_home: Path, tty, asked: list[int]) -> None:  # noqa: ANN001
    _claude(isolated_home, "1a2b3c4d-0000-4000-8000-000000000001", SONNET)
    _cursor(isolated_home, "gpt-5")
    tty(100)
    assert sorted(_keys()) == ["gpt-5", "sonnet-4.5"]
    assert asked == []


def _agents(*pairs: tuple[str, str]) -> Callable[[], list[tuple[str, str]]]:
    return lambda: list(pairs)


@pytest.mark.parametrize("models, pairs, shown", [
    ([SONNET, CURSOR_SONNET, "gpt-5"], [("claude", SONNET), ("cursor", CURSOR_SONNET), ("cursor", "gpt-5")],
     ["sonnet-4.5 (claude)", "sonnet-4.5 (cursor)", "gpt-5"]),
    # A name two agents recorded: both named.
    ([SONNET, CURSOR_SONNET], [("claude", SONNET), ("cursor", SONNET), ("cursor", CURSOR_SONNET)],
     ["sonnet-4.5 (claude, cursor)", "sonnet-4.5 (cursor)"]),
    # One agent's two snapshots: as before, whole.
    ([SONNET, "claude-sonnet-4-5-20250101"], [("claude", SONNET), ("claude", "claude-sonnet-4-5-20250101")],
     [SONNET, "claude-sonnet-4-5-20250101"]),
    # No agent known of a name: as before, undated.
    ([SONNET, CURSOR_SONNET], [], ["claude-sonnet-4-5", CURSOR_SONNET]),
])
def test_names_alike_name_their_agents(models: list[str], pairs: list[tuple[str, str]], shown: list[str]) -> None:
    names = model_names(models, TERM, _agents(*pairs))
    assert names.names == shown
    assert len({name.lower().replace(".", "-") for name in shown}) == len(shown)
    assert all(name.startswith("sonnet-4.5 (") for name in names.tails)


def test_none_alike_asks_no_agent() -> None:
    def never() -> list[tuple[str, str]]:
        raise AssertionError("asked")

    assert model_names([SONNET, "gpt-5"], TERM, never).names == ["sonnet-4.5", "gpt-5"]


def test_a_name_cut_to_fit_keeps_its_agents_whole() -> None:
    tails = {"sonnet-4.5 (claude)": 10, "sonnet-4.5 (cursor)": 10, "opus-4.5 (claude)": 8, "opus-4.5 (cursor)": 8}
    assert fitted("sonnet-4.5 (cursor)", 15, tails) == "sonne… (cursor)"
    assert fitted("sonnet-4.5 (cursor)", 19, tails) == "sonnet-4.5 (cursor)"
    assert fitted("sonnet-4.5 (cursor)", 12, tails) == "sonnet-4.5"  # too narrow: no ``(cu…``, none apart
    rows = [Row([name, "1"]) for name in tails]
    column = told_apart(Column("MODEL", label=True), rows, tails)
    # No narrower than keeps each apart, its agents whole.
    shown = {fitted(name, column.min_width, tails) for name in tails}
    assert len(shown) == len(tails) and all(name.endswith(("(claude)", "(cursor)")) for name in shown)


@pytest.mark.parametrize("width", (80, 120))
def test_the_demo_names_sonnet_s_agents(tty, width: int) -> None:  # noqa: ANN001
    tty(width, color=False)
    keys = _keys("--demo")
    assert "sonnet-4.5 (claude)" in keys and "sonnet-4.5 (cursor)" in keys
    assert "opus-4.5" in keys and any(key.startswith("haiku-4.5") for key in keys)


def test_the_demo_never_cuts_an_agent(tty) -> None:  # noqa: ANN001
    for width in range(20, 81, 3):
        tty(width, color=False)
        out = invoke("--demo", "tokens", "--by", "model").stdout
        named = [line for line in out.splitlines() if " (c" in line.split("  ")[0]]
        assert len(named) == 2, (width, out)
        assert all(line.split("  ")[0].endswith(("(claude)", "(cursor)")) for line in named), (width, out)
