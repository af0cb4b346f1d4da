"""Pass 56: a ``list`` table off a terminal shows no ``*`` for a running session, yet a
``list --all`` made anew (one session grew, at the bench's scale 10) asked ``/proc`` and
Claude Code's registry whether each of 15,000 sessions runs: a tenth of its CPU.  Such a
table no longer asks (``Scanner.list_page(tell_running=False)``); what it prints is as
before and as ``--no-cache`` prints it.  ``--json``, a terminal's table, ``--running`` and
the library still ask of every row they list."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan import Scanner
from agentscan.cli import app
from agentscan.scan.liveness import Liveness
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()


def _native(number: int) -> str:
    return f"{number:08x}-5656-4000-8000-000000000000"


def _home(home: Path) -> None:
    for number in range(12):
        native = _native(number)
        claude_session_file(home, native, [
            claude_user(native, f"2026-11-03T09:{number:02d}:00.000Z", f"task {number}"),
            claude_assistant(native, f"2026-11-03T09:{number:02d}:30.000Z", msg_id=f"m{number}",
                             request_id=f"r{number}", usage=claude_usage(100 + number, 10)),
        ])


def _run(*args: str) -> str:
    result = runner.invoke(app, ["list", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_table_off_a_terminal_asks_no_row_whether_it_runs(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    uncached = _run("--all", "--no-cache")
    asked = record_calls(monkeypatch, Liveness, "of", lambda self, ref: ref.id)
    table = _run("--all")  # made anew: the index is cold
    assert asked == []
    assert table == uncached and len(table.splitlines()) == 13  # a header and every session
    assert _run("--all") == table and asked == []  # kept, then printed again
    assert _run() == _run("--no-cache") and asked == []  # a plain page too


def test_json_and_a_terminal_still_ask_of_every_row(isolated_home: Path, monkeypatch, tty) -> None:
    _home(isolated_home)
    asked = record_calls(monkeypatch, Liveness, "of", lambda self, ref: ref.id)
    found = orjson.loads(_run("--all", "--json"))["sessions"]
    assert len(found) == 12 and all("running" in row for row in found)
    assert sorted(set(asked)) == sorted(row["id"] for row in found)
    del asked[:]
    with Scanner() as scanner:
        page = scanner.list_page(limit=None)
    assert len(set(asked)) == 12 and len(page.rows) == 12
    del asked[:]
    tty(120)
    _run("--all", "--no-cache")
    assert len(set(asked)) == 12  # a terminal's table marks a running session with ``*``


def test_a_row_that_holds_its_running_already_is_not_copied(isolated_home: Path, monkeypatch) -> None:
    """No Claude Code registry here: each session's ``running`` is ``null``, as its kept row
    holds it; a copy of each of 15,000 rows was 5 % of an unchanged export at scale 10."""
    from agentscan.model import SessionRow

    _home(isolated_home)
    uncached = [orjson.loads(line) for line in runner.invoke(app, ["export", "-f", "jsonl", "--no-cache"]).stdout.splitlines()]
    listed = _run("--all", "--json")
    copies = record_calls(monkeypatch, SessionRow, "with_changes", lambda self, **changes: sorted(changes))
    exported = [orjson.loads(line) for line in runner.invoke(app, ["export", "-f", "jsonl"]).stdout.splitlines()]
    assert exported == uncached and len(exported) == 12 and all(row["running"] is None for row in exported)
    assert _run("--all", "--json", "--grep", "task") == _run("--all", "--json", "--grep", "task", "--no-cache")
    assert ["running"] not in copies
    assert orjson.loads(listed)["sessions"] == orjson.loads(_run("--all", "--json", "--no-cache"))["sessions"]
