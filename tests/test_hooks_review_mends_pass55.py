"""A review of pass 55's hooks work (the events store the hook cannot write; the lock around
a torn line's check), mended:

* ``store_problem``: an events folder that cannot be searched (``X_OK``) loses every event,
  the stored sessions' too, and was said to lose only new sessions' events;
* ``doctor --strict`` judged folders no installed hook writes to (only Claude's hook
  installed, ``events/cursor`` read-only: exit 1; ``events/`` root's but ``events/claude``
  the user's: exit 1 though a new Claude session is stored fine);
* ``hooks install cursor --dry-run`` showed its plan without a word of the store problem
  the real install refuses on;
* ``lineends.locked`` waited 50 tries of a 1 ms sleep, not 50 ms (56-222 ms under load).

The tests run as root: the folders' access is faked (``os.access``), as
test_hooks_store_unwritable_pass55.py does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builders import cli_json, invoke


def refuse(monkeypatch: pytest.MonkeyPatch, mode: int, *folders: Path) -> list[str]:
    """``os.access`` says no to ``mode`` (``os.W_OK``, ``os.X_OK``) for exactly these folders.
    Never ``monkeypatch.undo()`` instead: that undoes the isolated home too."""
    real = os.access
    refused = [str(folder) for folder in folders]

    def access(path: object, asked: int, *args: object, **kwargs: object) -> bool:
        if asked & mode and os.fspath(path) in refused:  # type: ignore[call-overload]
            return False
        return real(path, asked, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    return refused


@pytest.fixture
def data_dir(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(isolated_home)
    root = tmp_path / "mount" / "agentscan"
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(root))
    return root


def problem() -> str | None:
    return cli_json("hooks", "status")["store"]["problem"]


def test_a_store_folder_that_cannot_be_searched_loses_every_event(data_dir: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``events/`` root's and 0700, the hook another user's: the stored sessions' files are out
    of reach too, not only a new session's."""
    (data_dir / "events" / "claude").mkdir(parents=True)
    refuse(monkeypatch, os.X_OK, data_dir / "events")
    said = problem()
    assert said is not None and "every event is lost" in said, said
    assert "not stored there yet" not in said


def test_an_agent_folder_that_cannot_be_searched_loses_every_event(data_dir: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (data_dir / "events" / "claude").mkdir(parents=True)
    refuse(monkeypatch, os.X_OK, data_dir / "events" / "claude")
    said = problem()  # (no hook installed: both agents judged, and only Claude Code's meets it)
    assert said is not None and "every Claude Code event is lost" in said, said


def test_a_store_folder_that_cannot_be_written_loses_every_event_of_an_agent_without_its_folder(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (data_dir / "events").mkdir(parents=True)
    refuse(monkeypatch, os.W_OK, data_dir / "events")
    said = problem()
    assert said is not None and "every event is lost" in said, said


def test_strict_doctor_judges_only_the_installed_agents_folders(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only Claude's hook installed: ``events/cursor`` read-only loses nothing."""
    for agent in ("claude", "cursor"):
        (data_dir / "events" / agent).mkdir(parents=True)
    assert invoke("hooks", "install", "claude").exit_code == 0
    refuse(monkeypatch, os.W_OK | os.X_OK, data_dir / "events" / "cursor")
    assert problem() is None
    assert invoke("--strict", "doctor").exit_code == 0


def test_strict_doctor_passes_a_root_s_store_folder_holding_the_user_s_agent_folder(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``events/`` root's 0755, ``events/claude`` the user's: a new Claude session is stored fine."""
    (data_dir / "events" / "claude").mkdir(parents=True)
    assert invoke("hooks", "install", "claude").exit_code == 0
    refuse(monkeypatch, os.W_OK, data_dir / "events")
    assert problem() is None
    assert invoke("--strict", "doctor").exit_code == 0


def test_strict_doctor_fails_on_an_installed_agent_s_folder_and_names_the_agent(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for agent in ("claude", "cursor"):
        (data_dir / "events" / agent).mkdir(parents=True)
        assert invoke("hooks", "install", agent).exit_code == 0
    refuse(monkeypatch, os.W_OK, data_dir / "events" / "claude")
    said = problem()
    assert said == (f"the hook cannot write in {data_dir / 'events' / 'claude'} (the events of a Claude Code "
                    "session not stored there yet are lost, each one said in hook-errors.log)")
    strict = invoke("--strict", "doctor")
    assert strict.exit_code == 1 and said in " ".join(strict.stderr.split())


def test_a_dry_run_install_says_the_store_problem_the_install_refuses_on(data_dir: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (data_dir / "events" / "cursor").mkdir(parents=True)
    refuse(monkeypatch, os.W_OK, data_dir / "events" / "cursor")
    assert invoke("hooks", "install", "cursor").exit_code == 1
    dry = invoke("hooks", "install", "cursor", "--dry-run")
    assert dry.exit_code == 0, dry.output
    said = " ".join(dry.stderr.split())
    assert f"the hook cannot write in {data_dir / 'events' / 'cursor'}" in said, dry.stderr
    assert "the install would be refused" in said


def test_the_torn_line_check_waits_for_the_lock_by_the_clock_not_by_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine: each 1 ms sleep lasts 4 ms.  50 tries waited 200 ms; the deadline 50 ms."""
    import fcntl
    import time

    from agentscan.hooks import lineends

    clock = [100.0]

    def held(fd: int, operation: int) -> None:
        raise BlockingIOError

    def sleep(seconds: float) -> None:
        clock[0] += max(seconds, 0.001) * 4

    monkeypatch.setattr(fcntl, "flock", held)
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(time, "sleep", sleep)
    assert lineends.locked(0) is False
    assert clock[0] - 100.0 <= 0.05 + 0.004 + 1e-9
