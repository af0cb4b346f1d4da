"""Pass 50, a team lead's hourly export and ``doctor``.

* ``doctor`` checks agentscan's own index for damage: a file damaged past its first pages
  opens as any other, and every command takes a damaged page for a miss, so nothing else
  ever says so.
* An export that finds no room (a full disk, a quota, ``ulimit -f``) says its output was
  left as it was, and what to do.
* An export checks its index first: damage in pages it does not write was never said.
* Two runs of one output with other ``AGENTSCAN_CACHE_DIR``s meet at a second lock.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner, Result

from agentscan.cli import app
from agentscan.scan import cachefile


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def damage_a_table(index: Path, table: str = "rows") -> None:
    """Garbage over the first page of ``table``'s b-tree: the header and schema still read."""
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    [(root,)] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (table,)).fetchall()
    [(page_size,)] = conn.execute("PRAGMA page_size").fetchall()
    conn.close()
    with open(index, "r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(b"\xff" * 64)


def test_a_damaged_index_is_reported_with_what_to_do(isolated_home: Path, tmp_path: Path) -> None:
    assert run("--demo", "list").exit_code == 0  # the index, written
    index = tmp_path / "agentscan-cache" / cachefile.FILE_NAME
    whole = orjson.loads(run("--demo", "doctor", "--json").stdout)["cache"]
    assert (whole["problem"], whole["next_step"]) == (None, None)
    damage_a_table(index)
    before = index.read_bytes()
    cache = orjson.loads(run("--demo", "doctor", "--json").stdout)["cache"]
    assert cache["exists"] and cache["problem"].startswith("damaged (")
    assert f"rm -f {index} {index}-wal {index}-shm" in cache["next_step"]
    said = " ".join(run("--demo", "doctor").stdout.split())
    assert f"cache: {index} (damaged (" in said
    assert "next: agentscan reads around the damaged pages" in said
    assert index.read_bytes() == before  # doctor checked it read-only, and left it where it was


def test_damage_is_sqlites_word_of_the_file(isolated_home: Path, tmp_path: Path) -> None:
    """No file is no damage; one that is no database is."""
    from agentscan.scan.cachecheck import damage

    assert damage(tmp_path / "absent.sqlite") is None
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all, " * 300)
    assert damage(garbage) == "damaged (file is not a database)"


# --- 2: an export that finds no room says the output was left whole ------------------------

def _limited() -> None:
    import resource

    # Past 64 KiB every write fails as on a full disk (Python ignores SIGXFSZ: EFBIG).
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE stands in for a full disk")
@pytest.mark.parametrize("name", ["idx.sqlite", "idx.jsonl"])
def test_an_export_that_finds_no_room_says_the_output_was_left_as_it_was(
        isolated_home: Path, tmp_path: Path, name: str) -> None:
    from builders import claude_sessions, invoke

    claude_sessions(isolated_home, 3)
    out = tmp_path / name
    assert invoke("export", "-o", str(out), "--no-cache").exit_code == 0
    before = out.read_bytes()
    claude_sessions(isolated_home, 400)  # more than 64 KiB to write
    done = subprocess.run([sys.executable, "-m", "agentscan", "--no-cache", "export", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, preexec_fn=_limited)
    assert done.returncode == 1, done.stderr
    said = " ".join(done.stderr.split())
    kept = "nothing of this run was kept, and the index was left as it was" if name.endswith("sqlite") else \
        f"{name} was left as it was"
    assert kept in said, said
    # A size limit stopped it (``ulimit -f``), not a full disk: freeing space alone would not
    # help, so the limit is named, and the JSON Lines file says why as SQLite's index does.
    assert "the system refused a write (a full disk, a quota, a size limit)" in said, said
    assert (f"free space in {tmp_path} (`df -h {tmp_path}`), or raise the quota or file-size limit (`ulimit -f`), "
            "and export again") in said
    assert out.read_bytes() == before



def test_a_full_disk_and_a_new_index_are_said_so(tmp_path: Path) -> None:
    """``database or disk is full`` (SQLITE_FULL), and a first export's index, which it made."""
    from agentscan.export.sqlerrors import next_step

    try:
        sqlite3.connect(":memory:").execute("SELECT * FROM nothing")
    except sqlite3.Error as caught:
        full = caught
    full.sqlite_errorcode = 13  # type: ignore[attr-defined]
    out = tmp_path / "idx.sqlite"
    assert next_step(full, out, 30).startswith("; the disk is full: nothing of this run was kept, and the index "
                                               "was left as it was; free space in ")
    assert "and the new index was removed; free space" in next_step(full, out, 30, fresh=True)
    # An empty journal (one the run owns in a sticky folder, emptied by its rollback and
    # removed after) has nothing to play back: not named.
    (tmp_path / "idx.sqlite-journal").write_bytes(b"")
    assert "idx.sqlite-journal" not in next_step(full, out, 30)
    (tmp_path / "idx.sqlite-journal").write_bytes(b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + bytes(504))
    assert ("left as it was (its idx.sqlite-journal, left beside it, is played back by the next export or reader)"
            in next_step(full, out, 30))


def test_damage_in_pages_an_export_does_not_touch_is_found(isolated_home: Path, tmp_path: Path) -> None:
    """A damaged page of a reader's own table (or an old session's) let every hourly run say
    ``wrote N sessions``, and the dashboard fail on it."""
    from builders import claude_sessions, invoke

    claude_sessions(isolated_home, 3)
    out = tmp_path / "idx.sqlite"
    assert invoke("export", "-o", str(out)).exit_code == 0
    with sqlite3.connect(out) as conn:  # a reader's table of its own
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.executemany("INSERT INTO notes VALUES (?)", [("x" * 200,)] * 10)
    conn.close()
    damage_a_table(out, "notes")
    before = out.read_bytes()
    result = invoke("export", "-o", str(out))
    assert result.exit_code == 1, result.output
    said = " ".join(result.stderr.split())
    assert said.startswith(f"error: cannot write {out}: database disk image is malformed (")
    assert "the index is damaged, and is left as it is" in said
    assert out.read_bytes() == before

# --- 3: two runs of one output with other AGENTSCAN_CACHE_DIRs wait for each other ---------

def test_runs_of_one_output_meet_whatever_their_cache_dir(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cron job's cache and a shell's: two cache locks of one output, and a slower run's older
    scan, written after the newer one's, marked a session that had just appeared gone."""
    import os

    from builders import claude_sessions, invoke
    from agentscan.export.locks import output_lock
    from agentscan.scan.scanner import Scanner
    from spies import record_calls

    claude_sessions(isolated_home, 2)
    out = tmp_path / "idx.sqlite"
    cron = {**os.environ, "AGENTSCAN_CACHE_DIR": str(tmp_path / "cron-cache")}
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "shell-cache"))
    scans = record_calls(monkeypatch, Scanner, "all_rows", lambda *args, **kwargs: None)
    with output_lock(out, cron, 1):  # the cron job's run, under way
        result = invoke("export", "-o", str(out), "--lock-timeout", "0.2")
    assert result.exit_code == 1, result.output
    assert "another agentscan export of" in result.stderr and not scans
    assert invoke("export", "-o", str(out)).exit_code == 0  # (once it is done)
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("idx")) == ["idx.sqlite"]


def test_no_private_meeting_folder_leaves_the_cache_lock_alone(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another user's ``/tmp/agentscan-<uid>`` (here: a file of that name) is not used, and no failure."""
    import os

    from builders import claude_sessions, invoke

    claude_sessions(isolated_home, 1)
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    (shared / f"agentscan-{os.getuid()}").write_text("planted")
    monkeypatch.setattr("agentscan.toolkit.meetlock.MEETING_BASE", str(shared))
    monkeypatch.delenv("AGENTSCAN_LOCK_DIR")  # (which would name the folder instead)
    assert invoke("export", "-o", str(tmp_path / "idx.sqlite")).exit_code == 0
    assert (shared / f"agentscan-{os.getuid()}").read_text() == "planted"
