"""A CODEX_SQLITE_HOME that holds no database yet, a relative AGENTSCAN_CACHE_DIR, and a
cache that cannot be written, each said plainly and alike (pass 43)."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner, Result

from agentscan.cli import app
from agentscan.scan import cachefile
from codex_builders import at, meta, rollout_path, turn_context, user_message, write_rollout

T1 = "019a0000-0000-7000-8000-0000000000a1"
UNWRITABLE = ("cache disabled: it cannot be written (permission denied); answers are not kept, "
              "so every run reads the files again (see `agentscan doctor`)")


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def a_codex_session(home: Path) -> None:
    started = at(1_780_000_000)
    write_rollout(rollout_path(home / ".codex", T1, started),
                  [meta(T1, started), turn_context(started), user_message(started, "hello")])


def codex_database(report: dict) -> dict:
    [database] = [root for provider in report["providers"] if provider["provider"] == "codex"
                  for root in provider["roots"] if root["kind"] == "database"]
    return database


# --- 1: CODEX_SQLITE_HOME naming a folder with no state_*.sqlite yet ------------------------

def test_a_readable_codex_sqlite_home_without_a_database_is_no_error(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a_codex_session(isolated_home)
    folder = tmp_path / "fresh-sqlite-home"
    folder.mkdir()
    monkeypatch.setenv("CODEX_SQLITE_HOME", str(folder))
    listed = run("list", "-p", "codex", "--json")
    assert listed.exit_code == 0, listed.output
    assert [row["native_id"] for row in orjson.loads(listed.stdout)["sessions"]] == [T1]
    assert "no readable root" not in listed.output
    database = codex_database(orjson.loads(run("doctor", "--json").stdout))
    assert (database["path"], database["source"], database["problem"]) == (
        str(folder / "state_*.sqlite"), "CODEX_SQLITE_HOME", "none found")


def test_a_codex_sqlite_home_that_does_not_exist_still_fails(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a_codex_session(isolated_home)
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("CODEX_SQLITE_HOME", str(missing))
    listed = run("list", "-p", "codex", "--json")
    assert listed.exit_code == 1
    assert f"Codex CLI: no readable root among {missing / 'state_*.sqlite'} (CODEX_SQLITE_HOME)" in listed.output
    assert codex_database(orjson.loads(run("doctor", "--json").stdout))["problem"] == "folder does not exist"


def test_a_codex_sqlite_home_that_cannot_be_listed_still_fails(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root lists any folder: the kernel's refusal of a mode-0 folder is simulated."""
    from agentscan.providers.codex import roots as codex_roots
    from agentscan.scan import doctor

    a_codex_session(isolated_home)
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setenv("CODEX_SQLITE_HOME", str(locked))

    def refuse(real):  # type: ignore[no-untyped-def]
        def call(path, *args, **kwargs):  # type: ignore[no-untyped-def]
            if os.fspath(path) == str(locked):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real(path, *args, **kwargs)
        return call

    monkeypatch.setattr(codex_roots.os, "scandir", refuse(os.scandir))
    monkeypatch.setattr(doctor.os, "listdir", refuse(os.listdir))
    assert run("list", "-p", "codex", "--json").exit_code == 1
    report = orjson.loads(run("doctor", "--json").stdout)
    assert codex_database(report)["problem"] == "folder cannot be listed: Permission denied"


# --- 2: a relative AGENTSCAN_CACHE_DIR ---------------------------------------------------

