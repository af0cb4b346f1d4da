"""An export's usage days and its sessions' costs price each call once (``export.days._alone``).

Each batch's calls were priced twice: once for each session's cost (``costs.costs_of``) and
once for its days (``rows.usage_days``), a warm export's biggest cost after reading the
calls (880,000 ``PriceBook.entry_key`` calls at the bench's scale 10 for 440,000 calls).
The days and costs are what the two passes gave.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.export import days as export_days
from agentscan.export.rows import usage_days
from agentscan.model import SessionRef, TokenUsage, UsageEntry
from agentscan.pricing import PriceBook
from agentscan.scan.costs import costs_of
from agentscan.scan.scanner import Scanner
from agentscan.scan.sharing import merge_by_provider
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()
AT = datetime(2026, 11, 1, 23, 50, tzinfo=timezone.utc)


def _entry(minutes: int | None, tokens: int, model: str | None, *, key: str | None = None, rank: int = 0,
           subagent: str | None = None, session: str = "s1") -> list:
    return UsageEntry(session=session, tokens=TokenUsage(input=tokens, output=tokens // 2, cache_read=tokens * 3),
                      timestamp=AT + timedelta(minutes=minutes) if minutes is not None else None, model=model,
                      subagent=subagent, dedupe_key=key, rank=rank).pack()


@pytest.mark.parametrize("zone", [None, timezone(timedelta(hours=5, minutes=30))])
def test_a_sessions_days_and_cost_are_what_the_two_passes_gave(zone: timezone | None) -> None:
    """Calls across midnight, of no time, of a model with no price (said once, as before), in a
    run, one whose copy the session holds twice (counted once in its days, as a merge of its
    calls counts it, twice in its cost, as its row's tokens count it) and one a resumed
    session's record names."""
    own = [
        _entry(1, 100, "claude-sonnet-4-5-20250929", key="a"),
        _entry(5, 300, "mystery-model-x", key="b"),
        _entry(20, 50, "claude-sonnet-4-5-20250929", key="c", subagent="run-1"),
        _entry(25, 70, "claude-sonnet-4-5-20250929", key="a", rank=1),  # the same call again
        _entry(None, 10, None),
        _entry(30, 40, "claude-opus-4-1-20250805", key="d", session="s0"),
        _entry(31, 20, "other-unknown-model"),
    ]
    ref = SessionRef("claude", "s1", None, 0.0)
    old_scanner, new_scanner = Scanner(providers=[]), Scanner(providers=[])
    old_book, new_book = PriceBook(old_scanner.ctx), PriceBook(new_scanner.ctx)
    cost = costs_of({ref.id: own}, [ref], old_book)[ref.id]
    days = usage_days(merge_by_provider([ref], {ref.id: own}), old_book, zone)
    assert export_days._alone(ref, own, new_book, zone) == (days, cost)
    assert len(days) >= 5 and cost.cost is None and cost.unpriced == ("mystery-model-x", "other-unknown-model", "unknown")
    said = [(w.path, w.message) for w in old_scanner.ctx.warnings.items]
    assert said and [(w.path, w.message) for w in new_scanner.ctx.warnings.items] == said


def test_an_export_prices_each_call_once(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten sessions of two calls each, and a resumed session that copies its parent's second:
    each session's calls are priced once, and the two that share a call once more, merged."""
    parent, resumed = "aaaa0000-0000-4000-8000-000000000001", "0fff0000-0000-4000-8000-000000000002"

    def turn(session: str, ts: str, msg: str, tokens: int) -> list[dict]:
        return [claude_user(session, ts, f"ask {msg}"),
                claude_assistant(session, ts, msg_id=msg, request_id=f"req-{msg}", usage=claude_usage(input=tokens, output=1))]

    claude_session_file(isolated_home, parent, [*turn(parent, "2026-11-01T10:00:00.000Z", "m1", 100),
                                                *turn(parent, "2026-11-01T23:59:00.000Z", "m2", 200)])
    claude_session_file(isolated_home, resumed, [*turn(resumed, "2026-11-01T23:59:00.000Z", "m2", 200),
                                                 *turn(resumed, "2026-11-02T09:00:00.000Z", "m3", 400)])
    for number in range(10):
        native = f"{number:08x}-5555-4000-8000-000000000000"
        claude_session_file(isolated_home, native, [*turn(native, "2026-11-03T08:00:00.000Z", f"n{number}", 10 + number),
                                                    *turn(native, "2026-11-04T08:00:00.000Z", f"o{number}", 5)])
    priced = record_calls(monkeypatch, PriceBook, "entry_key", lambda self, provider, entry: entry[0])
    seen = record_calls(monkeypatch, export_days, "_export_days", lambda *args: None)
    result = runner.invoke(app, ["-q", "export", "--days", "-f", "csv", "-o", str(tmp_path / "days.csv")])
    assert result.exit_code == 0, result.output
    assert seen == [None]
    # 24 calls of 12 sessions once each, and the 3 of the two sharing a call, merged, once more.
    assert len(priced) == 24 + 3
