"""``tokens``' table reads every session's row after the report has read every session's
sums: a Claude row's pass then takes its tokens from those sums (``usagegroups.note_read``,
``groups_read``) instead of adding every call up again (a quarter of the pass).

The rows must be the ones a pass that adds the calls up makes: the same tokens and the same
count of subagents, for streamed copies, sidechain replays, subagents with a transcript and
without one (their calls copied into the parent's records), sessions without usage.  A
session changed since its sums were read is added up by its own pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.context import SUMS_READ, ScanContext
from agentscan.providers.claude import windowed
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import claude_assistant, claude_progress, claude_session_file, claude_subagent_file, claude_usage, claude_user
from conftest_hypothesis import FUZZ

MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"]
#: (message number, tokens, model, where): where 0 = the main transcript, 1 = a subagent's
#: transcript, 2 = a sidechain replay in the main one, 3 = copied into the main one's progress
#: records from a subagent whose transcript is gone
CALL = st.tuples(st.integers(0, 5), st.integers(0, 90_000), st.integers(0, 1), st.integers(0, 3))


def _session(home: Path, number: int, calls: list[tuple[int, int, int, int]]) -> None:
    native = f"{number:08x}-0000-4000-8000-000000000000"
    main: list[dict] = [claude_user(native, "2026-11-01T09:00:00.000Z", f"task {number}")]
    sub: list[dict] = []
    for index, (message, tokens, model, where) in enumerate(calls):
        record = claude_assistant(native, f"2026-11-01T{9 + index // 60:02d}:{index % 60:02d}:30.000Z",
                                  msg_id=f"msg-{number}-{message}", request_id=f"req-{number}-{message % 3}",
                                  usage=claude_usage(tokens, tokens // 3 + 1, cache_read=tokens * 2), model=MODELS[model],
                                  sidechain=where in (1, 2))
        if where == 1:
            sub.append(record)
        elif where == 3:
            main.append(claude_progress(native, record["timestamp"], "gone0001", record))
        else:
            main.append(record)
    claude_session_file(home, native, main, mtime=1_790_000_000 + number)
    if sub:
        claude_subagent_file(home, native, "a1b2c3", sub)


def _rows(*, report_first: bool) -> dict[str, dict]:
    with Scanner(use_cache=True) as scanner:
        if report_first:
            token_report(scanner)
        return {ref.id: scanner.row(ref).to_json() for ref in scanner.refs()}


@pytest.fixture
def additions(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Every call a row's pass adds up (``WindowedTotals.add``)."""
    seen: list[tuple] = []
    real = windowed.WindowedTotals.add

    def add(self: windowed.WindowedTotals, call: tuple) -> None:
        seen.append(call)
        real(self, call)

    monkeypatch.setattr(windowed.WindowedTotals, "add", add)
    return seen


@FUZZ
@given(sessions=st.lists(st.lists(CALL, max_size=10), min_size=1, max_size=4))
def test_rows_after_the_report_are_the_rows_a_pass_adds_up(isolated_home: Path, additions: list[tuple],
                                                            sessions: list) -> None:
    cache = Path(os.environ["AGENTSCAN_CACHE_DIR"])
    for path in [*cache.glob("*"), *(isolated_home / ".claude").rglob("*.jsonl")]:
        path.unlink()
    for number, calls in enumerate(sessions):
        _session(isolated_home, number, calls)
    alone = _rows(report_first=False)
    assert len(alone) == len(sessions)
    for path in cache.glob("*"):
        path.unlink()  # the rows read again, after a cold report
    additions.clear()
    assert _rows(report_first=True) == alone
    assert additions == []  # no call added up: every row took the sums the report read


def test_a_session_changed_since_its_sums_were_read_is_added_up_again(isolated_home: Path, additions: list[tuple]) -> None:
    _session(isolated_home, 1, [(0, 500, 0, 0), (1, 700, 1, 1)])
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
        (ref,) = scanner.refs()
        read = dict(scanner.ctx.memo[SUMS_READ])
        assert ref.id in read
        scanner.ctx.memo[SUMS_READ][ref.id] = ("another fingerprint", [])  # as if read before a change
        row = scanner.row(ref)
    assert additions  # its own pass added the calls up
    assert row.tokens is not None and row.tokens.input == 1200
    assert row.subagents == 1


def test_a_workers_context_has_the_sums_the_scan_read() -> None:
    ctx = ScanContext.create(home="/nowhere", env={})
    ctx.memo[SUMS_READ] = {"claude:x": ("fp", [])}
    ctx.memo["other"] = object()
    worker = ctx.for_worker()
    assert worker.memo[SUMS_READ] == {"claude:x": ("fp", [])}
    assert "other" not in worker.memo
