"""A narrow terminal, as a demanding user's (gh, git, ccusage) sees it (pass 49).

``prices`` at 40 columns was 41 wide (every row folded in two) while its PRICED AS kept
``anthropic/``; ``show``'s subagent rows overflowed at 40; the copy-paste hints named the
session by its 36-character id; ``trace`` cut its figures (``50.0 …``) and not its text;
``prices`` in an empty home said nothing in a pipe; ``tokens --by day`` named no zone
while ``list`` says ``UPDATED (CET)``; a subagent's model was ``haiku-4.5`` under a card
that names models whole; and every ``--help`` was 50 columns wide at 40.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from agentscan.cli.term import width_of

#: a figure, a time or an id cut: a "…" right after a digit, "$" or ":"
CUT_FIGURE = re.compile(r"[\d$:,.]…")
DEMO_ID = "claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"


def run(*args: str) -> tuple[str, str]:
    result = invoke(*args)
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout, result.stderr


def too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if width_of(line) > width]


# --- 1. prices -------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [*range(30, 62), 70, 80, 90, 100, 120, 150, 200, 250])
def test_demo_prices_is_never_wider_than_the_terminal(tty: Callable[..., None], width: int) -> None:
    tty(width)
    out, err = run("--demo", "prices")
    assert too_wide(out, width) == [] and too_wide(err, width) == []
    assert not re.search(r"\$[\d.,]*…", out)  # (a name may be cut: ``claude-haiku-4-5-2025…``)


def _priced_as(out: str) -> list[str]:
    """The PRICED AS cells of the model rows (not a tier's)."""
    lines = out.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("MODEL"))
    at = lines[start].index("PRICED AS")
    return [line[at:].split("  ")[0] for line in lines[start + 1:] if not line.startswith(" ")]


def test_at_40_columns_priced_as_is_cut_from_its_start(tty: Callable[..., None]) -> None:
    """The vendor goes first (``…/claude-haiku-4-5``, ``…e-haiku-4-5``): ``anthropic/claude-h…``
    named no model, beside a MODEL cut to ``claude-haiku…``."""
    tty(40)
    cells = _priced_as(run("--demo", "prices")[0])
    assert cells and not any(cell.startswith("anthropic/") and cell.endswith("…") for cell in cells), cells
    assert any(cell.startswith("…") and cell.endswith("haiku-4-5") for cell in cells), cells


def test_at_30_columns_priced_as_is_left_out_and_said_so(tty: Callable[..., None]) -> None:
    tty(30)
    out, err = run("--demo", "prices")
    header = next(line for line in out.splitlines() if line.startswith("MODEL"))
    assert header.split() == ["MODEL", "INPUT"]
    # the tiers under MODEL again, whole
    assert any(line.split()[:3] == ["above", "200k", "$6.00"] for line in out.splitlines())
    said = " ".join(err.split())
    # (its own note since pass 50, worded as every table's)
    assert said.endswith("OUTPUT, PRICED AS; widen the terminal or use --json"), said


def test_the_price_data_line_wraps_on_a_terminal(tty: Callable[..., None]) -> None:
    tty(30)
    lines = run("--demo", "prices")[0].splitlines()
    assert lines[0] == "price data: genai-prices" or lines[0].startswith("price data: ")
    assert width_of(lines[0]) <= 30 and lines[1].startswith("  ")


# --- 5. prices in a home with no sessions ----------------------------------------------------------


def test_prices_in_an_empty_home_says_so_and_how_to_ask_even_in_a_pipe(tty: Callable[..., None]) -> None:
    tty(100, stderr=False)  # (stderr piped: ``2>&1 | less``)
    out, err = run("prices")
    assert out.startswith("price data: ")
    said = " ".join(err.split())
    assert said.startswith("no sessions found in this home"), said
    assert "`agentscan prices MODEL`" in said and "`agentscan --demo prices`" in said
    assert run("prices", "-p", "codex")[1].startswith("no Codex CLI sessions found in this home\n")
    assert run("--quiet", "prices")[1] == ""


# --- 2 and 7. show's subagent rows ---------------------------------------------------------------


