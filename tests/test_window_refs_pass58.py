"""A warm windowed ``tokens`` picks its sessions before it makes their refs (``scan.windowrefs``).

``tokens --since <last week>`` over a heavy user's 15,000 stored sessions made a ref of every
one of them to read the sums of 113, and each step after walked them all.  The pick is now
made from the index's stored rows (ids, fingerprints, spans) and only the picked sessions are
made refs; the report, its warnings and the text table are the ones every session's refs gave
(and ``--no-cache``'s), for windows that cut sessions, a resumed session whose copy of another's
call lies across the window's edge, a session that recorded nothing, and after a session grew.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import gemini_builders as gemini
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from agentscan.cli import app
from agentscan.scan import memorefs, windowrefs
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from patch_builders import append
from spies import record_calls

runner = CliRunner()
DAY = 86_400
NOV_1 = 1_793_491_200  # 2026-11-01T00:00:00Z


def _native(number: int) -> str:
    return f"{number:08x}-5555-4000-8000-000000000000"


def _reply(native: str, day: int, minute: int, tokens: int, owner: int | None = None) -> dict:
    """A priced reply on November ``day``; ``owner``: the session whose call it copies (same ids)."""
    mark = f"{owner if owner is not None else native}-{day}-{minute}"
    return claude_assistant(native, f"2026-11-{day:02d}T09:{minute:02d}:00.000Z", msg_id=f"m-{mark}",
                            request_id=f"r-{mark}", usage=claude_usage(tokens, 7))


def _home(home: Path) -> Path:
    """Claude sessions of November 1 to 8 (two calls each, 09:01 and 09:40); the 9th resumes the
    2nd (a copy of its first call, then a call of its own on the 6th); the 10th recorded no call
    (the 6th); the 11th has a bad line (the 1st).  A Gemini chat of the 1st and the 6th.  The 9th's
    file, returned, grows in a test."""
    for day in range(1, 9):
        native = _native(day)
        claude_session_file(home, native, [claude_user(native, f"2026-11-{day:02d}T09:00:00.000Z", f"task {day}"),
                                           _reply(native, day, 1, 100 * day), _reply(native, day, 40, 10 * day)],
                            mtime=NOV_1 + (day - 1) * DAY + 3_000)
    resumed = _native(9)
    path = claude_session_file(home, resumed, [
        claude_user(resumed, "2026-11-06T09:00:00.000Z", "resumed"),
        {**_reply(resumed, 2, 1, 200, owner=_native(2)), "message": _reply(_native(2), 2, 1, 200)["message"]},
        _reply(resumed, 6, 20, 900)], mtime=NOV_1 + 5 * DAY + 3_000)
    quiet = _native(10)
    claude_session_file(home, quiet, [claude_user(quiet, "2026-11-06T09:00:00.000Z", "no call")],
                        mtime=NOV_1 + 5 * DAY + 100)
    bad = claude_session_file(home, _native(11), [claude_user(_native(11), "2026-11-01T08:00:00.000Z", "bad"),
                                                  _reply(_native(11), 1, 5, 50)], mtime=NOV_1 + 4_000)
    with bad.open("ab") as handle:
        handle.write(b'{"type":"assistant","message":{"usage": oops\n')
    gemini.write_chat(home, "proj", "session-2026-11-01T09-00-77777777.jsonl", [
        gemini.meta("77777777-0000-4000-8000-000000000000", start="2026-11-01T09:00:00.000Z"),
        gemini.user("u1", "2026-11-01T09:00:00.000Z", "hi"),
        gemini.gemini("g1", "2026-11-01T09:00:05.000Z", "a", usage=gemini.tokens(300, 30)),
        gemini.user("u2", "2026-11-06T09:00:00.000Z", "again"),
        gemini.gemini("g2", "2026-11-06T09:00:05.000Z", "b", usage=gemini.tokens(400, 40)),
    ], mtime=NOV_1 + 5 * DAY + 2_000)
    return path


WINDOWS = [
    ("2026-11-05T00:00:00+00:00", None, "session"),
    ("2026-11-05T00:00:00+00:00", None, "day"),
    ("2026-11-03T00:00:00+00:00", "2026-11-06T09:30:00+00:00", "model"),  # cuts the 6th's quarter hours
    (None, "2026-11-02T12:00:00+00:00", "session"),  # the 2nd's copied call: in the 9th's file too
    ("2026-11-06T09:10:00+00:00", None, "agent"),
    ("2026-12-01T00:00:00+00:00", None, "session"),  # no call in it: 0, not null
]


def _facts(since: str | None, until: str | None, by: Any, *, use_cache: bool) -> tuple[Any, ...]:
    # (Sessions taken from the index, as the CLI's scanner takes them: ``Scanner.refs`` gives
    # its stored rows, ``MergedRefs``.)
    with Scanner(use_cache=use_cache, memo_discovery=use_cache) as scanner:
        report = token_report(scanner, since=since, until=until, by=by)
        said = [(w.path, w.message, w.line) for w in scanner.ctx.warnings.items]
        return report.to_json(), report.unrecorded, report.unreadable, said, report.selection.counted


def _warm(since: str | None, until: str | None, by: Any) -> None:
    for _ in range(2):  # the first keeps the spans and which sessions share calls
        _facts(since, until, by, use_cache=True)


@pytest.mark.parametrize("since, until, by", WINDOWS)
def test_a_warm_window_makes_the_refs_of_its_picked_sessions_alone(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  since: str | None, until: str | None, by: Any) -> None:
    _home(isolated_home)
    _warm(since, until, by)
    made = record_calls(monkeypatch, memorefs, "memo_ref", lambda provider, row: f"{provider}:{row[0]}")
    picked = _facts(since, until, by, use_cache=True)
    assert made and len(set(made)) < 12  # were all 12: every stored session made a ref
    if since is not None:
        assert f"claude:{_native(1)}" not in made  # its calls all before the window
    with monkeypatch.context() as every:
        every.setattr(windowrefs, "window_refs", lambda *args: None)  # every session's refs, as before
        assert _facts(since, until, by, use_cache=True) == picked
    assert _facts(since, until, by, use_cache=False) == picked
    assert picked[3]  # the 11th's bad line, said whatever the window
    assert picked[4] == 12  # the sessions covered: every one


def test_a_resumed_sessions_shared_call_is_counted_once_across_the_edge(isolated_home: Path) -> None:
    _home(isolated_home)
    window = (None, "2026-11-02T12:00:00+00:00", "session")
    _warm(*window)
    facts = _facts(*window, use_cache=True)
    rows = {row["session"] if "session" in row else row["key"]: row for row in facts[0]["rows"]}
    # The 2nd's first call, copied into the 9th's file: counted once (in the 2nd's row).
    assert f"claude:{_native(9)}" not in rows
    assert facts == _facts(*window, use_cache=False)


def test_after_a_session_grew_its_provider_is_picked_as_before_then_from_the_rows(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    resumed = _home(isolated_home)
    window = ("2026-11-05T00:00:00+00:00", None, "session")
    _warm(*window)
    before = _facts(*window, use_cache=True)
    append(resumed, [_reply(_native(9), 7, 30, 5_000)], NOV_1 + 6 * DAY + 3_000)
    made = record_calls(monkeypatch, memorefs, "memo_ref", lambda provider, row: f"{provider}:{row[0]}")
    grown = _facts(*window, use_cache=True)
    assert grown == _facts(*window, use_cache=False)
    assert grown[0]["total"] != before[0]["total"]  # its new call, in the window
    made.clear()
    assert _facts(*window, use_cache=True) == grown  # settled: the next run picks from the rows
    assert made and len(set(made)) < 12


def test_the_text_table_asks_no_ref_of_the_sessions_left_out(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    args = ["tokens", "--since", "2026-11-05T00:00:00+00:00"]
    for _ in range(2):
        assert runner.invoke(app, args).exit_code == 0
    made = record_calls(monkeypatch, memorefs, "memo_ref", lambda provider, row: f"{provider}:{row[0]}")
    warm = runner.invoke(app, args)
    assert warm.exit_code == 0, warm.output
    assert made and len(set(made)) < 12  # the REASONING column's providers, asked of every session: all 12
    cold = runner.invoke(app, [*args, "--no-cache"])
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
    assert f"claude:{_native(6)}" in warm.stdout
