"""Pass 59, a user's session on homes built from the real samples: what the terminal said badly.

* The note under a table with a lower bound said ``TOTAL ≥N`` alone, while a grouped row's
  SUBAGENTS and the lines under a row (a run's, a ``--breakdown`` model's) carry the ``≥`` too.
* ``tokens_runs.runs_cell`` put ``≥`` wherever its caller's ``short`` said, each caller
  having to pass ``short=… and term.tty``: it decides from the terminal itself now, as
  ``tokens_rows.number_cells`` does.
* The no-price warning of a model of one's own, said on every command, named nothing a user
  could do: it names the price list of one's own that prices it (``AGENTSCAN_PRICES_URL``).
* ``otlp``'s note on Cursor's untimed calls said "7 tool calls left out of the traces, 7 with
  no spans at all", the 7 read as tool calls: sessions are named.
* ``trace codex:ID`` said only "see hooks install", an install that refuses Codex: it says
  Codex has no hooks, and names ``show`` (or ``list -p codex``: test_words_review_pass59.py).
"""

from __future__ import annotations

from pathlib import Path

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
    assert "≥ in TOTAL, SUBAGENTS and COST: at least the figure: a subagent's transcript is gone" in said


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


def test_a_moved_line_is_home_shortened_on_a_terminal_alone(isolated_home: Path, tty) -> None:
    # (review of pass 59) ``show`` of a moved session, as a pipe and a terminal read it: the
    # test called ``moved_text`` with either flag, never whatever ``show`` passes it.
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    session, first = "5e7ac7ed-5858-4000-8000-00000000005f", str(isolated_home / "src" / "app")
    claude_session_file(isolated_home, session, [
        claude_user(session, "2026-11-20T10:00:00.000Z", "work here", uuid="u1", cwd=first),
        claude_assistant(session, "2026-11-20T10:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10),
                         uuid="a1", cwd=first),
        {"type": "relocated", "sessionId": session, "relocatedCwd": "/w/elsewhere"},
    ])

    def moved() -> list[str]:
        return [line.split(None, 1)[1] for line in ran("show", session)[0].splitlines() if line.split()[:1] == ["moved"]]

    assert moved() == [f"from {first}"]  # a pipe: the whole path, for a script
    tty(200, color=False)
    assert moved() == ["from ~/src/app"]  # a terminal: as its cwd line says a path under the home


def test_a_model_of_one_s_own_says_what_prices_it_and_q_quiets_it(isolated_home: Path) -> None:
    claude_unknown_model_session(isolated_home)
    _, err = ran("tokens")
    said = " ".join(err.split())
    assert "is in no public price list: a price list of your own prices it (AGENTSCAN_PRICES_URL: docs/pricing.md)" in said
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
    # (review of pass 59) ``show`` named only for an id that opens a Codex session
    # (test_words_review_pass59.py): none here, so the command that lists them.
    result = invoke("trace", "codex:019fc8be")
    assert result.exit_code == 1
    said = " ".join(result.stderr.split())
    assert "Codex CLI has no hooks: agentscan reads its sessions from its files" in said and "hooks install" not in said
    assert "`agentscan list -p codex` lists Codex CLI's sessions" in said and "show" not in said, said
    claude = " ".join(invoke("trace", "claude:019fc8be").stderr.split())
    assert "Codex" not in claude and "show" not in claude  # (Claude Code has hooks: "see hooks install" is right)
