"""Pass 49, a team lead's hourly `agentscan export` from cron: what a failure does to the
cache and to the index, and what the run says about it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


def build_cache() -> Path:
    assert runner.invoke(app, ["--demo", "list"]).exit_code == 0
    index = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite"
    assert index.is_file()
    return index


def cache_messages(result) -> list[str]:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return [w["message"] for w in orjson.loads(result.stdout)["warnings"] if "cache" in w["message"]]


# --- 1. a cache that fails to open for a reason other than damage is left as it is ------------


@pytest.mark.parametrize(("code", "text"), [(10, "disk I/O error"), (13, "database or disk is full"),
                                            (5, "database is locked (simulated past its wait)")])
def test_an_io_error_leaves_a_healthy_cache_in_place(monkeypatch: pytest.MonkeyPatch, code: int, text: str) -> None:
    """A disk I/O error or a full disk was taken for damage: the healthy index was renamed
    ``.corrupt``, and a second such run renamed the empty file made in its place over it."""
    from agentscan.scan import cachefile

    index = build_cache()
    kept = index.read_bytes()

    def failing(path: Path) -> sqlite3.Connection:
        error = sqlite3.OperationalError(text)
        error.sqlite_errorcode = code  # type: ignore[attr-defined]
        raise error

    with monkeypatch.context() as patch:
        patch.setattr(cachefile, "connect", failing)
        for _ in range(2):
            messages = cache_messages(runner.invoke(app, ["--demo", "list", "--json"]))
            if code == 5:  # busy: skipped quietly, as before
                assert messages == []
            else:  # no room: named as a refused write is (``cachefile.refused_write``), where to free space too
                folder = index.parent
                assert messages == [f"cache not used this run: the system refused a write ({text}: a full disk, a quota "
                                    "or a size limit); the file is left as it is, and this run reads the files again: "
                                    f"free space in {folder} (`df -h {folder}`)"]
    assert index.read_bytes() == kept and not list(index.parent.glob("*.corrupt*"))


@pytest.mark.parametrize("bad", [b"this is not sqlite" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_damaged_cache_is_still_moved_aside_and_says_where(bad: bytes) -> None:
    index = build_cache()
    index.write_bytes(bad)
    messages = cache_messages(runner.invoke(app, ["--demo", "list", "--json"]))
    assert len(messages) == 1 and messages[0].endswith("; moved aside to index.sqlite.corrupt and rebuilt")
    assert (index.parent / "index.sqlite.corrupt").read_bytes() == bad


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE stands in for a full disk")
def test_a_run_on_a_full_disk_keeps_the_cache(isolated_home: Path) -> None:
    """The reporter's own case, no simulation: a file-size limit makes every write fail as a
    full disk does (SQLite: ``disk I/O error``)."""
    import resource

    index = build_cache()
    kept = index.read_bytes()

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    command = [sys.executable, "-m", "agentscan", "--demo", "--no-cache", "list", "--json"]
    assert subprocess.run(command, capture_output=True, timeout=120).returncode == 0  # (warm the import)
    for _ in range(2):
        done = subprocess.run(command[:4] + command[5:], capture_output=True, timeout=120, preexec_fn=limited)
        assert done.returncode == 0, done.stderr
        warned = [w["message"] for w in orjson.loads(done.stdout)["warnings"] if "cache" in w["message"]]
        assert warned and all("moved aside" not in message for message in warned), warned
    assert index.read_bytes() == kept and not list(index.parent.glob("*.corrupt*"))


# --- the SQLite index: a rollback journal, its writability, its waits, a damaged file ---------

S1 = "49494949-0000-4000-8000-000000000001"


def one_session(home: Path, session: str = S1, tokens: int = 1000) -> Path:
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    return claude_session_file(home, session, [
        claude_user(session, "2026-11-01T10:00:00.000Z", "main task"),
        claude_assistant(session, "2026-11-01T10:01:00.000Z", msg_id=f"m-{session}", request_id=f"r-{session}",
                         usage=claude_usage(tokens, 100)),
    ])


def export_to(out: Path, *extra: str):  # type: ignore[no-untyped-def]
    from builders import invoke

    return invoke("export", "-o", str(out), *extra)


def journal_mode(index: Path) -> str:
    with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as conn:
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0])


def test_the_index_keeps_a_rollback_journal_so_a_reader_of_a_shared_file_needs_no_write(
        isolated_home: Path, tmp_path: Path) -> None:
    """In WAL mode, opening the index makes a ``-shm`` beside it: a dashboard running as
    another user who cannot write the folder could not read the ``chmod 644`` file cron.md
    suggests, and one who could left a ``-shm`` of its own that failed every later export."""
    one_session(isolated_home)
    out = tmp_path / "share" / "team.sqlite"
    out.parent.mkdir()
    assert export_to(out).exit_code == 0
    assert journal_mode(out) == "delete"
    with sqlite3.connect(f"file:{out}?mode=ro", uri=True) as reader:
        assert reader.execute("SELECT count(*) FROM sessions").fetchone() == (1,)
    assert sorted(p.name for p in out.parent.iterdir()) == ["team.sqlite"]  # no -wal, no -shm left


def test_an_index_an_older_agentscan_left_in_wal_mode_is_switched(isolated_home: Path, tmp_path: Path) -> None:
    one_session(isolated_home)
    out = tmp_path / "team.sqlite"
    assert export_to(out).exit_code == 0
    with sqlite3.connect(out) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
    assert journal_mode(out) == "wal"
    assert export_to(out).exit_code == 0
    assert journal_mode(out) == "delete" and sorted(p.name for p in tmp_path.glob("team.sqlite*")) == ["team.sqlite"]


def test_a_wal_index_another_connection_holds_open_is_written_as_it_is(isolated_home: Path, tmp_path: Path) -> None:
    """Switching out of WAL needs the file to itself (a Datasette left running): the run
    writes it in WAL mode, at once (no wait), and a later run switches it."""
    one_session(isolated_home)
    out = tmp_path / "team.sqlite"
    assert export_to(out).exit_code == 0
    holder = sqlite3.connect(out)
    try:
        holder.execute("PRAGMA journal_mode=WAL")
        holder.execute("SELECT count(*) FROM sessions").fetchone()
        assert export_to(out).exit_code == 0
        assert journal_mode(out) == "wal"
    finally:
        holder.close()
    assert export_to(out).exit_code == 0
    assert journal_mode(out) == "delete"


@pytest.fixture
def refuse_writes(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``access()`` saying no for the paths given, as it does to a user other than root for a
    file or folder of mode 0444/0555 (tests run as root, whom no mode refuses)."""
    from agentscan.export import target

    refused: set[str] = set()
    real = target._access
    monkeypatch.setattr(target, "_access", lambda path, mode: str(path) not in refused and real(path, mode))
    return refused


