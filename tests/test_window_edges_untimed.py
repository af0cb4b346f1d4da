"""A window's edges and the calls no window can place.

- The index's spans (``scan.windowspans``) hold each session's first and last quarter
  hour: a warm window must still read a session whose call falls inside the window in
  the same quarter hour as the window's edge (a call at 09:25, ``--since 09:20``: its
  span's last quarter hour starts at 09:15, before the window).
- A call that recorded no time is in no window (``tokens._outside``), even one that
  covers every recorded time: the report says so (``scan.untimed``), run after run (the
  spans do not let a session with such a call go unread), or the windowed total is less
  than the plain one for no reason a user can see.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report


def _native(number: int) -> str:
    return f"{number:08x}-5555-4000-8000-000000000000"


def _one_call_session(home: Path, number: int, day: str, used: int) -> None:
    """Session ``number``: a prompt at 09:00 on ``day``, a call of ``used`` + 1 tokens at 09:01."""
    native = _native(number)
    claude_session_file(home, native, [
        claude_user(native, f"{day}T09:00:00.000Z", "task"),
        claude_assistant(native, f"{day}T09:01:00.000Z", msg_id=f"msg-{number}", request_id=f"req-{number}",
                         usage=claude_usage(used, 1)),
    ])


def _with_an_untimed_call(home: Path, input_tokens: int, output_tokens: int) -> None:
    """Session 1 on 2026-11-01: a timed call of 101 tokens, then one whose record has no time."""
    native = _native(1)
    untimed = claude_assistant(native, "2026-11-01T09:02:00.000Z", msg_id="msg-u", request_id="req-u",
                               usage=claude_usage(input_tokens, output_tokens))
    del untimed["timestamp"]
    claude_session_file(home, native, [
        claude_user(native, "2026-11-01T09:00:00.000Z", "task"),
        claude_assistant(native, "2026-11-01T09:01:00.000Z", msg_id="msg-1", request_id="req-1",
                         usage=claude_usage(100, 1)),
        untimed,
    ])


def _reports(since: str | None, until: str | None) -> list[Any]:
    """Three warm runs' reports: the first keeps no spans, the second keeps them, the third picks by them."""
    reports = []
    for _ in range(3):
        with Scanner(use_cache=True) as scanner:
            report = token_report(scanner, since=since, until=until)
            reports.append((report.to_json(), [w.message for w in scanner.ctx.warnings.items]))
    return reports


@pytest.mark.parametrize("since, until", [
    ("2026-11-03T09:20:00+00:00", "2026-11-03T10:00:00+00:00"),  # the low edge: the span's last bucket 09:15
    ("2026-11-03T08:00:00+00:00", "2026-11-03T09:30:00+00:00"),  # the high edge: the call in the last quarter hour
])
def test_a_call_in_the_windows_edge_quarter_hour_counts_on_every_run(isolated_home: Path, since: str, until: str) -> None:
    native = _native(1)
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-03T09:24:00.000Z", "task"),
        claude_assistant(native, "2026-11-03T09:25:00.000Z", msg_id="msg-1", request_id="req-1",
                         usage=claude_usage(1_000, 10)),
    ])
    _one_call_session(isolated_home, 2, "2026-11-01", 50)  # a second session: the pick needs the remembered shared answer
    reports = _reports(since, until)
    assert reports[0] == reports[1] == reports[2]
    assert reports[2][0]["total"]["total"] == 1_010


def test_a_window_says_it_left_out_the_calls_that_recorded_no_time(isolated_home: Path) -> None:
    _with_an_untimed_call(isolated_home, 4_000, 5)
    _one_call_session(isolated_home, 2, "2026-11-05", 50)
    with Scanner(use_cache=True) as scanner:
        plain = token_report(scanner)
        assert not scanner.ctx.warnings.items
    assert plain.total is not None and plain.total.total == 4_005 + 101 + 51
    note = "1 call recorded no time and is in no --since/--until window (4,005 tokens; --by day shows them as unknown)"
    # An all-covering window: every timed call, the untimed one said; a window past the
    # session's span: said too, on every run (the third picks sessions by their spans).
    for since, until in ((None, "2030-01-01"), ("2026-11-03", None)):
        for answer, said in _reports(since, until):
            assert note in said
            assert answer["total"]["total"] == (101 + 51 if since is None else 51)


def test_the_hidden_companions_are_taken_out_of_the_windows_unread_ones() -> None:
    """``copiedsessions.without``: a companion read only for the calls it shares is in no
    part of the report, the sessions a window left unread (``ProviderUsage.outside``) too:
    else a report of sessions that recorded nothing says 0 spent, not ``null``."""
    from agentscan.scan.copiedsessions import without
    from agentscan.scan.providerusage import ProviderUsage

    part = ProviderUsage()
    part.outside = {"asked", "companion"}
    assert without({"claude": part}, {"claude:companion"})["claude"].outside == {"asked"}


def test_a_window_says_nothing_of_untimed_calls_that_spent_nothing(isolated_home: Path) -> None:
    """An untimed call of 0 tokens leaves the windowed total what the plain one is: a
    warning on every windowed run of a cron report ("0 tokens; --by day shows them as
    unknown", where ``--by day`` shows no row of 0) explained no difference."""
    _with_an_untimed_call(isolated_home, 0, 0)
    for answer, said in _reports(None, "2030-01-01"):
        assert answer["total"]["total"] == 101
        assert not [message for message in said if "recorded no time" in message]
