"""Pass 54: ``list --grep`` (any filter but ``--running``/``--pid``) asks ``/proc`` whether a
session runs only for the rows it lists: a rare word's ``list`` read 15,000 kept rows and
told each one's ``running`` (a third of a kept row's cost), to print one.  ``--running``
still asks of every row it reads, and a listed row's ``running`` is as it was."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.liveness import Liveness
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()


def _native(number: int) -> str:
    return f"{number:08x}-7777-4000-8000-000000000000"


def _home(home: Path) -> None:
    for number in range(12):
        native = _native(number)
        claude_session_file(home, native, [
            claude_user(native, f"2026-11-02T09:{number:02d}:00.000Z", "needle here" if number == 4 else "a task"),
            claude_assistant(native, f"2026-11-02T09:{number:02d}:30.000Z", msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(100, 10)),
        ])


def _list(*args: str) -> dict:
    result = runner.invoke(app, ["list", "--json", *args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_only_listed_rows_are_asked_whether_they_run(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    _list("--all")  # the rows kept
    asked = record_calls(monkeypatch, Liveness, "of", lambda self, ref: ref.id)
    found = _list("--grep", "needle")
    assert [row["id"] for row in found["sessions"]] == [f"claude:{_native(4)}"]
    assert asked == [f"claude:{_native(4)}"]
    assert "running" in found["sessions"][0]


def test_running_still_asks_of_every_row(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    _list("--all")
    asked = record_calls(monkeypatch, Liveness, "of", lambda self, ref: ref.id)
    _list("--running", "--grep", "needle")
    assert len(set(asked)) == 12
