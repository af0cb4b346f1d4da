"""The Codex thread index (``state_*.sqlite``) told apart from what it claims:

* a row whose ``rollout_path`` names another thread's rollout made a phantom session of
  that rollout (its calls counted twice): it is ignored, said, and counted by ``doctor``;
* ``show``/``tokens`` of a thread the index knows whose rollout is gone said only "no
  session matches": they say it is in the index and its rollout is gone (exit 1 still),
  and a mistyped id that no index row has walks no Codex home to say nothing;
* an index whose committed data is only in its ``-wal``, its ``-shm`` gone (a crash, then
  the file removed), was "no threads table (unfamiliar schema)": the main file alone can be
  read read-only, and ``doctor`` and the warnings say its latest changes are in the -wal."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from agentscan.cli import app
from codex_builders import (cli_doc, codex_doctor, INDEX_COLUMNS, Calls, at, index_row, meta, rollout_path, turn_context, user_message,
                            write_rollout, write_state_db)

A = "019c4920-0000-7000-8000-00000000000a"
B = "019c4920-0000-7000-8000-00000000000b"
X = "019c4920-0000-7000-8000-0000000000aa"  # an index row naming A's rollout
Y = "019c4920-0000-7000-8000-0000000000bb"  # an index row naming B's rollout
G = "019c4920-0000-7000-8000-0000000000ee"  # an index row whose rollout is gone


def _rollouts(codex: Path) -> dict[str, Path]:
    paths = {}
    for n, (thread, size) in enumerate(((A, 1000), (B, 2000))):
        calls = Calls()
        path = rollout_path(codex, thread, at(n * 100))
        write_rollout(path, [meta(thread, at(n * 100)), turn_context(at(n * 100 + 1)),
                             user_message(at(n * 100 + 1), f"prompt of {thread[-1]}"),
                             calls.call(at(n * 100 + 5), size, 0, 10)])
        paths[thread] = path
    return paths


_run, _codex_doctor = cli_doc, codex_doctor


def test_an_index_row_naming_another_thread_s_rollout_is_ignored(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    paths = _rollouts(codex)
    write_state_db(codex / "state_5.sqlite", [
        index_row(A, paths[A], created=at(0), updated=at(5)), index_row(B, paths[B], created=at(100), updated=at(105)),
        index_row(X, paths[A], created=at(0), updated=at(5), title="phantom of A"),
        index_row(Y, paths[B], created=at(100), updated=at(105), title="phantom of B")])
    listed = _run("list", "--all")
    assert sorted(row["native_id"] for row in listed["sessions"]) == [A, B]
    assert [warning["message"] for warning in listed["warnings"]] == [
        "thread index rows name another thread's rollout, ignored: 2 rows"]
    assert _run("tokens")["total"]["total"] == 1010 + 2010  # each call once
    assert "2 thread index rows name another thread's rollout (ignored, not listed)" in _codex_doctor()["findings"]
    shown = CliRunner().invoke(app, ["show", X])
    assert shown.exit_code == 1
    assert (f"codex:{X} is in Codex's thread index ({codex / 'state_5.sqlite'}), but its row names another "
            f"thread's rollout, ignored: {paths[A]}") in shown.stderr


def test_an_index_row_naming_a_later_segment_of_its_thread_is_taken(isolated_home: Path) -> None:
    """A file named for another id whose own meta is the row's thread (a paginated thread's
    later segment, named for its own rollout id) is that thread's: not ignored."""
    codex = isolated_home / ".codex"
    calls = Calls()
    path = rollout_path(codex, "019c4920-0000-7000-8000-0000000000cc", at(0), flat=True)
    path = path.with_name(path.name.replace("rollout-", "renamed-"))  # not walked: found by the index alone
    write_rollout(path, [meta(A, at(0)), turn_context(at(1)), user_message(at(1), "prompt of a"),
                         calls.call(at(5), 1000, 0, 10)])
    write_state_db(codex / "state_5.sqlite", [index_row(A, path, created=at(0), updated=at(5))])
    listed = _run("list", "--all")
    assert [row["native_id"] for row in listed["sessions"]] == [A] and listed["warnings"] == []


