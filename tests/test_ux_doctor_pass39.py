"""`doctor` on a colour terminal: its tables' bold headers are real escape sequences (they
were shown as ``\\ufffd[1mKIND``), while one planted in a path it reports is still shown
as U+FFFD, in a table cell and in prose alike."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_usage, claude_user

SESSION = "5e550000-0000-4000-8000-000000000039"


def test_doctor_s_headers_are_bold_and_a_planted_escape_is_still_shown_harmless(tty, tmp_path: Path) -> None:  # noqa: ANN001
    tty(120, color=True)
    home = tmp_path / "h\x1b[31mred"
    path = home / ".claude" / "projects" / "-p" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)

    ts = "2026-11-01T10:00:00.000Z"
    lines = [claude_user(SESSION, ts, "hi"),
             claude_assistant(SESSION, ts, msg_id="m", request_id="r", usage=claude_usage(3, 4))]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    result = CliRunner().invoke(app, ["--home", str(home), "doctor"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\ufffd[1m" not in out and "\ufffd[0m" not in out
    assert "\x1b[1mKIND" in out and "\x1b[1mSTATUS" in out
    # The home's own escape sequence: harmless in the first line (prose) and in the roots' table.
    assert "\x1b[31m" not in out
    assert out.splitlines()[0].startswith("home: ") and "h\ufffd[31mred" in out.splitlines()[0]
    # In its row, or whole under it when too long for its column (pass 41).
    lines = out.splitlines()
    assert any(line.startswith("  sessions  ok ") and "\ufffd[31m" in line + following
               for line, following in zip(lines, lines[1:])), out