@pytest.mark.parametrize("suffix", ["sqlite", "jsonl", "csv"])
def test_an_output_file_this_user_cannot_write_is_refused_by_name(isolated_home: Path, tmp_path: Path,
                                                                   refuse_writes: set[str], suffix: str) -> None:
    """A 0444 JSON Lines or CSV file was silently replaced while a 0444 index was refused
    (``attempt to write a readonly database``): each is refused now, before the scan, naming it."""
    one_session(isolated_home)
    out = tmp_path / f"idx.{suffix}"
    assert export_to(out).exit_code == 0
    kept = out.read_bytes()
    refuse_writes.add(str(out))
    result = export_to(out)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot write {out}: the file cannot be written (permission denied")
    assert "make it writable (chmod u+w), or give another --output; it is left as it is" in result.stderr
    assert out.read_bytes() == kept


@pytest.mark.parametrize(("suffix", "why"), [("sqlite", "SQLite writes its journal beside the file"),
                                             ("jsonl", "the new file is written beside the old one")])
def test_an_output_folder_this_user_cannot_write_is_named(isolated_home: Path, tmp_path: Path,
                                                          refuse_writes: set[str], suffix: str, why: str) -> None:
    """JSON Lines said ``cannot write …/idx.jsonl: Permission denied`` when the folder was the problem."""
    one_session(isolated_home)
    out = tmp_path / "out" / f"idx.{suffix}"
    out.parent.mkdir()
    assert export_to(out).exit_code == 0
    refuse_writes.add(str(out.parent))
    result = export_to(out)
    assert result.exit_code == 1
    assert f"cannot write {out}: its folder {out.parent} cannot be written (permission denied): {why}" in result.stderr


def test_the_check_comes_before_the_scan(isolated_home: Path, tmp_path: Path, refuse_writes: set[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan.scanner import Scanner
    from spies import record_calls

    one_session(isolated_home)
    out = tmp_path / "idx.jsonl"
    out.write_text("")
    refuse_writes.add(str(out))
    scans = record_calls(monkeypatch, Scanner, "all_rows", lambda *args, **kwargs: None)
    assert export_to(out).exit_code == 1 and not scans


def test_side_files_of_the_index_this_user_cannot_write_are_named(isolated_home: Path, tmp_path: Path,
                                                                   refuse_writes: set[str]) -> None:
    """A reader running as another user left its ``-shm`` and ``-wal`` beside a WAL index: every
    later export failed with ``attempt to write a readonly database``, naming the index."""
    one_session(isolated_home)
    out = tmp_path / "idx.sqlite"
    assert export_to(out).exit_code == 0
    for side in ("-wal", "-shm"):
        Path(f"{out}{side}").write_bytes(b"")
        refuse_writes.add(f"{out}{side}")
    result = export_to(out)
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert f"cannot write {out}: SQLite must write the files it keeps beside the index to open it; " in message
    assert f"{out}-wal cannot be written (permission denied" in message and f"{out}-shm cannot be written" in message
    assert "remove it once nothing has the index open" in message


def test_an_export_waits_for_another_writer_of_the_index(isolated_home: Path, tmp_path: Path) -> None:
    """``db.atomic()`` began a deferred transaction that read first: SQLite then fails at once
    (``database is locked``) however long the busy timeout.  Begun IMMEDIATE, it waits."""
    import threading
    import time

    one_session(isolated_home)
    out = tmp_path / "idx.sqlite"
    assert export_to(out).exit_code == 0
    held = threading.Event()

    def hold(seconds: float) -> None:
        conn = sqlite3.connect(out, isolation_level=None, check_same_thread=False)
        conn.execute("CREATE TABLE IF NOT EXISTS notes(x)")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO notes VALUES (1)")
        held.set()
        time.sleep(seconds)
        conn.execute("COMMIT")
        conn.close()

    writer = threading.Thread(target=hold, args=(1.5,))
    writer.start()
    held.wait(10)
    started = time.monotonic()
    result = export_to(out, "--lock-timeout", "20", "--no-cache")
    waited = time.monotonic() - started
    writer.join()
    assert result.exit_code == 0, result.stderr
    assert waited >= 0.5

    held.clear()
    writer = threading.Thread(target=hold, args=(3.0,))
    writer.start()
    held.wait(10)
    result = export_to(out, "--lock-timeout", "0.3", "--no-cache")
    writer.join()
    assert result.exit_code == 1
    assert ("database is locked; another program held it for writing longer than 0.3 s"
            in " ".join(result.stderr.split()))


def test_a_reader_is_not_shut_out_while_a_large_export_writes(isolated_home: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A rollback journal's writer spills its changed pages into the file once they pass the
    page cache (2 MB by default), locking readers out until it commits: a heavy user's
    index is ten times that."""
    from agentscan.export import sqlite as export_sqlite

    one_session(isolated_home)
    out = tmp_path / "idx.sqlite"
    assert export_to(out).exit_code == 0
    real = export_sqlite.replace_children
    seen = []

    def large(db, ids, usage_days, **kwargs):  # type: ignore[no-untyped-def]
        shrank = real(db, ids, usage_days, **kwargs)
        db.execute("CREATE TABLE filler(x)")
        db.conn.executemany("INSERT INTO filler VALUES (?)", ((b"x" * 1000,) for _ in range(8000)))  # 8 MB
        with sqlite3.connect(f"file:{out}?mode=ro", uri=True, timeout=0) as reader:
            seen.append(reader.execute("SELECT count(*) FROM sessions").fetchone())
        db.execute("DROP TABLE filler")
        return shrank

    monkeypatch.setattr(export_sqlite, "replace_children", large)
    assert export_to(out, "--no-cache").exit_code == 0
    assert seen == [(1,)]


@pytest.mark.parametrize("page", [5, 9])
def test_a_damaged_index_says_what_to_do_and_is_left_as_it_is(isolated_home: Path, tmp_path: Path, page: int) -> None:
    """``database disk image is malformed`` (a table's page) or ``vtable constructor failed:
    sessions_fts`` (the full-text index's): the error gave no next step."""
    from builders import claude_sessions

    claude_sessions(isolated_home, 30)
    out = tmp_path / "idx.sqlite"
    assert export_to(out).exit_code == 0
    with sqlite3.connect(out) as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    assert pages >= page
    with out.open("r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(b"\0" * 4096)
    damaged = out.read_bytes()
    result = export_to(out)
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert message.startswith(f"error: cannot write {out}: ")
    assert (f"the index is damaged, and is left as it is: move it aside (`mv {out} {out}.damaged`) and export "
            "again to make it anew") in message
    assert f"`sqlite3 {out}.damaged .recover | sqlite3 {out}`" in message
    assert out.read_bytes() == damaged


# --- --strict -q: what the run did to the output is said first -------------------------------


def test_strict_quiet_says_what_happened_to_the_output_before_the_cut(isolated_home: Path, tmp_path: Path) -> None:
    """Cron mails ``--strict -q``'s warnings: those saying what the run did to the output came
    last and were cut by ``… N more`` after five bad lines."""
    from builders import claude_session_file, claude_user, invoke

    for n in range(7):
        native = f"49494949-0000-4000-8000-00000000010{n}"
        path = claude_session_file(isolated_home, native, [claude_user(native, "2026-11-01T10:00:00.000Z", "task")])
        with path.open("ab") as handle:
            handle.write(b"{not json\n" + orjson.dumps(claude_user(native, "2026-11-01T10:00:05.000Z", "more")) + b"\n")
    out = tmp_path / "idx.jsonl"
    result = invoke("--strict", "export", "-f", "csv", "-o", str(out), "-q")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"warning: {out}: written as csv (--format), though its extension says jsonl"
    assert sum(1 for line in lines if "idx.jsonl" not in line and line.startswith("warning: /")) == 5
    assert "warning: … and 2 more (use --verbose or --json to see all)" in lines


def test_a_cache_whose_tables_are_of_another_shape_is_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 49: ``no such column`` was "cache not used this run", every run, forever)
    from agentscan.scan import cachefile

    index = build_cache()
    real = cachefile.connect
    calls = []

    def schema_error(path: Path) -> sqlite3.Connection:
        calls.append(path)
        if len(calls) == 1:
            error = sqlite3.OperationalError("no such column: provider")
            error.sqlite_errorcode = 1  # type: ignore[attr-defined]
            raise error
        return real(path)

    monkeypatch.setattr(cachefile, "connect", schema_error)
    messages = cache_messages(runner.invoke(app, ["--demo", "list", "--json"]))
    assert len(messages) == 1 and messages[0].endswith("; moved aside to index.sqlite.corrupt and rebuilt")
    assert (index.parent / "index.sqlite.corrupt").exists()
