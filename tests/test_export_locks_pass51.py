"""Pass 51, a team lead's exports from cron: where an export's locks go.

* The CLI run as a subprocess by a test wrote its meeting lock into the real
  ``/tmp/agentscan-<uid>/locks``: ``AGENTSCAN_LOCK_DIR`` names the folder (conftest sets it).
* The meeting lock's files piled up there, one per output ever exported: removed as each run ends.
* Another user's ``/tmp/agentscan-<uid>`` turned the lock off without a word: said by the
  export (a warning, so ``--strict`` fails) and by ``doctor``.
* ``doctor --strict`` passed on a damaged index.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner, Result

from agentscan.cli import app
from agentscan.export.locks import lock_path, meeting_path
from agentscan.toolkit.meetlock import MeetingBusy, meeting_lock
from agentscan.scan import cachefile

posix = pytest.mark.skipif(os.name == "nt", reason="POSIX owners and modes, flock")


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _real_tmp_locks() -> Path:
    return Path("/tmp") / f"agentscan-{os.getuid()}" / "locks"


@posix
def test_a_cli_subprocess_locks_in_the_tests_folder_not_the_real_tmp(tmp_path: Path) -> None:
    """Held here, in the folder ``AGENTSCAN_LOCK_DIR`` names: the subprocess must wait for it
    (it took the real ``/tmp``'s, and wrote there, before)."""
    out = tmp_path / "out.csv"
    meeting = meeting_path(lock_path(out, os.environ))
    assert meeting is not None and meeting.parent == tmp_path / "agentscan-locks"
    real = _real_tmp_locks() / meeting.name
    with meeting_lock(meeting, 1) as held:
        assert held == meeting
        done = subprocess.run([sys.executable, "-m", "agentscan", "--demo", "export", "-f", "csv", "-o", str(out),
                               "--lock-timeout", "0.3"], capture_output=True, text=True, timeout=120)
        assert not real.exists()  # (nothing of this run's under the real /tmp)
    assert done.returncode == 1, done.stderr
    assert f"another agentscan export of {out} is running (lock {meeting})" in done.stderr
    assert not out.exists() and not real.exists()


def test_the_meeting_lock_is_removed_as_the_run_ends(isolated_home: Path, tmp_path: Path) -> None:
    """One file per output ever exported piled up in /tmp/agentscan-<uid>/locks."""
    for name in ("a.csv", "b.jsonl", "c.sqlite"):
        assert run("--demo", "export", "-o", str(tmp_path / name)).exit_code == 0
    assert list((tmp_path / "agentscan-locks").iterdir()) == []


@posix
def test_a_run_that_waited_on_a_removed_lock_file_takes_the_name_anew(tmp_path: Path) -> None:
    """The first run removes its file as it ends; the one that waited on that file must then
    hold the file of that name, or a third would take a new one at once, beside it."""
    lock = tmp_path / "meet.lock"
    second_holds, second_may_go = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def second() -> None:
        try:
            with meeting_lock(lock, 10) as held:
                assert held == lock
                second_holds.set()
                second_may_go.wait(10)
        except BaseException as exc:  # noqa: BLE001 - said in the test's thread
            failures.append(exc)
            second_holds.set()

    with meeting_lock(lock, 1) as first:
        assert first == lock and lock.exists()
        waiting = threading.Thread(target=second)
        waiting.start()
        import time

        time.sleep(0.3)  # (the second has opened the first's file and waits on it)
    assert second_holds.wait(10) and not failures, failures
    try:
        with pytest.raises(MeetingBusy):
            with meeting_lock(lock, 0.2):
                pass
    finally:
        second_may_go.set()
        waiting.join(10)
    assert not lock.exists()


def _squatted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int = 0o777) -> Path:
    """``/tmp/agentscan-<uid>`` made first by someone else (here: open to everyone)."""
    public_tmp = tmp_path / "public-tmp"
    public_tmp.mkdir()
    folder = public_tmp / f"agentscan-{os.getuid()}"
    folder.mkdir()
    os.chmod(folder, mode)
    monkeypatch.setattr("agentscan.toolkit.meetlock.MEETING_BASE", str(public_tmp))
    monkeypatch.delenv("AGENTSCAN_LOCK_DIR")
    return folder


