"""A narrow ``tokens`` table leaves out the parts that are nothing in every row first (pass 49).

Cursor records input and output alone: at 60 columns its table kept CACHE READ (0 in every
row) and left INPUT and OUTPUT out; by day at 70 it kept CACHE READ and CACHE WRITE (all 0)
and left SUBAGENTS out.  A part that is ``0`` or ``-`` in every row now goes before any
column with a figure; the others in the fixed order (``tokens_columns.NUMBER_COLUMNS``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from cursor_builders import bubble, composer_data, make_state_db, state_db_path
from gemini_builders import gemini, meta, tokens, user, write_chat

runner = CliRunner()
P = "a0000000-0000-4000-8000-00000000000a"
K = "b0000000-0000-4000-8000-00000000000b"
Q = "c0000000-0000-4000-8000-00000000000c"
MS = 1_764_000_000_000  # 2025-11-24


def header(text: str) -> list[str]:
    return re.split(r" {2,}", text.splitlines()[0].strip())


def said(stderr: str) -> str:
    return " ".join(stderr.split())


def cursor_home(home: Path) -> None:
    make_state_db(state_db_path(home), composers=[
        composer_data(P, name="Refactor the cart", created=MS, updated=MS + 60_000, model="gpt-5",
                      bubbles=["p1", "p2"], sub_ids=[K]),
        composer_data(K, name="Split cart", created=MS + 10_000, updated=MS + 50_000, model="gpt-5", bubbles=["k1"]),
        composer_data(Q, name="Navbar flicker", created=MS + 86_400_000, updated=MS + 86_460_000, model="gpt-5",
                      bubbles=["q1", "q2"]),
    ], bubbles={
        P: [bubble("p1", 1, "Refactor the cart", created="2025-11-24T16:00:00.000Z"),
            bubble("p2", 2, "Delegating.", tokens=(46_000, 2_400), created="2025-11-24T16:01:00.000Z", model="gpt-5")],
        K: [bubble("k1", 2, "Split.", tokens=(5_500, 230), created="2025-11-24T16:00:50.000Z", model="gpt-5")],
        Q: [bubble("q1", 1, "Fix the navbar", created="2025-11-25T16:00:00.000Z"),
            bubble("q2", 2, "Fixed.", tokens=(10_000, 750), created="2025-11-25T16:01:00.000Z", model="gpt-5")],
    })


def test_a_cursor_table_at_60_columns_keeps_input_before_an_empty_cache_read(isolated_home: Path, tty) -> None:  # noqa: ANN001
    cursor_home(isolated_home)
    tty(60, color=False)
    result = runner.invoke(app, ["tokens", "-p", "cursor"])
    assert result.exit_code == 0, result.output
    shown = header(result.stdout)
    assert "INPUT" in shown and "CACHE READ" not in shown and "CACHE WRITE" not in shown, shown
    # The empty ones said first, in their fixed order; TOTAL is not said to count them.
    assert said(result.stderr).startswith("left out to fit 60 columns: REASONING, CACHE WRITE, CACHE READ, DATE,"), result.stderr
    assert "TOTAL still counts CACHE" not in said(result.stderr)


def test_a_cursor_table_by_day_at_70_columns_keeps_its_subagents(isolated_home: Path, tty) -> None:  # noqa: ANN001
    cursor_home(isolated_home)
    tty(70, color=False)
    result = runner.invoke(app, ["tokens", "-p", "cursor", "--by", "day"])
    assert result.exit_code == 0, result.output
    shown = header(result.stdout)
    assert "SUBAGENTS" in shown and "CACHE WRITE" not in shown and {"INPUT", "OUTPUT"} <= set(shown), shown


def test_a_part_with_figures_still_goes_in_the_fixed_order(isolated_home: Path, tty) -> None:  # noqa: ANN001
    """Gemini records no cache write (0 in every row: first); REASONING, which has a figure,
    then goes in its fixed place, first of the rest, before DATE and CWD."""
    write_chat(isolated_home, "api", "session-2026-05-01T10-00-11111111.jsonl", [
        meta("11111111-2222-4333-8444-555555555555"), user("u1", "2026-05-01T10:00:00.000Z", "hi"),
        gemini("g1", "2026-05-01T10:00:01.000Z", "yo", usage=tokens(10_000, 500, cached=4_000, thoughts=300))])
    tty(60, color=False)
    result = runner.invoke(app, ["tokens", "-p", "gemini"])
    assert result.exit_code == 0, result.output
    assert said(result.stderr).startswith("left out to fit 60 columns: CACHE WRITE, REASONING, DATE, CWD,"), result.stderr


def _gemini_chat(home: Path, replies: int, *, cached: int = 0) -> None:
    records = [meta("11111111-2222-4333-8444-555555555555"), user("u1", "2026-05-01T10:00:00.000Z", "hi")]
    records += [gemini(f"g{n}", f"2026-05-01T10:00:{n + 1:02d}.000Z", "yo",
                       usage=tokens(10_000, 500, cached=cached if n == replies - 1 else 0)) for n in range(replies)]
    write_chat(home, "api", "session-2026-05-01T10-00-11111111.jsonl", records)
    write_chat(home, "web", "session-2026-05-02T10-00-22222222.jsonl", [
        meta("22222222-2222-4333-8444-555555555555"), user("u1", "2026-05-02T10:00:00.000Z", "hello"),
        gemini("g1", "2026-05-02T10:00:01.000Z", "hey", usage=tokens(20_000, 900))])


@pytest.mark.parametrize("cached", [0, 4_000])
def test_a_patched_table_leaves_out_what_a_whole_one_does(isolated_home: Path, tty: Callable[..., None],
                                                          table_ways: list[str], table_splices: list[bool],
                                                          cached: int) -> None:
    """A kept table patched (``cli.tablepatch``) tells the empty parts by its TOTAL as a whole
    table does: the same text, byte for byte; a part that gains a figure comes back (at 70
    columns: at 60 CACHE READ goes, figures or not, before INPUT and OUTPUT, pass 57)."""
    tty(70, color=False)
    _gemini_chat(isolated_home, 1)
    runner.invoke(app, ["tokens"])
    _gemini_chat(isolated_home, 2, cached=cached)
    patched = runner.invoke(app, ["tokens"])
    assert table_ways[-1] == "patched"
    fresh = runner.invoke(app, ["--no-cache", "tokens"])
    assert (patched.stdout, patched.stderr) == (fresh.stdout, fresh.stderr)
    assert ("CACHE READ" in header(patched.stdout)) is bool(cached)
    assert table_splices == [not cached]  # the same layout: printed from the kept text


@pytest.mark.parametrize("width", range(96, 126, 3))
def test_no_number_is_rounded_to_keep_a_column_of_nothing(isolated_home: Path, tty, width: int) -> None:  # noqa: ANN001
    # (scale-10 QA of pass 49: at widths where the empty columns and the exact numbers did not
    # both fit, the table rounded every number to keep CACHE READ and CACHE WRITE, all 0.)
    cursor_home(isolated_home)
    tty(width, color=False)
    result = runner.invoke(app, ["tokens", "-p", "cursor"])
    assert result.exit_code == 0, result.output
    assert "rounded" not in result.stderr and "48,400" in result.stdout, (result.stdout, result.stderr)
