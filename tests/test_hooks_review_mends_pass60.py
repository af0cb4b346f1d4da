"""A review's findings on the hooks' by-hand fixes (pass 60): where a NaN is in a file with
comments, ``disableAllHooks`` in a file with a key twice, a masked command never offered as the
thing to write, the system files' note said once and with ``--home``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentscan.errors import HookConfigError
from agentscan.hooks import configjson, configreport
from builders import cli_json, invoke


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    return project


# --- where a NaN is, past comments -----------------------------------------------------------


@pytest.mark.parametrize("text, where", [
    ('{ // Infinity is never allowed here\n "hooks": {},\n "t": NaN\n}', "NaN is not JSON at line 3, column 7"),
    ('{ /* "it\'s" NaN */ "hooks": {}, // "\n "t": -Infinity}', "-Infinity is not JSON at line 2, column 7"),
    ('// a "quote\n{"t": [1, NaN]}', "NaN is not JSON at line 2, column 11"),
])
def test_a_word_in_a_comment_does_not_move_where_the_fault_is(tmp_path: Path, text: str, where: str) -> None:
    """Failed before: the word in the comment (line 1), or a quote in one read as a string's start."""
    path = tmp_path / "settings.json"
    path.write_text(text)
    assert configreport.config_report("gemini", "user", path)["problem"] == f"not valid JSON: {where}"
    with pytest.raises(HookConfigError) as refused:
        configjson.parse(path, text, "gemini")
    assert f"is not valid JSON ({where})" in str(refused.value)


# --- disableAllHooks in a file with a key twice ----------------------------------------------


def test_disable_all_hooks_beside_a_key_twice_is_warned_of_by_install(isolated_home: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the install read that file as it writes one (a key twice refused) and
    said nothing, while ``hooks status`` (as Claude Code reads it) reported the switch."""
    project = _project(tmp_path, monkeypatch)
    local = project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text('{"x": 1, "x": 2, "disableAllHooks": true}')
    (config,) = [c for c in cli_json("hooks", "status")["configs"] if c["path"] == str(local)]
    assert '"disableAllHooks": true' in config["problem"]
    result = invoke("hooks", "install", "claude")
    assert result.exit_code == 0, result.stderr
    assert f'warning: {local}: "disableAllHooks": true here turns off every Claude Code hook' in result.stderr


# --- a masked command is never the thing to write --------------------------------------------


def test_missing_events_of_a_commented_file_are_copied_not_written_from_a_masked_command(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "add agentscan's entry (`… https://***@otel.example/… `) to them by hand":
    pasted, that endpoint sends nowhere."""
    _project(tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path))
    from agentscan.hooks.program import hook_command

    command = hook_command("gemini") + " --otlp-endpoint https://user:s3cr3t@otel.example/v1/traces?token=abc123"
    user = isolated_home / ".gemini" / "settings.json"
    user.parent.mkdir(parents=True)
    entry = {"hooks": [{"type": "command", "command": command}]}
    user.write_text("// mine\n" + json.dumps({"hooks": {"AfterTool": [entry]}}, indent=2) + "\n")
    note = _config("gemini", "user")["note"]
    assert f"edit {user} by hand to copy agentscan's entry on AfterTool to them (`agentscan hooks install`" in note
    assert "add agentscan's entry" not in note and "s3cr3t" not in note


def _config(agent: str, scope: str, *flags: str) -> dict[str, Any]:
    (config,) = [c for c in cli_json(*flags, "hooks", "status")["configs"] if c["agent"] == agent and c["scope"] == scope]
    return config


# --- Gemini CLI's system files: said once, with --home ---------------------------------------


def _system_entry(tmp_path: Path) -> Path:
    system = tmp_path / "gemini-system-settings.json"  # (where the test's isolation puts it: ``conftest``)
    system.write_text(json.dumps({"hooks": {"AfterTool": [{"hooks": [
        {"type": "command", "command": "/opt/bin/agentscan hook --agent gemini"}]}]}}))
    return system


