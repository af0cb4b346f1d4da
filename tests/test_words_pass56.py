"""Pass 56, a demanding user's words and a newcomer's terminal.

* ``tokens --by agent`` listed Claude Code's ``Explore`` and Cursor's ``explore`` as two
  rows: one kind spelt in two cases is one row, named by the spelling first in code-point
  order (review: not the most runs' spelling, a tie the oldest session's: a ``touch`` flipped
  it; tests/test_words_review_pass56.py).
* A mixed row's REASONING of 0 (Claude's calls beside Codex's that recorded none) was ``-``
  on a terminal and ``0`` in a pipe: ``-`` in both ("not recorded", the contract's word).
* ``list --reverse``, as ``git log --reverse``: the same sessions, oldest first.
* A warm ``list --grep X --json`` is the ``--no-cache`` one byte for byte, warnings included.
* Progress: the sums' caching after "adding up tokens" and the rows' pricing after
  "pricing sessions" are counted (they stood still, with no count, at scale 10).
* A newcomer's slips: ``export --json`` (gh's word) says what ``--json`` is there; an id one
  character off is offered the one meant; ``log`` and ``status`` are offered ``list`` and
  ``doctor``; a bare ``trace`` with nothing captured says so at once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.model import TokenUsage
from agentscan.progress import BUNDLING, CACHING, PRICING, Progress
from builders import claude_sessions, cli_json, forget_remembered_answers, invoke


# --- one kind, one row -------------------------------------------------------------------------------


def test_explore_spelt_two_ways_is_one_row() -> None:
    """The demo: Claude Code's ``Explore`` run (2026-11-28) and Cursor's ``explore`` (11-29)."""
    rows = {row["key"]: row for row in cli_json("--demo", "tokens", "--by", "agent")["rows"]}
    assert "explore" not in rows
    assert len(rows["Explore"]["subagents"]) == 2
    assert rows["Explore"]["tokens"]["total"] == 6313 + 2450
    text = invoke("--demo", "tokens", "--by", "agent").stdout
    assert [line.split()[0] for line in text.splitlines()].count("Explore") == 1, text


def test_the_spelling_first_in_code_point_order_names_the_row_whatever_the_runs() -> None:
    from agentscan.scan.tokenagents import spellings

    # ``explore`` twice, ``Explore`` once: ``Explore`` still, as by any other count.
    found = {"claude:old": {"a": "explore"}, "claude:new": {"b": "explore", "c": "Explore", "d": "Plan"}}
    assert spellings(found) == {"claude:old": {"a": "Explore"},
                                "claude:new": {"b": "Explore", "c": "Explore", "d": "Plan"}}


def test_a_kind_named_main_in_another_case_is_no_main_row() -> None:
    from agentscan.scan.tokenagents import row_of

    assert row_of({"s": {"r": "Main"}}, "s", "r") == '"Main"'
    assert row_of({"s": {"r": "Explore"}}, "s", "r") == "Explore"


# --- REASONING: one rule for a terminal and a pipe ----------------------------------------------------


@pytest.mark.parametrize("reasoning, on_a_terminal, in_a_pipe", [(0, "-", "-"), (1234, "≥1,234", "1234")])
def test_a_mixed_rows_reasoning_reads_the_same_on_a_terminal_and_in_a_pipe(reasoning: int, on_a_terminal: str,
                                                                          in_a_pipe: str) -> None:
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_columns import REASONING_AT
    from agentscan.cli.tokens_rows import number_cells

    usage = TokenUsage(input=10, output=5000, reasoning=reasoning)
    shown = [number_cells(usage, None, Terminal(tty, 200, False), compact=False, partial=True)[REASONING_AT]
             for tty in (True, False)]
    assert shown == [on_a_terminal, in_a_pipe]


# --- list --reverse -----------------------------------------------------------------------------------


def _ids(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines()[1:]]


def test_list_reverse_is_the_same_sessions_oldest_first() -> None:
    newest = _ids(invoke("--demo", "list", "-n", "3").stdout)
    assert _ids(invoke("--demo", "list", "-n", "3", "--reverse").stdout) == newest[::-1]
    every = _ids(invoke("--demo", "list", "--all").stdout)
    assert _ids(invoke("--demo", "list", "--all", "--reverse").stdout) == every[::-1]
    listed = [session["id"] for session in cli_json("--demo", "list", "-n", "3")["sessions"]]
    document = cli_json("--demo", "list", "-n", "3", "--reverse")
    assert [session["id"] for session in document["sessions"]] == listed[::-1] and document["more"] is True


def test_a_reversed_list_is_remembered_apart(isolated_home: Path) -> None:
    claude_sessions(isolated_home, 4)
    plain = invoke("list").stdout
    reversed_ = invoke("list", "--reverse").stdout
    assert _ids(reversed_) == _ids(plain)[::-1]
    assert invoke("list").stdout == plain and invoke("list", "--reverse").stdout == reversed_  # (printed again)


def test_a_cut_reversed_list_says_which_sessions_it_shows(tty) -> None:  # noqa: ANN001
    tty(150, color=False)
    said = invoke("--demo", "list", "-n", "3", "--reverse").stderr
    assert "3 of 11 sessions (the newest, oldest first); --limit N or --all for more" in said, said


# --- warm list --grep --json, byte for byte --------------------------------------------------------------


def _damaged_home(home: Path) -> None:
    """Six sessions, every other one with a line that is no JSON in its middle or at its end."""
    claude_sessions(home, 6)
    for number, path in enumerate(sorted((home / ".claude" / "projects").rglob("*.jsonl"))):
        if number % 2:
            lines = path.read_bytes().splitlines(keepends=True)
            at = len(lines) // 2 if number % 4 == 1 else len(lines)
            path.write_bytes(b"".join([*lines[:at], b"{not json\n", *lines[at:]]))


@pytest.mark.parametrize("word", ["task", "task 3", "sonnet", "nowhere"])
def test_a_warm_grep_is_the_cold_one_byte_for_byte(isolated_home: Path, word: str) -> None:
    _damaged_home(isolated_home)
    cold = invoke("--no-cache", "list", "--grep", word, "--json")
    invoke("tokens")  # (the index holds every session's sums and rows)
    invoke("list", "--all")
    made = invoke("list", "--grep", word, "--json")
    again = invoke("list", "--grep", word, "--json")  # printed again
    forget_remembered_answers()
    remade = invoke("list", "--grep", word, "--json")  # made again from the index
    assert cold.exit_code == made.exit_code == 0
    assert made.stdout == again.stdout == remade.stdout == cold.stdout
    assert b'"warnings": [' in cold.stdout_bytes or word == "nowhere"


# --- progress: no uncounted stand ------------------------------------------------------------------------


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """(phase, done, total) after each ``advance`` of the run's progress."""
    seen: list[tuple[str, int, int]] = []
    real = Progress.advance

    def advance(self: Progress, count: int = 1) -> None:
        real(self, count)
        seen.append((self.phase, self.done, self.total))
    monkeypatch.setattr(Progress, "advance", advance)
    return seen


