"""A warm windowed ``tokens`` reads the sums of the sessions the window can hold, not of every session.

``tokens --since 7d`` is never remembered (the window moves), and it read every session's
stored sums (the provider's whole snapshot) to use last week's few: a cost that grew with
the history.  The index keeps each session's span (``scan.windowspans``); a warm window
reads only the sessions whose span meets it, those that said something (their warnings are
said as before) and those whose calls another session may share (merged as before), and
the report is the one every session's sums gave.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls
from agentscan.scan import windowspans
from agentscan.scan.cache import Cache
from agentscan.scan.collect import Collector
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report


def _native(day: int) -> str:
    return f"{day:08x}-3333-4000-8000-000000000000"


def _home(home: Path) -> None:
    """A session a day, 1 to 6 November 2026, each with a call at 09:01 and 09:40; the 4th
    copies the 1st's first call (a resumed session's copy: the same key); the 2nd has a bad
    line (a warning); the 7th recorded no call; the 8th's call is on the 2nd and its last
    prompt (unanswered) on the 3rd at 10:00: active then, but it recorded calls."""
    for day in range(1, 7):
        native = _native(day)
        records: list[Any] = [claude_user(native, f"2026-11-0{day}T09:00:00.000Z", f"task {day}")]
        if day == 4:
            records.append(claude_assistant(native, "2026-11-01T09:01:00.000Z", msg_id="msg-1-0", request_id="req-1-0",
                                            usage=claude_usage(1_000, 10)))
        for index, minute in enumerate((1, 40)):
            records.append(claude_assistant(native, f"2026-11-0{day}T09:{minute:02d}:00.000Z", msg_id=f"msg-{day}-{index}",
                                            request_id=f"req-{day}-{index}", usage=claude_usage(100 * day + index, day)))
        path = claude_session_file(home, native, records)
        if day == 2:
            with path.open("ab") as handle:
                handle.write(b'{"type":"assistant","message":{"usage": oops\n')
    native = _native(7)
    claude_session_file(home, native, [claude_user(native, "2026-11-07T09:00:00.000Z", "no call")])
    native = _native(8)
    claude_session_file(home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "task 8"),
        claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id="msg-8", request_id="req-8", usage=claude_usage(800, 8)),
        claude_user(native, "2026-11-03T10:00:00.000Z", "and then?"),
    ])


def _facts(report: Any) -> Any:
    return report.to_json(), report.unrecorded


WINDOWS = [
    ("2026-11-03T09:20:00+00:00", "2026-11-04T00:00:00+00:00", "session"),  # cuts the 3rd's quarter hours
    ("2026-11-03T09:20:00+00:00", "2026-11-04T00:00:00+00:00", "day"),
    ("2026-11-05", None, "model"),
    (None, "2026-11-02", "session"),
    ("2026-12-01", None, "session"),  # no call in it: 0 spent, not null
]


@pytest.mark.parametrize("since, until, by", WINDOWS)
def test_a_warm_window_gives_what_every_sessions_sums_give(isolated_home: Path, since: str | None, until: str | None,
                                                          by: str) -> None:
    _home(isolated_home)
    for _ in range(2):  # the first run keeps the spans (it read every session)
        with Scanner(use_cache=True) as scanner:
            token_report(scanner, since=since, until=until, by=by)
    with Scanner(use_cache=True) as scanner:
        picked = _facts(token_report(scanner, since=since, until=until, by=by))
        said = [(w.path, w.message, w.line) for w in scanner.ctx.warnings.items]
    every = pytest.MonkeyPatch()
    every.setattr(windowspans, "pick", lambda *args: None)  # every session's sums, as before
    try:
        with Scanner(use_cache=True) as scanner:
            assert _facts(token_report(scanner, since=since, until=until, by=by)) == picked
            assert [(w.path, w.message, w.line) for w in scanner.ctx.warnings.items] == said
    finally:
        every.undo()
    assert said  # the 2nd session's bad line, said whatever the window
    assert f"claude:{_native(8)}" not in picked[1]  # it recorded calls: not one that recorded none


def test_a_warm_window_reads_only_the_sessions_it_can_hold(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    since, until = "2026-11-03T09:20:00+00:00", "2026-11-04T00:00:00+00:00"
    for _ in range(2):
        with Scanner(use_cache=True) as scanner:
            token_report(scanner, since=since, until=until)
    snapshots = record_calls(monkeypatch, Collector, "_load_snapshot", lambda self, provider, *args: provider)
    read = record_calls(monkeypatch, Cache, "get_usage", lambda self, ids: list(ids))
    metas = record_calls(monkeypatch, Cache, "get_meta", lambda self, key, *args: key)
    with Scanner(use_cache=True) as scanner:
        report = token_report(scanner, since=since, until=until)
    assert snapshots == []  # no provider's every sums decoded
    # Which sessions share calls, read once: the pick and the merge take the same answer (another
    # agentscan may replace it meanwhile, and the few picked must not then be merged alone).
    assert metas.count("shared:claude") == 1
    days = {int(ref_id.split(":")[1][:8], 16) for ids in read for ref_id in ids}
    # The 3rd (in the window), the 1st and 4th (they share a call), the 2nd (its warning) and
    # the 7th (no call: named under the table if active in the window); not the 5th and 6th.
    assert days == {1, 2, 3, 4, 7}
    assert [row.key for row in report.rows] == [f"claude:{_native(3)}"]
    assert report.rows[0].tokens is not None and report.rows[0].tokens.input == 301


def test_a_window_past_every_call_spent_0_not_null(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every session left unread (each recorded calls, none in the window): the report still
    knows they recorded usage, so its total is 0, as when it read them all (``null`` is for
    sessions that recorded nothing)."""
    for day in (1, 2):
        native = _native(day)
        claude_session_file(isolated_home, native, [
            claude_user(native, f"2026-11-0{day}T09:00:00.000Z", "task"),
            claude_assistant(native, f"2026-11-0{day}T09:01:00.000Z", msg_id=f"msg-{day}", request_id=f"req-{day}",
                             usage=claude_usage(100, 1)),
        ])
    for _ in range(2):
        with Scanner(use_cache=True) as scanner:
            token_report(scanner, since="2026-12-01")
    read = record_calls(monkeypatch, Cache, "get_usage", lambda self, ids: list(ids))
    with Scanner(use_cache=True) as scanner:
        report = token_report(scanner, since="2026-12-01")
    assert read == [] or all(not ids for ids in read)
    assert report.rows == () and report.total is not None and report.total.total == 0 and report.cost == 0


def test_spans_are_kept_once_the_census_holds_still(isolated_home: Path) -> None:
    """A run that read the sessions otherwise than from the provider's snapshot (the first,
    or one after a session changed: an agent at work) keeps no spans: the next run's census
    may differ again.  The run after it, with the same census, keeps them."""
    _home(isolated_home)
    kept = []
    for _ in range(3):
        with Scanner(use_cache=True) as scanner:
            token_report(scanner, since="2026-11-03")
            assert scanner.cache is not None
            kept.append(scanner.cache.latest_snapshot(windowspans.spans_key("claude")) is not None)
    assert kept == [False, True, True]