def test_both_scopes_beside_a_system_entry_are_told_once_to_uninstall_both(isolated_home: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: each scope's note offered its own uninstall alone, which leaves the other's
    equal entry running beside the system file's."""
    project = _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    assert invoke("hooks", "install", "gemini", "--scope", "project").exit_code == 0
    system = _system_entry(tmp_path)
    user, here = _config("gemini", "user"), _config("gemini", "project")
    assert here["note"] is None or str(system) not in here["note"]
    assert user["note"].endswith(
        f"edit {system} by hand to remove agentscan's entry (`/opt/bin/agentscan hook --agent gemini`) (`agentscan "
        "hooks install` and `uninstall` will not change it: it is Gemini CLI's system settings, an administrator's "
        f"file), or run `agentscan hooks uninstall gemini`, then `agentscan hooks uninstall gemini --scope project` "
        f"in {project}"), user["note"]
    assert user["note"].count(str(system)) == 2


def test_the_system_files_note_and_a_reinstall_keep_the_home_given(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: `agentscan hooks uninstall gemini` (and `hooks install gemini` again) without
    the ``--home`` status was given: run so, they change the real home's config."""
    _project(tmp_path, monkeypatch)
    home = tmp_path / "other home"
    home.mkdir()
    assert invoke("--home", str(home), "hooks", "install", "gemini").exit_code == 0
    system = _system_entry(tmp_path)
    note = _config("gemini", "user", "--home", str(home))["note"]
    assert note.endswith(f"or run `agentscan hooks uninstall gemini --home '{home}'`"), note
    assert str(system) in note
    path = home / ".gemini" / "settings.json"
    config = json.loads(path.read_text())
    del config["hooks"]["BeforeTool"]
    path.write_text(json.dumps(config))
    note = _config("gemini", "user", "--home", str(home))["note"]
    assert f"run `agentscan hooks install gemini --home '{home}'` again to add it" in note, note


# --- an endpoint without a scheme ------------------------------------------------------------


@pytest.mark.parametrize("written, shown", [
    ("--otlp-endpoint=otel.example:4318/v1/traces?k=SECRET", "--otlp-endpoint=otel.example:4318/v1/traces?***"),
    ("--otlp-endpoint user:SECRET@otel.example/v1", "--otlp-endpoint ***@otel.example/v1"),
    ("--otlp-endpoint 'otel.example/v1?api=SECRET' --x", "--otlp-endpoint 'otel.example/v1?***' --x"),
    ("--otlp-endpoint https://u:SECRET@otel.example/v1?t=1", "--otlp-endpoint https://***@otel.example/v1?***"),
])
def test_an_endpoint_written_without_a_scheme_is_masked(written: str, shown: str) -> None:
    """Failed before: no scheme, no URL to mask, so its key was shown."""
    from agentscan.otlp.endpoint import shown_command

    assert shown_command(f"/bin/agentscan hook --agent gemini {written}") == f"/bin/agentscan hook --agent gemini {shown}"


# --- Gemini CLI's system settings replacing every file's hooks -------------------------------


@pytest.mark.parametrize("value", [None, [], "off"])
def test_hooks_that_are_no_object_in_the_system_settings_leave_none_of_the_others(
        isolated_home: Path, tmp_path: Path, value: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "8/8 events" and no problem, though Gemini CLI's merge puts that value in
    place of every earlier file's hooks (only two objects are merged)."""
    _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    system = tmp_path / "gemini-system-settings.json"
    system.write_text(json.dumps({"hooks": value}))
    problem = _config("gemini", "user")["problem"]
    assert problem == (f'"hooks": {json.dumps(value)} in {system} takes the place of the hooks of every settings file '
                       "Gemini CLI merges before it, agentscan's too, so nothing is captured; make it an object (or "
                       "remove it) to capture"), problem
    # merged first, the system defaults' are replaced by the user's: nothing said
    system.unlink()
    (tmp_path / "system-defaults.json").write_text(json.dumps({"hooks": value}))
    assert _config("gemini", "user")["problem"] is None
