"""A heavy user's report (pass 48): what an export does after its reading is named on the
progress line, and a huge transcript read by halves is told as the whole file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan import progress as library_progress
from spies import reads_told
from builders import claude_assistant, claude_session_file, claude_sessions, claude_usage, claude_user, invoke

NATIVE = "b16b16b1-0000-4000-8000-000000000001"



def _every_change_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import progress as progress_module

    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    monkeypatch.setattr(progress_module, "REDRAW_S", 0.0)


def test_an_sqlite_export_names_its_days_and_its_write_on_a_terminal(isolated_home: Path, tmp_path: Path, tty,  # noqa: ANN001
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """After ``reading sessions 15,000/15,000`` a cold export stood still for 12 s (its days, then
    the index written), a warm one showed nothing for 5 s."""
    claude_sessions(isolated_home, 3)
    _every_change_drawn(monkeypatch)
    tty(stderr=True)
    for run in ("cold", "warm"):
        result = invoke("export", "-f", "sqlite", "-o", str(tmp_path / "index.db"))
        assert result.exit_code == 0, result.output
        assert "adding up days 3/3" in result.stderr, run
        assert "writing the index 3/3" in result.stderr, run
        assert result.stderr.index("adding up days") < result.stderr.index("writing the index")
        # The line erased before the result (which goes to stdout): stderr ends clean.
        assert result.stderr.endswith("\r\x1b[K") and result.stdout.startswith("wrote 3 sessions"), run


def test_an_export_s_days_are_counted_as_a_phase_of_their_own(isolated_home: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.export.run import run_export
    from agentscan.scan.listing import ListFilter
    from agentscan.scan.scanner import Scanner
    from spies import recording_progress

    claude_sessions(isolated_home, 4)
    with Scanner(use_cache=True) as scanner:
        scanner.ctx.progress = progress = recording_progress()
        run_export(scanner, "jsonl", tmp_path / "days.jsonl", filters=ListFilter(), days=True)
    days = [seen for seen in progress.seen if seen[0] == "adding up days"]
    assert days and days[-1][1:] == (4, 4)
    assert progress.phase == library_progress.READING  # given back after it


@pytest.mark.parametrize("how", ["piped", "quiet"])
def test_an_export_in_a_pipe_or_quiet_shows_no_phase(isolated_home: Path, tmp_path: Path, tty, how: str,  # noqa: ANN001
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sessions(isolated_home, 2)
    _every_change_drawn(monkeypatch)
    if how == "quiet":
        tty(stderr=True)
    result = invoke("export", "-f", "sqlite", "-o", str(tmp_path / "index.db"), *(["-q"] if how == "quiet" else []))
    assert result.exit_code == 0, result.output
    assert "adding up days" not in result.stderr and "writing the index" not in result.stderr




def test_a_transcript_s_token_scan_by_halves_is_told_as_the_whole_file(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``reading b16b16b1…: 277 of 537 MB`` of a 1 GB transcript: the first half's own size."""
    from agentscan.providers.claude import incremental, usagehalves
    from agentscan.scan.scanner import Scanner
    from agentscan.toolkit import cores
    from spies import record_results

    home = tmp_path / "home"
    records = []
    for turn in range(12000):  # the first half's 6,000 calls: told once (every 4,096)
        ts = f"2026-09-01T{turn // 3600:02d}:{turn // 60 % 60:02d}:{turn % 60:02d}.000Z"
        records.append(claude_assistant(NATIVE, ts, msg_id=f"m{turn}", request_id=f"r{turn}", usage=claude_usage(3, 2)))
    path = claude_session_file(home, NATIVE, records)
    size = path.stat().st_size
    monkeypatch.setattr(incremental, "SPLIT_BYTES", 0)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    halves = record_results(monkeypatch, usagehalves, "scan_by_halves", lambda scan: scan is not None)
    with Scanner(env={"HOME": str(home)}, use_cache=False) as scanner:
        told = scanner.ctx.progress = reads_told()
        ref = scanner.refs()[0]
        incremental.calls_and_chain(ref.hint, scanner.ctx, keep_state=False)
    assert halves == [True]  # read by halves
    assert told.reads and {read[2] for read in told.reads} == {size}
    assert told.reads[-1][1] > size // 2  # 4,096 of the first half's 6,000 calls: 2/3 of the whole file


