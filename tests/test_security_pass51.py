"""Pass 51's security review: what another user who can write an output's folder (or
``/tmp``) could make an export, ``hooks``' hints or the lock folder do."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agentscan.errors import UnsafeOutput
from agentscan.toolkit import atomicfile
from agentscan.toolkit.atomicfile import atomic_write

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER = 65534  # nobody
posix = pytest.mark.skipif(os.name != "posix", reason="owners, modes and links")


def _swap_temp_for_link(monkeypatch: pytest.MonkeyPatch, victim: Path) -> None:
    """Between ``mkstemp`` and what follows, the temp's name becomes a link to ``victim``
    (what a racer with write access to the folder does)."""
    real = tempfile.mkstemp

    def racing(*args: Any, **kwargs: Any) -> tuple[int, str]:
        fd, name = real(*args, **kwargs)
        os.unlink(name)
        os.symlink(victim, name)
        return fd, name

    monkeypatch.setattr(atomicfile.tempfile, "mkstemp", racing)


@posix
def test_a_temp_swapped_for_a_link_never_has_the_victims_mode_or_owner_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replaced file's owner and mode were given to the temp by its name: a link swapped
    in for it had ``chown``/``chmod`` change the file it leads to (any of root's)."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"secret")
    victim.chmod(0o600)
    before = victim.stat()
    out = tmp_path / "r.csv"
    out.write_bytes(b"old")
    out.chmod(0o644)
    if ROOT:
        os.chown(out, OTHER, OTHER)
    _swap_temp_for_link(monkeypatch, victim)
    with pytest.raises(UnsafeOutput, match="was replaced while being written"):
        atomic_write(out, lambda handle: handle.write(b"new"))
    assert not out.is_symlink() and out.read_bytes() == b"old"  # their link was not renamed into place
    after = victim.stat()
    assert (stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == (
        stat.S_IMODE(before.st_mode), before.st_uid, before.st_gid)
    assert victim.read_bytes() == b"secret"


@posix
def test_the_set_id_bits_of_the_replaced_file_are_not_copied(tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    out.write_bytes(b"old")
    out.chmod(0o6755)
    atomic_write(out, lambda handle: handle.write(b"new"))
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert out.read_bytes() == b"new"


@posix
@pytest.mark.parametrize("swap", ["link", "file"])
def test_a_fifo_swapped_after_the_checks_is_not_written_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str) -> None:
    """An output that is a FIFO is written into, not renamed over; it was opened with
    ``open(path, "wb")``, which followed a link swapped in after the checks (or truncated a
    file) and wrote the export over what it led to."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"secret")
    out = tmp_path / "pipe"
    os.mkfifo(out)
    real = os.stat

    def racing(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        found = real(path, *args, **kwargs)
        if str(path) == str(out) and stat.S_ISFIFO(found.st_mode):
            os.unlink(out)
            if swap == "link":
                os.symlink(victim, out)
            else:
                os.link(victim, out)
        return found

    with monkeypatch.context() as patch, pytest.raises(UnsafeOutput):
        patch.setattr(atomicfile.os, "stat", racing)
        atomic_write(out, lambda handle: handle.write(b"export"))
    assert victim.read_bytes() == b"secret"


@posix
def test_a_fifo_output_is_still_written_into(tmp_path: Path) -> None:
    import threading

    out = tmp_path / "pipe"
    os.mkfifo(out)
    got: list[bytes] = []

    def read() -> None:
        with open(out, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=read)
    reader.start()
    atomic_write(out, lambda handle: handle.write(b"export"))
    reader.join(5)
    assert got == [b"export"] and stat.S_ISFIFO(os.lstat(out).st_mode)


def test_cleaning_up_after_a_written_export_never_fails_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cleanup resolved the output again, and ``UnsafeOutput`` (not an ``OSError``) from
    that second look failed an export already written (exit 1)."""
    from agentscan.export.files import write_lines

    real = atomicfile.output_target
    calls: list[Path] = []

    def changed_since(path: Path) -> Path:
        calls.append(path)
        if len(calls) > 1:
            raise UnsafeOutput(f"{path} changed")
        return real(path)

    monkeypatch.setattr(atomicfile, "output_target", changed_since)
    out = tmp_path / "r.jsonl"
    assert write_lines(out, lambda handle: handle.write(b"{}\n") and 1) == 1
    assert out.read_bytes() == b"{}\n"


def test_a_users_own_dot_file_not_named_as_mkstemp_names_is_kept(tmp_path: Path) -> None:
    """Any 8 letters, digits or underscores were taken for a temp: mkstemp's are lowercase,
    and agentscan's carry its mark (``backup01`` fits mkstemp's alphabet and length)."""
    from agentscan.export.files import write_lines

    out = tmp_path / "r.csv"
    own = tmp_path / ".r.csv.Backup_1.tmp"
    own_lowercase = tmp_path / ".r.csv.backup01.tmp"
    killed = tmp_path / ".r.csv.agentscan-k2j4h5g6.tmp"
    for left in (own, own_lowercase, killed):
        left.write_bytes(b"mine")
        os.utime(left, (1_000_000_000, 1_000_000_000))
    write_lines(out, lambda handle: handle.write(b"a\n") and 1)
    assert own.exists() and own_lowercase.exists() and not killed.exists()


needs_root = pytest.mark.skipif(not ROOT, reason="a file of another user's needs root to make")


def _sticky(path: Path) -> Path:
    path.mkdir()
    path.chmod(0o1777)
    return path


@posix
@needs_root
def test_a_named_lock_folder_through_another_users_link_in_a_sticky_folder_is_refused(tmp_path: Path) -> None:
    """``realpath`` ran before the checks: a link another user planted in ``/tmp`` was followed
    to wherever it led (a folder of root's), which then passed as this user's own."""
    from agentscan.toolkit.lockdir import NotPrivate, lock_dir_problem, locks_dir

    public_tmp = _sticky(tmp_path / "public-tmp")  # /tmp's kind
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = public_tmp / "locks"
    link.symlink_to(mine)
    os.lchown(link, OTHER, OTHER)
    env = {"AGENTSCAN_LOCK_DIR": str(link)}
    with pytest.raises(NotPrivate, match="symbolic link"):
        locks_dir(env, str(tmp_path))
    assert "symbolic link" in (lock_dir_problem(env, str(tmp_path))[1] or "")
    os.lchown(link, os.geteuid(), os.getegid())  # the user's own link: theirs to name so
    assert locks_dir(env, str(tmp_path)) == mine


@posix
def test_a_named_lock_folder_inside_a_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    """Another user who can write the folder above could rename the lock folder away and put
    their own (or a link) in its place."""
    from agentscan.toolkit.lockdir import NotPrivate, locks_dir

    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    with pytest.raises(NotPrivate, match="other users can write"):
        locks_dir({"AGENTSCAN_LOCK_DIR": str(open_to_all / "locks")}, str(tmp_path))
    sticky = _sticky(tmp_path / "sticky")  # /tmp's kind: only an entry's owner may rename it
    assert locks_dir({"AGENTSCAN_LOCK_DIR": str(sticky / "locks")}, str(tmp_path)) == sticky / "locks"


@posix
@needs_root
def test_a_named_lock_folder_of_another_users_says_name_another_not_remove_it(tmp_path: Path) -> None:
    """``sudo rm -r`` of a folder the user pointed at (a colleague's) is no advice to give."""
    from agentscan.toolkit.lockdir import NotPrivate, locks_dir

    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, OTHER, OTHER)
    with pytest.raises(NotPrivate) as raised:
        locks_dir({"AGENTSCAN_LOCK_DIR": str(theirs)}, str(tmp_path))
    assert "rm " not in str(raised.value) and "set AGENTSCAN_LOCK_DIR to a folder" in str(raised.value)
    squatted = tmp_path / "temp"
    squatted.mkdir()
    base = squatted / f"agentscan-{os.getuid()}"
    base.mkdir(mode=0o700)
    os.chown(base, OTHER, OTHER)
    with pytest.raises(NotPrivate, match="sudo rm -r"):  # the default folder, made first by another
        locks_dir({}, str(squatted))


@posix
def test_an_executable_fifo_named_agentscan_on_path_does_not_hang_a_hint(tmp_path: Path) -> None:
    """The ``#!`` line of the ``agentscan`` on ``PATH`` was read with a blocking ``open()``: a
    FIFO there (chmod +x) hung every command that printed a hint, waiting for a writer."""
    import threading

    from agentscan.hooks.program import _run_by_this_python

    fifo = tmp_path / "agentscan"
    os.mkfifo(fifo)
    fifo.chmod(0o755)
    answers: list[bool] = []
    reader = threading.Thread(target=lambda: answers.append(_run_by_this_python(str(fifo))), daemon=True)
    reader.start()
    reader.join(3)
    hung = reader.is_alive()
    if hung:  # let the old code's reader go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(3)
    assert not hung and answers == [False]


def _realpath_races(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``realpath`` of ``out`` raises ``EINVAL``, as when a link it met is replaced by a file
    before it reads it."""
    import errno

    real = os.path.realpath

    def racing(path: Any, *args: Any, **kwargs: Any) -> str:
        if str(path) == str(out):
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", racing)


def test_an_output_whose_link_changes_while_resolved_is_an_error_not_a_traceback(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``realpath`` raises ``EINVAL`` when a link it met is replaced by a file before it reads
    it: the agent-folder check let it out as a traceback."""
    from agentscan.context import ScanContext
    from agentscan.errors import ExportFailed
    from agentscan.export.ownfolders import refuse_own_folders

    out = tmp_path / "r.csv"
    _realpath_races(out, monkeypatch)
    with pytest.raises(ExportFailed, match="cannot tell where"):
        refuse_own_folders(out, ScanContext.create(), ExportFailed)


def test_an_export_whose_output_link_changes_while_resolved_exits_with_an_error(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same race met first by the export's lock (``locks.lock_path``), before the folder
    check: a traceback, not an error message."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    out = tmp_path / "r.csv"
    _realpath_races(out, monkeypatch)
    result = CliRunner().invoke(app, ["--demo", "export", "-o", str(out)])
    assert result.exit_code == 1 and not isinstance(result.exception, OSError)
    assert "cannot tell where" in result.output
