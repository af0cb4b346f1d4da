"""What the environment may hand agentscan: a relative ``HOME``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan import Scanner
from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

S1 = "a1a1a1a1-1111-4222-8333-444444444444"


def test_a_relative_home_gives_absolute_paths(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = claude_session_file(isolated_home, S1, [
        claude_user(S1, "2026-11-01T10:00:00Z", "first"),
        claude_assistant(S1, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 10)),
    ])
    monkeypatch.chdir(isolated_home.parent)
    monkeypatch.setenv("HOME", isolated_home.name)  # as a shell might: HOME=home
    listed = orjson.loads(CliRunner().invoke(app, ["list", "--json"]).stdout)["sessions"]
    assert [row["path"] for row in listed] == [str(path)]
    assert Scanner().ctx.home == isolated_home
    assert Scanner(home=isolated_home.name).ctx.home == isolated_home


def test_a_warm_cache_in_a_folder_that_cannot_be_written_is_said_once_and_kept(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only mount (or a 0500 folder) holding a WAL index: SQLite cannot make its
    ``-shm`` file and says "unable to open database file", which read as a damaged cache
    to move aside and rebuild."""
    import os

    from agentscan.scan import cachefile

    runner = CliRunner()
    assert runner.invoke(app, ["--demo", "list"]).exit_code == 0  # the index, written
    index = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / cachefile.FILE_NAME
    kept = index.read_bytes()
    # Root may write anywhere: the folder's refusal is told by what SQLite meets there
    # (no -shm or -wal file can be made) and by what ``os.access`` says of the folder.
    for suffix in ("-shm", "-wal"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
        Path(f"{index}{suffix}").mkdir()
    real_access = os.access
    monkeypatch.setattr(cachefile.os, "access",
                        lambda path, mode: False if Path(path) == index.parent and mode == os.W_OK else real_access(path, mode))
    result = runner.invoke(app, ["--demo", "list", "--json"])
    assert result.exit_code == 0
    messages = [warning["message"] for warning in orjson.loads(result.stdout)["warnings"]]
    assert messages == ["cache disabled: it cannot be written (permission denied); answers are not kept, so every "
                        "run reads the files again (see `agentscan doctor`)"]
    assert index.read_bytes() == kept and not list(index.parent.glob("*.corrupt*"))


def test_a_cache_that_cannot_be_written_is_said_once_not_rebuilt(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache dir of mode 0500 (or a read-only mount) refuses SQLite's writes: the index was
    said to be "unreadable; rebuilt" (it was neither) and then "disabled"."""
    import sqlite3

    from agentscan.scan import cachefile

    def read_only(path: Path) -> sqlite3.Connection:
        error = sqlite3.OperationalError("attempt to write a readonly database")
        error.sqlite_errorcode = 8  # type: ignore[attr-defined]  # SQLITE_READONLY, as SQLite sets it
        raise error

    monkeypatch.setattr(cachefile, "connect", read_only)
    moved: list[Path] = []
    monkeypatch.setattr(cachefile, "_move_aside", moved.append)
    result = CliRunner().invoke(app, ["--demo", "list", "--json"])
    assert result.exit_code == 0
    messages = [warning["message"] for warning in orjson.loads(result.stdout)["warnings"]]
    assert [m for m in messages if "cache" in m] == [
        "cache disabled: it cannot be written (read-only); answers are not kept, so every run reads the files "
        "again (see `agentscan doctor`)"]
    assert moved == []


def _temp_dir(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    import tempfile

    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    monkeypatch.delenv("AGENTSCAN_LOCK_DIR")  # (which would name the folder instead)


def test_an_export_takes_its_lock_in_a_private_temp_folder_when_the_cache_cannot_be_written(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from agentscan.export.locks import fallback_dir

    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(blocked))  # no folder can be made under it
    temp = tmp_path / "tmp"
    temp.mkdir()
    _temp_dir(monkeypatch, temp)
    result = CliRunner().invoke(app, ["--demo", "export", "-f", "csv", "-o", str(tmp_path / "out.csv")])
    assert result.exit_code == 0, result.output
    locks = fallback_dir()
    assert locks.parent == temp / f"agentscan-{os.getuid()}"
    assert [path.suffix for path in locks.iterdir()] == [".lock"]
    assert os.stat(locks.parent).st_mode & 0o777 == 0o700


def test_a_temp_folder_someone_else_could_enter_is_not_used(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(blocked))
    temp = tmp_path / "tmp"
    (temp / f"agentscan-{os.getuid()}").mkdir(parents=True)
    os.chmod(temp / f"agentscan-{os.getuid()}", 0o777)  # made by another user first, say
    _temp_dir(monkeypatch, temp)
    result = CliRunner().invoke(app, ["--demo", "export", "-f", "csv", "-o", str(tmp_path / "out.csv")])
    assert result.exit_code == 1
    assert f"cannot create the lock directory {blocked / 'locks'}" in result.stderr
    assert not (tmp_path / "out.csv").exists()
    assert list((temp / f"agentscan-{os.getuid()}").iterdir()) == []  # nothing made inside it


def test_a_ctrl_c_once_the_output_is_out_ends_quietly_with_130(isolated_home: Path) -> None:
    """The interrupt falls while the interpreter winds down (an exit handler stands for
    its threads and finalizers): no 'Exception ignored' traceback, no exit 0."""
    import subprocess
    import sys

    script = (
        "import atexit, os, signal, sys, time\n"
        # As a shell's foreground command has it (a CI runner may start its jobs ignoring it).
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from agentscan import entry\n"
        "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(2)))\n"
        "sys.argv = ['agentscan', '--demo', 'list']\n"
        "entry.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert "7f3c9a12" in done.stdout  # the whole list was printed first
    assert done.stderr == ""


def test_an_ignored_ctrl_c_stays_ignored(isolated_home: Path) -> None:
    """A background job of a script, or nohup, starts with SIGINT ignored: left so."""
    import subprocess
    import sys

    script = (
        "import atexit, os, signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "from agentscan import entry\n"
        "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(0.2)))\n"
        "sys.argv = ['agentscan', '--demo', 'list']\n"
        "entry.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "7f3c9a12" in done.stdout and done.stderr == ""


def test_a_lock_folder_made_before_that_now_refuses_its_file_falls_back(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache mounted read-only after an export made ``locks/``: the folder "exists", its
    file cannot be made (here: a folder stands where the file goes)."""
    import os

    from agentscan.export.locks import fallback_dir, lock_path

    out = tmp_path / "out.csv"
    runner = CliRunner()
    assert runner.invoke(app, ["--demo", "export", "-f", "csv", "-o", str(out)]).exit_code == 0
    lock = lock_path(out, os.environ)
    lock.unlink()
    lock.mkdir()
    temp = tmp_path / "tmp"
    temp.mkdir()
    _temp_dir(monkeypatch, temp)
    result = runner.invoke(app, ["--demo", "export", "-f", "csv", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (fallback_dir() / lock.name).is_file()
