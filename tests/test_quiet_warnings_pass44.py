"""Two warnings a real home repeats on every run, said so that they stay readable.

* An empty file (what Codex, Gemini or Claude leave after an aborted start) is counted
  in one ``warning:`` line on stderr, not named one by one; ``--verbose`` names each,
  ``--json`` lists each as before, ``doctor`` counts them by kind, and ``--strict``
  still fails on them.
* A truncated last line is "(file still being written?)" only while its file was written
  to in the last ten minutes (``settling.SETTLING_SECONDS``), "(the file ends mid-record)"
  after: worded when the warning is printed, so a warning kept in the index and said
  again on a warm run follows the file's age then.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan import settling
from agentscan.cli import app, render
from agentscan.providers.claude import rowpass
from agentscan.warningsink import SinkWarning
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()

REAL = "aaaaaaaa-4444-4000-8000-000000000001"
TORN = "aaaaaaaa-4444-4000-8000-000000000002"
EMPTIES = 3
FRESH = "truncated last line skipped (file still being written?)"
SETTLED = "truncated last line skipped (the file ends mid-record)"


def _session(home: Path, native: str) -> Path:
    when = "2026-11-20T12:00:00.000Z"
    return claude_session_file(home, native, [
        claude_user(native, when, "fix the build", cwd="/src/app"),
        claude_assistant(native, when, msg_id=f"m-{native}", request_id=f"r-{native}", usage=claude_usage(100, 7),
                         cwd="/src/app"),
    ], mtime=time.time() - 3600)


def _empty_files(home: Path) -> list[Path]:
    folder = home / ".claude" / "projects" / "-home-dev-project"
    paths = [folder / f"bbbbbbbb-4444-4000-8000-00000000000{n}.jsonl" for n in range(EMPTIES)]
    for path in paths:
        path.write_bytes(b"")
    return paths


def _torn(home: Path) -> Path:
    """A session whose last line stops mid-record, written just now."""
    path = _session(home, TORN)
    with path.open("ab") as handle:
        handle.write(b'{"type":"user","message":{"role":"us')
    return path


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


# -- empty files -------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["list"], ["tokens"]])
def test_empty_files_are_one_note_cold_and_warm(isolated_home: Path, command: list[str]) -> None:
    _session(isolated_home, REAL)
    paths = _empty_files(isolated_home)
    for _ in range(2):  # cold, then warm (the warnings said again from the index)
        code, out, err = _run(*command)
        assert code == 0 and REAL[:8] in out, (out, err)
        assert [line for line in err.splitlines() if "empty" in line] == [
            f"warning: {EMPTIES} empty files (an agent leaves one after an aborted start; "
            "`agentscan doctor` or --verbose names them)"], err
        assert not any(str(path) in err for path in paths), err


def test_verbose_and_json_still_name_every_empty_file(isolated_home: Path) -> None:
    _session(isolated_home, REAL)
    paths = _empty_files(isolated_home)
    _, _, err = _run("list", "--verbose")
    assert {f"warning: {path}: empty file" for path in paths} <= set(err.splitlines()), err
    assert "empty files" not in err
    document = json.loads(_run("list", "--json")[1])
    assert sorted(w["path"] for w in document["warnings"] if w["message"] == "empty file") == sorted(map(str, paths))


def test_doctor_counts_them_and_strict_still_fails(isolated_home: Path) -> None:
    _session(isolated_home, REAL)
    _empty_files(isolated_home)
    _, out, _ = _run("doctor")
    assert f"{EMPTIES} × empty file, in {EMPTIES} files" in out, out
    code, _, err = _run("--strict", "list")
    assert code == 1 and f"{EMPTIES} warnings (--strict)" in err and f"warning: {EMPTIES} empty files" in err


def test_the_more_count_leaves_out_the_empty_files(capsys: pytest.CaptureFixture[str]) -> None:
    bad = [SinkWarning(f"/h/s{n}.jsonl", "invalid JSON skipped", 3) for n in range(7)]
    empty = [SinkWarning(f"/h/e{n}.jsonl", "empty file") for n in range(4)]
    render.warn_summary([*empty[:2], *bad, *empty[2:]])
    assert capsys.readouterr().err.splitlines() == [f"warning: /h/s{n}.jsonl:3: invalid JSON skipped" for n in range(5)] + [
        "warning: … and 2 more (use --verbose or --json to see all)",
        "warning: 4 empty files (an agent leaves one after an aborted start; `agentscan doctor` or --verbose names them)"]
    render.warn_summary(empty[:1])
    assert capsys.readouterr().err.splitlines() == [
        "warning: 1 empty file (an agent leaves one after an aborted start; `agentscan doctor` or --verbose names it)"]


# -- a truncated last line, by its file's age when said ---------------------------------------


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_fresh_file_is_maybe_still_being_written(isolated_home: Path) -> None:
    path = _torn(isolated_home)
    code, _, err = _run("--strict", "list")
    assert code == 0 and f"warning: {path}:3: {FRESH}" in err.splitlines(), err


def test_an_old_file_ends_mid_record_in_text_json_and_doctor(isolated_home: Path) -> None:
    path = _torn(isolated_home)
    _age(path, 90 * 86400)
    _, _, err = _run("list")
    assert f"warning: {path}:3: {SETTLED}" in err.splitlines() and "still being written" not in err, err
    document = json.loads(_run("list", "--json")[1])
    assert [w["message"] for w in document["warnings"]] == [SETTLED]
    _, out, _ = _run("doctor")
    assert f"1 × {SETTLED}, in 1 file" in out and "still being written" not in out, out
    code, _, err = _run("--strict", "list")
    assert code == 1 and "1 warning (--strict)" in err and "still being written" not in err, err


def test_a_warning_kept_in_the_index_follows_the_file_s_age_when_said(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read while the file was young, the warning is kept with the row; an hour later (the
    file untouched: the warm run reads nothing) it is said of a file no longer written."""
    passes = record_calls(monkeypatch, rowpass, "_one_row_pass", lambda *args: "read")
    path = _torn(isolated_home)
    assert f"warning: {path}:3: {FRESH}" in _run("list")[2].splitlines()
    assert passes  # the spy sees the file read
    passes.clear()
    later = time.time() + 3600

    class _Clock:
        @staticmethod
        def time() -> float:
            return later

    monkeypatch.setattr(settling, "time", _Clock)
    code, _, err = _run("list")
    assert code == 0 and f"warning: {path}:3: {SETTLED}" in err.splitlines() and "still being written" not in err, err
    document = json.loads(_run("list", "--json")[1])
    assert [w["message"] for w in document["warnings"]] == [SETTLED]
    assert passes == []  # said again from the index, not read again


def test_the_wording_is_chosen_at_the_settling_limit(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"{")
    written = path.stat().st_mtime
    assert settling.shown_message(str(path), FRESH, now=written + settling.SETTLING_SECONDS - 1) == FRESH
    assert settling.shown_message(str(path), FRESH, now=written + settling.SETTLING_SECONDS) == SETTLED
    assert settling.shown_message(str(tmp_path / "gone.jsonl"), FRESH) == SETTLED
    assert settling.shown_message(str(path), "invalid JSON skipped", now=written + 10**6) == "invalid JSON skipped"