def test_show_and_tokens_say_the_index_knows_a_thread_whose_rollout_is_gone(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    paths = _rollouts(codex)
    gone = rollout_path(codex, G, at(300))
    write_state_db(codex / "state_5.sqlite", [index_row(A, paths[A], created=at(0), updated=at(5)),
                                              index_row(G, gone, created=at(300), updated=at(305))])
    for argv in (["show", G], ["tokens", G[:-1]], ["show", f"codex:{G}"]):
        result = CliRunner().invoke(app, argv)
        assert result.exit_code == 1, argv
        assert f"error: no session matches '{argv[1]}'" in result.stderr
        assert (f"codex:{G} is in Codex's thread index ({codex / 'state_5.sqlite'}), but its rollout is gone: "
                f"{gone}") in result.stderr
        assert "list --grep" not in result.stderr  # (the id was typed right: nothing to look for)
    result = CliRunner().invoke(app, ["show", "019c4920-0000-7000-8000-0000000000ff"])
    assert result.exit_code == 1 and "thread index" not in result.stderr


def _wal_only(codex: Path, tmp_path: Path, *, checkpointed: list[dict], in_wal: list[dict]) -> None:
    """A thread index whose rows ``in_wal`` are committed to its -wal alone, copied with its main
    file (``checkpointed`` rows) but not its -shm: a writer that crashed, its -shm removed since."""
    live = tmp_path / "writer" / "state_5.sqlite"
    live.parent.mkdir()
    names = [column.split()[0] for column in INDEX_COLUMNS]
    conn = sqlite3.connect(live, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute(f"CREATE TABLE threads ({', '.join(INDEX_COLUMNS)})")
        for rows in (checkpointed, in_wal):
            for row in rows:
                present = [name for name in names if name in row]
                conn.execute(f"INSERT INTO threads ({', '.join(present)}) VALUES ({', '.join('?' * len(present))})",
                             [row[name] for name in present])
            if rows is checkpointed and checkpointed:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        codex.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal"):  # (while the writer is open, its -wal is whole)
            shutil.copyfile(f"{live}{suffix}", codex / f"state_5.sqlite{suffix}")
    finally:
        conn.close()


def test_an_index_whose_changes_are_all_in_its_wal_says_so(isolated_home: Path, tmp_path: Path) -> None:
    codex = isolated_home / ".codex"
    paths = _rollouts(codex)
    _wal_only(codex, tmp_path, checkpointed=[], in_wal=[index_row(A, paths[A], created=at(0), updated=at(5))])
    before = sorted(path.name for path in codex.iterdir())
    why = "its latest changes are in its -wal, which cannot be read read-only without its -shm"
    (database,) = [root for root in _codex_doctor()["roots"] if root["kind"] == "database"]
    assert (database["readable"], database["problem"]) == (False, why)
    listed = _run("list")
    assert [warning["message"] for warning in listed["warnings"]] == [
        f"thread index unreadable, listing from rollouts instead: {why}"]
    assert sorted(row["native_id"] for row in listed["sessions"]) == [A, B]
    assert sorted(path.name for path in codex.iterdir()) == before  # no -shm made: read-only is absolute


def test_an_index_read_without_its_wal_s_changes_says_so(isolated_home: Path, tmp_path: Path) -> None:
    codex = isolated_home / ".codex"
    paths = _rollouts(codex)
    _wal_only(codex, tmp_path, checkpointed=[index_row(A, paths[A], created=at(0), updated=at(5))],
              in_wal=[index_row(B, paths[B], created=at(100), updated=at(105), title="index title of B")])
    listed = _run("list")
    assert [warning["message"] for warning in listed["warnings"]] == [
        "thread index read from its main file alone: its latest changes are in its -wal, which cannot be read "
        "read-only without its -shm (Codex makes it again when it next opens the index)"]
    assert sorted(row["native_id"] for row in listed["sessions"]) == [A, B]
    assert not (codex / "state_5.sqlite-shm").exists()


def test_a_mistyped_id_walks_no_codex_home(isolated_home: Path, monkeypatch) -> None:
    """Every "no session matches" asks Codex what its index knows of the id: the index alone
    is read, and discovery (a walk of every rollout, spared by a stored discovery) runs only
    when one of its rows has the prefix typed (``diagnose.known_gone``)."""
    from agentscan.providers.codex import diagnose

    codex = isolated_home / ".codex"
    paths = _rollouts(codex)
    gone = rollout_path(codex, G, at(300))
    write_state_db(codex / "state_5.sqlite", [index_row(A, paths[A], created=at(0), updated=at(5)),
                                              index_row(G, gone, created=at(300), updated=at(305))])
    walks: list[object] = []
    discover = diagnose.discover
    monkeypatch.setattr(diagnose, "discover", lambda ctx, **kw: walks.append(ctx) or discover(ctx, **kw))
    for typed in ("019c4920-0000-7000-8000-0000000000ff", "019c4920-0000-7000-8000-0000000000d", "zzzzzzzz"):
        result = CliRunner().invoke(app, ["show", typed])
        assert result.exit_code == 1 and "thread index" not in result.stderr, typed
    assert walks == []
    result = CliRunner().invoke(app, ["show", G[:-1]])  # a row has it: its rollout is gone, said
    assert result.exit_code == 1 and f"but its rollout is gone: {gone}" in result.stderr
    assert walks
