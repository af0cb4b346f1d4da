"""A call's first and last record times (``usage.C_FIRST_TS``) are found only where entries
are kept (``otlp``'s spans): a cold ``tokens`` adds up sums, which never read them, and finding
them cost its dedupe half as much again (the bench's scale 10: +0.2 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude.dedupe import CallDeduper
from agentscan.providers.claude.usage import C_FIRST_TS, C_TS
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

SESSION = "1a2b3c4d-0000-4111-8222-333344445556"


def _calls() -> list[tuple]:
    def call(order: int, ts: float | None, output: int) -> tuple:
        return ("m1", "r1", False, False, 10, 0, 0, output, ts, "claude-x", None, order, 0, 0, False, None)

    return [call(1, 100.0, 5), call(2, None, 40), call(3, 103.0, 40), call(4, 99.0, 1)]


def test_the_same_winners_without_their_times() -> None:
    with_times, without = CallDeduper(call_times=True), CallDeduper()
    with_times.add_all(_calls())
    without.add_all(_calls())
    [timed], [plain] = with_times.winners(), without.winners()
    assert timed[:C_FIRST_TS] == plain  # (the copy with the larger total, first of the two)
    assert (timed[C_FIRST_TS], timed[C_FIRST_TS + 1]) == (99.0, 103.0) and plain[C_TS] is None


@pytest.mark.parametrize("keep_entries", [False, True])
def test_a_parse_for_sums_asks_for_no_call_times(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                 keep_entries: bool) -> None:
    """Sums alone (a cold ``tokens`` of 64 sessions or more) ask for none; kept entries do."""
    from agentscan.scan.sessionsums import parse_session

    claude_session_file(isolated_home, SESSION, [
        claude_user(SESSION, "2026-03-01T10:00:00.000Z", "go", uuid="u1"),
        claude_assistant(SESSION, "2026-03-01T10:00:01.000Z", msg_id="m1", request_id="r1", uuid="a1",
                         usage=claude_usage(input=3, output=1), blocks=[{"type": "text", "text": "a"}]),
        claude_assistant(SESSION, "2026-03-01T10:00:02.000Z", msg_id="m1", request_id="r1", uuid="a2",
                         usage=claude_usage(input=3, output=9), blocks=[{"type": "text", "text": "b"}]),
    ])
    asked: list[bool] = []
    real = claude_provider.ClaudeProvider.session_usage

    def spy(self, ref, ctx, resume=None, *, keep_state=False, call_times=False):  # type: ignore[no-untyped-def]
        asked.append(call_times)
        return real(self, ref, ctx, resume, keep_state=keep_state, call_times=call_times)

    monkeypatch.setattr(claude_provider.ClaudeProvider, "session_usage", spy)
    with Scanner(env={"HOME": str(isolated_home)}, use_cache=False) as scanner:
        [ref] = scanner.refs()
        parsed = parse_session(scanner.provider("claude"), ref, scanner.ctx, None, False, keep_entries)
    assert asked == [keep_entries]
    assert sum(group[8] for group in parsed.sums.groups) == 9  # (output: the larger copy)
    if keep_entries:
        [entry] = parsed.entries or []
        assert len(entry) > 13  # its first and last times
