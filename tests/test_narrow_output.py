"""Narrow terminals: what survives at 60, 80 and 200 columns, and what never gets cut.

``tokens`` keeps a session's project and title at 120 columns (its date at 130), numbers
are whole (or rounded, never cut), ``doctor`` wraps its prose instead of
cutting it, hints fit the terminal, and ``--quiet`` silences stderr.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.table import render
from agentscan.cli.tableparts import Column, Row
from agentscan.cli.term import Terminal, home_short_text, width_of, wrap
from agentscan.cli.tokens_notes import PARTIAL_REASONING_NOTE, REASONING_NOTE

runner = CliRunner()
#: the demo's Claude session: 75,433 tokens; its subagent 6,313
DEMO_SESSION = "claude:7f3c9a12"
NUMBER_HEADERS = ("INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "REASONING", "TOTAL")


def run(*args: str, code: int = 0):
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output + result.stderr
    return result


def demo_tokens() -> dict:
    return {row["key"]: row for row in json.loads(run("--demo", "tokens", "--json").stdout)["rows"]}


# --- tokens ------------------------------------------------------------------


# (At 80 columns the parts of TOTAL outlast them: tests/test_tokens_pass28.py.)
@pytest.mark.parametrize("width", (120, 130, 200))
def test_tokens_keeps_project_and_title_at_120_columns_and_the_date_at_130(tty, width: int) -> None:
    """Pass 40: DATE goes before CWD (and both before any figure or the title): at 120 columns
    the project and the title stay, the date is left out and said so; at 130 it is back."""
    tty(width)
    result = run("--demo", "tokens")
    lines = result.stdout.splitlines()
    assert all(width_of(line) <= width for line in lines), lines
    header = re.split(r" {2,}", lines[0].strip())
    # TITLE last, as list's (pass 40): the numbers line up near the start.
    dated = width >= 130
    assert header[:3] == (["ID", "DATE", "CWD"] if dated else ["ID", "CWD", "INPUT"]), header
    assert header[-3:] == ["TOTAL", "COST", "TITLE"]
    row = next(line for line in lines if line.startswith(DEMO_SESSION))
    assert ("2026-11-28" in row) == dated and "weather-app" in row and "Add a 5-day" in row
    assert "75,433" in row  # whole: never cut, never rounded when it fits
    if width == 200:
        assert "Add a 5-day forecast endpoint to the API and cover it with tests" in row
        # Nothing left out: stderr says only what REASONING is (tokens_notes.REASONING_NOTE).
        # (and, since pass 51, that its TOTAL's is a lower bound: Claude's and Cursor's beside the others')
        assert "CACHE WRITE" in lines[0] and "REASONING" in lines[0]
        assert result.stderr == REASONING_NOTE + "\n" + PARTIAL_REASONING_NOTE + "\n"
    else:
        assert "…" in row  # the title, shortened
        note = result.stderr.splitlines()
        assert note and all(width_of(line) <= width for line in note), note
        said = " ".join(result.stderr.split()).split("columns: ")[1].split(";")[0].split(", ")
        assert said == (["REASONING"] if dated else ["REASONING", "DATE"]), said


def test_numbers_are_never_cut_however_narrow(tty) -> None:
    totals = {key.split("-")[0]: row["tokens"]["total"] for key, row in demo_tokens().items() if row["tokens"]}
    for width in (40, 60, 80, 100, 120):
        tty(width)
        lines = run("--demo", "tokens").stdout.splitlines()
        assert all(width_of(line) <= width for line in lines), (width, lines)
        # Each number cell ends where its header does (right-aligned; TITLE after them, pass 40).
        ends = [lines[0].index(name) + len(name) for name in (*NUMBER_HEADERS, "COST") if name in lines[0]]
        for line in lines[1:]:
            if line.startswith("(+ "):
                continue  # the line naming the sessions that recorded no usage
            cells = [line[:end].split()[-1] for end in ends]
            assert not any("…" in cell for cell in cells), (width, line)
        shown = {line.split()[0]: line for line in lines if ":" in line.split()[0]}
        for key, line in shown.items():
            if key in totals:  # exact (75,433) or rounded (75.4k), never a stump
                exact, rounded = f"{totals[key]:,}", f"{totals[key] / 1000:.1f}k"
                assert exact in line or rounded in line, (width, line)


def demo_list() -> dict:
    return {row["id"]: row for row in json.loads(run("--demo", "list", "--all", "--json").stdout)["sessions"]}


@pytest.mark.parametrize("width", (30, 40, 55, 70, 80, 100))
def test_list_leaves_columns_out_rather_than_cut_an_id_a_time_or_a_number(tty, width: int) -> None:
    rows = demo_list()
    tty(width, color=False)
    result = run("--demo", "list", "--all")
    lines = result.stdout.splitlines()
    assert all(width_of(line) <= width for line in lines), (width, lines)
    headers = lines[0].split()
    shown = [header for header in ("UPDATED", "TOKENS", "COST", "MODEL", "CWD", "TITLE") if header in headers]
    for line in lines[1:]:
        key = line.split()[0]
        assert "…" not in key
        full = next(row for row_id, row in rows.items() if row_id.startswith(key))
        cells = line.split("  ")
        if "TOKENS" in shown and full["tokens"]:
            total = full["tokens"]["total"]
            assert f"{total / 1000:.1f}k" in line or f"{total:,}" in line, (width, line)
        if "UPDATED" in shown:
            # Whole, or shortened to give the title room (``11-29 16:30``; an old one ``2026-10-14``).
            assert re.search(r"  (\d{4}-)?\d\d-\d\d( \d\d:\d\d)?  ", line), (width, line)
        assert not any(cell.strip().endswith("…") and cell.strip()[:-1].replace(".", "").isdigit() for cell in cells)
    left_out = [header for header in ("UPDATED", "COST", "MODEL", "CWD", "TITLE") if header not in shown]
    assert "TOKENS" in shown
    if left_out:  # said on stderr, in the order they went
        note = " ".join(result.stderr.split())
        assert f"left out to fit {width} columns: " in note, result.stderr
        said = note.split("columns: ")[1].split(";")[0].split(", ")
        assert said == sorted(left_out, key=["MODEL", "CWD", "COST", "TITLE", "UPDATED"].index), (left_out, note)
    else:
        assert "left out" not in result.stderr
    order = ["MODEL", "CWD", "COST", "TITLE", "UPDATED"]  # the first to go first
    assert sorted(left_out, key=order.index) == order[:len(left_out)], left_out


def test_not_recorded_does_not_widen_the_total_column(tty) -> None:
    tty(200)
    lines = run("--demo", "tokens").stdout.splitlines()
    # The demo's two Cursor sessions of a build that records no usage: named under the table
    # (pass 40), not rows of "not recorded".
    assert not any("not recorded" in line for line in lines)
    assert lines[-1].startswith("(+ 2 sessions that recorded no usage, not counted: ")
    lines = lines[:-1]
    total_header = lines[0].index("TOTAL")
    # TOTAL's cells are as wide as its widest number (371,634), not as "not recorded".
    assert lines[-1][total_header - 2:total_header + 5].strip() == "371,634"


def test_rounded_numbers_are_taken_when_they_keep_a_column() -> None:
    columns = [Column("KEY"), Column("A", right=True, drop=2), Column("TOTAL", right=True)]
    big = Row(["x", "123,456,789", "987,654,321"])
    lines, hidden = render(columns, [big], Terminal(tty=True, width=26, color=False))
    assert hidden == ["A"]  # exact numbers lose a column here …
    lines, hidden = render(columns, [Row(["x", "123.5M", "987.7M"])], Terminal(tty=True, width=26, color=False))
    assert hidden == []  # … rounded ones keep it: print_report compares both


def test_a_span_lays_one_cell_over_several_columns() -> None:
    columns = [Column("ID"), Column("IN", right=True), Column("OUT", right=True), Column("TOTAL", right=True)]
    rows = [Row(["a", "1", "2", "3"]), Row(["b", "not recorded", "", ""], span=(1, 3))]
    lines, _ = render(columns, rows, Terminal(tty=False, width=80, color=False))
    assert lines[0] == "ID  IN  OUT  TOTAL"
    # Right-aligned under the spanned columns, ending where TOTAL ends; no column was widened.
    assert lines[2] == "b     not recorded" and len(lines[1]) == len(lines[2]) == len(lines[0])


# --- doctor ------------------------------------------------------------------


def test_doctor_wraps_its_prose_and_keeps_times_whole_at_80_columns(tty, isolated_home: Path) -> None:
    tty(80)
    # A finding that names a path under the home: the Cursor state DB is looked for there.
    out = run("doctor").stdout
    lines = out.splitlines()
    # A path longer than a line is the one thing left whole (the terminal folds it): broken
    # in two, it could not be copied.
    assert all(width_of(line) <= 80 or " " not in line.strip() for line in lines), lines
    assert "…" not in "".join(line for line in lines if not line.startswith("  ") or "finding" in line)
    finding = "\n".join(line for line in lines if "finding: state DB" in line or line.startswith("      "))
    assert str(isolated_home) not in out and "~/.config/Cursor/User/globalStorage/state.vscdb" in finding
    demo = run("--demo", "doctor").stdout
    times = re.findall(r"updated\s+(\S+(?:\s+\S+)?)\)", demo)
    assert times and all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", t) for t in times), times
    assert all(width_of(line) <= 80 or " " not in line.strip() for line in demo.splitlines())
    # The demo's report suggests no install (one would change the user's own home), wrapped too.
    assert "not installed in the demo home" in demo and "agentscan hooks install c" not in demo


def test_doctor_says_a_root_s_note_whole_under_its_table(tty, isolated_home: Path) -> None:  # noqa: ANN001
    # A note in the STATUS column ("does not exist (Agent CLI store: meta.json and …") was
    # cut to fit, and the status it explained with it.
    tty(100)
    lines = run("doctor").stdout.splitlines()
    chats = next(line for line in lines if line.rstrip().endswith("~/.cursor/chats"))
    assert chats.split()[:4] == ["index", "does", "not", "exist"] and "(" not in chats
    note = next(index for index, line in enumerate(lines) if line.startswith("  note: ~/.cursor/chats, "))
    text = " ".join(line.strip() for line in lines[note:note + 2])
    assert "where the Cursor Agent CLI keeps each chat's name, model and working directory (meta.json, store.db)" in text
    assert not any("…" in line for line in lines if "does not exist" in line)


def test_doctor_in_a_pipe_is_not_wrapped(isolated_home: Path) -> None:
    out = run("doctor").stdout
    finding = next(line for line in out.splitlines() if "finding: state DB" in line)
    assert str(isolated_home) in finding and "agent transcripts only" in finding


def test_prose_wraps_without_splitting_times_paths_or_commands() -> None:
    text = ("newest claude:c2d4e6f8 (updated 2026-11-29 16:30) see `agentscan hooks install --agent claude`"
            " in /a/long/path/to/some-project")
    lines = wrap(text, 44, indent="  ")
    assert " ".join(line.strip() for line in lines) == text and all(len(line) <= 44 for line in lines)
    assert any("2026-11-29 16:30" in line for line in lines)
    assert any("`agentscan hooks install --agent claude`" in line for line in lines)
    assert any("/a/long/path/to/some-project" in line for line in lines)
    # Only a word longer than a whole line is split, and nothing of it is lost.
    lines = wrap("see /a/very/long/path/that/is/longer/than/the/line", 24)
    assert all(len(line) <= 24 for line in lines)
    assert "".join(line.strip() for line in lines) == "see /a/very/long/path/that/is/longer/than/the/line"


def test_home_inside_prose_is_a_tilde(isolated_home: Path) -> None:
    home = str(isolated_home)
    text = f"state DB: {home}/.config/x.db not found; {home}-other/y and /x{home}/z stay"
    assert home_short_text(text) == f"state DB: ~/.config/x.db not found; {home}-other/y and /x{home}/z stay"


# --- hints -------------------------------------------------------------------


@pytest.mark.parametrize("width", (80, 200))
def test_hints_fit_the_terminal(tty, width: int) -> None:
    tty(width)
    for args in (("--demo", "tokens"), ("--demo", "list", "-n", "2"), ("--demo", "tokens", "--by", "day")):
        stderr = run(*args).stderr
        assert all(width_of(line) <= width for line in stderr.splitlines()), (args, stderr)


# --- --quiet -----------------------------------------------------------------


@pytest.mark.parametrize("where", ("before", "after"))
def test_quiet_silences_hints_and_warnings_but_not_the_result(tty, isolated_home: Path, where: str) -> None:
    tty(60)
    loud = run("--demo", "list", "-n", "2")
    assert "of 11 sessions" in loud.stderr
    args = ["--quiet", "--demo", "list", "-n", "2"] if where == "before" else ["--demo", "list", "-n", "2", "-q"]
    quiet = run(*args)
    assert quiet.stderr == "" and quiet.stdout == loud.stdout
    bad = isolated_home / ".claude" / "projects" / "p" / "0a1b2c3d-0000-4000-8000-000000000000.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"type": "user", "sessionId": "0a1b2c3d-0000-4000-8000-000000000000"}\nnot json\n')
    assert "warning:" in run("list").stderr
    assert run("list", "--quiet").stderr == ""
    failed = run("list", "--quiet", "--strict", code=1).stderr  # errors still print, with the warnings they are
    assert failed.startswith("warning:") and failed.rstrip().endswith("error: 1 warning (--strict)")


def test_quiet_is_documented_as_a_global_option() -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    globals_section = docs.split("## Global options", 1)[1].split("\n## ", 1)[0]
    assert "`--quiet`, `-q`" in globals_section


def test_list_shows_a_model_without_its_snapshot_date_on_a_terminal_and_whole_in_a_pipe(tty) -> None:
    # The date took the last characters of a narrow MODEL column: the version went first.
    tty(200, color=False)
    on_terminal = run("--demo", "list").stdout
    assert " opus-4.5 " in on_terminal and "20251101" not in on_terminal and "claude-opus" not in on_terminal
    assert " sonnet-4.5 " in on_terminal and "claude-4.5-sonnet" not in on_terminal  # Cursor's spelling
    assert "gpt-5.1-codex " in on_terminal  # a name without a date is left as it is


def test_list_in_a_pipe_shows_the_model_whole() -> None:
    assert "claude-opus-4-5-20251101" in run("--demo", "list").stdout


def test_show_full_keeps_the_indentation_of_code_and_diffs() -> None:
    # The demo's Codex patch: "-    balance" and "+        balance" lost their indentation.
    text = run("--demo", "show", "019ac2d4", "--full").stdout
    assert "    -    balance = account.balance" in text
    assert "    +        balance = account.balance" in text


def test_show_full_keeps_indentation_when_it_wraps_on_a_terminal(tty) -> None:
    tty(60, color=False)
    lines = run("--demo", "show", "019ac2d4", "--full", "--no-pager").stdout.splitlines()
    assert "    +        balance = account.balance" in lines
    # the header's path is never split (on a line of its own under its label: pass 47)
    bodies = [line for at, line in enumerate(lines) if line.startswith("    ") and lines[at - 1] != "  path"]
    assert bodies and all(width_of(line) <= 60 for line in bodies)


@pytest.mark.parametrize(("model", "shown"), [
    ("claude-opus-4-5-20251101", "opus-4.5"),
    ("claude-4.5-sonnet", "sonnet-4.5"),
    ("claude-4.5-sonnet-thinking", "sonnet-4.5-thinking"),
    ("claude-4.5-opus-high-thinking", "opus-4.5-high-thinking"),
    ("claude-3-5-sonnet", "sonnet-3.5"),  # Claude 3's version first: the family first, as Claude 4's
    ("gpt-5.1-codex", "gpt-5.1-codex"),
])
def test_a_terminal_names_claude_models_by_family_then_version(model: str, shown: str) -> None:
    from agentscan.cli.render import model_text
    from agentscan.cli.term import Terminal

    assert model_text(model, Terminal(True, 120, False)) == shown
    assert model_text(model, Terminal(False, 120, False)) == model  # a pipe: whole


def test_show_at_60_columns_wraps_the_counts_and_names_a_subagent_s_model_short(tty) -> None:
    tty(60, color=False)
    lines = run("--demo", "show", "7f3c9a12").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  counts "))
    # (between its counts, never inside one: pass 55's ``12 tool calls, 1`` / ``interrupted``)
    assert width_of(lines[at]) <= 60 and lines[at + 1].strip() == "4 tool calls (+1 by subagents)", lines[at:at + 2]
    # The tokens stay whole: the model gives way first, as list names it.
    (row,) = [line for line in lines if line.startswith("  a1b2c3d ")]
    assert row.split() == ["a1b2c3d", "Explore", "haiku-4.5", "6,313", "tokens", "<$0.01"], row
    # Where it fits, whole, as the card's `model` line and `show --full` name a model (pass 49:
    # `haiku-4.5` under `model    claude-sonnet-4-5-20250929` named one screen's models two ways).
    tty(120, color=False)
    wide = run("--demo", "show", "7f3c9a12").stdout.splitlines()
    assert [line.split()[2] for line in wide if line.startswith("  a1b2c3d ")] == ["claude-haiku-4-5-20251001"]
