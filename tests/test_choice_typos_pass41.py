"""A value no choice is, said with the choice it is a typo of (``--by dya``: day), as an
unknown option or command is; an unlike value (``--by foo``) gets the list alone."""

from __future__ import annotations

import pytest

from agentscan.toolkit.words import unknown_choice
from builders import invoke


@pytest.mark.parametrize(("given", "guess"), [("dya", "day"), ("agnt", "agent"), ("Modle", "model"), ("foo", None),
                                              ("project", None)])
def test_a_typo_is_told_its_choice(given: str, guess: str | None) -> None:
    message = unknown_choice("--by", given, ["session", "day", "week", "month", "model", "provider", "cwd", "agent"])
    assert message.startswith(f"unknown --by {given!r}")
    assert message.endswith("; choose from: session, day, week, month, model, provider, cwd, agent")
    assert ("did you mean" in message) == (guess is not None)
    if guess is not None:
        assert f"(did you mean {guess}?)" in message


@pytest.mark.parametrize(("args", "said"), [
    (["export", "-f", "json", "-o", "x.json"], "unknown --format 'json' (did you mean jsonl?)"),
    (["hooks", "install", "claud", "--dry-run"], "unknown AGENT 'claud' (did you mean claude?)"),
    (["list", "-p", "gemni"], "unknown provider 'gemni' (did you mean gemini?)"),
])
def test_every_choice_says_its_typo(isolated_home, args: list[str], said: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {said}; choose from: ")


def test_options_commands_and_choices_share_one_rule() -> None:
    """Two letters swapped are a slip for an option as for a choice (``--lsit``), and a
    name that only shares letters with one is not (``cache`` is no ``trace``)."""
    from agentscan.cli.typer_app import close_options

    assert close_options("--lsit", ["--list", "--limit"]) == ["--list"]
    assert close_options("cache", ["trace", "tokens"]) == []
    assert "did you mean" not in unknown_choice("command", "cache", ["trace", "tokens"])


def test_prices_takes_a_provider_in_any_case_as_every_command_does(isolated_home) -> None:
    upper, lower = invoke("--demo", "prices", "gpt-5", "-p", "Codex"), invoke("--demo", "prices", "gpt-5", "-p", "codex")
    assert upper.exit_code == 0 and upper.stdout == lower.stdout
