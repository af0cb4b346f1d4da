"""An export's usage days are worked out a batch of sessions at a time (``export/days.py``),
only the sessions that share calls together, and its rows are priced from sums when no day
is written: the files are what one merge of every session's calls gave."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.export import days as export_days
from agentscan.export import daymemo
from agentscan.scan import collect
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()
PARENT = "aaaa0000-0000-4000-8000-000000000001"
RESUMED = "0fff0000-0000-4000-8000-000000000002"


def _turn(session: str, ts: str, msg: str, tokens: int, model: str = "claude-sonnet-4-5-20250929") -> list[dict]:
    return [claude_user(session, ts, f"ask {msg}"),
            claude_assistant(session, ts, msg_id=msg, request_id=f"req-{msg}", usage=claude_usage(input=tokens, output=1),
                             model=model)]


def _home(home: Path) -> None:
    # A resumed session holds a copy of its parent's second call: credited once.
    claude_session_file(home, PARENT, [*_turn(PARENT, "2026-11-01T10:00:00.000Z", "m1", 100),
                                       *_turn(PARENT, "2026-11-01T23:59:00.000Z", "m2", 200)])
    claude_session_file(home, RESUMED, [*_turn(RESUMED, "2026-11-01T23:59:00.000Z", "m2", 200),
                                        *_turn(RESUMED, "2026-11-02T09:00:00.000Z", "m3", 400)])
    for number in range(10):
        native = f"{number:08x}-5555-4000-8000-000000000000"
        claude_session_file(home, native, [
            *_turn(native, f"2026-11-0{1 + number % 5}T08:00:00.000Z", f"n{number}", 10 + number),
            *_turn(native, f"2026-11-0{2 + number % 5}T08:00:00.000Z", f"o{number}", 5, "claude-opus-4-1-20250805")])


def _export(tmp: Path, name: str, *args: str) -> Path:
    out = tmp / name
    result = runner.invoke(app, ["-q", "export", *args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _sqlite(path: Path) -> tuple[list, list]:
    with sqlite3.connect(path) as conn:
        days = conn.execute("SELECT * FROM token_days ORDER BY 1, 2, 3, 4").fetchall()
        cursor = conn.execute("SELECT * FROM sessions ORDER BY 1")
        # The times of the exports aside (``first_seen``, ``exported_at``…): each run's own.
        kept = [index for index, column in enumerate(cursor.description) if not column[0].endswith(("_at", "_seen"))
                or column[0] in ("started_at", "updated_at")]
        sessions = [tuple(row[index] for index in kept) for row in cursor]
    return days, sessions


def _jsonl(path: Path) -> list[dict]:
    return [{key: value for key, value in json.loads(line).items() if key != "exported_at"}
            for line in path.read_text().splitlines()]


@pytest.mark.parametrize("fmt", ["sqlite", "csv-days", "jsonl-days", "sqlite-since"])
def test_batches_give_what_one_merge_gave(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          fmt: str) -> None:
    _home(isolated_home)
    args = {"sqlite": ["-f", "sqlite"], "csv-days": ["-f", "csv", "--days"], "jsonl-days": ["-f", "jsonl", "--days"],
            "sqlite-since": ["-f", "sqlite", "--since", "2026-11-02"]}[fmt]
    monkeypatch.setattr(export_days, "BATCH", 10**9)
    whole = _export(tmp_path, "whole", *args)
    # Every session read again (not its days taken back, ``export.daymemo``: pass 54's tests).
    monkeypatch.setattr(daymemo.DayMemo, "for_export", classmethod(lambda cls, scanner, zone: None))
    monkeypatch.setattr(export_days, "BATCH", 3)
    batches = record_calls(monkeypatch, collect, "usage_by_session", lambda scanner, refs, **_: sorted(ref.id for ref in refs))
    batched = _export(tmp_path, "batched", *args)
    # The two sessions that share a call were read together; every other batch held at most 3.
    assert sorted([f"claude:{PARENT}", f"claude:{RESUMED}"]) in batches
    assert all(len(batch) <= 3 for batch in batches if f"claude:{PARENT}" not in batch) and len(batches) >= 3
    if fmt.startswith("sqlite"):
        assert _sqlite(batched) == _sqlite(whole)
        days, _ = _sqlite(batched)
        assert sum(day[4] for day in days if day[0] in (f"claude:{PARENT}", f"claude:{RESUMED}")) == 700  # m2 once
    elif fmt == "csv-days":
        assert list(csv.reader(batched.read_text().splitlines())) == list(csv.reader(whole.read_text().splitlines()))
    else:
        assert _jsonl(batched) == _jsonl(whole)


def test_a_file_of_a_line_a_session_reads_no_call(isolated_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """JSON Lines and CSV of sessions are priced from sums, the costs SQLite's rows have."""
    _home(isolated_home)
    calls = record_calls(monkeypatch, collect, "usage_by_session", lambda scanner, refs, **_: len(refs))
    rows = _jsonl(_export(tmp_path, "rows.jsonl", "-f", "jsonl"))
    assert not calls
    _, sessions = _sqlite(_export(tmp_path, "rows.sqlite", "-f", "sqlite"))
    with sqlite3.connect(tmp_path / "rows.sqlite") as conn:
        costs = dict(conn.execute("SELECT id, cost_usd FROM sessions").fetchall())
    assert {row["id"]: row["cost_usd"] for row in rows} == costs and len(costs) == 12
    assert all(cost is not None for cost in costs.values())


@pytest.mark.parametrize("args", [["-f", "sqlite"], ["-f", "csv", "--days"]])
def test_a_first_export_reads_each_session_once(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                args: list[str]) -> None:
    """With no key hashes in the index, finding which sessions share calls would cost a read of
    every session, and each batch another: a first export reads all calls at once."""
    from agentscan.providers.claude.provider import ClaudeProvider
    from spies import record_calls as spy

    _home(isolated_home)
    reads = spy(monkeypatch, ClaudeProvider, "session_usage", lambda self, ref, *rest, **named: ref.native_id)
    first = _export(tmp_path, "first", *args)
    assert len(reads) == len(set(reads)) == 12
    monkeypatch.setattr(export_days, "BATCH", 3)
    batches = record_calls(monkeypatch, collect, "usage_by_session", lambda scanner, refs, **_: len(refs))
    again = _export(tmp_path, "again", *args)  # the next run: a batch at a time
    assert batches and max(batches) <= 3
    if args[1] == "sqlite":
        assert _sqlite(first) == _sqlite(again)
    else:
        assert first.read_text() == again.read_text()