def test_a_relative_cache_dir_is_ignored_with_a_warning(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a_codex_session(isolated_home)
    default = tmp_path / "default-cache"
    monkeypatch.setattr("agentscan.toolkit.userdirs.user_cache_dir", lambda env=None: str(default))
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", "relative/cache")
    listed = run("list", "--json")
    assert listed.exit_code == 0, listed.output
    assert not (workdir / "relative").exists()
    assert (default / cachefile.FILE_NAME).is_file()
    warnings = orjson.loads(listed.stdout)["warnings"]
    assert {"path": "relative/cache",
            "message": "AGENTSCAN_CACHE_DIR is relative, so it was ignored (only absolute paths are used): "
                       f"the index is kept in {default}"} in warnings
    assert run("--strict", "list", "--json").exit_code == 1  # a warning, as a relative CODEX_HOME's is
    cache = orjson.loads(run("doctor", "--json").stdout)["cache"]
    assert (cache["path"], cache["source"], cache["ignored"]) == (
        str(default / cachefile.FILE_NAME), "default", "relative/cache")
    said = " ".join(run("doctor").stdout.split())
    assert ("note: AGENTSCAN_CACHE_DIR is a relative path (relative/cache), so it was ignored: each run would "
            "keep its index in another directory; set an absolute path") in said


def test_an_absolute_cache_dir_is_used_and_not_reported_ignored(isolated_home: Path) -> None:
    cache = orjson.loads(run("doctor", "--json").stdout)["cache"]
    assert (cache["source"], cache["ignored"], cache["problem"]) == ("AGENTSCAN_CACHE_DIR", None, None)
    assert cache["path"] == os.path.join(os.environ["AGENTSCAN_CACHE_DIR"], cachefile.FILE_NAME)


# --- 3: a cache that cannot be written ---------------------------------------------------

def deny_writing(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    """Root writes anywhere: ``access()`` saying no is simulated for ``paths``."""
    real_access = os.access
    denied = {str(path) for path in paths}
    monkeypatch.setattr(cachefile.os, "access", lambda path, mode, **kw: False if str(path) in denied and
                        mode & os.W_OK else real_access(path, mode, **kw))


def cache_messages(result: Result) -> list[str]:
    assert result.exit_code == 0, result.output
    return [w["message"] for w in orjson.loads(result.stdout)["warnings"] if "cache" in w["message"]]


def test_a_cache_folder_that_cannot_be_written_is_said_plainly(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "read-only-cache"
    folder.mkdir()
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(folder))
    deny_writing(monkeypatch, folder)
    real_open = os.open

    def refuse(path, flags, *args):  # type: ignore[no-untyped-def]  # the kernel's EACCES in a 0555 folder
        if os.fspath(path) == str(folder / cachefile.FILE_NAME):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(cachefile.os, "open", refuse)
    assert cache_messages(run("--demo", "list", "--json")) == [UNWRITABLE]
    cache = orjson.loads(run("doctor", "--json").stdout)["cache"]
    assert cache["problem"] == "cannot be written (permission denied)" and not cache["exists"]
    assert "(cannot be written (permission denied), 0 bytes, from AGENTSCAN_CACHE_DIR)" in " ".join(
        run("doctor").stdout.split())


def test_a_cache_file_that_cannot_be_written_is_said_as_the_folder_is(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run("--demo", "list").exit_code == 0  # the index, written
    index = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / cachefile.FILE_NAME
    deny_writing(monkeypatch, index)

    def read_only(path: Path) -> sqlite3.Connection:
        error = sqlite3.OperationalError("attempt to write a readonly database")
        error.sqlite_errorcode = 8  # type: ignore[attr-defined]  # SQLITE_READONLY, as SQLite sets it
        raise error

    monkeypatch.setattr(cachefile, "connect", read_only)
    assert cache_messages(run("--demo", "list", "--json")) == [UNWRITABLE]
    assert run("--strict", "--demo", "list", "--json").exit_code == 1  # still a warning (docs/cli.md)
    cache = orjson.loads(run("doctor", "--json").stdout)["cache"]
    assert cache["problem"] == "cannot be written (permission denied)" and cache["exists"]


def test_a_cache_folder_that_cannot_be_made_is_said_alike(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = tmp_path / "read-only-parent"
    parent.mkdir()
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(parent / "cache"))
    deny_writing(monkeypatch, parent)

    def refuse(path: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(cachefile, "make_private_dirs", refuse)
    assert cache_messages(run("--demo", "list", "--json")) == [
        "cache disabled: it cannot be written: its directory cannot be created (permission denied); answers are "
        "not kept, so every run reads the files again (see `agentscan doctor`)"]
    cache = orjson.loads(run("doctor", "--json").stdout)["cache"]
    assert cache["problem"] == "cannot be written: its directory cannot be created (permission denied)"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="root dropping its capabilities with setpriv")
def test_doctor_reports_a_codex_sqlite_home_it_may_not_enter_with_the_kernels_own_answer(
        isolated_home: Path, tmp_path: Path) -> None:
    """No simulation: root without CAP_DAC_OVERRIDE meets a mode-0 folder as any user does
    (``doctor`` ended in a PermissionError traceback from ``Path.exists``)."""
    a_codex_session(isolated_home)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0)
    env = {**os.environ, "CODEX_SQLITE_HOME": str(locked)}
    command = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", sys.executable, "-m", "agentscan"]
    try:
        done = subprocess.run([*command, "doctor", "--json"], capture_output=True, timeout=120, env=env)
        listed = subprocess.run([*command, "list", "-p", "codex", "--json"], capture_output=True, timeout=120, env=env)
    finally:
        locked.chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert codex_database(orjson.loads(done.stdout))["problem"] == "folder cannot be listed: Permission denied"
    assert listed.returncode == 1 and b"no readable root among" in listed.stderr