@posix
def test_a_squatted_meeting_folder_is_said_and_fails_strict(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _squatted(tmp_path, monkeypatch)
    result = run("--demo", "export", "-o", str(tmp_path / "out.csv"))
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert f"{folder}: not used for the lock every export of one output meets at" in said
    assert "(mode 0777)" in said and f"chmod 700 {folder}" in said
    assert run("--demo", "--strict", "export", "-o", str(tmp_path / "out.csv")).exit_code == 1
    assert list(folder.iterdir()) == []  # nothing made inside it
    doctor = run("--demo", "doctor")
    assert doctor.exit_code == 0
    assert f"export locks: {folder} can be entered or written by other users (mode 0777)" in " ".join(
        doctor.stdout.split())
    locks = orjson.loads(run("--demo", "doctor", "--json").stdout)["locks"]
    assert locks["path"] == str(folder / "locks") and "mode 0777" in locks["problem"]
    strict = run("--demo", "--strict", "doctor")
    assert strict.exit_code == 1 and "error: export locks:" in strict.stderr


@pytest.mark.skipif(os.name == "nt" or os.geteuid() != 0, reason="making a folder another user's takes root")
def test_a_meeting_folder_of_another_user_is_named_with_its_owner(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _squatted(tmp_path, monkeypatch, 0o700)
    os.chown(folder, 65534, 65534)
    blocked = tmp_path / "cache-is-a-file"  # and the cache cannot be written: the error says both
    blocked.write_text("")
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(blocked))
    import tempfile

    monkeypatch.setenv("TMPDIR", str(folder.parent))
    monkeypatch.setattr(tempfile, "tempdir", None)
    result = run("--demo", "export", "-o", str(tmp_path / "out.csv"))
    assert result.exit_code == 1
    said = " ".join(result.stderr.split())
    assert f"cannot create the lock directory {blocked / 'locks'}" in said
    assert f"nor could the temporary lock folder be used: {folder} belongs to another user (uid 65534)" in said


def test_a_relative_lock_dir_is_ignored_with_a_warning(isolated_home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTSCAN_LOCK_DIR", "locks-here")
    monkeypatch.chdir(tmp_path)
    result = run("--demo", "export", "-o", str(tmp_path / "out.csv"))
    assert result.exit_code == 0, result.output
    assert "AGENTSCAN_LOCK_DIR is relative, so it was ignored" in result.stderr
    assert not (tmp_path / "locks-here").exists()
    assert orjson.loads(run("--demo", "doctor", "--json").stdout)["locks"]["ignored"] == "locks-here"
    assert "note: AGENTSCAN_LOCK_DIR is a relative path (locks-here), so it was ignored" in " ".join(
        run("--demo", "doctor").stdout.split())


def test_doctor_strict_fails_on_a_damaged_index(isolated_home: Path, tmp_path: Path) -> None:
    from test_cron_doctor_pass50 import damage_a_table

    assert run("--demo", "list").exit_code == 0
    assert run("--demo", "--strict", "doctor").exit_code == 0  # (whole: a health check that passes)
    index = tmp_path / "agentscan-cache" / cachefile.FILE_NAME
    damage_a_table(index)
    result = run("--demo", "--strict", "doctor")
    assert result.exit_code == 1
    assert f"cache: {index} (damaged (" in " ".join(result.stdout.split())  # the report first
    assert f"error: the index {index} is damaged (" in result.stderr
    assert run("--demo", "--strict", "doctor", "--json").exit_code == 1
    assert run("--demo", "doctor").exit_code == 0


def test_a_run_whose_cache_cannot_be_written_still_meets_a_shells(isolated_home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A cron job under ``ProtectHome`` locks in the lock folder (filelock's file, which stays);
    the meeting lock, whose file is removed, is named apart from it, and both runs take it."""
    from agentscan.export.locks import output_lock

    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("")
    cron = {**os.environ, "AGENTSCAN_CACHE_DIR": str(blocked)}
    out = tmp_path / "idx.csv"
    with output_lock(out, cron, 1):
        names = sorted(path.name for path in (tmp_path / "agentscan-locks").iterdir())
        assert [name.split("-")[0] for name in names] == ["export", "meet"]
        result = run("--demo", "export", "-o", str(out), "--lock-timeout", "0.2")
    assert result.exit_code == 1 and "another agentscan export of" in result.stderr
    assert run("--demo", "export", "-o", str(out)).exit_code == 0


def _another_group() -> int | None:
    """A group this user may give a file: any, as root; else one of its others."""
    if os.geteuid() == 0:
        return 65534
    return next((gid for gid in os.getgroups() if gid != os.getegid()), None)


@pytest.mark.skipif(os.name == "nt" or _another_group() is None, reason="needs a second group to give the file")
@pytest.mark.parametrize("name", ["team.csv", "team.jsonl"])
def test_a_replaced_export_keeps_its_group_and_mode(isolated_home: Path, tmp_path: Path, name: str) -> None:
    """A team folder: the file made group-readable once stays so (it was the user's
    primary group's after the next run, and the team lost it)."""
    gid = _another_group()
    assert gid is not None
    out = tmp_path / name
    assert run("--demo", "export", "-o", str(out)).exit_code == 0
    os.chown(out, -1, gid)
    os.chmod(out, 0o640)
    assert run("--demo", "export", "-o", str(out)).exit_code == 0
    found = out.stat()
    assert (found.st_gid, found.st_mode & 0o777, found.st_uid) == (gid, 0o640, os.geteuid())


@pytest.mark.parametrize("name", ["idx.csv", "idx.jsonl"])
def test_a_killed_runs_temp_file_is_removed_by_the_next_run(isolated_home: Path, tmp_path: Path, name: str) -> None:
    """Each run killed while writing (a cron ``timeout -s KILL``) left a temp file as big as
    the export in the output's folder, for good; a fresh one may be another writer's."""
    out = tmp_path / name
    killed = tmp_path / f".{name}.agentscan-4df6legq.tmp"
    fresh = tmp_path / f".{name}.agentscan-k2j4h5g6.tmp"
    other = tmp_path / ".other.csv.agentscan-4df6legq.tmp"
    for left in (killed, fresh, other):
        left.write_text("half an export")
    hour_ago = killed.stat().st_mtime - 3600
    os.utime(killed, (hour_ago, hour_ago))
    os.utime(other, (hour_ago, hour_ago))
    assert run("--demo", "export", "-o", str(out)).exit_code == 0
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == sorted(
        [other.name, fresh.name])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE stands in for a full disk")
def test_a_cache_the_disk_has_no_room_for_is_said(isolated_home: Path, tmp_path: Path) -> None:
    """The index's writes failed (a full disk, a quota, ``ulimit -f``) without a word: every
    cron run was then cold, and ``--strict`` passed."""
    from builders import claude_sessions

    def limited() -> None:
        import resource

        # Room to make the index, not to fill it (Python ignores SIGXFSZ: EFBIG).
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    claude_sessions(isolated_home, 400)  # more than 256 KiB of index to write
    done = subprocess.run([sys.executable, "-m", "agentscan", "--strict", "export", "-f", "csv", "-o", "-"],
                          capture_output=True, text=True, timeout=120, preexec_fn=limited)
    assert done.returncode == 1, done.stderr
    assert done.stdout.count("\n") == 401  # the export itself is whole
    said = " ".join(done.stderr.split())
    folder = tmp_path / "agentscan-cache"
    assert (f"cache not updated: the system refused a write (disk I/O error: a full disk, a quota or a size "
            f"limit); answers are not kept, so every run reads the files again: free space in {folder}") in said
    assert said.count("cache not updated") == 1


#: a run whose last check before the rename gets cron's SIGTERM (in a process of its own:
#: without the handler, the signal ends the process that gets it)
_TERMINATED_RUN = """
import os, signal, sys, time
from pathlib import Path
from agentscan.export.run import run_export
from agentscan.scan.listing import ListFilter
from agentscan.scan.scanner import Scanner

def terminated():
    os.kill(os.getpid(), signal.SIGTERM)  # (the handler runs at the next instruction)
    time.sleep(5)

with Scanner(use_cache=False) as scanner:
    try:
        run_export(scanner, sys.argv[1], Path(sys.argv[2]), filters=ListFilter(), before_rename=terminated)
    except BaseException as exc:  # a host program's catch-all: a SystemExit(143) was swallowed here
        print("caught", type(exc).__name__)
    print("went on")
"""


@pytest.mark.skipif(os.name == "nt", reason="SIGTERM is POSIX's")
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_sigterm_while_writing_leaves_no_temp_file_nor_lock(isolated_home: Path, tmp_path: Path, fmt: str) -> None:
    """Cron's ``timeout`` (SIGTERM) ended the process at once: its temp file, as big as the
    export, and the meeting lock's file were left behind.  Then (pass 51) it exited 143, which
    systemd counts as a failed unit and a caller's ``except BaseException`` swallowed: after
    the cleanup the process now dies by the signal, as it would have without the handler."""
    import signal

    from builders import claude_sessions

    claude_sessions(isolated_home, 2)
    out = tmp_path / f"idx.{fmt}"
    done = subprocess.run([sys.executable, "-c", _TERMINATED_RUN, fmt, str(out)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == -signal.SIGTERM, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert not out.exists() and [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []
    assert list((tmp_path / "agentscan-locks").iterdir()) == []


def test_the_sigterm_handler_is_put_back_after_an_export(isolated_home: Path, tmp_path: Path) -> None:
    import signal

    before = signal.getsignal(signal.SIGTERM)
    assert run("--demo", "export", "-o", str(tmp_path / "x.csv")).exit_code == 0
    assert signal.getsignal(signal.SIGTERM) is before


# -- export2: an older install's meeting lock, during an upgrade ------------------------------

def _older_meeting_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``/tmp/agentscan-<uid>/locks`` (here under a private stand-in for ``/tmp``), where an
    older agentscan met at ``export-<hash>.lock``, a file it made and kept."""
    shared = tmp_path / "tmp"
    folder = shared / f"agentscan-{os.getuid()}" / "locks"
    folder.mkdir(parents=True, mode=0o700)
    os.chmod(folder.parent, 0o700)
    monkeypatch.setattr("agentscan.toolkit.meetlock.MEETING_BASE", str(shared))
    monkeypatch.delenv("AGENTSCAN_LOCK_DIR")
    return folder


@posix
def test_an_older_install_s_meeting_lock_is_waited_for(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An upgrade while cron runs: the older agentscan's export (another cache dir) holds
    ``export-<hash>.lock`` in the meeting folder; this one took only ``meet-<hash>.lock`` and
    wrote the output beside it."""
    import fcntl

    folder = _older_meeting_folder(tmp_path, monkeypatch)
    out = tmp_path / "out.csv"
    older = folder / lock_path(out, os.environ).name
    fd = os.open(older, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (another open file: as another process's)
        result = run("--demo", "export", "-o", str(out), "--lock-timeout", "0.3")
        assert result.exit_code == 1, result.output
        assert f"another agentscan export of {out} is running (lock {older})" in " ".join(result.stderr.split())
        assert not out.exists()
    finally:
        os.close(fd)
    assert run("--demo", "export", "-o", str(out)).exit_code == 0
    assert older.exists()  # kept: an older run may be waiting on the file it opened
    assert sorted(path.name for path in folder.iterdir()) == [older.name]  # (no meet- file left)


@posix
def test_no_older_lock_file_none_is_made(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _older_meeting_folder(tmp_path, monkeypatch)
    assert run("--demo", "export", "-o", str(tmp_path / "out.csv")).exit_code == 0
    assert list(folder.iterdir()) == []


def test_the_older_lock_is_not_taken_twice_when_it_is_the_cache_s(tmp_path: Path) -> None:
    """A cache that cannot be written locks in the meeting folder under the older name: held
    already (a second flock of it would wait for itself)."""
    from agentscan.export.locks import legacy_meeting_path

    meeting = tmp_path / "locks" / "meet-abc.lock"
    assert legacy_meeting_path(meeting, tmp_path / "locks" / "export-abc.lock") is None
    assert legacy_meeting_path(meeting, tmp_path / "cache" / "locks" / "export-abc.lock") == \
        tmp_path / "locks" / "export-abc.lock"
    assert legacy_meeting_path(None, tmp_path / "cache" / "locks" / "export-abc.lock") is None


# -- export2: the cache's locks/ folder stays small ------------------------------------------

@posix
def test_stale_cache_lock_files_are_removed_held_and_fresh_ones_kept(isolated_home: Path, tmp_path: Path) -> None:
    """One ``export-<hash>.lock`` per output ever exported (a dated ``-o``) piled up in the
    cache's ``locks/``: those no run took for a week go, a held one or a recent one stays."""
    import fcntl
    import time

    out = tmp_path / "today.csv"
    folder = lock_path(out, os.environ).parent
    folder.mkdir(parents=True, exist_ok=True)
    week_ago = time.time() - 8 * 86_400
    names = {kind: folder / f"export-{digit * 32}.lock" for kind, digit in
             (("stale", "a"), ("held", "b"), ("recent", "c"))}
    for path in names.values():
        path.touch()
    for kind in ("stale", "held"):
        os.utime(names[kind], (week_ago, week_ago))
    other = folder / "notes.txt"  # (not a lock of ours: left)
    other.touch()
    os.utime(other, (week_ago, week_ago))
    fd = os.open(names["held"], os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (an export running now)
        assert run("--demo", "export", "-o", str(out)).exit_code == 0
    finally:
        os.close(fd)
    left = sorted(path.name for path in folder.iterdir())
    assert left == sorted([names["held"].name, names["recent"].name, lock_path(out, os.environ).name, other.name])
    own = lock_path(out, os.environ)
    os.utime(own, (week_ago, week_ago))
    assert run("--demo", "export", "-o", str(out)).exit_code == 0
    assert own.stat().st_mtime > week_ago + 86_400  # its own file marked used, not removed


# -- export2: an AGENTSCAN_LOCK_DIR that cannot be made is said ------------------------------

@posix
def test_a_lock_dir_that_cannot_be_made_is_said_and_fails_strict(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder the user named for the lock every run meets at (a typo under a file): the
    lock was silently not taken, and ``--strict`` passed."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    named = blocker / "locks"
    monkeypatch.setenv("AGENTSCAN_LOCK_DIR", str(named))
    out = tmp_path / "out.csv"
    result = run("--demo", "export", "-o", str(out))
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert f"{named}: AGENTSCAN_LOCK_DIR cannot be used for the lock every export of one output meets at" in said
    assert run("--demo", "--strict", "export", "-o", str(out)).exit_code == 1


@posix
def test_doctor_says_a_named_lock_dir_that_cannot_be_made(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Missing, under a folder this user may not write (``os.access`` stands in: root may)."""
    parent = tmp_path / "read-only"
    parent.mkdir()
    named = parent / "agentscan" / "locks"
    monkeypatch.setenv("AGENTSCAN_LOCK_DIR", str(named))
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if Path(path) == parent
                        else real_access(path, mode, **kw))
    locks = orjson.loads(run("doctor", "--json").stdout)["locks"]
    assert locks["problem"] == f"{named} cannot be made: {parent} cannot be written"
    assert run("--strict", "doctor").exit_code == 1
    monkeypatch.setattr(os, "access", real_access)
    assert orjson.loads(run("doctor", "--json").stdout)["locks"]["problem"] is None  # (made by the first export)
    assert run("--strict", "doctor").exit_code == 0