def _subagent_lines(width: int, model: str | None = "claude-haiku-4-5-20251001") -> list[str]:
    from agentscan.cli.show_subagents import subagent_lines
    from agentscan.cli.term import Terminal
    from decimal import Decimal

    detail = SimpleNamespace(subagents=[SimpleNamespace(
        id="a1b2c3d", agent_type="Explore", model=model, recovered_from=None, cost=Decimal("0.004"),
        cost_priced=Decimal("0.004"), tokens=SimpleNamespace(total=6313))], extra={})
    return subagent_lines(detail, Terminal(tty=True, width=width, color=False), {})  # type: ignore[arg-type]


def test_a_subagent_row_names_its_model_whole_where_it_fits() -> None:
    """As the card's ``model`` line and ``--full``'s ``response (claude-haiku-4-5-20251001)``."""
    assert _subagent_lines(120)[1].split()[:3] == ["a1b2c3d", "Explore", "claude-haiku-4-5-20251001"]
    assert _subagent_lines(60)[1].split()[:3] == ["a1b2c3d", "Explore", "haiku-4.5"]  # too narrow: as list


@pytest.mark.parametrize(("width", "kept"), [(44, ["Explore", "haiku-4…"]), (40, ["Explore"]), (30, [])])
def test_a_narrow_card_leaves_the_model_out_then_the_type(width: int, kept: list[str]) -> None:
    heading, row = _subagent_lines(width)
    assert width_of(heading) <= width and width_of(row) <= width, (heading, row)
    assert row.split() == ["a1b2c3d", *kept, "6,313", "<$0.01"]
    # the figures end under their headings
    assert row.index("6,313") + len("6,313") == heading.index("tokens") + len("tokens")
    assert len(row) == len(heading)


def test_the_demo_card_fits_40_columns_but_its_ids_and_paths(tty: Callable[..., None]) -> None:
    tty(40)
    out = run("--demo", "show", "7f3c9a12")[0]
    # (the command to copy stays under the values, whole, past a width too narrow for it: pass 59)
    assert [line for line in too_wide(out, 40) if "/demo/home/" not in line
            and line != " " * 11 + "agentscan --demo trace claude:7f3c9a12"] == []


# --- 3. the commands to copy ---------------------------------------------------------------------


@pytest.mark.parametrize("width", [40, 60])
def test_show_s_hooks_command_has_list_s_short_id_where_the_whole_one_does_not_fit(tty: Callable[..., None],
                                                                               width: int) -> None:
    tty(width)
    lines = run("--demo", "show", "7f3c9a12")[0].splitlines()
    at = next(index for index, line in enumerate(lines) if line.startswith("  hooks "))
    # Under the card's values (pass 59: at 40 columns it went to the labels' indent, where it
    # read as a field of its own), past the width only where it does not fit there.
    assert lines[at + 1] == " " * 11 + "agentscan --demo trace claude:7f3c9a12"
    assert width_of(lines[at + 1]) <= width or width < 11 + len("agentscan --demo trace claude:7f3c9a12")
    assert lines[0] == ("claude:7f3c9a12" if width < len(DEMO_ID) else DEMO_ID)


def test_show_s_hooks_command_keeps_the_whole_id_where_it_fits_and_in_a_pipe(tty: Callable[..., None]) -> None:
    assert f"agentscan --demo trace {DEMO_ID}" in run("--demo", "show", "7f3c9a12")[0]  # a pipe
    tty(100)
    assert f"agentscan --demo trace {DEMO_ID}" in run("--demo", "show", "7f3c9a12")[0]


def _sessions_sharing_a_prefix(home: Path) -> tuple[str, str]:
    """Two Claude sessions whose ids share their first 9 characters, one of 12 prompts."""
    ids = ("abcdef01-1111-4000-8000-000000000001", "abcdef01-2222-4000-8000-000000000002")
    for number, native in enumerate(ids):
        records: list[Any] = []
        for prompt in range(12 if number == 0 else 1):
            records += [claude_user(native, f"2026-11-02T09:{prompt:02d}:00.000Z", f"prompt {prompt}",
                                    uuid=f"u-{number}-{prompt}"),
                        claude_assistant(native, f"2026-11-02T09:{prompt:02d}:30.000Z", msg_id=f"m-{number}-{prompt}",
                                         request_id=f"r-{number}-{prompt}", usage=claude_usage(10, 1),
                                         uuid=f"a-{number}-{prompt}")]
        claude_session_file(home, native, records)
    return f"claude:{ids[0]}", f"claude:{ids[1]}"


