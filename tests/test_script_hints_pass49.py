"""Pass 49 (a script author's report): the command a "no sessions found" hint suggests reads
the home the command read: ``agentscan --home DIR doctor`` (the dir quoted for the shell), as
``show``'s does; a bare ``agentscan doctor`` inspected ``$HOME``."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke


@pytest.mark.parametrize("command", [["list"], ["tokens"], ["export", "-f", "csv"], ["list", "-p", "codex"],
                                     ["tokens", "-p", "codex"]])
def test_no_sessions_found_suggests_doctor_of_the_home_read(tmp_path: Path, command: list[str]) -> None:
    empty = tmp_path / "empty home"
    empty.mkdir()
    result = invoke("--home", str(empty), *command)
    assert result.exit_code == 0, result.output
    assert f"`agentscan --home {shlex.quote(str(empty))} doctor` shows where agentscan looked" in result.stderr
    assert "`agentscan doctor`" not in result.stderr


def test_without_home_the_hint_stays_bare() -> None:
    result = invoke("list")
    assert "`agentscan doctor` shows where agentscan looked" in result.stderr, result.stderr


def test_an_export_s_missing_root_names_doctor_of_the_home_read(tmp_path: Path) -> None:
    home = tmp_path / "a home"
    sid = "11111111-2222-3333-4444-555555555555"
    claude_session_file(home, sid, [claude_user(sid, "2026-01-02T03:04:05Z", "hi"),
                                    claude_assistant(sid, "2026-01-02T03:04:06Z", msg_id="m1", request_id="r1",
                                                     usage=claude_usage(10, 5))])
    index = tmp_path / "sessions.sqlite"
    assert invoke("--home", str(home), "export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    shutil.rmtree(home / ".claude")  # a home not mounted
    result = invoke("--home", str(home), "export", "-f", "sqlite", "-o", str(index), "--json")
    (warning,) = orjson.loads(result.stdout)["warnings"]
    assert warning["message"].startswith(
        f"no Claude Code root found (`agentscan --home {shlex.quote(str(home))} doctor` shows where it looked)"), warning
