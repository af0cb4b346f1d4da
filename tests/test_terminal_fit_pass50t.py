"""Terminal leftovers of pass 49 (pass 50): ``show --full``'s tool heads at 40 columns, and
``prices``' note of the columns it left out to fit."""

from __future__ import annotations

from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.term import width_of

runner = CliRunner()


def test_show_full_cuts_a_long_tool_name_and_keeps_its_status(tty) -> None:  # noqa: ANN001
    # (was ``2026-11-27 14:06  run_shell_command  error``: 42 columns in a 40-column pane)
    tty(40, color=False)
    lines = runner.invoke(app, ["--demo", "show", "gemini:5e1f0c2a", "--full", "--no-pager"]).stdout.splitlines()
    wide = [line for at, line in enumerate(lines) if width_of(line) > 40 and lines[at - 1] != "  path"]
    assert not wide
    assert "2026-11-27 14:06  run_shell_comm…  error" in lines
    assert "2026-11-27 14:10  run_shell_command  ok" in lines  # (one that fits is whole)
    assert "    2026-11-27 14:09  grep_search  ok" in lines


def test_show_full_keeps_a_tool_name_whole_off_a_terminal() -> None:
    lines = runner.invoke(app, ["--demo", "show", "gemini:5e1f0c2a", "--full"]).stdout.splitlines()
    assert "2026-11-27 14:06  run_shell_command  error" in lines


def test_prices_says_the_columns_left_out_in_a_note_of_its_own(tty) -> None:  # noqa: ANN001
    # (was ``…--json has every price (web search, …); left out to fit 80 columns: PROVIDER, …``)
    tty(80, color=False)
    err = runner.invoke(app, ["--demo", "prices"]).stderr
    notes = [" ".join(note.split()) for note in err.replace("\n  ", " ").splitlines()]
    assert notes[-2].endswith("--json has every price (web search, 1-hour cache writes and more)")
    assert notes[-1] == "left out to fit 80 columns: PROVIDER, CACHE WRITE, CACHE READ; widen the terminal or use --json"


def _mcp_session(home) -> None:  # noqa: ANN001
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    native = "c3c3c3c3-0000-4000-8000-000000000001"
    call = {"type": "tool_use", "id": "t1", "name": "mcp__ide__getDiagnostics",
            "input": {"uri": "/home/dev/project/src/app/.goreleaser.yaml"}}
    claude_session_file(home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "check it", uuid="u1"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1),
                         blocks=[call])])


def test_show_cuts_a_long_tool_name_to_keep_its_call_on_the_line(isolated_home, tty) -> None:  # noqa: ANN001
    # (found in pass 50 on a real Claude session: ``  ok  mcp__ide__getDiagnostics: {"uri":"/…``,
    # 42 columns at 40: the summary kept its 10 columns and the name pushed past the edge)
    _mcp_session(isolated_home)
    tty(40, color=False)
    lines = runner.invoke(app, ["show", "c3c3c3c3"]).stdout.splitlines()
    call = next(line for line in lines if "mcp__" in line)
    assert width_of(call) == 40 and call.startswith("  ?      mcp__ide__getDiagn…: "), call
    tty(100, color=False)
    lines = runner.invoke(app, ["show", "c3c3c3c3"]).stdout.splitlines()
    assert any(line.startswith("  ?      mcp__ide__getDiagnostics: ") for line in lines)  # (whole where it fits)


def test_a_cwd_too_wide_for_its_line_goes_under_its_label(tty) -> None:  # noqa: ANN001
    # (was ``  cwd      /home/demo/src/billing-service``: 41 columns at 40, folded by the
    # terminal mid-path, where the transcript's ``path`` already went under its label)
    tty(40, color=False)
    lines = runner.invoke(app, ["--demo", "show", "codex:019ac2d4"]).stdout.splitlines()
    at = lines.index("  cwd")
    assert lines[at + 1] == "    /home/demo/src/billing-service"
    tty(100, color=False)
    assert "  cwd      /home/demo/src/billing-service" in runner.invoke(app, ["--demo", "show", "codex:019ac2d4"]).stdout
