"""``trace --strict`` ends as every command does (``cli.strictend.strict_end``), and ``otlp --json``, pass 57 review.

``trace`` raised its own ``StrictWarnings``: under ``--quiet`` the bad lines of the events store
that failed it were never said, only ``error: 2 warnings (--strict)`` (docs/cli.md: ``--quiet``
still prints them first, they are the error's reason), and a truncated last line of a file
still being written counted where no other command counts it.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import CONVERSATION, Replay, prompt

runner = CliRunner()


def _bad_lines(home: Path) -> None:
    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    Replay(data_dir).send(prompt("hi"))
    with (data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl").open("ab") as handle:
        handle.write(b"{not json\n" + orjson.dumps({"received_at_ns": "soon"}) + b"\n")


def test_quiet_strict_trace_says_its_warnings_before_the_error(isolated_home: Path) -> None:
    _bad_lines(isolated_home)
    for args in ((), ("--json",)):
        result = runner.invoke(app, ["--quiet", "--strict", "trace", CONVERSATION, *args])
        assert result.exit_code == 1, args
        lines = result.stderr.strip().splitlines()
        assert lines[-1] == "error: 2 warnings (--strict)", result.stderr
        assert [line for line in lines if line.startswith("warning: ")] == [
            f"warning: {line}" for line in _said(result.stderr)], result.stderr
        assert len(_said(result.stderr)) == 2, (args, result.stderr)  # (before: none said)


def test_quiet_without_strict_says_nothing(isolated_home: Path) -> None:
    _bad_lines(isolated_home)
    result = runner.invoke(app, ["--quiet", "trace", CONVERSATION])
    assert result.exit_code == 0 and result.stderr == ""


def _said(stderr: str) -> list[str]:
    return [line[len("warning: "):] for line in stderr.splitlines()
            if line.startswith("warning: ") and ("not a JSON envelope" in line or "without payload" in line)]


def test_quiet_strict_otlp_json_says_its_own_notes_too(isolated_home: Path, tmp_path: Path) -> None:
    # ``otlp`` folds its own notes into the ending: with --json (which carries them in the document)
    # and --quiet they were not said before the error, where every command says a scan's.
    from builders import invoke
    from otlp_builders import claude_untimed_tool

    claude_untimed_tool(isolated_home)  # a tool call with no time: the export leaves it out, and says so
    result = invoke("--quiet", "--strict", "otlp", "--json", "-o", str(tmp_path / "traces.jsonl"))
    assert result.exit_code == 1
    notes = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert notes and all("otlp:" in line for line in notes), result.stderr
    assert result.stderr.strip().splitlines()[-1] == f"error: {len(notes)} warning{'s' if len(notes) > 1 else ''} (--strict)"
