"""Pass 50's security review: files SQLite opens by name beside an index exported into a
sticky world-writable folder (``/tmp``) must not be another user's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER = 65534  # nobody
posix = pytest.mark.skipif(os.name != "posix", reason="owners and modes")


def run(*args: str) -> Any:
    return runner.invoke(app, ["--demo", *args])


def sticky(path: Path) -> Path:
    path.mkdir()
    path.chmod(0o1777)
    return path


def plant(path: Path) -> None:
    """``path`` made another user's file, mode 0666 (chown needs root)."""
    if not ROOT:
        pytest.skip("chown to another user needs root")
    path.write_bytes(b"")
    path.chmod(0o666)
    os.chown(path, OTHER, OTHER)


@posix
@pytest.mark.parametrize("suffix", ["-journal", "-wal", "-shm"])
@pytest.mark.parametrize("existing", [False, True])
def test_a_file_planted_beside_a_sqlite_export_in_a_sticky_folder_is_refused(
    tmp_path: Path, suffix: str, existing: bool
) -> None:
    """Another user's 0666 ``-journal`` in ``/tmp`` received the index's pages (titles, paths)
    when ``fs.protected_regular`` is off (macOS has none): SQLite opens it ``O_RDWR|O_CREAT``."""
    folder = sticky(tmp_path / "tmp")
    output = folder / "idx.sqlite"
    if existing:  # an index of one's own, updated in place by a nightly job
        assert run("export", "-f", "sqlite", "-o", str(output)).exit_code == 0
    planted = Path(f"{output}{suffix}")
    plant(planted)
    before = output.read_bytes() if existing else None
    result = run("export", "-f", "sqlite", "-o", str(output))
    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert str(planted) in line and "another user (uid 65534)" in line, line
    assert planted.read_bytes() == b"" and planted.stat().st_uid == OTHER
    assert (output.read_bytes() if existing else None) == before
    assert output.exists() == existing


@posix
def test_ones_own_journal_beside_an_export_in_a_sticky_folder_is_fine(tmp_path: Path) -> None:
    folder = sticky(tmp_path / "tmp")
    output = folder / "idx.sqlite"
    Path(f"{output}-journal").write_bytes(b"")  # an empty one, left by a killed run of one's own
    result = run("export", "-f", "sqlite", "-o", str(output))
    assert result.exit_code == 0, result.output


@posix
def test_another_users_journal_outside_a_sticky_folder_is_left_to_the_access_checks(tmp_path: Path) -> None:
    """Only a sticky world-writable folder lets anyone plant a file: elsewhere the folder's
    owner chose who may, and the usual checks apply."""
    output = tmp_path / "idx.sqlite"
    side = Path(f"{output}-journal")
    side.write_bytes(b"")
    if ROOT:
        os.chown(side, OTHER, OTHER)
    result = run("export", "-f", "sqlite", "-o", str(output))
    assert result.exit_code == 0, result.output


@posix
def test_a_link_planted_as_the_caches_export_lock_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder another user can write (a shared ``AGENTSCAN_CACHE_DIR``): their link
    named as an output's lock made the run create the file it named (as root: any file, such
    as ``/etc/nologin``).  The link is left alone and the lock taken in the private fallback."""
    from agentscan.export.locks import lock_path

    cache = tmp_path / "shared-cache"
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(cache))
    output = tmp_path / "out.jsonl"
    lock = lock_path(output, os.environ)
    lock.parent.mkdir(parents=True)
    victim = tmp_path / "victim"
    lock.symlink_to(victim)
    result = run("export", "-f", "jsonl", "-o", str(output))
    assert result.exit_code == 0, result.output
    assert not victim.exists() and not os.path.lexists(victim)
    assert lock.is_symlink() and output.exists()


@posix
def test_a_private_file_is_never_written_through_a_link(tmp_path: Path) -> None:
    """The data folder's temp files (``hook-dirs.json.<pid>.tmp``, a live export's marks) have
    names anyone can guess: a link planted as one truncated the file it led to."""
    from agentscan.filemodes import open_private

    victim = tmp_path / "victim"
    victim.write_bytes(b"KEEP")
    link = tmp_path / f"hook-dirs.json.{os.getpid()}.tmp"
    link.symlink_to(victim)
    with pytest.raises(OSError):
        os.close(open_private(link))
    assert victim.read_bytes() == b"KEEP"
    fd = open_private(tmp_path / "fresh")  # a plain file is still made, 0600
    os.close(fd)
    assert (tmp_path / "fresh").stat().st_mode & 0o777 == 0o600


_CRASH_MID_WRITE = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size=1")  # spill pages into the file mid-transaction
conn.execute("BEGIN")
for n in range(3000):
    conn.execute("INSERT INTO ItemTable VALUES (?, randomblob(400))", (f"junk{n}",))
os._exit(0)  # a crash: the -journal stays, hot
"""