def test_the_sums_caching_after_adding_up_is_counted(isolated_home: Path,
                                                    counted: list[tuple[str, int, int]]) -> None:
    claude_sessions(isolated_home, 6)
    assert invoke("tokens").exit_code == 0
    caching = [(done, total) for phase, done, total in counted if phase == CACHING]
    assert caching[-1] == (6, 6)  # the parse's sums, written
    # Then each provider's snapshot: a phase of its own (review: counted on as "caching
    # sessions", its total doubled; tests/test_words_review_pass56.py).
    assert (BUNDLING, 6, 6) in counted
    assert [done for done, _ in caching] == sorted(done for done, _ in caching), caching


def test_list_all_counts_the_rows_it_prices(isolated_home: Path, counted: list[tuple[str, int, int]],
                                            monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    from agentscan.cli import progress as cli_progress
    from agentscan.progress import PRICING_ROWS

    claude_sessions(isolated_home, 6)
    monkeypatch.setattr(cli_progress, "DELAY_S", 0.0)
    monkeypatch.setattr(cli_progress, "REDRAW_S", 0.0)
    tty(100)
    result = invoke("list", "--all")
    assert result.exit_code == 0
    phases = [phase for phase, _, _ in counted]
    assert (PRICING_ROWS, 6, 6) in counted
    assert phases.index(PRICING) < phases.index(PRICING_ROWS)
    assert "pricing the rows 6/6" in result.stderr


# --- export --json, as gh takes --json -------------------------------------------------------------------


def test_export_json_alone_says_what_json_is_and_how_to_have_the_sessions() -> None:
    result = invoke("--demo", "export", "--json")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "error: --json and the export would both write to stdout (no --output); give --output PATH; "
        "for the sessions as JSON on stdout: -f jsonl, without --json")


# --- an id with one slip ---------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["7f3c9a13", "f73c9a12", "claude:7f3c9a13"])
def test_an_id_with_one_character_wrong_is_offered_the_one_it_is_near(typed: str) -> None:
    result = invoke("--demo", "show", typed)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: no session matches {typed!r}",
                                          "hint: did you mean 'claude:7f3c9a12'?"]


def test_an_id_near_none_keeps_the_list_hint() -> None:
    said = invoke("--demo", "show", "0000000").stderr
    assert "did you mean" not in said and "list --grep TEXT" in said


@pytest.mark.parametrize("typed, ours", [("log", "list"), ("status", "doctor")])
def test_git_and_gh_words_for_a_command_are_offered_ours(typed: str, ours: str) -> None:
    result = invoke(typed)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"error: No such command '{typed}'. Did you mean '{ours}'?"


def test_a_bare_trace_with_nothing_captured_says_so_at_once() -> None:
    result = invoke("trace")
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: give a session ID: no hook events are captured yet in ") and "hooks install" in first
    demo = invoke("--demo", "trace").stderr.splitlines()[0]
    assert demo == "error: give a session ID (`agentscan --demo trace --list` shows the captured ones)"
