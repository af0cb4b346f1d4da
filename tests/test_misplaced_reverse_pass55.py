"""A ccusage report's ``--reverse`` (a review of pass 55): ``tokens`` takes it, yet ``daily
--order desc --reverse`` was answered ``Try: agentscan tokens --by day --reverse; left out:
--reverse``.  It is carried, once."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


@pytest.mark.parametrize(("typed", "line"), [
    (["daily", "--order", "desc", "--reverse"], "tokens --by day --reverse"),
    (["daily", "--reverse", "-o", "desc"], "tokens --by day --reverse"),
    (["weekly", "--reverse", "--json", "--reverse"], "tokens --by week --reverse --json"),
    (["session", "--reverse"], "tokens --sort cost --reverse"),
])
def test_a_report_s_reverse_is_carried_once(typed: list[str], line: str) -> None:
    result = runner.invoke(app, typed)
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first == f"error: No such command '{typed[0]}'. Try: agentscan {line}"
