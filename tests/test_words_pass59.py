"""Pass 59, a user's session on homes built from the real samples: what the terminal said badly.

* The note under a table with a lower bound said ``TOTAL ≥N`` alone, while a grouped row's
  SUBAGENTS and the lines under a row (a run's, a ``--breakdown`` model's) carry the ``≥`` too.
* ``tokens_runs.runs_cell`` put ``≥`` wherever its caller's ``short`` said, each caller
  having to pass ``short=… and term.tty``: it decides from the terminal itself now, as
  ``tokens_rows.number_cells`` does.
* The no-price warning of a model of one's own, said on every command, named nothing a user
  could do: it says agentscan cannot be given the price, and that ``-q`` hides it.
* ``otlp``'s note on Cursor's untimed calls said "7 tool calls left out of the traces, 7 with
  no spans at all", the 7 read as tool calls: sessions are named.
* ``trace codex:ID`` said only "see hooks install", an install that refuses Codex: a hint
  names ``show``.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from builders import invoke, lay_out_progress_session, ran
from pricing_builders import claude_unknown_model_session


def test_the_lower_bound_note_names_subagents_and_the_lines_under_a_row(isolated_home: Path, tty) -> None:
    lay_out_progress_session(isolated_home)
    tty(200, color=False)
    out, err = ran("tokens", "--by", "day")
    (day,) = [line.split() for line in out.splitlines()[1:] if line[:1].isdigit()]
    assert [cell for cell in day if cell.startswith("≥")] == ["≥310,423", "≥109,659", "≥$0.35"], day
    said = " ".join(err.split())
    assert "TOTAL ≥N (or SUBAGENTS', or on a line under a row): at least N: a subagent's transcript is gone" in said


def test_a_runs_cell_marks_a_lower_bound_on_a_terminal_alone() -> None:
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_runs import runs_cell
    from agentscan.model import TokenUsage

    runs = TokenUsage(input=100, cache_read=0, cache_write=0, output=10)
    pipe, terminal = Terminal(tty=False, width=80, color=False), Terminal(tty=True, width=80, color=False)
    # A caller passing the row's ``short`` as it is: a pipe's cell stays a number for ``awk``.
    assert runs_cell(runs, True, str, pipe, short=True) == "110"
    assert runs_cell(runs, True, str, terminal, short=True) == "≥110"
    assert runs_cell(runs, True, str, terminal) == "110"
    assert runs_cell(None, True, str, terminal, short=True) == "-"


def test_a_moved_line_is_home_shortened_on_a_terminal_alone(isolated_home: Path) -> None:
    from agentscan.cli.show_lineage import moved_text

    detail = SimpleNamespace(extra={"moved_from": str(isolated_home / "src" / "app")})
    assert moved_text(detail, home_shortened=True) == "from ~/src/app"  # type: ignore[arg-type]
    assert moved_text(detail, home_shortened=False) == f"from {isolated_home}/src/app"  # type: ignore[arg-type]


def test_a_model_of_one_s_own_says_what_can_be_done_and_q_does_it(isolated_home: Path) -> None:
    claude_unknown_model_session(isolated_home)
    _, err = ran("tokens")
    said = " ".join(err.split())
    assert "nor can agentscan be given its price (-q hides warnings)" in said, said
    assert "prices --update" not in said
    quiet = invoke("-q", "tokens")
    assert quiet.exit_code == 0 and quiet.stderr == "" and "1100" in quiet.stdout


@pytest.mark.parametrize(("one_turn", "no_spans", "said"), [
    (False, True, "7 tool calls left out of the traces, 1 session with no spans at all"),
    (True, False, "7 tool calls left out of the traces, 1 session exported as one turn"),
])
def test_otlp_s_untimed_note_says_sessions_after_tool_calls(one_turn: bool, no_spans: bool, said: str) -> None:
    from agentscan.otlp.gaps import Gaps, Untimed

    gaps = Gaps()
    gaps.add("cursor", Untimed(tools=7, one_turn=one_turn, no_spans=no_spans))
    assert gaps.lines(str.title) == [f"1 Cursor session has no per-call times (the format records none): {said}"]
    gaps.add("cursor", Untimed(tools=0, one_turn=one_turn, no_spans=no_spans))
    assert gaps.lines(str.title)[0].endswith(("2 sessions with no spans at all", "2 sessions exported as one turn each"))



def test_trace_of_a_codex_id_names_show_not_only_hooks_install(isolated_home: Path) -> None:
    result = invoke("trace", "codex:019fc8be")
    assert result.exit_code == 1
    said = " ".join(result.stderr.split())
    assert "show codex:019fc8be` shows it: Codex has no hooks, agentscan reads its sessions from its files" in said, said
    claude = " ".join(invoke("trace", "claude:019fc8be").stderr.split())
    assert "Codex" not in claude and "show" not in claude  # (Claude Code has hooks: "see hooks install" is right)
