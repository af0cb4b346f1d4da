"""``--demo otlp`` exports the hook events the demo ships with its Claude session, as
``--demo trace`` shows them, and never the user's events store."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import Replay
from otlp_builders import read_otlp_file

runner = CliRunner()
DEMO_NATIVE_ID = "7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"


def demo_spans(out: Path) -> list:
    result = runner.invoke(app, ["--demo", "otlp", DEMO_NATIVE_ID[:8], "-o", str(out)])
    assert result.exit_code == 0, result.output
    return [span for line in read_otlp_file(out) for span in line]


def test_demo_otlp_takes_the_demo_claude_session_s_turns_from_its_hook_events(isolated_home: Path, tmp_path: Path) -> None:
    spans = demo_spans(tmp_path / "demo.jsonl")
    sources = {span.attrs.get("agentscan.source") for span in spans}
    assert "hooks" in sources  # before: "transcript" alone, the shipped events never read
    observed = [span for span in spans if span.attrs.get("agentscan.timing") == "observed"]
    assert observed and all(span.service == "claude-code" for span in observed)


def test_demo_otlp_never_reads_the_user_s_events_store(isolated_home: Path, tmp_path: Path) -> None:
    def shape(spans: list) -> list:
        return sorted((span.name, span.attrs.get("agentscan.source"), span.attrs.get("agentscan.timing"),
                       span.attrs.get("agentscan.turn.id")) for span in spans)

    alone = shape(demo_spans(tmp_path / "alone.jsonl"))
    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    # Events in the user's store for the demo's own session id: --demo must not see them.
    replay = Replay(data_dir, agent="claude")
    replay.send({"hook_event_name": "UserPromptSubmit", "session_id": DEMO_NATIVE_ID, "prompt": "mine",
                 "prompt_id": "user-turn"})
    replay.send({"hook_event_name": "Stop", "session_id": DEMO_NATIVE_ID, "prompt_id": "user-turn"})
    before = sorted(p.relative_to(data_dir) for p in data_dir.rglob("*"))
    assert shape(demo_spans(tmp_path / "demo.jsonl")) == alone
    assert sorted(p.relative_to(data_dir) for p in data_dir.rglob("*")) == before
