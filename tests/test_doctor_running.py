"""doctor explains every root; list knows which sessions are live."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.scan import liveness as running
from agentscan.cli import app
from agentscan.model import SessionRef
from builders import claude_session_file, claude_user

runner = CliRunner()
S1 = "a1a1a1a1-1111-4222-8333-444444444444"
S2 = "a2a2a2a2-1111-4222-8333-444444444444"


def doctor(*args: str) -> dict:
    result = runner.invoke(app, [*args, "doctor", "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def provider(report: dict, name: str) -> dict:
    return next(p for p in report["providers"] if p["provider"] == name)


def test_doctor_on_an_empty_home(isolated_home: Path) -> None:
    report = doctor()
    assert report["schema"] == "agentscan.doctor/1"
    claude = provider(report, "claude")
    assert claude["sessions"] == 0 and claude["newest"] is None
    first = claude["roots"][0]
    assert first["path"] == str(isolated_home / ".claude" / "projects")
    assert (first["exists"], first["readable"], first["problem"], first["source"]) == (False, False, "does not exist", "HOME")
    assert report["cache"]["enabled"] is True


def test_doctor_counts_sessions_and_summarises_skipped_lines(isolated_home: Path) -> None:
    path = claude_session_file(isolated_home, S1, [claude_user(S1, "2026-11-01T10:00:00Z", "one")])
    with path.open("ab") as handle:
        handle.write(b"{broken\n[1]\n{also broken\n")
    claude_session_file(isolated_home, S2, [claude_user(S2, "2026-11-02T10:00:00Z", "two")], mtime=2_000_000_000)
    claude = provider(doctor(), "claude")
    assert claude["sessions"] == 2
    assert claude["newest"]["id"] == f"claude:{S2}"
    assert claude["warnings"] == {"invalid JSON skipped": 2, "JSON line is an array, not an object; skipped": 1}
    assert claude["roots"][0]["readable"] is True


def test_doctor_names_the_env_var_that_chose_a_root(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nowhere"))
    claude = provider(doctor(), "claude")
    (root,) = claude["roots"]
    assert root["source"] == "CLAUDE_CONFIG_DIR" and root["problem"] == "does not exist"
    human = runner.invoke(app, ["doctor"])
    assert human.exit_code == 0
    assert re.search(r"does not exist\s+CLAUDE_CONFIG_DIR\s", human.stdout), human.stdout


def test_unreadable_explicit_root_fails_other_commands(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nowhere"))
    result = runner.invoke(app, ["list", "-p", "claude"])
    assert result.exit_code == 1 and "no readable root" in result.stderr


def test_doctor_reports_the_home_option(isolated_home: Path, tmp_path: Path) -> None:
    report = doctor("--home", str(tmp_path / "other"))
    assert report["home_source"] == "--home"
    assert provider(report, "claude")["roots"][0]["source"] == "--home"


@pytest.mark.skipif(not running.supported(), reason="/proc is Linux-only; running is null elsewhere")
def test_running_filter_finds_the_session_a_process_holds_open(isolated_home: Path) -> None:
    held = claude_session_file(isolated_home, S1, [claude_user(S1, "2026-11-01T10:00:00Z", "live one")])
    claude_session_file(isolated_home, S2, [claude_user(S2, "2026-11-02T10:00:00Z", "idle one")])
    (isolated_home / ".claude" / "sessions").mkdir()  # (its registry: a Claude session is told not running)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; f = open(sys.argv[1], 'ab'); print('ready', flush=True); time.sleep(60)", str(held)],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout.readline().strip() == b"ready"
        every = orjson.loads(runner.invoke(app, ["list", "--json"]).stdout)["sessions"]
        assert {s["native_id"]: s["running"] for s in every} == {S1: True, S2: False}
        live = orjson.loads(runner.invoke(app, ["list", "--json", "--running"]).stdout)["sessions"]
        assert [s["native_id"] for s in live] == [S1]
        by_pid = orjson.loads(runner.invoke(app, ["list", "--json", "--pid", str(holder.pid)]).stdout)["sessions"]
        assert [s["native_id"] for s in by_pid] == [S1]
        # Filters compose: a pid does not switch --grep off.
        none = orjson.loads(runner.invoke(app, ["list", "--json", "--pid", str(holder.pid), "--grep", "idle"]).stdout)["sessions"]
        assert none == []
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    after = orjson.loads(runner.invoke(app, ["list", "--json", "--running"]).stdout)["sessions"]
    assert after == []


@pytest.mark.skipif(not running.supported(), reason="/proc is Linux-only")
def test_a_session_is_live_under_any_name_that_leads_to_the_open_file(tmp_path: Path) -> None:
    """A process's link names the real path: a session reached through a linked directory,
    or through a file link of another name, is held open all the same; a plain file of a
    name no open file has is not (and is not resolved: ``holders_of``'s shortcut)."""
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = real_dir / "target.jsonl"
    target.write_bytes(b"{}\n")
    (tmp_path / "linked-dir").symlink_to(real_dir)
    (tmp_path / "other-name.jsonl").symlink_to(target)
    idle = real_dir / "idle.jsonl"
    idle.write_bytes(b"{}\n")
    with open(target, "ab"):
        live = running.Liveness(pid=os.getpid())
        for path in (target, tmp_path / "linked-dir" / "target.jsonl", tmp_path / "other-name.jsonl"):
            assert live.of(SessionRef("claude", "x", path, 0.0)) is True, path
        assert live.of(SessionRef("claude", "y", idle, 0.0)) is False
        assert live.of(SessionRef("claude", "z", tmp_path / "linked-dir" / "idle.jsonl", 0.0)) is False


# -- doctor on the Codex and Cursor failure cases ------------------------------------

from codex_builders import at, index_row, meta, rollout_path, turn_context, user_message, write_rollout, write_state_db  # noqa: E402

T1 = "019a0000-0000-7000-8000-000000000001"
T_GONE = "019a0000-0000-7000-8000-0000000000ff"


def codex_home_with_index(home: Path) -> Path:
    codex = home / ".codex"
    started = at(1_780_000_000)
    rollout = write_rollout(rollout_path(codex, T1, started), [
        meta(T1, started), turn_context(started), user_message(started, "hello"),
    ])
    gone = rollout_path(codex, T_GONE, started)
    write_state_db(codex / "state_5.sqlite", [
        index_row(T1, rollout, created=started, updated=started),
        index_row(T_GONE, gone, created=started, updated=started),
    ])
    return codex


def test_doctor_counts_index_rows_whose_rollout_is_gone(isolated_home: Path) -> None:
    codex_home_with_index(isolated_home)
    codex = provider(doctor(), "codex")
    assert codex["sessions"] == 1
    assert any("1 thread index row points at a rollout that is gone" in f for f in codex["findings"])
    database = next(r for r in codex["roots"] if r["kind"] == "database")
    assert database["readable"] is True


def test_doctor_explains_a_relative_codex_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", "relative/codex")
    report = doctor()
    codex = provider(report, "codex")
    notes = " ".join(r["note"] or "" for r in codex["roots"])
    assert "CODEX_HOME" in notes and "not an absolute path" in notes
    human = runner.invoke(app, ["doctor"])
    assert "not an absolute path" in human.stdout


def test_doctor_reports_a_corrupt_state_db_and_still_lists(isolated_home: Path) -> None:
    codex = codex_home_with_index(isolated_home)
    (codex / "state_5.sqlite").write_bytes(b"not a database at all" * 50)
    codex_report = provider(doctor(), "codex")
    assert codex_report["sessions"] == 1
    assert any("none readable" in f and "state_5.sqlite" in f for f in codex_report["findings"])


def test_doctor_says_once_that_there_is_no_state_db(isolated_home: Path) -> None:
    codex = codex_home_with_index(isolated_home)
    (codex / "state_5.sqlite").unlink()
    codex_report = provider(doctor(), "codex")
    notes = [r["note"] for r in codex_report["roots"] if r["kind"] == "database"]
    assert notes == [f"no state_*.sqlite in {codex} (Codex's index of its sessions; older versions write none): "
                     "sessions are found from their rollout-*.jsonl files alone"]
    assert not any("thread index" in f for f in codex_report["findings"])  # it said the same again


def test_doctor_reports_a_cursor_state_db_it_could_not_use(isolated_home: Path) -> None:
    db = isolated_home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"garbage" * 100)
    cursor = provider(doctor(), "cursor")
    assert any("not used" in f and "not a SQLite database" in f for f in cursor["findings"])


def test_a_stored_sessions_files_are_asked_for_as_text() -> None:
    """``running`` of a stored session (a warm ``list``) reads its file names as stored, and
    they are the names its ``files`` give (``memorefs.file_texts``)."""
    from agentscan.scan.memorefs import file_texts, memo_ref

    stored = memo_ref("claude", ["n1", "/h/.claude/p/n1.jsonl", 1.0, ["/h/.claude/p/n1.jsonl", "/h/.claude/p/n1/a.jsonl"], [], "f"])
    assert file_texts(stored) == ["/h/.claude/p/n1.jsonl", "/h/.claude/p/n1/a.jsonl"]
    assert stored._made is None  # no Path made for it
    assert file_texts(stored) == [str(path) for path in stored.files]
    bare = memo_ref("gemini", ["n2", "/h/.gemini/tmp/x/chats/n2.json", 1.0, [], [], "f"])
    assert file_texts(bare) == ["/h/.gemini/tmp/x/chats/n2.json"] == [str(bare.path)]
    assert file_texts(SessionRef("cursor", "n3", None, 0.0)) == []