def test_the_full_hint_names_the_session_by_the_short_id_that_opens_it_alone(isolated_home: Path,
                                                                            tty: Callable[..., None]) -> None:
    full, other = _sessions_sharing_a_prefix(isolated_home)
    tty(100)
    listed = run("list")[0]
    assert "claude:abcdef01-1 " in listed  # list's short id: longer than 8, as they share 9
    err = run("show", full)[1]
    assert f"the whole conversation: agentscan show {full} --full" in err  # fits: whole
    tty(40)
    err = run("show", full)[1]
    assert err.splitlines()[-2:] == ["the whole conversation:", "  agentscan show claude:abcdef01-1 --full"]
    # ... which opens that session alone
    assert orjson.loads(run("show", "claude:abcdef01-1", "--json")[0])["session"]["id"] == full


def test_fitted_takes_the_whole_id_then_the_short_one_then_the_narrowest_form() -> None:
    from agentscan.cli.copyhint import fitted

    forms = [lambda shown: [f"hooks (agentscan trace {shown})"], lambda shown: ["hooks:", f"  agentscan trace {shown}"]]
    whole, short = "claude:" + "7" * 36, "claude:77777777"
    assert fitted(forms, whole, lambda _: short, 80) == [f"hooks (agentscan trace {whole})"]
    assert fitted(forms, whole, lambda _: short, 62) == ["hooks:", f"  agentscan trace {whole}"]
    assert fitted(forms, whole, lambda _: short, 40) == [f"hooks (agentscan trace {short})"]
    assert fitted(forms, whole, lambda _: short, 30) == ["hooks:", f"  agentscan trace {short}"]  # never cut
    assert fitted(forms, whole, lambda _: short, None) == [f"hooks (agentscan trace {whole})"]  # a pipe


# --- 4. trace ------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [40, 50, 60, 80])
def test_a_narrow_trace_cuts_text_never_a_figure(tty: Callable[..., None], width: int) -> None:
    tty(width)
    lines = run("--demo", "trace", "7f3c9a12")[0].splitlines()
    # (the command to copy stays under the values, whole, past a width too narrow for it: pass 59)
    assert [line for line in lines if width_of(line) > width and line.strip() != "agentscan --demo show claude:7f3c9a12"] == []
    assert not any(CUT_FIGURE.search(line) or line.endswith("[…") for line in lines), lines
    nodes = [line for line in lines if re.match(r"\s*[|`]", line) and "-" in line[:12]]
    # each node's status and duration whole: ``ok  50.0 s``, ``error  15.0 s``
    assert all(re.search(r"(ok|error|completed|startup)(  [\d.]+ (ms|s))?(  \[\w+\])?$", line) for line in nodes), nodes
    assert any(line.endswith("error  15.0 s") or "error  15.0 s  [" in line for line in lines)
    captured = " ".join(line.strip() for line in lines[lines.index(next(line for line in lines
                                                                         if line.startswith("  captured"))):][:2])
    assert "08:59:58" in captured and ".. 09:02:10" in captured


def test_a_node_gives_its_input_then_its_mark_then_its_name_never_its_figures() -> None:
    from agentscan.cli.term import cut, cut_left
    from agentscan.hooks.model import Node
    from agentscan.hooks.text import Layout, _node_line

    node = Node(kind="tool", name="Task", input={"description": "Find the forecast client"}, status="ok",
                provenance="inferred", started_ns=None, ended_ns=None, detail={"duration_ms": 50_000})

    def line(width: int) -> str:
        return _node_line("  |- ", node, str, Layout(width, len, cut, cut_left))

    assert line(80) == "  |- tool Task  Find the forecast client  ok  50.0 s  [inferred]"
    assert line(52) == "  |- tool Task  Find the fo…  ok  50.0 s  [inferred]"
    assert line(40) == "  |- tool Task  Find the fo…  ok  50.0 s"  # (the input rather than its mark)
    assert line(36) == "  |- tool Task  Find th…  ok  50.0 s"  # (8 of it)
    assert line(30) == "  |- tool Task  ok  50.0 s"
    assert line(24) == "  |- tool T…  ok  50.0 s"
    assert line(10) == "  |- tool T…  ok  50.0 s"  # wider than the terminal, never a figure cut


