"""Pass 59, a review of the terminal's words (0a25e4c): what they said that did not hold.

* The no-price warning of a model of one's own said agentscan could not be given its price and
  that ``-q`` hides it: a price list of one's own prices it (``AGENTSCAN_PRICES_URL``), and
  ``--strict`` says it under ``-q`` too.
* A table cut by ``-n`` whose lower-bound session was in the summed ``+N more`` line lost TOTAL's
  ``≥`` and its note: the summed row kept no ``recovered``.
* That note was fixed text, ``TOTAL ≥N (or SUBAGENTS', or on a line under a row)``: it named a
  SUBAGENTS a table by session has not (nor one left out at 60 columns), lines under a row
  ``--by model`` has not, and not COST's ``≥$``.  It names what the table drew.
* ``trace codex:ID`` still said "no hook events have been captured yet; see hooks install" (an
  install that refuses Codex), and its ``show`` hint was said of ids that open no session, of a
  bare ``codex:``, and beside another agent's captured session already offered.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builders import cells, claude_one_call, invoke, lay_out_progress_session, ran


def _recovered_and_two_newer(home: Path) -> None:
    lay_out_progress_session(home)  # 2026-02-10, a subagent's calls recovered from progress records
    for number in (1, 2):
        claude_one_call(home, f"{number:08x}-3333-4000-8000-000000000000")  # 2026-11-07


def test_a_cut_table_keeps_total_s_lower_bound_when_the_summed_line_holds_it(isolated_home: Path, tty) -> None:
    _recovered_and_two_newer(isolated_home)
    tty(200, color=False)
    whole, whole_err = ran("tokens")
    out, err = ran("tokens", "-n", "1")
    [total] = [cells(line) for line in out.splitlines() if line.startswith("TOTAL")]
    [whole_total] = [cells(line) for line in whole.splitlines() if line.startswith("TOTAL")]
    assert total == whole_total and any(cell.startswith("≥") for cell in total), (out, whole)
    [summed] = [cells(line) for line in out.splitlines() if line.startswith("+2 more")]
    assert any(cell.startswith("≥") for cell in summed), out  # the sum of a lower bound is one
    assert "at least" in " ".join(err.split()), err


@pytest.mark.parametrize(("width", "args", "said"), [
    (200, (), "≥ in TOTAL and COST (and on a line under a row): at least the figure: a subagent's"),
    (60, (), "≥ in TOTAL and COST (and on a line under a row): at least the figure: a subagent's"),
    (200, ("--by", "model"), "≥ in TOTAL, SUBAGENTS and COST: at least the figure: a subagent's"),
    (60, ("--by", "day"), "≥ in TOTAL and COST: at least the figure: a subagent's"),  # (SUBAGENTS left out to fit)
    (200, ("--by", "day", "--breakdown"), "≥ in TOTAL, SUBAGENTS and COST (and on a line under a row): at least"),
    (200, ("-n", "1"), "≥ in TOTAL and COST: at least the figure: a subagent's"),  # (its run summed: no line under it)
])
def test_the_lower_bound_note_names_where_the_table_drew_it(isolated_home: Path, tty, width: int,
                                                            args: tuple[str, ...], said: str) -> None:
    _recovered_and_two_newer(isolated_home)
    tty(width, color=False)
    out, err = ran("tokens", *args)
    told = " ".join(err.split())
    assert said in told and told.count("≥ in") == 1, (out, err)
    if "SUBAGENTS" not in said:
        assert not [line for line in out.splitlines() if "SUBAGENTS" in line.split()], out
    if "under a row" not in said:
        assert not [line for line in out.splitlines() if line.startswith("  ") and "≥" in line], out
    assert "REASONING ≥N" not in told  # (its own note, when REASONING is a lower bound)



# --- trace codex:ID: Codex has no hooks -------------------------------------------------------

CODEX_ID = "019fc8be-3658-7ca3-9e29-000000000000"  # (fixtures/real/codex: the 0.130 sample's)
NO_HOOKS = "Codex CLI has no hooks: agentscan reads its sessions from its files"
LISTS = "hint: `agentscan list -p codex` lists"


def _captured(kind: str) -> None:
    """One session in the hook events store: none (``empty``), a Claude one, or a Cursor one whose id is Codex's."""
    from hooks_builders import Replay

    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    if kind == "claude":
        Replay(data_dir, agent="claude").send({"hook_event_name": "UserPromptSubmit", "session_id": "c1a0de00-0000-4000-8000-0000000000aa",
                                               "prompt": "hi", "transcript_path": "/nowhere/x.jsonl", "cwd": "/w"})
    elif kind == "cursor":
        Replay(data_dir, agent="cursor").send({"hook_event_name": "beforeSubmitPrompt", "conversation_id": CODEX_ID,
                                               "generation_id": "g-1", "prompt": "hi"})


@pytest.mark.parametrize("store", ["empty", "claude"])
@pytest.mark.parametrize(("query", "said", "hinted"), [
    (f"codex:{CODEX_ID[:8]}", f"no hook events for 'codex:{CODEX_ID[:8]}'; {NO_HOOKS}",
     f"hint: `agentscan show codex:{CODEX_ID[:8]}` shows it"),
    ("codex:deadbeef", f"no hook events for 'codex:deadbeef'; {NO_HOOKS}", f"{LISTS} Codex CLI's sessions"),
    ("codex:019e", f"no hook events for 'codex:019e'; {NO_HOOKS}", f"{LISTS} Codex CLI's sessions"),  # (too short for show)
    ("codex:", "'codex:' is a provider, not a session id", f"{LISTS} its sessions"),
    ("codex", "'codex' is a provider, not a session id", f"{LISTS} its sessions"),
])
def test_trace_of_a_codex_id_says_codex_has_no_hooks_and_what_reads_it(isolated_home: Path, store: str, query: str,
                                                                       said: str, hinted: str) -> None:
    from codex_builders import lay_out_real_codex

    lay_out_real_codex(isolated_home)
    _captured(store)
    result = invoke("trace", query)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: {said}", hinted], result.stderr  # (no "hooks install", no trace --list)


def test_trace_of_a_codex_id_captured_under_another_agent_offers_that_alone(isolated_home: Path) -> None:
    from codex_builders import lay_out_real_codex

    lay_out_real_codex(isolated_home)
    _captured("cursor")
    result = invoke("trace", f"codex:{CODEX_ID}")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: no hook events for 'codex:{CODEX_ID}'; {NO_HOOKS}",
        f"hint: `agentscan trace cursor:{CODEX_ID}` shows the session captured under cursor"], result.stderr
