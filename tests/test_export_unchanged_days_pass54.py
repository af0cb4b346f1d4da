"""Pass 54: an unchanged SQLite export neither decodes its sessions' calls again (their days are
kept in the index: ``export.daymemo``) nor rewrites their ``token_days`` and ``subagents``
rows (``export.children._as_stored``); a session that grew is read, and written, alone.  The
tables are what an export that keeps nothing (``--no-cache``) writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils.db import Table
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import answers, collect
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()


def _native(number: int) -> str:
    return f"{number:08x}-5454-4000-8000-000000000000"


def _calls(native: str, count: int) -> list[dict]:
    records = [claude_user(native, "2026-11-02T09:00:00.000Z", "a task")]
    for call in range(count):
        # Two days, two models: a session's days are several rows.
        records.append(claude_assistant(native, f"2026-11-0{2 + call % 2}T09:0{call}:00.000Z", msg_id=f"m{native}{call}",
                                        request_id=f"r{native}{call}", usage=claude_usage(100 + call, 10),
                                        model="claude-opus-4-1-20250805" if call % 3 else "claude-sonnet-4-5-20250929"))
    return records


def _home(home: Path) -> None:
    for number in range(4):
        native = _native(number)
        claude_session_file(home, native, _calls(native, 3))
    claude_subagent_file(home, _native(1), "helper", [
        claude_assistant(_native(1), "2026-11-03T10:00:05Z", msg_id="sub1", request_id="rsub1",
                         usage=claude_usage(4, 40), sidechain=True),
    ])


def _export(out: Path, *extra: str) -> None:
    result = runner.invoke(app, ["-q", "export", *extra, "-o", str(out)])
    assert result.exit_code == 0, result.output


def _children(out: Path, order: str = "rowid") -> tuple[list, list]:
    with sqlite3.connect(out) as conn:
        days = conn.execute(f"SELECT rowid, * FROM token_days ORDER BY {order}").fetchall()
        runs = conn.execute(f"SELECT rowid, * FROM subagents ORDER BY {order}").fetchall()
    conn.close()
    return days, runs


def _by_key(out: Path) -> tuple[list, list]:
    """The children as a reader sees them (keyed rows; where they lie in the file aside)."""
    days, runs = _children(out)
    return sorted(row[1:] for row in days), sorted(row[1:] for row in runs)


def _inserted(monkeypatch) -> list[tuple[str, str]]:
    """(table, session id) of every ``token_days`` and ``subagents`` row inserted from now on."""
    seen: list[tuple[str, str]] = []
    real = Table.insert_all

    def recording(self, records, **kwargs):
        listed = list(records)
        if self.name in ("token_days", "subagents"):
            seen.extend((self.name, record["session_id"]) for record in listed)
        return real(self, listed, **kwargs)

    monkeypatch.setattr(Table, "insert_all", recording)
    return seen


def _reads(monkeypatch) -> list[list[str]]:
    return record_calls(monkeypatch, collect, "usage_by_session", lambda scanner, refs, **_: [ref.id for ref in refs])


def _grow(home: Path, number: int) -> None:
    native = _native(number)
    claude_session_file(home, native, _calls(native, 5))


def test_an_unchanged_export_reads_no_call_and_rewrites_no_day(isolated_home: Path, tmp_path: Path,
                                                                 monkeypatch) -> None:
    _home(isolated_home)
    out = tmp_path / "index.sqlite"
    _export(out)
    first = _children(out)
    assert first[0] and first[1]  # days, and a subagent's run
    reads = _reads(monkeypatch)
    inserted = _inserted(monkeypatch)
    _export(out)
    assert [session_id for batch in reads for session_id in batch] == []
    assert inserted == []
    assert _children(out) == first  # every row where it was


def test_a_grown_session_alone_is_read_and_written(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    _home(isolated_home)
    out = tmp_path / "index.sqlite"
    _export(out)
    _grow(isolated_home, 2)
    reads = _reads(monkeypatch)
    inserted = _inserted(monkeypatch)
    _export(out)
    assert [session_id for batch in reads for session_id in batch] == [f"claude:{_native(2)}"]
    assert {session_id for _, session_id in inserted} == {f"claude:{_native(2)}"}
    fresh = tmp_path / "fresh.sqlite"
    _export(fresh, "--no-cache")
    assert _by_key(out) == _by_key(fresh)


def test_kept_days_are_those_of_the_calls(isolated_home: Path, tmp_path: Path) -> None:
    """Taken back, the days are exactly what adding up the calls gives (an index written by
    exports that kept nothing)."""
    _home(isolated_home)
    out, fresh = tmp_path / "index.sqlite", tmp_path / "fresh.sqlite"
    _export(out)
    _export(out)  # the days taken back
    _grow(isolated_home, 0)
    _export(out)
    _export(fresh, "--no-cache")
    assert _by_key(out) == _by_key(fresh)
    other = tmp_path / "other.sqlite"
    _export(other)  # a new index, of days taken back
    assert _by_key(other) == _by_key(fresh)


def test_other_prices_read_the_calls_again(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    _home(isolated_home)
    out = tmp_path / "index.sqlite"
    _export(out)
    real = answers.price_identity
    monkeypatch.setattr(answers, "price_identity", lambda scanner: f"{real(scanner)} and a new price")
    reads = _reads(monkeypatch)
    _export(out)
    assert sorted(session_id for batch in reads for session_id in batch) == [f"claude:{_native(n)}" for n in range(4)]


def test_a_kept_session_still_says_its_warning(isolated_home: Path, tmp_path: Path) -> None:
    """A transcript's bad line is said by every export, its days taken back or not."""
    _home(isolated_home)
    path = claude_session_file(isolated_home, _native(3), _calls(_native(3), 3))
    path.write_bytes(path.read_bytes() + b"{not json\n")
    out = tmp_path / "index.sqlite"
    said = []
    for _ in range(3):
        result = runner.invoke(app, ["export", "-o", str(out)])
        assert result.exit_code == 0, result.output
        said.append([line for line in result.output.splitlines() if "invalid JSON skipped" in line])
    assert len(said[0]) == 1 and said == [said[0]] * 3


def test_ill_shaped_kept_days_are_added_up_again(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    """Kept days that do not decode (a damaged index, sealed all the same) are a miss."""
    import orjson

    from agentscan.sealing import seal

    _home(isolated_home)
    out, fresh = tmp_path / "index.sqlite", tmp_path / "fresh.sqlite"
    _export(out)
    index = next((tmp_path / "agentscan-cache").glob("*.sqlite"))
    shapes = [5, [None], ["x", [["a"]], [None, None, [], True]], [None, [], "y"]]
    with sqlite3.connect(index) as conn:
        ((key, value),) = conn.execute("SELECT key, value FROM snapshots WHERE key = 'exportdays:claude'").fetchall()
        kept = orjson.loads(value[4:])
        for session_id, shape in zip(sorted(kept), shapes):
            kept[session_id] = shape if shape != ["x", [["a"]], [None, None, [], True]] else [kept[session_id][0], *shape[1:]]
        conn.execute("UPDATE snapshots SET value = ? WHERE key = ?", (seal(orjson.dumps(kept)), key))
    conn.close()
    reads = _reads(monkeypatch)
    _export(out)
    assert len([session_id for batch in reads for session_id in batch]) == 4
    _export(fresh, "--no-cache")
    assert _by_key(out) == _by_key(fresh)