# --- 6. tokens' periods name their zone ----------------------------------------------------------


@pytest.mark.parametrize(("by", "heading"), [("day", "DAY"), ("week", "WEEK"), ("month", "MONTH")])
def test_a_period_heading_names_the_zone_its_rows_are_cut_in(local_zone: Callable[[str], None], by: str,
                                                             heading: str) -> None:
    local_zone("Europe/Paris")
    # The demo's days run from October (CEST) into November (CET), as list's UPDATED (CEST/CET) says.
    assert "UPDATED (CET/CEST)" in run("--demo", "list")[0].splitlines()[0]
    assert run("--demo", "tokens", "--by", by)[0].startswith(f"{heading} (CEST/CET) ")
    assert run("--demo", "tokens", "--by", by, "--tz", "Asia/Kolkata")[0].startswith(f"{heading} (IST) ")
    # UTC's time is named by no zone, as list's is (docs/cli.md: time zones)
    assert run("--demo", "tokens", "--by", by, "--tz", "utc")[0].startswith(f"{heading} ")
    assert not run("--demo", "tokens", "--by", by, "--tz", "utc")[0].startswith(f"{heading} (")
    # --json unchanged
    document = orjson.loads(run("--demo", "tokens", "--by", by, "--json")[0])
    assert document["by"] == by and all("(" not in row["key"] for row in document["rows"])


def test_a_month_of_a_clock_change_names_both_zones() -> None:
    from zoneinfo import ZoneInfo

    from agentscan.cli.tokens_columns import period_zone

    paris = ZoneInfo("Europe/Paris")
    assert period_zone("month", ["2026-03"], paris) == "CET/CEST"
    assert period_zone("day", ["2026-03-02"], paris) == "CET"
    assert period_zone("week", ["2026-W13"], paris) == "CET/CEST"  # Mar 23-29: the change on the 29th
    assert period_zone("day", ["unknown"], paris) is None
    assert period_zone("model", ["gpt-5"], paris) is None


# --- 8. --help ----------------------------------------------------------------------------------


def _help(*args: str, columns: int) -> str:
    script = "import sys; sys.argv[0] = 'agentscan'; from agentscan.entry import main; main()"
    done = subprocess.run([sys.executable, "-c", script, *args, "--help"], env=dict(os.environ, COLUMNS=str(columns)),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("args", "under"), [((), True), (("tokens",), True), (("export",), True),
                                             (("hooks", "status"), False)])
def test_help_is_wrapped_to_a_narrow_terminal(args: tuple[str, ...], under: bool) -> None:
    text = _help(*args, columns=40)
    assert too_wide(text, 40) == []
    lines = text.splitlines()
    # an option's text under it, indented, where beside it it would be a column of a few words
    # (``--install-completion`` left it 14); beside it where it keeps 24 (``hooks status``)
    at = next(index for index, line in enumerate(lines) if line.strip().startswith("-h, --help"))
    if under:
        assert lines[at].strip() == "-h, --help" and lines[at + 1].startswith("      Show this message")
    else:
        assert lines[at].split() == ["-h,", "--help", "Show", "this", "message", "and"]


def test_a_long_example_goes_on_over_lines_a_shell_reads_as_one() -> None:
    lines = _help("tokens", columns=40).splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("  agentscan tokens --by day --tz utc"))
    command = lines[start:start + 3]
    assert [line.endswith(" \\") for line in command] == [True, True, False]
    assert " ".join(line.rstrip("\\").strip() for line in command) == (
        "agentscan tokens --by day --tz utc --since 2026-11-01 --until 2026-11-30")


def test_wide_help_is_click_s_own() -> None:
    """At 52 columns and more nothing changes (the snapshot, at 80, is Typer's text)."""
    from agentscan.cli.helpformat import NarrowHelpFormatter
    from typer._click.formatting import HelpFormatter

    assert NarrowHelpFormatter(width=78).width == HelpFormatter(width=78).width
    assert too_wide(_help("tokens", columns=60), 60) == []
