"""Final QA of pass 49, mended: a long last line caught mid-write, a zombie in Claude Code's
registry, and OTLP credentials written as ``OTEL_EXPORTER_OTLP_HEADERS`` writes them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.settling import TRUNCATED_LAST_LINE
from agentscan.toolkit import shrinkline
from agentscan.toolkit.jsonl import iter_json_lines
from agentscan.toolkit.linescan import ScanProgress, matching_records
from agentscan.toolkit.reverse import records_newest_first
from builders import raw_lines_file

MAX_LINE = 200


@pytest.mark.parametrize("cut", [60, 150, 600])
def test_a_long_last_line_being_written_is_said_as_any_unfinished_last_line(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch,
                                                                            cut: int) -> None:
    # (A pasted screenshot's line, caught mid-write: it said "line longer than 4 MiB skipped",
    # which --strict counts, where the same line cut shorter is "truncated last line".)
    monkeypatch.setattr(shrinkline, "LONG_STRING", 24)
    monkeypatch.setattr(shrinkline, "KEPT_BYTES", 8)
    whole = orjson.dumps({"type": "user", "usage": 1, "message": {"content": [{"type": "image", "data": "Q" * 1000}]}})
    path = raw_lines_file(tmp_path, [b'{"n":1,"usage":0}', whole[:MAX_LINE + cut]], False, False)
    readers = {
        "forward": lambda ctx: list(iter_json_lines(path, ctx, max_line=MAX_LINE)),
        "from the end": lambda ctx: list(records_newest_first(path, ctx, max_line=MAX_LINE)),
        "prefiltered": lambda ctx: list(matching_records(path, ctx, b'"usage"', ScanProgress(), max_line=MAX_LINE)),
    }
    for name, read in readers.items():
        ctx = ScanContext.create(home=tmp_path, env={})
        assert len(read(ctx)) == 1, name
        assert [(w.message, w.line) for w in ctx.warnings.items] == [(TRUNCATED_LAST_LINE, 2)], name


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux-only")
def test_a_zombie_runs_no_session() -> None:
    from agentscan.providers.claude.liveprocs import _started_at

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        for _ in range(100):  # (exited, not reaped: a zombie keeps its /proc/<pid>/stat)
            with open(f"/proc/{child.pid}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    break
            time.sleep(0.05)
        assert _started_at(child.pid) is None
        assert _started_at(os.getpid()) is not None
    finally:
        child.wait()


@pytest.mark.parametrize("secret", [
    "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20MTIzNDU2Omdsc2VjcmV0",
    "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20abcdefghijklmnop",
    "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=hcKEYabcdef123",
    "OTEL_EXPORTER_OTLP_HEADERS=signoz-ingestion-key=abcdef123456",
])
def test_a_hook_command_s_otlp_headers_are_masked_as_written(secret: str) -> None:
    from agentscan.otlp.endpoint import shown_command

    shown = shown_command(f"env {secret} /opt/bin/agentscan hook --agent claude --otlp-endpoint https://otlp.example/otlp")
    credential = secret.rsplit("=", 1)[1].removeprefix("Basic%20").removeprefix("Bearer%20")
    assert credential not in shown and "agentscan hook --agent claude" in shown
