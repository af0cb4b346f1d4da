"""Labels that read as one: a dated week's runs' count in its one parenthesis, and a side
question's run of one kind on ``show``'s card and in ``tokens --by agent``."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Callable

from agentscan.cli.term import Terminal
from agentscan.cli.tokens_runs import without_droppable_tail
from agentscan.cli.tokens_text import row_lines
from agentscan.model import TokenUsage
from agentscan.scan.tokenreport import TokenRow
from builders import (cells, claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user,
                      cli_json, ran)

SESSION = "c3000000-0000-4000-8000-000000000001"


def _delegated_only(home: Path, run: str) -> None:
    """A session whose calls are all one run's, in ISO week 2026-W15 (Monday April 6)."""
    claude_session_file(home, SESSION, [claude_user(SESSION, "2026-04-08T09:00:00.000Z", "look around")])
    claude_subagent_file(home, SESSION, run, [claude_assistant(
        SESSION, "2026-04-08T09:01:00.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10), sidechain=True)])


def test_a_dated_week_of_runs_alone_says_its_count_in_its_one_parenthesis(isolated_home: Path,
                                                                          tty: Callable[..., None]) -> None:
    tty(150)
    _delegated_only(isolated_home, "a1b2c3d4e5f60718")
    out, _ = ran("tokens", "--by", "week", "--tz", "UTC")
    (row,) = [cells(line) for line in out.splitlines() if line.startswith("2026-W15")]
    assert row[0] == "2026-W15 (Apr 6, 1 run)"
    # Where a table needs the room, the whole parenthesis goes, not half of it.
    week = TokenRow("2026-W15", TokenUsage(input=30), None, (("s/a", TokenUsage(input=30)),), cost=Decimal("0.01"),
                    subagents_cost=Decimal("0.01"))
    (line,) = row_lines(week, "2026-W15 (Apr 6)", [], Terminal(tty=True, width=200, color=False), compact=False)
    assert line.cells[0] == "2026-W15 (Apr 6, 1 run)"
    assert without_droppable_tail(line).cells[0] == "2026-W15"


def test_a_side_question_s_run_is_of_one_kind_everywhere(isolated_home: Path) -> None:
    _delegated_only(isolated_home, "aside_question")
    (sub,) = cli_json("show", SESSION)["session"]["subagents"]
    assert sub["agent_type"] == "side-question"
    card, _ = ran("show", SESSION)
    assert "aside_question  side-question" in card
    keys = [row["key"] for row in cli_json("tokens", "--by", "agent")["rows"]]
    assert "side-question" in keys and "unknown" not in keys
