"""Pass 51, an export's mend:

* ``-o /no/such/dir/x.csv`` read every session (5 s on a heavy home) before saying the folder
  does not exist: said before the scan.
* ``-o /dev/stdout | cat`` failed (``cannot write /dev/stdout``: its link leads to ``pipe:[N]``);
  into a ``>>`` file it replaced the file.  Written to stdout now, as ``-o -``.
* ``toolkit.lockdir``: ``locks_dir`` and ``doctor``'s ``lock_dir_problem`` built the same list
  of folders apart; one list now.
(SIGTERM: tests/test_export_locks_pass51.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

has_dev_stdout = pytest.mark.skipif(os.name == "nt" or not os.path.exists("/dev/stdout"), reason="no /dev/stdout")


def _no_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan.scanner import Scanner

    def scanned(*args: object, **kwargs: object) -> None:
        raise AssertionError("the sessions were read before the output's folder was checked")

    monkeypatch.setattr(Scanner, "all_rows", scanned)


def test_a_missing_output_folder_is_said_before_the_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_scan(monkeypatch)
    done = CliRunner().invoke(app, ["--demo", "export", "-o", str(tmp_path / "nope" / "x.csv")])
    assert done.exit_code == 1, done.output
    assert f"{tmp_path / 'nope'} does not exist" in done.output


def test_an_output_that_is_a_folder_is_said_before_the_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_scan(monkeypatch)
    (tmp_path / "out.csv").mkdir()
    done = CliRunner().invoke(app, ["--demo", "export", "-o", str(tmp_path / "out.csv")])
    assert done.exit_code == 1, done.output
    assert "is a directory; give a file path" in done.output


def _cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "agentscan", "--demo", *args], timeout=120, **kwargs)  # type: ignore[call-overload, no-any-return]


@has_dev_stdout
@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_dev_stdout_into_a_pipe_is_stdout(name: str) -> None:
    if not os.path.exists(name):
        pytest.skip(f"no {name}")
    done = _cli("export", "-f", "csv", "-o", name, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"id,") and done.stdout.count(b"\n") > 2
    assert b"cannot write" not in done.stderr


@has_dev_stdout
def test_dev_stdout_into_an_appended_file_adds_to_it(tmp_path: Path) -> None:
    """Written as a file, the export replaced what ``>>`` appends to (its link led to it)."""
    kept = tmp_path / "all.csv"
    kept.write_text("earlier\n")
    with open(kept, "ab") as handle:
        done = _cli("export", "-f", "csv", "-o", "/dev/stdout", stdout=handle, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    text = kept.read_text()
    assert text.startswith("earlier\nid,") and text.count("\n") > 3


@has_dev_stdout
def test_otlp_to_dev_stdout_into_a_pipe() -> None:
    done = _cli("otlp", "-o", "/dev/stdout", capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b'{"resourceSpans"')


def test_names_stdout_only_for_this_process_fd_1(tmp_path: Path) -> None:
    from agentscan.export.files import names_stdout

    assert not names_stdout(str(tmp_path / "stdout"))
    assert not names_stdout("/dev/stderr")
    assert not names_stdout("-")


def test_locks_dir_and_doctor_read_one_list_of_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import lockdir

    mine = tmp_path / "mine"
    monkeypatch.setattr(lockdir, "lock_folders", lambda env, temp: (None, [mine]))
    assert lockdir.locks_dir({}, str(tmp_path)) == mine and mine.is_dir()
    assert lockdir.lock_dir_problem({}, str(tmp_path)) == (str(mine), None)
    os.chmod(mine, 0o777)
    assert "can be entered or written by other users" in (lockdir.lock_dir_problem({}, str(tmp_path))[1] or "")


@pytest.mark.skipif(not os.path.isdir(f"/proc/{os.getpid()}/fd"), reason="Linux's /proc")
@pytest.mark.parametrize("command", [["export", "-f", "csv"], ["otlp"]])
def test_a_pipe_named_by_its_descriptor_is_written_into(command: list[str]) -> None:
    """bash's ``-o >(gzip > x.gz)`` gives ``/dev/fd/63``, a link to ``pipe:[N]``, no file:
    followed by name, ``cannot write /dev/fd/63: No such file or directory``."""
    read, write = os.pipe()
    done = subprocess.Popen([sys.executable, "-m", "agentscan", "--demo", *command, "-o", f"/dev/fd/{write}"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write)
    with os.fdopen(read, "rb") as reader:
        got = reader.read()
    _, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    assert got.count(b"\n") > 2


@pytest.mark.skipif(not os.path.isdir(f"/proc/{os.getpid()}/fd"), reason="Linux's /proc")
def test_only_this_process_descriptors_are_written_through(tmp_path: Path) -> None:
    from agentscan.toolkit.atomicfile import output_target

    read, write = os.pipe()
    try:
        mine = Path(f"/proc/self/fd/{write}")
        assert output_target(mine) == mine
        # A link to ``pipe:[N]`` anywhere else is no descriptor: followed as any link (to no file).
        fake = tmp_path / "fake"
        fake.symlink_to(os.readlink(mine))
        assert output_target(fake) == tmp_path / os.readlink(mine)
    finally:
        os.close(read)
        os.close(write)
