"""A session a bug in agentscan cost (``context.internal_error``) is said in words past its
file's listed warnings: a transcript of many bad lines filled the file's 20 listed ones, and the
session skipped was only one more in its "N more warnings for this file were not listed", in
``--verbose`` and ``--json`` too."""

from __future__ import annotations

from datetime import datetime, timezone

from agentscan.model import SessionRow
from agentscan.providers.fake import FakeProvider, FakeSession
from agentscan.scan.scanner import Scanner
from agentscan.warningsink import WarningSink, counted_past

SKIPPED = "skipped: agentscan could not read this session (KeyError); please report it"


class _BadLinesThenBug(FakeProvider):
    """A session of 30 bad lines, then a bug."""

    def row(self, ref, ctx):
        for number in range(1, 31):
            ctx.warn(ref.id, "invalid JSON skipped: not JSON", number)
        raise KeyError("bug")


def _scanner() -> Scanner:
    row = SessionRow("fake", "bad", None, updated_at=datetime(2026, 11, 2, tzinfo=timezone.utc))
    return Scanner(providers=[_BadLinesThenBug([FakeSession(row)])])


def test_a_session_skipped_past_its_files_listed_warnings_is_listed() -> None:
    scanner = _scanner()
    scanner.all_rows()
    listed = scanner.ctx.warnings.listed()
    assert [warning.message for warning in listed if warning.message.startswith("skipped")] == [SKIPPED]
    # (its 30 bad lines as before: 20 listed, 10 counted; the skip is one warning more, listed)
    assert counted_past(listed) == (1, 10)
    assert len([warning for warning in listed if warning.line is not None]) == 20


def test_a_skipped_session_said_again_from_a_capture_is_listed_too() -> None:
    sink = WarningSink()
    with sink.capture(whole_files=True) as captured:
        for number in range(1, 31):
            sink.add("fake:bad", "invalid JSON skipped: not JSON", number)
        sink.add("fake:bad", SKIPPED)
    again = WarningSink()
    again.say_again(captured.told())
    assert [warning.message for warning in again.listed()] == [warning.message for warning in sink.listed()]
    assert SKIPPED in [warning.message for warning in again.listed()]


def test_a_skipped_session_is_among_the_warnings_a_terminal_shows(capsys) -> None:
    from agentscan.cli import render
    from agentscan.warningsink import SinkWarning

    bad = [SinkWarning("/h/a.jsonl", "invalid JSON skipped", number) for number in range(1, 21)]
    render.warn_summary([SinkWarning("model:claude/x", "no price"), *bad, SinkWarning("/h/a.jsonl", SKIPPED)])
    shown = capsys.readouterr().err.splitlines()
    assert shown[:2] == ["warning: Claude Code model x: no price", f"warning: /h/a.jsonl: {SKIPPED}"]
    assert shown[-1] == "warning: … and 17 more (use --verbose or --json to see all)"
