"""--redact hides what agents read and wrote, and masks secrets everywhere."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.export.redact import fingerprint_text, mask_secrets
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
S = "5ec5ec5e-1111-4222-8333-444444444444"
SECRET_PROMPT = "deploy with key sk-ant-api03-abcdefghijklmnopqrstuvwx and password=hunter2"

SECRETS = [
    ("sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX", "sk-proj-"),
    ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("ghp_" + "a" * 36, "ghp_"),
    ("xoxb-1234567890-abcdefghij", "xoxb-"),
    ("Authorization: Bearer abcdef1234567890abcdef", "abcdef1234567890"),
    ("password=hunter2", "hunter2"),
]


@pytest.mark.parametrize("text,leak", SECRETS)
def test_secrets_are_masked(text: str, leak: str) -> None:
    masked = mask_secrets(f"before {text} after")
    assert leak not in masked and "[secret]" in masked and masked.startswith("before ")


def test_fingerprint_keeps_length_and_a_stable_hash() -> None:
    assert fingerprint_text("hello") == fingerprint_text("hello")
    assert fingerprint_text("hello").startswith("[redacted: 5 chars, #")
    assert fingerprint_text("hello") != fingerprint_text("hellO")


@pytest.fixture
def home(isolated_home: Path) -> Path:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", SECRET_PROMPT, cwd="/home/dev/token=abc123secret/app"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1),
                         blocks=[{"type": "text", "text": "the reply text"},
                                 {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "curl -H 'Authorization: Bearer zzzzzzzzzzzzzzzz'"}}],
                         cwd="/home/dev/token=abc123secret/app"),
    ])
    return isolated_home


def test_show_redact_hides_text_and_secrets(home: Path) -> None:
    result = runner.invoke(app, ["show", S, "--redact", "--json"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    for leak in ("hunter2", "sk-ant-api03", "the reply text", "zzzzzzzz", "abc123secret", "deploy with key"):
        assert leak not in out
    session = orjson.loads(out)["session"]
    assert session["prompts"][0]["text"].startswith("[redacted: ")
    assert session["tools"][0]["name"] == "Bash"  # structure stays
    assert session["tokens"]["total"] == 2


def test_list_and_export_redact(home: Path, tmp_path: Path) -> None:
    listed = runner.invoke(app, ["list", "--redact", "--json"])
    assert "hunter2" not in listed.stdout and "deploy" not in listed.stdout and "abc123secret" not in listed.stdout
    out = tmp_path / "x.jsonl"
    assert runner.invoke(app, ["export", "-f", "jsonl", "-o", str(out), "--redact"]).exit_code == 0
    text = out.read_text()
    assert "hunter2" not in text and "deploy" not in text and "abc123secret" not in text


def test_without_redact_the_text_is_shown(home: Path) -> None:
    assert "deploy with key" in runner.invoke(app, ["show", S, "--json"]).stdout


def test_errors_never_quote_prompt_text(home: Path) -> None:
    result = runner.invoke(app, ["show", "deploy with key"])
    assert result.exit_code == 1
    assert "hunter2" not in result.stderr
