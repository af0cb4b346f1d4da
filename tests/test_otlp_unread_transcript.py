"""``otlp`` of a hook session whose transcript is on disk but under no root read (Claude Code
run with a ``CLAUDE_CONFIG_DIR`` the exporting shell does not have): its turns go out with no
LLM calls and no usage, which a backend would take for turns that spent nothing.  The export
says so, with where the transcript is; read with that folder, the usage is there."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import claude_assistant, claude_usage, claude_user
from agentscan.cli import app
from agentscan.hooks.capture import capture

runner = CliRunner()
SESSION = "5e55e55e-0000-4000-8000-0000000000aa"


def iso(ns: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns / 1e9)) + f".{ns // 1_000_000 % 1000:03d}Z"


def lay_out(tmp_path: Path) -> Path:
    """A Claude session's hook events, and its transcript under a config dir of its own."""
    config = tmp_path / "elsewhere" / "claude-config"
    transcript = config / "projects" / "-work-app" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    start = time.time_ns() - 60 * 10**9
    records = [claude_user(SESSION, iso(start + 10**9), "fix it", uuid="u1", cwd="/work/app"),
               claude_assistant(SESSION, iso(start + 2 * 10**9), msg_id="msg_1", request_id="req_1",
                                usage=claude_usage(120, 30, 0, 4000), uuid="a1", parentUuid="u1", cwd="/work/app")]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import os

    root = os.environ["AGENTSCAN_DATA_DIR"]
    common = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": "/work/app", "prompt_id": "p1"}
    for offset, payload in ((0, {"hook_event_name": "UserPromptSubmit", "prompt": "fix it"}),
                            (3, {"hook_event_name": "Stop", "stop_hook_active": False})):
        capture(root, "claude", json.dumps({**common, **payload}).encode(), start + offset * 10**9)
    return config


def root_usage(path: Path) -> int | None:
    for line in path.read_text(encoding="utf-8").splitlines():
        for span in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            if not span.get("parentSpanId"):
                attributes = {a["key"]: a["value"] for a in span["attributes"]}
                found = attributes.get("agentscan.usage.total")
                return None if found is None else int(found["intValue"])
    raise AssertionError("no root span")


def test_a_transcript_under_no_root_read_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = lay_out(tmp_path)
    out = tmp_path / "traces.jsonl"
    result = runner.invoke(app, ["otlp", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.stderr
    notes = json.loads(result.stdout)["notes"]
    assert len(notes) == 1 and "1 hook session names a transcript under no root read" in notes[0]
    assert f"{config}/projects/-work-app/{SESSION}.jsonl" in notes[0] and "no LLM calls or token usage" in notes[0]
    assert root_usage(out) is None
    # Read with the agent's config dir: the turn has its call and usage, and nothing to say.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    result = runner.invoke(app, ["otlp", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["notes"] == []
    assert root_usage(out) == 4150


def test_a_transcript_gone_is_not_said(tmp_path: Path) -> None:
    config = lay_out(tmp_path)
    (config / "projects" / "-work-app" / f"{SESSION}.jsonl").unlink()  # Claude deletes old transcripts
    result = runner.invoke(app, ["otlp", "-o", str(tmp_path / "traces.jsonl"), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["notes"] == []