def test_a_first_half_s_scan_tells_the_share_of_the_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.claude.filescan import scan_file

    records = []
    for turn in range(9000):
        ts = f"2026-09-01T00:{turn // 60 % 60:02d}:{turn % 60:02d}.000Z"
        records.append(claude_assistant(NATIVE, ts, msg_id=f"m{turn}", request_id=f"r{turn}", usage=claude_usage(3, 2)))
    path = claude_session_file(tmp_path, NATIVE, records)
    size = path.stat().st_size
    data = path.read_bytes()
    end = data.index(b"\n", size // 2) + 1
    ctx = ScanContext.create(home=tmp_path)
    told = ctx.progress = reads_told()
    monkeypatch.setattr(library_progress, "TOLD_BYTES", 1)
    scan_file(path, ctx, subagent=None, base=0, size=size, end=end, count_lines=True, settle_inline=False)
    assert told.reads and {read[2] for read in told.reads} == {size}
    assert end < told.reads[-1][1] <= size  # past what this half read itself


def test_a_future_record_s_warning_says_the_row_is_sorted_by_its_file_s_time(isolated_home: Path) -> None:
    """Beside ``UPDATED 2027-01-12`` (as recorded), "listed at its file's time, 2026-12-05"
    read as a contradiction: the time is where the row is sorted, not what it shows."""
    from datetime import datetime

    native = "bbbbbbbb-0000-4000-8000-00000000000b"
    path = claude_session_file(isolated_home, native, [
        claude_user(native, "2100-01-01T00:00:00Z", "prompt"),
        claude_assistant(native, "2100-01-01T00:00:00Z", msg_id="m", request_id="r", usage=claude_usage(100, 10)),
    ], mtime=datetime.fromisoformat("2026-10-01T10:00:01+00:00").timestamp())
    result = invoke("list")
    assert result.exit_code == 0, result.output
    assert (f"warning: {path}: a record is dated 2100-01-01T00:00:00.000Z, in the future (a wrong clock?): "
            "sorted by its file's time, 2026-10-01T10:00:01.000Z") in " ".join(result.stderr.split())


def test_a_piped_card_writes_its_counts_and_cost_plain_as_its_tokens(isolated_home: Path, tty) -> None:  # noqa: ANN001
    """``tokens 10169451098 total`` stood beside ``cost $6,010.57`` and ``counts 214,200 prompts``."""
    native = "c0c0c0c0-0000-4000-8000-000000000001"
    records = []
    for number in range(1200):
        at = f"2026-11-02T{number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}.000Z"
        records.append(claude_user(native, at, f"prompt {number}", uuid=f"u{number}"))
        records.append(claude_assistant(native, at, msg_id=f"m{number}", request_id=f"r{number}",
                                        usage=claude_usage(10_000_000, 1_000_000), model="claude-opus-4-1-20250805"))
    claude_session_file(isolated_home, native, records)
    piped = invoke("show", native[:8]).stdout
    fields = {line.split()[0]: line for line in piped.splitlines() if line.startswith("  ")}
    assert fields["counts"].split()[1:3] == ["1200", "prompts,"], fields["counts"]
    cost = fields["cost"].split()[1]
    assert cost.startswith("$") and "," not in cost and float(cost[1:]) > 1000, fields["cost"]
    tty(200)
    shown = invoke("show", native[:8]).stdout
    assert "1,200 prompts" in shown and "$" in shown and "," in shown.split("cost", 1)[1].split()[0]


def test_every_number_of_a_piped_card_is_plain() -> None:
    # (review of pass 48: the fork, hooks and rewound lines still grouped their numbers in a pipe)
    from agentscan.cli.show_text import card_lines
    from agentscan.cli.term import Terminal
    from agentscan.detailmodel import SessionDetail
    from agentscan.model import Counts, SessionRow

    row = SessionRow("codex", "019ac2d4-0000-7000-8000-000000000001", "/p", counts=Counts(1234, 1234, 1234))
    detail = SessionDetail(row=row, extra={"forked_from": "codex:019aa", "forked_after_prompts": 2345,
                                           "hook_events": 1234, "rewound_messages": 1500})
    piped = "\n".join(card_lines(detail, Terminal(False, 200, False)))
    on_terminal = "\n".join(card_lines(detail, Terminal(True, 200, False)))
    for number in ("2345 prompts", "1234 captured hook events", "1500 messages", "1234 prompts"):
        assert number in piped, number
    assert "1,500 messages" in on_terminal and "2,345 prompts" in on_terminal
