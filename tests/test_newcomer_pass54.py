"""What a newcomer following README.md and docs/ met (pass 54).

``tokens --by day --since 2026-11-28 | cat`` on the demo (docs/ccusage.md's ``--breakdown``
example): every row's REASONING was ``-`` (Claude Code and Cursor record none apart) and
TOTAL's ``0``, which reads as "no thinking": TOTAL was told by every session the selection
covered, Codex's and Gemini's outside the window too, where a terminal showed ``-``.
"""

from __future__ import annotations

import pytest

from builders import invoke


def reasoning_cell(line: str) -> str:
    """The REASONING cell of a piped table's TOTAL line (the fifth figure)."""
    return line.split()[5]


@pytest.mark.parametrize("by", ["day", "session", "model", "cwd"])
def test_a_window_of_claude_and_cursor_calls_totals_no_reasoning_0_in_a_pipe(by: str) -> None:
    table = invoke("--demo", "tokens", "--by", by, "--since", "2026-11-28").stdout.splitlines()
    assert table[-1].startswith("TOTAL") and reasoning_cell(table[-1]) == "-", table


def test_a_window_with_codex_or_gemini_calls_keeps_their_figure() -> None:
    table = invoke("--demo", "tokens", "--by", "day", "--since", "2026-11-27").stdout.splitlines()
    assert reasoning_cell(table[-1]) == "3306"
    whole = invoke("--demo", "tokens", "--by", "day").stdout.splitlines()
    assert reasoning_cell(whole[-1]) == "6157"


def test_the_json_keeps_the_number() -> None:
    import orjson

    document = orjson.loads(invoke("--demo", "tokens", "--by", "day", "--since", "2026-11-28", "--json").stdout)
    assert document["total"]["reasoning"] == 0


# --- `--until now`, another tool's word for the open end ----------------------------------------
# It was answered with the list of forms a time takes, none of which means "now": the reader
# was left to guess that the end is left out.


@pytest.mark.parametrize("command", ["tokens", "list", "export"])
def test_until_now_is_told_to_leave_until_out(command: str) -> None:
    extra = ["-f", "csv"] if command == "export" else []
    result = invoke("--demo", command, *extra, "--until", "Now")
    assert result.exit_code == 2
    assert "error: cannot read the time 'Now': leave --until out, and the window runs up to now" in result.stderr


def test_since_now_names_a_window_that_holds_calls() -> None:
    result = invoke("--demo", "tokens", "--since", "now")
    assert result.exit_code == 2 and "give a duration (--since 1h) or a day (--since today)" in result.stderr


def test_the_library_says_it_in_its_own_words() -> None:
    from agentscan import Scanner, demo_home, token_report
    from agentscan.errors import UsageProblem

    with Scanner(home=demo_home(), env={}) as scanner, pytest.raises(UsageProblem, match="leave until out"):
        token_report(scanner, until="now")
