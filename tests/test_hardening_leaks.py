"""What leaves agentscan: the doctor report users paste, ``trace --redact``, and file modes.

Issue 14, cases 14-16: ``doctor`` is redacted by default (its newest titles
are prompts, and its crash message asks users to share it); ``trace`` takes
``--redact`` with ``show``'s rules; and every file agentscan writes is
``0600`` whatever the umask (docs/security.md).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.export.locks import lock_path
from agentscan.hooks import capture
from agentscan.hooks.diagnostics import log_problem
from agentscan.otlp import live
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from hooks_builders import CONVERSATION, Replay, cursor, post, pre, prompt, response, stop, thought

runner = CliRunner()
S = "1ea4ed00-1111-4222-8333-444444444444"
PROMPT = "migrate the billing service, the password is hunter2"
CWD_WITH_SECRET = "/home/dev/token=abc123secret/app"


def _doctor(*args: str) -> dict:
    result = runner.invoke(app, ["doctor", *args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


@pytest.fixture
def claude_home(isolated_home: Path) -> Path:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", PROMPT, cwd=CWD_WITH_SECRET),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1), cwd=CWD_WITH_SECRET),
    ], project="-home-dev-token-abc123secret-app")
    return isolated_home


def test_doctor_redacts_the_newest_titles_by_default(claude_home: Path) -> None:
    doc = _doctor()
    text = orjson.dumps(doc).decode()
    assert "billing service" not in text and "hunter2" not in text
    (claude,) = [p for p in doc["providers"] if p["provider"] == "claude"]
    assert claude["newest"]["id"] == f"claude:{S}"  # what a bug report needs stays
    assert claude["newest"]["title"].startswith("[redacted: ")


def test_doctor_no_redact_shows_titles_and_redact_is_accepted(claude_home: Path) -> None:
    (claude,) = [p for p in _doctor("--no-redact")["providers"] if p["provider"] == "claude"]
    assert "billing service" in claude["newest"]["title"]
    assert "billing service" not in orjson.dumps(_doctor("--redact")).decode()


def test_doctor_masks_secrets_in_paths_and_the_text_report_too(isolated_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "api_key=sk-live-0123456789abcdef0123" / "home"
    claude_session_file(home, S, [claude_user(S, "2026-11-01T10:00:00Z", PROMPT)])
    doc = runner.invoke(app, ["--home", str(home), "doctor", "--json"]).stdout
    human = runner.invoke(app, ["--home", str(home), "doctor"]).stdout
    for output in (doc, human):
        assert "0123456789abcdef0123" not in output and "billing service" not in output
        assert "[secret]" in output


def test_doctor_shows_what_the_hook_dropped(isolated_home: Path) -> None:
    root = os.environ["AGENTSCAN_DATA_DIR"]
    log_problem(root, "cursor", "stdin still open after 5.0s; payload dropped")
    Replay(Path(root)).send(prompt("hello"))
    hooks = _doctor()["hooks"]
    assert hooks["store"]["sessions"] == 1
    assert "payload dropped" in hooks["errors"]["last"][-1]
    assert "payload dropped" in runner.invoke(app, ["doctor"]).stdout


# -- trace --redact ---------------------------------------------------------------------------


SECRET_TEXTS = ("rotate the prod keys", "thinking about hunter2", "the answer is 42", "cat ~/.ssh/id_rsa", "exit 1: boom")


def _cursor_session(root: Path) -> None:
    replay = Replay(root)
    replay.send(prompt(f"<user_query>{SECRET_TEXTS[0]}</user_query>"), at_ms=0)
    replay.send(thought(SECRET_TEXTS[1]), at_ms=10)
    shell = {"command": SECRET_TEXTS[3], "cwd": "/work/repo/api_key=abcdef0123456789abcd"}
    replay.send(pre("Shell", shell, "t1"), at_ms=20)
    replay.send(cursor("postToolUseFailure", tool_name="Shell", tool_input=shell, tool_use_id="t1",
                       error_message=SECRET_TEXTS[4], failure_type="error"), at_ms=30)
    replay.send(pre("Read", {"file_path": "/work/repo/README.md"}, "t2"), at_ms=40)
    replay.send(post("Read", {"file_path": "/work/repo/README.md"}, "t2"), at_ms=50)
    replay.send(response(SECRET_TEXTS[2]), at_ms=60)
    replay.send(stop(), at_ms=70)


def test_trace_redact_hides_conversation_text_and_keeps_the_tree(isolated_home: Path) -> None:
    _cursor_session(Path(os.environ["AGENTSCAN_DATA_DIR"]))
    plain = runner.invoke(app, ["trace", CONVERSATION, "--json"])
    assert all(text in plain.stdout for text in SECRET_TEXTS[:4])
    for args in (["--json"], []):
        result = runner.invoke(app, ["trace", CONVERSATION, "--redact", *args])
        assert result.exit_code == 0, result.output
        for text in (*SECRET_TEXTS, "abcdef0123456789abcd"):
            assert text not in result.stdout, (args, text)
    doc = orjson.loads(runner.invoke(app, ["trace", CONVERSATION, "--redact", "--json"]).stdout)
    before = orjson.loads(plain.stdout)
    (turn,) = doc["turns"]
    assert turn["prompt"].startswith("[redacted: ")
    # The tree is the same shape: kinds, names, statuses and the summary's counts.
    assert _shape(doc["turns"][0]["nodes"]) == _shape(before["turns"][0]["nodes"])
    assert doc["summary"]["tool_calls"] == before["summary"]["tool_calls"] == 2
    read = next(n for n in _walk(turn["nodes"]) if n["name"] == "Read")
    assert read["input"] == {"file_path": "/work/repo/README.md"}  # a path is masked, not hashed


def _walk(nodes: list[dict]) -> list[dict]:
    return [m for n in nodes for m in (n, *_walk(n["children"]))]


def _shape(nodes: list[dict]) -> list:
    return [(n["kind"], n["name"], n["status"], n["provenance"], _shape(n["children"])) for n in nodes]


# -- file modes ---------------------------------------------------------------------------------


@pytest.fixture
def permissive_umask():
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_every_file_agentscan_writes_is_0600(claude_home: Path, tmp_path: Path, permissive_umask: None) -> None:
    out = tmp_path / "out"
    out.mkdir()
    written = []
    for fmt in ("jsonl", "csv", "sqlite"):
        path = out / f"sessions.{fmt}"
        assert runner.invoke(app, ["export", "-f", fmt, "-o", str(path)]).exit_code == 0
        written += [path, lock_path(path, os.environ)]
    assert runner.invoke(app, ["otlp", "-o", str(out / "traces.jsonl")]).exit_code == 0
    written.append(out / "traces.jsonl")
    root = Path(os.environ["AGENTSCAN_DATA_DIR"])
    capture.capture(str(root), "cursor", orjson.dumps(prompt("hi")), 1)
    live._count(str(root), "failed", "collector down")
    written += [root / "events" / "cursor" / f"{CONVERSATION}.jsonl", root / "hook-errors.log", root / live.COUNTER_FILE]
    written += [p for p in out.iterdir() if p.name.startswith("sessions.sqlite-")]  # -wal / -shm, when kept
    assert {str(p): oct(_mode(p)) for p in written} == {str(p): oct(0o600) for p in written}


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
@pytest.mark.parametrize("fmt", ["sqlite", "jsonl", "csv"])
def test_an_existing_export_keeps_the_mode_its_owner_gave_it(claude_home: Path, tmp_path: Path, permissive_umask: None,
                                                             fmt: str) -> None:
    # Made readable for a dashboard or a team share running as another user: the next
    # nightly run must not take that back (a new export is 0600: the test above).
    path = tmp_path / f"sessions.{fmt}"
    assert runner.invoke(app, ["export", "-f", fmt, "-o", str(path)]).exit_code == 0
    assert _mode(path) == 0o600
    path.chmod(0o644)
    assert runner.invoke(app, ["export", "-f", fmt, "-o", str(path)]).exit_code == 0
    assert _mode(path) == 0o644
