"""``agentscan hooks status``: the hooks part of ``doctor``, alone (a gh/git user typed it and
got ``No such command 'status'``).  It must say what ``doctor`` says, from the same report."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.doctor_text import HOOKS_OPTIONAL, size_text
from agentscan.hooks import store

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def status_json(*args: str) -> dict:
    code, out, err = run(*args, "hooks", "status", "--json")
    assert code == 0, err
    return json.loads(out)


def test_not_installed_says_what_to_run_and_exits_0() -> None:
    code, out, _err = run("hooks", "status")
    assert code == 0
    assert out.startswith(f"hooks:\n  {HOOKS_OPTIONAL}\n  to install, for each agent you use, run:\n"
                          "    agentscan hooks install claude\n    agentscan hooks install cursor\n")
    assert "events store: " in out and "not created yet" in out
    assert out.endswith("  hook errors: none logged\n")


def test_an_install_is_shown_with_its_scope_events_and_file(isolated_home: Path) -> None:
    assert run("hooks", "install", "claude", "--quiet")[0] == 0
    code, out, _err = run("hooks", "status")
    settings = isolated_home / ".claude" / "settings.json"
    assert code == 0
    assert "claude  user   21/21 events  " + str(settings) in out
    assert "not installed" not in out
    report = status_json()
    assert [(c["agent"], c["scope"], c["events"], c["path"]) for c in report["installed"]] == [
        ("claude", "user", 21, str(settings))]


def test_a_project_scope_install_is_shown_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert run("hooks", "install", "cursor", "--scope", "project", "--quiet")[0] == 0
    report = status_json()
    assert [(c["agent"], c["scope"], c["path"]) for c in report["installed"]] == [
        ("cursor", "project", str(project / ".cursor" / "hooks.json"))]


def test_json_is_doctors_hooks_object(isolated_home: Path) -> None:
    """One report, not two: ``doctor``'s own ``hooks`` (unredacted), under its own schema."""
    data = Path(os.environ["AGENTSCAN_DATA_DIR"])
    store.append_event(str(data), "cursor", "conv-1", b'{"v":1}\n')
    (data / store.DIAGNOSTICS_LOG).write_text("2026-11-30T10:00:00Z agent=cursor problem 1\n")
    run("hooks", "install", "claude", "--quiet")
    status = status_json()
    code, out, _err = run("doctor", "--json", "--no-redact")
    assert code == 0
    assert status.pop("schema") == "agentscan.hooks_status/1"
    assert status.pop("warnings") == []
    assert status.pop("no_hooks") == []  # its own line's (pass 43): no Codex or Gemini session here
    assert status == json.loads(out)["hooks"]


def test_the_store_says_its_size_in_bytes() -> None:
    data = Path(os.environ["AGENTSCAN_DATA_DIR"])
    store.append_event(str(data), "claude", "s-1", b'{"v":1,"a":"' + b"x" * 1500 + b'"}\n')
    store.append_event(str(data), "cursor", "c-1", b'{"v":1}\n')
    expected = sum(path.stat().st_size for path in (data / store.EVENTS_DIR).rglob("*") if path.is_file())
    assert expected > 1500
    assert status_json()["store"]["bytes"] == expected
    out = run("hooks", "status")[1]
    assert f"2 sessions (claude 1, cursor 1), {size_text(expected)}\n" in out
    assert "from AGENTSCAN_DATA_DIR" in out
    # doctor's own report says it too, from the same lines
    assert f"2 sessions (claude 1, cursor 1), {size_text(expected)}\n" in run("doctor")[1]


def test_the_last_hook_errors_are_shown() -> None:
    data = Path(os.environ["AGENTSCAN_DATA_DIR"])
    data.mkdir(parents=True)
    (data / store.DIAGNOSTICS_LOG).write_text("".join(f"2026-11-30T10:00:0{i}Z agent=cursor problem {i}\n"
                                                      for i in range(8)))
    code, out, _err = run("hooks", "status")
    assert code == 0
    assert "last hook errors (" in out and "problem 7" in out and "problem 2" not in out  # the last five
    assert len(status_json()["errors"]["last"]) == 5


def test_demo_reads_the_demos_own_store_never_yours() -> None:
    data = Path(os.environ["AGENTSCAN_DATA_DIR"])
    store.append_event(str(data), "cursor", "mine", b'{"v":1}\n')
    report = status_json("--demo")
    assert report["store"]["source"] == "--demo" and report["store"]["path"] != str(data)
    assert report["store"]["sessions"] >= 1 and "cursor" not in report["store"]["by_agent"]
    code, out, _err = run("--demo", "hooks", "status")
    assert code == 0 and "not installed in the demo home" in out and "(from --demo)" in out


def test_home_is_where_the_user_configs_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "old-laptop"
    (other / ".cursor").mkdir(parents=True)
    assert run("--home", str(other), "hooks", "install", "cursor", "--quiet")[0] == 0
    assert status_json()["installed"] == []
    assert [c["path"] for c in status_json("--home", str(other))["installed"]] == [str(other / ".cursor" / "hooks.json")]
    code, _out, err = run("hooks", "status", "--home", str(tmp_path / "no-such-home"))
    assert code == 1 and "no such directory" in err  # a --home that is no directory: an error, as for install
    # The install it suggests reads the same home, named absolutely (run elsewhere, a relative one is another).
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    out = run("hooks", "status", "--home", "empty")[1]
    assert f"    agentscan hooks install claude --home {tmp_path / 'empty'}\n" in out


def test_hooks_help_lists_status_and_its_examples() -> None:
    code, out, _err = run("hooks", "--help")
    assert code == 0 and "  status " in out
    code, out, _err = run("hooks", "status", "--help")
    examples = out.split("\nExamples:\n", 1)[1].splitlines()
    assert code == 0 and 2 <= len(examples) <= 4 and all(line.startswith("  agentscan ") for line in examples)
    assert "--json" in out and "--home DIR" in out and "--demo" in out and "--no-cache" not in out


@pytest.mark.parametrize("count, said", [
    (0, "0 bytes"), (1, "1 byte"), (999, "999 bytes"), (1000, "1.0 kB"), (41_234, "41.2 kB"),
    (999_949, "999.9 kB"), (999_950, "1.0 MB"), (12_345_678, "12.3 MB"), (1_400_000_000, "1.4 GB"),
])
def test_size_text(count: int, said: str) -> None:
    assert size_text(count) == said
