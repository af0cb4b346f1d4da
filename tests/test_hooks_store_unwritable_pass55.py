"""An events store the hook cannot write (pass 55): a data directory on a read-only mount, or
made by another user, lost every event, and the hook, which must stay silent, could not even
log why; ``doctor`` said "not created yet" and "hook errors: none logged", and ``trace`` said
to restart the agent.  Now ``doctor``/``hooks status`` name the problem, ``doctor --strict``
fails on it while hooks are installed, and ``trace`` says it instead of "restart".

The tests run as root here (permissions do not stop root), so the folders' access is faked
(``os.access``) for the ones a read-only mount would refuse (a test of real modes would be
skipped as root, in CI always: none is kept).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan.hooks import capture
from builders import cli_json, invoke


def said(*args: str) -> str:
    return " ".join(invoke(*args).output.split())


def read_only(monkeypatch: pytest.MonkeyPatch, *folders: Path) -> list[str]:
    """``os.access`` says no write for these folders (and what is under them), as on a read-only
    mount; the list returned is the folders refused (emptied: the mount is writable again).
    Never ``monkeypatch.undo()`` instead: that undoes the isolated home too."""
    real = os.access
    refused = [str(folder) for folder in folders]

    def access(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        text = os.fspath(path)  # type: ignore[call-overload]
        if mode & os.W_OK and any(text == folder or text.startswith(folder + os.sep) for folder in refused):
            return False
        return real(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    return refused


@pytest.fixture
def data_dir(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(isolated_home)
    mount = tmp_path / "mount"
    mount.mkdir()
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(mount / "agentscan"))
    return mount / "agentscan"


def test_a_store_that_cannot_be_created_is_a_problem_doctor_and_trace_name(data_dir: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    assert cli_json("hooks", "status")["store"]["problem"] is None
    refused = read_only(monkeypatch, data_dir.parent)
    problem = cli_json("hooks", "status")["store"]["problem"]
    assert problem == (f"the hook cannot create {data_dir}: {data_dir.parent} cannot be written "
                       "(every event is lost, and hook-errors.log cannot say so)")
    assert cli_json("doctor")["hooks"]["store"]["problem"] == problem
    assert f"problem: {problem}" in said("doctor")
    assert invoke("--strict", "doctor").exit_code == 0  # no hook installed: nothing is lost yet
    saved = refused[:]
    refused.clear()  # installed while the store could be written (made for the install's record), then lost
    assert invoke("hooks", "install", "claude").exit_code == 0
    shutil.rmtree(data_dir)
    refused += saved
    strict = invoke("--strict", "doctor")
    assert strict.exit_code == 1 and problem in strict.stderr
    for args in (("trace", "--list"), ("trace", "abcdef12")):
        text = said(*args)
        assert f"agentscan's hook is installed for Claude Code, but {problem}" in text, text
        assert "restart" not in text


def test_an_agent_folder_that_cannot_be_written_loses_new_sessions(data_dir: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    capture.capture(str(data_dir), "claude", orjson.dumps({"session_id": "s-1", "hook_event_name": "SessionStart"}), 1)
    assert cli_json("hooks", "status")["store"]["problem"] is None
    folder = data_dir / "events" / "claude"
    read_only(monkeypatch, folder)
    assert cli_json("hooks", "status")["store"]["problem"] == (
        f"the hook cannot write in {folder} (the events of a Claude Code session not stored there yet are lost, "
        "each one said in hook-errors.log)")


def test_a_file_where_the_store_should_be_is_a_problem(data_dir: Path) -> None:
    data_dir.write_text("")  # AGENTSCAN_DATA_DIR naming a file: "not created yet" before
    assert cli_json("hooks", "status")["store"]["problem"] == (
        f"the hook cannot store events in {data_dir}: not a directory (every event is lost, "
        "and hook-errors.log cannot say so)")
    data_dir.unlink()
    data_dir.mkdir()
    (data_dir / "events").write_text("")
    assert cli_json("hooks", "status")["store"]["problem"] == (
        f"the hook cannot store events in {data_dir / 'events'}: not a directory (every event is lost, "
        "each one said in hook-errors.log)")


def test_a_hook_error_log_that_cannot_be_read_is_not_none_logged(data_dir: Path) -> None:
    (data_dir / "hook-errors.log").mkdir(parents=True)  # (root reads any file: a folder stands in for one it may not)
    errors = cli_json("hooks", "status")["errors"]
    assert errors["last"] == [] and errors["problem"] == "cannot read: not a regular file (a directory)"
    text = said("doctor")
    assert f"hook errors: {data_dir / 'hook-errors.log'}: cannot read: not a regular file (a directory)" in text
    assert "none logged" not in text
    (data_dir / "hook-errors.log").rmdir()
    assert cli_json("hooks", "status")["errors"]["problem"] is None
    assert "hook errors: none logged" in said("hooks", "status")


def test_the_demo_store_is_never_a_problem(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.demo import demo_events

    read_only(monkeypatch, Path(demo_events()).parent)  # the package installed where no user writes
    assert cli_json("--demo", "hooks", "status")["store"]["problem"] is None
    assert "problem:" not in said("--demo", "doctor")


def test_an_install_whose_hook_could_store_nothing_is_refused_before_the_config_changes(
        data_dir: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It wrote the config, then failed to record it in the data directory: `error: cannot change
    …/settings.json (Permission denied: …/hook-dirs.json…)`, exit 1, with the hooks installed."""
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{}\n")
    read_only(monkeypatch, data_dir.parent)
    result = invoke("hooks", "install", "claude")
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert f"the hook cannot create {data_dir}: {data_dir.parent} cannot be written" in message
    assert message.endswith("then run this command again; nothing was changed")
    assert settings.read_text() == "{}\n" and [p.name for p in settings.parent.iterdir()] == ["settings.json"]
    assert invoke("hooks", "install", "claude", "--dry-run").exit_code == 0  # the plan is still shown


def test_another_agent_s_folder_does_not_stop_an_install(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for agent in ("claude", "cursor"):
        (data_dir / "events" / agent).mkdir(parents=True)
    read_only(monkeypatch, data_dir / "events" / "cursor")
    assert invoke("hooks", "install", "claude").exit_code == 0
    assert cli_json("hooks", "status")["store"]["problem"] is None  # (no installed hook writes there: a review)
    assert invoke("hooks", "install", "cursor").exit_code == 1


def test_a_record_that_cannot_be_kept_after_the_change_says_the_config_changed(
        data_dir: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("agentscan.hooks.made_dirs.remember_config", full)
    result = invoke("hooks", "install", "claude")
    assert result.exit_code == 1
    settings = isolated_home / ".claude" / "settings.json"
    assert f"{settings} was changed, but agentscan could not record so in its data directory" in \
        " ".join(result.stderr.split())
    assert "hook --agent claude" in settings.read_text()
