"""`doctor` as a reviewer pasted it: the hook hint is real commands, one an agent (no
``cursor|claude``, which a shell reads as a pipe); each kind of warning names the files it
came from, with the command that prints every one; a status is never cut to fit."""

from __future__ import annotations

import shlex
from pathlib import Path

import orjson
from typer.testing import CliRunner, Result

from agentscan.cli import app
from agentscan.cli.doctor_text import HOOK_COLUMNS, ROOT_COLUMNS, _fitted
from agentscan.cli.term import Terminal, width_of
from builders import claude_assistant, claude_usage, claude_user
from hooks_builders import write_json

SESSIONS = [f"5e55{index:04d}-0000-4000-8000-000000000000" for index in range(5)]


def doctor(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def claude_with_bad_lines(home: Path, sessions: list[str] = SESSIONS) -> list[Path]:
    """A Claude session per id, each with one line that is not JSON between two that are."""
    paths = []
    for index, session in enumerate(sessions):
        path = home / ".claude" / "projects" / "-home-dev-project" / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        ts = f"2026-11-0{index + 1}T10:00:00.000Z"
        good = [claude_user(session, ts, "hi"),
                claude_assistant(session, ts, msg_id=f"m{index}", request_id=f"r{index}", usage=claude_usage(3, 4))]
        path.write_bytes(orjson.dumps(good[0]) + b"\n{not json\n" + orjson.dumps(good[1]) + b"\n")
        paths.append(path)
    return paths


def pasted(out: str, prefix: str) -> list[str]:
    """The lines of ``out`` that are a command starting with ``prefix``, as pasted."""
    return [line.strip() for line in out.splitlines() if line.strip().startswith(prefix)]


# --- 1: the hook hint is one real command an agent ---------------------------------------


def test_the_hook_hint_is_a_command_for_the_agent_whose_sessions_are_here(isolated_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "my home"
    claude_with_bad_lines(home, SESSIONS[:1])
    out = doctor("--home", str(home), "doctor").stdout
    assert "|" not in "".join(pasted(out, "agentscan hooks")) and "cursor|claude" not in out
    [command] = pasted(out, "agentscan hooks install")
    # Pasted into a shell it is one command for that home (the space in its name quoted).
    assert shlex.split(command) == ["agentscan", "hooks", "install", "claude", "--home", str(home)]
    assert "`" not in command


def test_with_no_session_the_hint_has_a_command_for_each_agent(isolated_home: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = doctor("--home", str(empty), "doctor").stdout
    assert [shlex.split(command)[3] for command in pasted(out, "agentscan hooks install")] == ["claude", "cursor",
                                                                                                "gemini"]
    # The home of the environment: no --home, which would name another.
    out = doctor("doctor").stdout
    assert pasted(out, "agentscan hooks install") == ["agentscan hooks install claude",
                                                      "agentscan hooks install cursor",
                                                      "agentscan hooks install gemini"]


# --- 2: a warning's files, and the command that prints every warning -------------------------


def test_each_kind_of_warning_names_its_files_and_the_command_that_shows_them_all(isolated_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "h"
    files = claude_with_bad_lines(home)
    out = doctor("--home", str(home), "doctor").stdout
    lines = out.splitlines()
    start = next(index for index, line in enumerate(lines) if "warning: 5 × invalid JSON skipped" in line)
    assert lines[start] == "  warning: 5 × invalid JSON skipped, in 5 files:"
    named = [line.strip() for line in lines[start + 1:start + 4]]
    assert len(named) == 3 and set(named) <= {str(path) for path in files}
    assert lines[start + 4] == "    … and 2 more files"
    [command] = pasted(out, "agentscan list -v")
    assert shlex.split(command) == ["agentscan", "list", "-v", "--provider", "claude", "--home", str(home)]
    # What it points at is there: every warning, each with its file and line, on stderr.
    shown = CliRunner().invoke(app, shlex.split(command)[1:])
    assert shown.exit_code == 0
    for path in files:
        assert f"warning: {path}:2: invalid JSON skipped" in shown.stderr


def test_the_json_report_adds_each_kind_s_files(isolated_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "h"
    files = claude_with_bad_lines(home, SESSIONS[:2])
    report = orjson.loads(doctor("--home", str(home), "doctor", "--json").stdout)
    claude = next(provider for provider in report["providers"] if provider["provider"] == "claude")
    assert claude["warnings"] == {"invalid JSON skipped": 2}  # as it was
    assert sorted(claude["warning_files"]["invalid JSON skipped"]) == sorted(str(path) for path in files)
    assert all(provider["warning_files"] == {} for provider in report["providers"] if provider["provider"] != "claude")


# --- 3: a status stays whole ---------------------------------------------------------------


def test_at_60_columns_a_status_is_whole_and_so_is_a_path(tty, isolated_home: Path, tmp_path: Path) -> None:  # noqa: ANN001
    tty(60)
    home = tmp_path / "a-home-whose-path-is-long" / "deeper"
    claude_with_bad_lines(home, SESSIONS[:1])
    lines = doctor("--home", str(home), "doctor").stdout.splitlines()
    rows = [line for line in lines if line.startswith(("  sessions ", "  index ", "  database "))]
    missing = [row for row in rows if "does not exist" in row]
    assert len(missing) >= 3 and not any("does not ex…" in line for line in lines), rows
    assert all(width_of(row) <= 60 for row in rows), rows
    # A path too long for its column is under its row, whole (pass 41: cut in its middle,
    # ``/tmp/…/claude/projects``, it could not be copied).
    assert not any("…" in line for line in lines), lines
    assert f"      {home}/.config/claude/projects" in lines


def test_too_narrow_for_the_table_each_root_is_said_whole() -> None:
    status = "cannot list: Permission denied"
    rows = [["sessions", status, "CLAUDE_CONFIG_DIR", "/srv/agents/claude/projects"]]
    lines = _fitted(ROOT_COLUMNS, rows, Terminal(tty=True, width=60, color=False),
                    lambda row: f"{row[0]}: {row[1]} (from {row[2]}): {row[3]}")
    text = " ".join(line.strip() for line in lines)
    assert text == f"sessions: {status} (from CLAUDE_CONFIG_DIR): /srv/agents/claude/projects"
    assert all(width_of(line) <= 60 for line in lines)
    table = _fitted(HOOK_COLUMNS, [["claude", "user", "not installed", "/p"]], Terminal(tty=True, width=60, color=False),
                    lambda row: "")
    assert table[0].split() == ["AGENT", "SCOPE", "STATE", "CONFIG"]


def test_a_hook_config_s_problem_is_said_whole_under_its_table(tty, isolated_home: Path, tmp_path: Path) -> None:  # noqa: ANN001
    tty(80)
    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{bad")
    write_json(home / ".cursor" / "hooks.json", {"hooks": {}})
    lines = doctor("--home", str(home), "doctor").stdout.splitlines()
    row = next(line for line in lines if line.startswith("  claude  user"))
    assert "not installed, see below" in row and "…" not in row.split("below")[0]
    start = next(index for index, line in enumerate(lines) if line.startswith("  problem:"))
    said = " ".join(line.strip() for line in lines[start:start + 4])
    assert "not valid JSON: expecting property name enclosed in double quotes at line 1, column 2" in said


def test_a_setting_s_warning_names_no_file(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    # Its "path" is the setting's value: "in 1 file: relative" sent the reader looking for one.
    monkeypatch.setenv("CODEX_HOME", "relative")
    home = tmp_path / "h"
    home.mkdir()
    report = orjson.loads(doctor("--home", str(home), "doctor", "--json").stdout)
    codex = next(provider for provider in report["providers"] if provider["provider"] == "codex")
    [kind] = codex["warnings"]
    assert codex["warning_files"] == {kind: []}
    out = doctor("--home", str(home), "doctor").stdout
    assert f"  warning: 1 × {kind}\n" in out and "agentscan list -v" not in out


def test_the_newest_session_is_one_list_would_show_not_an_empty_file(isolated_home: Path) -> None:
    # An empty transcript's mtime is now: it was named "newest", though `list` leaves it out.
    claude_with_bad_lines(isolated_home, SESSIONS[:1])
    empty = isolated_home / ".claude" / "projects" / "-home-dev-project" / "eeee0000-0000-4000-8000-000000000000.jsonl"
    empty.write_bytes(b"")
    claude = next(p for p in orjson.loads(doctor("doctor", "--json").stdout)["providers"] if p["provider"] == "claude")
    assert claude["sessions"] == 2  # files found: both
    assert claude["newest"]["id"] == f"claude:{SESSIONS[0]}"