def test_a_database_left_mid_write_is_said_to_be_so_not_a_write_of_ours(tmp_path: Path, isolated_home: Path) -> None:
    """A Cursor killed mid-transaction leaves a hot ``-journal``: SQLite's own words for the
    read-only open, "attempt to write a readonly database", read to a reviewer as if
    agentscan had tried to write the agent's database.  Nothing is written either way."""
    import subprocess
    import sys

    from cursor_builders import make_state_db, state_db_path

    db = make_state_db(state_db_path(isolated_home))
    subprocess.run([sys.executable, "-c", _CRASH_MID_WRITE, str(db)], check=True)
    journal = Path(f"{db}-journal")
    assert journal.stat().st_size > 0
    before = (db.read_bytes(), journal.read_bytes())
    result = runner.invoke(app, ["list", "--json"])
    assert result.exit_code == 0, result.output
    assert "readonly database" not in result.output + result.stderr
    assert "an unfinished write, whose -journal only its own program may roll back" in result.stdout
    assert (db.read_bytes(), journal.read_bytes()) == before


@posix
def test_a_journal_planted_after_the_first_check_is_refused_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks and the write are apart (the scan, minutes, is between the first two): a
    journal planted after them (no journal yet then) is refused where the index is opened."""
    import agentscan.export.target as target

    folder = sticky(tmp_path / "tmp")
    output = folder / "idx.sqlite"
    assert run("export", "-f", "sqlite", "-o", str(output)).exit_code == 0
    before = output.read_bytes()
    planted = Path(f"{output}-journal")

    def check_then_plant(*args: Any) -> None:  # every check passed: planted just after the last
        if not planted.exists():
            plant(planted)

    monkeypatch.setattr(target, "check_writable", check_then_plant)
    result = run("export", "-f", "sqlite", "-o", str(output))
    assert result.exit_code == 1, result.output
    assert "another user (uid 65534)" in result.stderr
    assert planted.read_bytes() == b"" and planted.stat().st_uid == OTHER
    assert output.read_bytes() == before


@posix
def test_in_a_sticky_folder_the_journal_is_ones_own_for_the_whole_write(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite deleted its journal at each commit, leaving the name free for another user's
    between two transactions: there it is made first (0600), kept (``TRUNCATE``), then removed."""
    import agentscan.export.sqlite as exported

    folder = sticky(tmp_path / "tmp")
    output = folder / "idx.sqlite"
    journal = Path(f"{output}-journal")
    seen: list[tuple[int, int, str]] = []
    real_write = exported._write

    def watching(db: Any, *args: Any, **kwargs: Any) -> Any:
        found = os.lstat(journal)  # there before the first write, between transactions too
        seen.append((found.st_uid, found.st_mode & 0o777, db.execute("PRAGMA journal_mode").fetchone()[0]))
        return real_write(db, *args, **kwargs)

    monkeypatch.setattr(exported, "_write", watching)
    for _ in range(2):  # made, then updated in place
        result = run("export", "-f", "sqlite", "-o", str(output))
        assert result.exit_code == 0, result.output
        assert not journal.exists()  # removed once the run is over
    assert seen == [(os.geteuid(), 0o600, "truncate")] * 2
    assert sorted(p.name for p in folder.iterdir()) == ["idx.sqlite"]
