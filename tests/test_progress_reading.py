"""A huge transcript's pass says how far it is: a session count stands still meanwhile."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan import progress as library_progress
from spies import reads_told
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

NATIVE = "b16b16b1-0000-4000-8000-000000000001"




def _transcript(home: Path, turns: int) -> Path:
    records = []
    for turn in range(turns):
        ts = f"2026-09-01T00:{turn // 60 % 60:02d}:{turn % 60:02d}.000Z"
        records.append(claude_user(NATIVE, ts, f"prompt {turn}"))
        records.append(claude_assistant(NATIVE, ts, msg_id=f"m{turn}", request_id=f"r{turn}", usage=claude_usage(3, 2)))
    return claude_session_file(home, NATIVE, records)


def test_stderr_progress_says_how_far_a_file_is_after_the_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import progress as progress_module

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = progress_module.StderrProgress(stream)
    progress.reading("b16b16b1…", 10_000_000, 1_000_000_000)
    clock[0] += 0.5
    progress.reading("b16b16b1…", 60_000_000, 1_000_000_000)
    assert stream.getvalue() == ""  # a read that ends within the delay prints nothing
    clock[0] += 1.5
    progress.reading("b16b16b1…", 210_000_000, 1_000_000_000)
    assert stream.getvalue().endswith("\r\x1b[Kreading b16b16b1…: 210 of 1,000 MB (100 MB/s)")
    clock[0] += 0.01
    progress.reading("b16b16b1…", 211_000_000, 1_000_000_000)
    assert "211 of" not in stream.getvalue()  # redrawn ten times a second at most
    # Another file: its own delay and rate.
    clock[0] += 1.0
    progress.reading("agent-a1", 1_000_000, 50_000_000)
    assert "agent-a1" not in stream.getvalue()
    progress.finish()
    assert stream.getvalue().endswith("\r\x1b[K")  # erased before the result is printed


def test_a_huge_transcripts_pass_tells_the_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import row
    from agentscan.providers.claude.windowed import WindowedTotals

    path = _transcript(tmp_path, 5000)  # 10,000 records
    ctx = ScanContext.create(home=tmp_path)
    told = ctx.progress = reads_told()
    plain = row.summarize(path, ctx, totals=WindowedTotals())
    assert told.reads == []  # below the size worth telling: nothing
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    summary = row.summarize(path, ctx, totals=WindowedTotals())
    size = path.stat().st_size
    assert [read[0] for read in told.reads] == ["b16b16b1…"] * 2  # every 4,096 records
    offsets = [read[1] for read in told.reads]
    assert offsets == sorted(offsets) and 0 < offsets[0] < offsets[-1] < size
    assert {read[2] for read in told.reads} == {size}
    assert (summary.records, summary.prompts, summary.first_ts, summary.last_ts) == (
        plain.records, plain.prompts, plain.first_ts, plain.last_ts)


def test_a_first_halfs_pass_tells_the_share_of_the_whole_file_read(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Read by halves (``halves``), the other half on the other core meanwhile: how far this
    half is stands for how far the whole file is."""
    from agentscan.providers.claude import row
    from agentscan.providers.claude.windowed import WindowedTotals

    path = _transcript(tmp_path, 5000)
    size = path.stat().st_size
    data = path.read_bytes()
    end = data.index(b"\n", size // 2) + 1
    ctx = ScanContext.create(home=tmp_path)
    told = ctx.progress = reads_told()
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    row.summarize(path, ctx, totals=WindowedTotals(), end=end)
    assert told.reads and {read[2] for read in told.reads} == {size}
    assert end < told.reads[-1][1] <= size  # past what this half read itself: the share of the whole


def test_a_huge_transcripts_token_scan_tells_the_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude.filescan import scan_file

    path = _transcript(tmp_path, 9000)  # 9,000 usage lines
    size = path.stat().st_size
    ctx = ScanContext.create(home=tmp_path)
    told = ctx.progress = reads_told()
    plain = scan_file(path, ctx, subagent=None, base=0, size=size)
    assert told.reads == []
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    scanned = scan_file(path, ctx, subagent=None, base=0, size=size)
    assert [(read[0], read[2]) for read in told.reads] == [("b16b16b1…", size)] * 2
    assert 0 < told.reads[0][1] < told.reads[1][1] < size
    assert scanned.calls == plain.calls and len(plain.calls) == 9000
    told.reads.clear()
    scan_file(path, ctx, subagent=None, base=0)  # size unknown: nothing to tell
    assert told.reads == []


def test_show_of_a_huge_transcript_draws_its_read_on_a_terminal(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 tty) -> None:
    from agentscan.cli import progress as progress_module

    _transcript(isolated_home, 5000)
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    monkeypatch.setattr(progress_module, "REDRAW_S", 0.0)
    tty(stderr=True)
    result = CliRunner().invoke(app, ["show", NATIVE[:8]])
    assert result.exit_code == 0, result.output
    assert "\r\x1b[Kreading b16b16b1…: " in result.stderr
    drawn, _, hint = result.stderr.partition("the whole conversation")
    assert drawn.endswith("\r\x1b[K") and hint  # erased before the detail came, and its hint said after
    assert "\x1b[K" not in result.stdout and "reading" not in result.stdout
    tty(stderr=False)
    piped = CliRunner().invoke(app, ["show", NATIVE[:8], "--json"])
    assert "reading" not in piped.stderr
