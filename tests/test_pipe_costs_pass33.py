"""A table in a pipe writes costs without thousands separators, as its token counts."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Callable

from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.render import human_usd
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

S1 = "b1b1b1b1-1111-4222-8333-444444444444"


def _dear_session(home: Path) -> None:
    # 100 M output tokens of Sonnet 4.5 ($15 per million): $1,500.
    claude_session_file(home, S1, [
        claude_user(S1, "2026-11-01T10:00:00Z", "a long one"),
        claude_assistant(S1, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 100_000_000)),
    ])


def test_costs_in_a_pipe_have_no_separators(isolated_home: Path) -> None:
    _dear_session(isolated_home)
    runner = CliRunner()
    listed = runner.invoke(app, ["list"]).stdout.splitlines()[1].split()
    assert "100000001" in listed and "$1500.00" in listed
    table = runner.invoke(app, ["tokens"]).stdout.splitlines()
    # TOTAL and COST come before the title (last, as list has it)
    assert table[1].split()[-5:-3] == ["100000001", "$1500.00"] and table[-1].split()[-1] == "$1500.00"


def test_costs_on_a_terminal_keep_them(isolated_home: Path, tty: Callable[..., None]) -> None:
    _dear_session(isolated_home)
    tty(200)
    assert "$1,500.00" in CliRunner().invoke(app, ["tokens"]).stdout
    assert human_usd(Decimal("1234.5")) == "$1,234.50" and human_usd(Decimal("1234.5"), grouped=False) == "$1234.50"
    assert human_usd(None, Decimal("1234.5"), grouped=False) == "≥$1234.50"
