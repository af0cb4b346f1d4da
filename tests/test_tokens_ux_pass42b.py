"""``tokens``' words made true (pass 42b): a subagent's id is named in ``--json`` (``focus``)
and on stderr where its part really is; a grouped row of delegated calls alone says its runs'
count in its key, not on a line repeating it; the notes about the table's columns are a
terminal table's; a column's name is never wrapped in two; the long-table hint keeps ``--tz``."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, render, tablepatch, term, tokens_notes
from agentscan.cli.table import left_out_text
from agentscan.cli.term import Terminal
from agentscan.cli.tokens_columns import columns_of
from agentscan.cli.tokens_notes import PARTS_NOTE, REASONING_NOTE, fewer_sessions
from agentscan.cli.tokens_text import row_lines
from agentscan.model import TokenUsage
from agentscan.scan.tokenreport import TokenRow
from builders import claude_assistant, claude_usage, dated_sessions
from patch_builders import BASE, append
from spies import record_results

runner = CliRunner()
PARENT = "claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"
CODEX_PARENT = "codex:019ac2d4-7b18-7c62-8e05-4f1a9b3c6d28"
CODEX_RUN = "019ac2d6-0c9e-7f41-a2b7-8d3e5f6a7b90"


def tokens(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["--demo", "tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def one_line(text: str) -> str:
    return " ".join(text.split())  # (a note wraps to the terminal)


# --- 1. --json names the subagent asked for -------------------------------------------------


def test_json_names_the_subagent_an_id_asked_for() -> None:
    document = orjson.loads(tokens("a1b2c3d", "--json")[0])
    assert document["focus"] == [{"query": "a1b2c3d", "session": PARENT, "subagent": "a1b2c3d"}]
    assert list(document)[:3] == ["schema", "by", "focus"]
    assert [row["key"] for row in document["rows"]] == [PARENT]  # the session's rows, as before
    plain = orjson.loads(tokens("7f3c9a12", "--json")[0])
    assert "focus" not in plain and "focus" not in orjson.loads(tokens("--json")[0])
    assert {key: value for key, value in document.items() if key != "focus"} == plain


def test_json_names_each_subagent_asked_for_grouped_too() -> None:
    document = orjson.loads(tokens("a1b2c3d", "7f3c9a12", CODEX_RUN[:10], "--by", "day", "--json")[0])
    assert document["focus"] == [{"query": "a1b2c3d", "session": PARENT, "subagent": "a1b2c3d"},
                                 {"query": CODEX_RUN[:10], "session": CODEX_PARENT, "subagent": CODEX_RUN}]


# --- 2. the stderr note names what is there ------------------------------------------------


@pytest.mark.parametrize("by", ["agent", "day", "model"])
def test_grouped_the_note_sends_to_json(tty: Callable[..., None], by: str) -> None:
    """A grouped table has no line of one run: no ``↳ a1b2c3d`` line to point at."""
    tty(200, color=False)
    out, err = tokens("a1b2c3d", "--by", by)
    assert "a1b2c3d" not in out
    assert f"a1b2c3d is a subagent of {PARENT}: its session is totalled, the run's own part in --json" in one_line(err)
    assert "↳ a1b2c3d" not in err


def test_by_session_the_note_names_the_line_as_it_is_shown(tty: Callable[..., None]) -> None:
    tty(200, color=False)
    out, err = tokens(CODEX_RUN)
    assert re.search(r"^  ↳ 019ac2d6 ", out, re.M)  # the run's line shows a short id
    assert "the run's own part on its ↳ 019ac2d6 line" in one_line(err)
    assert CODEX_RUN not in err.replace(f"{CODEX_RUN} is a subagent", "")


def test_in_a_pipe_the_note_points_to_json_alone() -> None:
    out, err = tokens("a1b2c3d")
    assert "↳" not in out and "↳" not in err
    assert err.rstrip().endswith("its session is totalled, the run's own part in --json")


def test_a_session_left_out_is_not_said_to_be_totalled() -> None:
    err = tokens("a1b2c3d", "--provider", "codex")[1]
    assert f"a1b2c3d is a subagent of {PARENT}\n" in err and "totalled" not in err
    assert "--provider codex leaves it out" in err


# --- 3. a row of delegated calls alone: its count in its key ----------------------------------


def _usage(total: int) -> TokenUsage:
    return TokenUsage(input=total)


def test_a_row_of_runs_alone_has_no_line_repeating_it() -> None:
    runs = (("s:1/a", _usage(10)), ("s:2/b", _usage(20)))
    kind = TokenRow("Explore", _usage(30), None, runs, cost=Decimal("0.01"), subagents_cost=Decimal("0.01"))
    terminal = Terminal(tty=True, width=200, color=False)
    (line,) = row_lines(kind, "Explore", [], terminal, compact=False)
    # Its runs are all of it: SUBAGENTS (pass 45) is its TOTAL.
    assert line.cells == ["Explore (2 runs)", "30", "0", "0", "0", "0", "30", "30", "$0.01"]
    mixed = TokenRow("sonnet", _usage(35), _usage(5), runs, cost=Decimal("0.02"), own_cost=Decimal("0.01"),
                     subagents_cost=Decimal("0.01"))
    # One line (pass 45: no ``own`` and ``↳ 2 subagent runs`` lines), its runs' 30 in SUBAGENTS.
    assert [line.cells for line in row_lines(mixed, "sonnet", [], terminal, compact=False)] == [
        ["sonnet", "35", "0", "0", "0", "0", "35", "30", "$0.02"]]


def test_by_agent_on_a_terminal_is_a_line_a_kind(tty: Callable[..., None]) -> None:
    piped_json = tokens("--by", "agent", "--json")[0]
    tty(200, color=False)
    out = tokens("--by", "agent")[0]
    lines = out.splitlines()
    total_at = lines.index(next(line for line in lines if line.startswith("TOTAL")))
    assert not any(line.startswith("  ") for line in lines[:total_at])  # no "↳ 1 subagent run" line
    # (pass 56: the home's ``Explore`` and ``explore`` runs are one kind, two runs)
    assert re.search(r"^Explore \(2 runs\)  ", out, re.M) and re.search(r"^main  ", out, re.M)
    assert tokens("--by", "agent", "--json")[0] == piped_json  # --json as it was
    assert [row["key"] for row in orjson.loads(piped_json)["rows"]][0] == "main"


def test_a_count_is_left_out_rather_than_cut(tty: Callable[..., None]) -> None:
    tty(20, color=False)
    out = tokens("--by", "model")[0]
    assert re.search(r"^haiku-4\.5  ", out, re.M) and "(1…" not in out and "(…" not in out


# --- 4. the docs say the order the code has ---------------------------------------------------


def test_by_agent_is_documented_as_ordered_by_tokens() -> None:
    docs = (Path(__file__).parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    section = docs.split("### By kind of agent", 1)[1].split("\n### ", 1)[0]
    assert "dearest" not in section and "the most tokens first" in one_line(section)
    rows = orjson.loads(tokens("--by", "agent", "--json")[0])["rows"]
    totals = [row["tokens"]["total"] for row in rows]
    assert totals == sorted(totals, reverse=True)


# --- 5. a pipe's table gets no note about its columns ------------------------------------------


def test_a_piped_table_gets_no_reasoning_note_with_stderr_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``agentscan tokens | awk …`` at a terminal: stdout a pipe, stderr the terminal."""
    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)
    out, err = tokens()
    assert "REASONING" in out.splitlines()[0]
    assert REASONING_NOTE not in one_line(err) and PARTS_NOTE in one_line(err)
    assert PARTS_NOTE == "own and subagent lines are left out in a pipe; --json has them"


