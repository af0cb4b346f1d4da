"""`show` of a subagent's own id opens its parent with the subagent in focus;
`running` in `show` is what `list` says (issue 17)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.errors import SessionNotFound
from agentscan.scan import liveness
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from codex_builders import DEMO_CHILD, DEMO_PARENT, write_demo

S = "aaaaaaaa-1111-4222-8333-444444444444"


def test_codex_child_id_opens_the_parent_with_the_child_in_focus(isolated_home: Path) -> None:
    write_demo(isolated_home)
    result = CliRunner().invoke(app, ["--no-cache", "show", "--json", DEMO_CHILD])
    assert result.exit_code == 0, result.output
    session = orjson.loads(result.stdout)["session"]
    assert session["id"] == f"codex:{DEMO_PARENT}"
    assert session["focus"] == {"subagent": DEMO_CHILD, "query": DEMO_CHILD, "opened": "parent"}
    assert [s["id"] for s in session["subagents"]] == [DEMO_CHILD]
    text = CliRunner().invoke(app, ["--no-cache", "show", f"codex:{DEMO_CHILD[:13]}"])
    assert text.exit_code == 0, text.output
    assert f"subagent {DEMO_CHILD} of this session" in text.stdout


def test_a_parent_id_has_no_focus_and_tokens_accepts_a_child_id(isolated_home: Path) -> None:
    write_demo(isolated_home)
    scanner = Scanner()
    assert "focus" not in scanner.show(DEMO_PARENT).to_json()
    (row,) = token_report(scanner, ids=[DEMO_CHILD]).rows
    assert row.key == f"codex:{DEMO_PARENT}"


def test_claude_agent_id_opens_its_parent(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "delegate"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1)),
    ])
    claude_subagent_file(isolated_home, S, "a1b2c3d4e5", [
        claude_assistant(S, "2026-11-01T10:00:02Z", msg_id="m2", request_id="r2", usage=claude_usage(1, 1), sidechain=True),
    ])
    detail = Scanner().show("a1b2c3d4e5")
    assert detail.row.native_id == S
    assert detail.extra["focus"]["subagent"] == "a1b2c3d4e5"
    with pytest.raises(SessionNotFound):
        Scanner().show("a1b2c3d4ff")


def _one_session(home: Path) -> Path:
    return claude_session_file(home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "hello"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1)),
    ])


@pytest.mark.skipif(not liveness.supported(), reason="/proc is Linux-only; running is null elsewhere")
def test_show_says_running_as_list_does(isolated_home: Path) -> None:
    path = _one_session(isolated_home)
    (isolated_home / ".claude" / "sessions").mkdir()  # (its registry: a Claude session is told not running)
    scanner = Scanner()
    assert scanner.show(S).row.running is False
    assert scanner.list_sessions()[0].running is False
    with open(path, "ab"):  # this process now holds the transcript open for writing
        assert Scanner().show(S).row.running is True
        assert Scanner().list_sessions()[0].running is True


def test_show_running_is_null_where_the_platform_cannot_tell(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A platform with no /proc, simulated here (no skip: this runs on Linux too).
    path = _one_session(isolated_home)
    (isolated_home / ".claude" / "sessions").mkdir()  # (what tells "not running" where it can be told)
    monkeypatch.setattr(liveness, "supported", lambda: False)
    assert Scanner().show(S).row.running is None
    with open(path, "ab"):  # held open for writing: still not known, not "running"
        assert Scanner().show(S).row.running is None
        assert Scanner().list_sessions()[0].running is None
