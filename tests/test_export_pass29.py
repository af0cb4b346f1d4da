"""`export` as a cron job meets it: a failed run writes nothing, a changed root marks nothing
gone, a database of someone else's is refused, and --quiet --strict says why it failed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from agentscan.cli import app

A = "aaaaaaaa-1111-4222-8333-444444444444"
B = "bbbbbbbb-1111-4222-8333-444444444444"


def session(home: Path, sid: str) -> Path:
    return claude_session_file(home, sid, [
        claude_user(sid, "2026-11-01T10:00:00Z", f"work in {sid[:4]}"),
        claude_assistant(sid, "2026-11-01T10:00:01Z", msg_id=f"m-{sid}", request_id=f"r-{sid}", usage=claude_usage(5, 7)),
    ])


def cli(*argv: str):  # noqa: ANN201 - click's Result
    return CliRunner().invoke(app, list(argv))


def test_an_unreadable_named_root_fails_before_the_file_is_replaced(isolated_home: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    session(isolated_home, A)
    out = tmp_path / "keep.csv"
    assert cli("export", "-f", "csv", "-o", str(out)).exit_code == 0
    before = out.read_bytes()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nonexistent"))
    result = cli("export", "-f", "csv", "-o", str(out))
    assert result.exit_code == 1 and "no readable root" in result.stderr
    assert out.read_bytes() == before  # "a failed run leaves the previous file intact" (docs/cron.md)
    assert "wrote" not in result.stdout


def test_sessions_outside_this_run_s_roots_are_not_marked_gone(isolated_home: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other-config"
    session(other, A)  # under other/.claude/projects
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(other / ".claude"))
    index = tmp_path / "index.sqlite"
    assert cli("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    # cron, without the shell's CLAUDE_CONFIG_DIR: the default root has another session
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    session(isolated_home, B)
    result = cli("export", "-f", "sqlite", "-o", str(index), "--json")
    document = orjson.loads(result.stdout)
    assert document["gone"] == 0
    assert any("1 Claude Code session in the index still has its file, outside the Claude Code roots" in w["message"]
               for w in document["warnings"])
    with sqlite3.connect(index) as db:
        assert db.execute("SELECT count(*) FROM sessions WHERE gone_at IS NULL").fetchone() == (2,)
    db.close()
    # Once its file is gone, it is gone.
    for path in other.rglob("*.jsonl"):
        path.unlink()
    assert orjson.loads(cli("export", "-f", "sqlite", "-o", str(index), "--json").stdout)["gone"] == 1


def test_a_database_agentscan_did_not_write_is_refused_and_left_alone(isolated_home: Path, tmp_path: Path) -> None:
    session(isolated_home, A)
    foreign = tmp_path / "app.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY, user TEXT)")
    db.close()
    before = foreign.read_bytes()
    result = cli("export", "-f", "sqlite", "-o", str(foreign))
    assert result.exit_code == 1 and "agentscan did not write" in result.stderr
    assert foreign.read_bytes() == before
    # An index agentscan wrote is updated as ever.
    own = tmp_path / "own.sqlite"
    assert cli("export", "-f", "sqlite", "-o", str(own)).exit_code == 0
    assert cli("export", "-f", "sqlite", "-o", str(own)).exit_code == 0


@pytest.mark.parametrize("fmt", ["jsonl", "sqlite"])
def test_nothing_is_written_inside_an_agent_s_folders(isolated_home: Path, fmt: str) -> None:
    path = session(isolated_home, A)
    target = path.parent / f"export.{fmt}"
    result = cli("export", "-f", fmt, "-o", str(target))
    assert result.exit_code == 1 and "never writes there" in result.stderr
    assert not target.exists()


@pytest.mark.parametrize(("argv", "code", "said"), [
    (["-o", ""], 2, "--output is empty"),
    (["-o", "{tmp}/newdir/"], 1, "names a directory"),
    (["-o", "{tmp}/x.csv", "--lock-timeout", "-1"], 2, "--lock-timeout must be 0 or more"),
])
def test_odd_outputs_are_said(isolated_home: Path, tmp_path: Path, argv: list[str], code: int, said: str) -> None:
    session(isolated_home, A)
    result = cli("export", "-f", "csv", *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert result.exit_code == code and said in result.stderr
    assert not (tmp_path / "newdir").exists()


@pytest.mark.parametrize("argv", [["export", "-f", "csv", "-o", "{tmp}/out.csv"], ["list"], ["export", "-f", "sqlite", "-o", "{tmp}/i.sqlite", "--json"]])
def test_quiet_strict_says_the_warnings_it_fails_on(isolated_home: Path, tmp_path: Path, argv: list[str]) -> None:
    path = session(isolated_home, A)
    with path.open("ab") as handle:
        handle.write(b"not json\n")
    result = cli("--quiet", "--strict", *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert result.exit_code == 1
    assert "invalid JSON skipped" in result.stderr and "1 warning (--strict)" in result.stderr


def test_a_deleted_cursor_workspace_chat_is_gone_not_elsewhere(isolated_home: Path, tmp_path: Path) -> None:
    # An IDE-only Cursor session's path is its workspace's state.vscdb, which outlives the chat:
    # it lies under what Cursor's discovery reads, so the session is gone, without a warning.
    from cursor_builders import make_workspace_db, state_db_path

    from agentscan.export.sqlite import _mark_gone
    from agentscan.export.unread import ELSEWHERE, LeftAsTheyWere
    from agentscan.export.run import _roots
    from agentscan.scan.scanner import Scanner

    workspace_db = make_workspace_db(isolated_home, "file:///home/dev/app", [])
    state_db_path(isolated_home).parent.mkdir(parents=True, exist_ok=True)
    with Scanner() as scanner:
        roots = _roots(scanner)
    assert any(str(workspace_db).startswith(root) for root in roots["cursor"])
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE sessions (id TEXT, provider TEXT, path TEXT, gone_at TEXT)")
    db.execute("INSERT INTO sessions VALUES ('cursor:deleted', 'cursor', ?, NULL)", (str(workspace_db),))
    gone, kept = _mark_gone(db, set(), None, "now", (), roots)
    assert (gone, kept) == (1, {})
    assert LeftAsTheyWere("cursor", ELSEWHERE) not in kept


def test_quiet_strict_otlp_says_its_own_notes_and_counts_them(isolated_home: Path, tmp_path: Path) -> None:
    from otlp_builders import claude_untimed_tool

    claude_untimed_tool(isolated_home)  # a tool call with no time: the export leaves it out, and says so
    result = cli("--quiet", "--strict", "otlp", "-o", str(tmp_path / "traces.jsonl"))
    assert result.exit_code == 1
    notes = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert notes and all("otlp:" in line for line in notes)
    assert f"error: {len(notes)} warning" in result.stderr