# --- 6. a column's name is never wrapped in two -----------------------------------------------


def test_the_left_out_note_keeps_each_column_name_whole(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)
    columns = columns_of("session")
    hidden = ["REASONING", "DATE", "CWD", "CACHE WRITE", "CACHE READ", "TITLE", "OUTPUT", "INPUT"]  # (as they go)
    for width in range(24, 100):
        monkeypatch.setenv("COLUMNS", str(width))
        render.note(f"{left_out_text(hidden, columns, width)}; widen the terminal or use --json", tty_only=True)
        lines = capsys.readouterr().err.splitlines()
        assert not any(line.endswith("CACHE") or line.lstrip().startswith(("WRITE", "READ")) for line in lines), lines
        assert "\u00a0" not in "".join(lines) and "CACHE WRITE" in "\n".join(lines)
    render.note(left_out_text(hidden, columns, 60), wrap=False)  # unwrapped: plain spaces
    assert capsys.readouterr().err == f"left out to fit 60 columns: {', '.join(hidden)}\n"


# --- 7. the long-table hint names the zone its date is in -------------------------------------


def _tokens_in(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_the_long_table_hint_keeps_the_zone_given(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                   tty: Callable[..., None]) -> None:
    monkeypatch.setattr(tokens_notes, "LONG_TABLE", 5)
    paths = dated_sessions(isolated_home, [1, 3, 5, 7, 9, 11, 13, 15])
    tty(200, color=False)
    zone = ("--tz", "Pacific/Kiritimati")
    hint = ("8 sessions above, newest first: --since 2026-10-10 --tz Pacific/Kiritimati shows the last week's, "
            "--by day sums each day")
    assert _tokens_in(*zone)[1].splitlines()[-1] == hint
    # The command it names keeps the newest week's four, as their DATEs say.
    kept = _tokens_in(*zone, "--since", "2026-10-10")[0].splitlines()
    assert [line.split()[1] for line in kept[1:-1]] == ["2026-10-16", "2026-10-14", "2026-10-12", "2026-10-10"]
    # A table patched from its kept text says it alike.
    native = "00000000-7777-4000-8000-000000000000"
    append(paths[0], [claude_assistant(native, "2026-10-01T11:00:00.000Z", msg_id="late", request_id="rl",
                                       usage=claude_usage(5, 1))], BASE + 9000)
    spliced = record_results(monkeypatch, tablepatch, "_print_spliced")
    assert _tokens_in(*zone)[1].splitlines()[-1] == hint and spliced == [True]


def test_the_since_hint_names_the_zone_only_when_one_was_given() -> None:
    dates = ["2026-11-29", "2026-11-22"]
    assert fewer_sessions(dates) == "--since 2026-11-23 shows the last week's, "
    assert fewer_sessions(dates, ZoneInfo("America/Sao_Paulo")) == (
        "--since 2026-11-23 --tz America/Sao_Paulo shows the last week's, ")


def test_a_name_that_itself_ends_like_a_count_keeps_it_when_counts_are_left_out() -> None:
    # The count's place was read back from the key's text: a recorded name ending in
    # "(2 runs)" lost that part on a narrow terminal, as if agentscan had added it (pass 43).
    from agentscan.cli.tokens_runs import droppable_tails_fitted, has_droppable_tail

    runs = (("s:1/a", _usage(10)), ("s:2/b", _usage(20)))
    terminal = Terminal(tty=True, width=200, color=False)
    own = TokenRow("trial (2 runs)", _usage(5), _usage(5), (), cost=Decimal("0.01"), own_cost=Decimal("0.01"))
    (named,) = row_lines(own, "trial (2 runs)", [], terminal, compact=False)
    (counted,) = row_lines(TokenRow("Explore", _usage(30), None, runs, cost=Decimal("0.01"),
                                    subagents_cost=Decimal("0.01")), "Explore", [], terminal, compact=False)
    assert not has_droppable_tail(named) and has_droppable_tail(counted)
    fitted = droppable_tails_fitted([named, counted], 5)
    assert [row.cells[0] for row in fitted] == ["trial (2 runs)", "Explore"]
