"""What an export may write to, and what it must leave alone: a FIFO or device is written
into (never renamed over), an SQLite index is never replaced by a text export, and a
provider whose files are all out of sight (a home not mounted) has nothing marked gone."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.toolkit.atomicfile import atomic_write
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
S1 = "e1e1e1e1-1111-4222-8333-444444444444"


@pytest.fixture
def home(isolated_home: Path) -> Path:
    claude_session_file(isolated_home, S1, [
        claude_user(S1, "2026-11-01T10:00:00Z", "first"),
        claude_assistant(S1, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 10)),
    ])
    return isolated_home


def invoke(*args: str):  # noqa: ANN201 - click's Result
    return runner.invoke(app, list(args))


def _read_fifo(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as handle:
            into.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)  # never left blocking the test run
    reader.start()
    return reader


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_an_export_into_a_fifo_is_written_into_it_and_the_fifo_stays(home: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    result = invoke("export", "-f", "jsonl", "-o", str(fifo))
    reader.join(10)
    assert result.exit_code == 0, result.output
    assert fifo.is_fifo()  # it was renamed over: a regular file, and the reader got nothing
    assert [orjson.loads(line)["id"] for line in got[0].splitlines()] == [f"claude:{S1}"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_atomic_write_writes_into_what_is_no_regular_file(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    fifo = tmp_path / "out" / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    atomic_write(fifo, lambda handle: handle.write(b"hello\n"))
    reader.join(10)
    assert got == [b"hello\n"] and fifo.is_fifo()
    assert [p.name for p in fifo.parent.iterdir()] == ["pipe"]  # no temp file left beside it


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_an_sqlite_export_refuses_a_fifo(home: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = invoke("export", "-f", "sqlite", "-o", str(fifo))
    assert result.exit_code == 1 and "is not a regular file" in result.stderr, result.stderr
    assert fifo.is_fifo()


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_text_export_never_replaces_an_sqlite_index(home: Path, tmp_path: Path, fmt: str) -> None:
    index = tmp_path / "sessions.sqlite"
    assert invoke("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    before = index.read_bytes()
    result = invoke("export", "-f", fmt, "-o", str(index))
    assert result.exit_code == 1, result.output
    assert "is an SQLite database" in result.stderr and "\n" not in result.stderr.strip()
    assert index.read_bytes() == before  # its first_seen_at / gone_at history is kept nowhere else


def test_a_text_export_still_replaces_a_text_file(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "sessions.csv"
    out.write_text("an older export\n")
    assert invoke("export", "-f", "csv", "-o", str(out)).exit_code == 0
    assert out.read_text().startswith("id,")


def _gone(index: Path) -> dict[str, str | None]:
    with sqlite3.connect(index) as conn:
        return dict(conn.execute("SELECT id, gone_at FROM sessions"))


def test_a_provider_with_no_root_left_has_nothing_marked_gone(home: Path, tmp_path: Path) -> None:
    index = tmp_path / "sessions.sqlite"
    assert invoke("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    shutil.rmtree(home / ".claude")  # the whole ~/.claude out of sight: a home not mounted
    result = invoke("export", "-f", "sqlite", "-o", str(index), "--json")
    assert result.exit_code == 0, result.output
    assert _gone(index) == {f"claude:{S1}": None}
    document = orjson.loads(result.stdout)
    assert document["gone"] == 0
    assert [w["message"] for w in document["warnings"]] == [
        "no Claude Code root found (`agentscan doctor` shows where it looked): its 1 session in the index "
        "is left as it was, not marked gone"]
    assert invoke("--strict", "export", "-f", "sqlite", "-o", str(index)).exit_code == 1


@pytest.mark.parametrize("fmt,days", [("jsonl", False), ("csv", False), ("jsonl", True), ("csv", True)])
def test_a_text_export_without_a_providers_root_says_its_sessions_left_the_file(
        home: Path, tmp_path: Path, fmt: str, days: bool) -> None:
    output = tmp_path / f"sessions.{fmt}"
    extra = ["--days"] if days else []
    assert invoke("export", "-f", fmt, "-o", str(output), *extra).exit_code == 0
    assert S1 in output.read_text()
    shutil.rmtree(home / ".claude")  # a home not mounted: a cron job's file would lose its rows unsaid
    result = invoke("export", "-f", fmt, "-o", str(output), "--json", *extra)
    assert result.exit_code == 0, result.output
    assert S1 not in output.read_text()
    assert [w["message"] for w in orjson.loads(result.stdout)["warnings"]] == [
        "no Claude Code root found (`agentscan doctor` shows where it looked): the 1 Claude Code session the last "
        "export held is not in this one"]
    assert invoke("--strict", "export", "-f", fmt, "-o", str(output), *extra).exit_code == 0  # none held now


def test_a_text_export_with_no_previous_file_has_nothing_to_say_of_a_missing_root(home: Path, tmp_path: Path) -> None:
    shutil.rmtree(home / ".claude")
    result = invoke("export", "-f", "csv", "-o", str(tmp_path / "new.csv"), "--json")
    assert result.exit_code == 0 and orjson.loads(result.stdout)["warnings"] == []


def test_a_session_whose_file_went_while_its_root_stays_is_marked_gone(home: Path, tmp_path: Path) -> None:
    index = tmp_path / "sessions.sqlite"
    assert invoke("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    for transcript in (home / ".claude" / "projects").rglob("*.jsonl"):
        transcript.unlink()
    result = invoke("export", "-f", "sqlite", "-o", str(index), "--json")
    assert orjson.loads(result.stdout)["gone"] == 1 and _gone(index)[f"claude:{S1}"] is not None


def test_a_scoped_export_of_an_unseen_provider_marks_no_other_gone(home: Path, tmp_path: Path) -> None:
    index = tmp_path / "sessions.sqlite"
    assert invoke("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    # No Gemini root: its scope is empty, which must not read as "every provider".
    assert invoke("export", "-f", "sqlite", "-o", str(index), "--provider", "gemini").exit_code == 0
    assert _gone(index) == {f"claude:{S1}": None}


def test_a_file_without_a_missing_providers_ids_is_not_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked on every run of a user without some provider's root: parsed only when it may hold one."""
    from agentscan.export import files

    path = tmp_path / "sessions.jsonl"
    path.write_bytes(b'{"id": "claude:aaaa"}\n{"id": "claude:bbbb"}\n{"id": "codex:cccc"}\n')
    parsed: list[bytes] = []
    real = files._record
    monkeypatch.setattr(files, "_record", lambda line: parsed.append(line) or real(line))
    assert files.sessions_held(path, "jsonl", ["gemini", "cursor"]) == {} and parsed == []
    assert files.sessions_held(path, "jsonl", ["claude", "gemini"]) == {"claude": 2} and len(parsed) == 3
