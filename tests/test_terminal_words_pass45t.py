"""Pass 45, as a reviewer met the terminal output:

1. ``trace`` on a narrow terminal names its session by its short id rather than cut the id
   or its status, and never cuts the ``agentscan show`` command it tells you to copy;
2. ``show``'s subagent row never cuts its figure (``12,526…`` read as a cut number): the word
   ``tokens`` goes to the heading first, then the type and model narrow; its model is named
   one way on a terminal, at every width;
3. ``doctor`` and ``hooks status`` say that hooks are optional and what needs them, in one
   wording;
4. ``otlp`` with an OpenTelemetry endpoint variable set and no destination names it and how
   to use it (and still sends nowhere unasked);
5. ``agentscan --help`` ends with ``Examples:``, as every command's does.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.charset import width_of

runner = CliRunner()
FULL_ID = "claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"


# --- 1. trace's header and the command to copy --------------------------------------------------

@pytest.mark.parametrize("width", [40, 50, 60])
def test_a_narrow_trace_shortens_the_session_id_and_never_cuts_the_command(tty: Any, width: int) -> None:
    tty(width, color=False)
    result = runner.invoke(app, ["--demo", "trace", "7f3c9a12"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "session claude:7f3c9a12  (stopped)"  # short id, status whole
    [command] = [line for line in lines if "agentscan --demo show" in line]
    # (pass 49) by the short id list shows, never cut: the whole one made it 79 columns wide
    assert command.strip() == "agentscan --demo show claude:7f3c9a12"
    assert "\u2026" not in command
    # Every line fits (pass 49: the times wrap, never cut), and no id is cut: the transcript
    # line names the session as the command does.
    assert all(width_of(line) <= width for line in lines if line != command)
    # (pass 59) under the values, past a width too narrow for it: at the header's indent it read as a field
    assert command == " " * 14 + "agentscan --demo show claude:7f3c9a12"
    [transcript] = [line for line in lines if line.startswith("  transcript")]
    assert transcript.split()[-1] == "claude:7f3c9a12"
    captured = lines[lines.index(next(line for line in lines if line.startswith("  captured"))):][:2]
    assert "\u2026" not in " ".join(captured) and "09:02:10" in " ".join(captured)  # a time is never cut


def test_a_wide_trace_and_a_pipe_keep_the_whole_id(tty: Any) -> None:
    piped = runner.invoke(app, ["--demo", "trace", "7f3c9a12"], env={"COLUMNS": "40"}).stdout.splitlines()
    assert piped[0] == f"session {FULL_ID}  (stopped)"
    tty(100, color=False)
    wide = runner.invoke(app, ["--demo", "trace", "7f3c9a12"]).stdout.splitlines()
    assert wide[0] == f"session {FULL_ID}  (stopped)"


def test_the_short_session_id_is_list_s_form() -> None:
    from agentscan.hooks.text import short_session_id

    assert short_session_id(FULL_ID) == "claude:7f3c9a12"
    assert short_session_id("cursor:abc-123") == "cursor:abc-123"  # short: whole
    assert short_session_id("codex:0123456-89abcdef0123") == "codex:0123456-8"  # never ends in a separator


# --- 2. show's subagent rows ---------------------------------------------------------------------

def _detail(*subs: tuple[str, str | None, str | None, int | None]) -> Any:
    return SimpleNamespace(subagents=[
        SimpleNamespace(id=sid, agent_type=kind, model=model, recovered_from=None, cost=None, cost_priced=None,
                        tokens=SimpleNamespace(total=total) if total is not None else None)
        for sid, kind, model, total in subs], extra={})


REAL = ("sidechain-cd49a45d", "general-purpose", "claude-sonnet-4-5-20250929", 12_526)


def _lines(width: int, *subs: Any, tty: bool = True) -> list[str]:
    from agentscan.cli.show_subagents import subagent_lines
    from agentscan.cli.term import Terminal

    return subagent_lines(_detail(*subs), Terminal(tty=tty, width=width, color=False), {})


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_a_subagent_row_names_its_model_one_way_at_every_width(width: int) -> None:
    """Whole where the row fits, as the card's ``model`` line names it (pass 49); as ``list``
    names it where it does not, never cut."""
    heading, row = _lines(width, REAL)
    assert heading.startswith("subagents (1)")
    if width >= 100:
        assert "claude-sonnet-4-5-20250929" in row
    else:
        assert "sonnet-4.5" in row and "claude-sonnet-4-5-20250929" not in row
    assert "12,526" in row and "\u2026" not in row


def test_a_pipe_gets_the_model_whole() -> None:
    assert _lines(60, REAL, tty=False) == [
        "subagents (1)", "  sidechain-cd49a45d  general-purpose  claude-sonnet-4-5-20250929     12526 tokens"]


def test_a_narrow_row_says_tokens_once_in_the_heading_and_never_cuts_the_figure() -> None:
    assert _lines(80, REAL) == ["subagents (1)",
                                "  sidechain-cd49a45d  general-purpose  sonnet-4.5    12,526 tokens"]
    heading, row = _lines(60, REAL)
    assert row == "  sidechain-cd49a45d  general-purpose  sonnet-4.5  12,526"
    assert heading.startswith("subagents (1)") and heading.endswith("tokens") and len(heading) == len(row)
    # Narrower still: the type and the model give way, never the id or the figure.
    heading, row = _lines(50, REAL)
    assert row.startswith("  sidechain-cd49a45d  ") and row.endswith("  12,526") and width_of(row) <= 50
    assert "\u2026" in row and heading.endswith("tokens")
    # With nothing left to give, the row is wider than the terminal rather than cut.
    _heading, row = _lines(30, REAL)
    assert row.startswith("  sidechain-cd49a45d  ") and row.endswith("  12,526")


def test_a_subagent_with_no_tokens_reads_a_dash_under_the_heading_s_word() -> None:
    _heading, first, second = _lines(60, REAL, ("sidechain-00000001", "Explore", None, None))
    assert first.endswith("  12,526") and second.endswith("  -")


# --- 3. hooks are optional ---------------------------------------------------------------------

def test_hooks_status_and_doctor_say_hooks_are_optional_in_one_wording() -> None:
    status = runner.invoke(app, ["hooks", "status"]).stdout.splitlines()
    doctor = runner.invoke(app, ["doctor"]).stdout.splitlines()
    said = ("  not installed (optional: only agentscan trace needs them; "
            "the other commands read the agents' own files)")
    lead = "  to install, for each agent you use, run:"
    for lines in (status, doctor):
        start = lines.index("hooks:")
        assert lines[start + 1:start + 3] == [said, lead], lines
    assert not any("whose sessions are here" in line for line in doctor)


# --- 4. otlp and OTEL_EXPORTER_OTLP_ENDPOINT ---------------------------------------------------

@pytest.mark.parametrize("variable", ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"])
def test_otlp_with_an_endpoint_variable_and_no_destination_names_it(
        monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    import agentscan.otlp.sender as sender

    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("sent without --endpoint")

    monkeypatch.setattr(sender, "send", refuse, raising=False)
    monkeypatch.setenv(variable, "http://127.0.0.1:9")
    result = runner.invoke(app, ["--demo", "otlp", "--since", "2026-11-07"])
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first == (f"error: give exactly one of --output FILE or --endpoint URL ({variable} is set, but "
                     f'agentscan sends only where --endpoint says: --endpoint "${variable}" sends there; '
                     "-o - writes to stdout)")


def test_otlp_with_no_destination_and_no_variable_says_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    result = runner.invoke(app, ["--demo", "otlp"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == "error: give exactly one of --output FILE or --endpoint URL"


# --- 5. the root help's examples ---------------------------------------------------------------

def test_the_root_help_ends_with_examples_from_the_snapshot_and_from_typer() -> None:
    import typer

    from agentscan.static_help import TOP_LEVEL_HELP

    lines = typer.main.get_command(app).epilog.splitlines()
    assert [line.split("#")[0].strip() for line in lines] == [
        "agentscan --demo list", "agentscan list", "agentscan show ID",
        "agentscan tokens --since 7d", "agentscan tokens --by day"]
    ending = "\n\nExamples:\n" + "".join(f"  {line}\n" for line in lines)
    assert TOP_LEVEL_HELP.endswith(ending)
    assert runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).stdout.endswith(ending)
