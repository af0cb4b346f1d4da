"""A Cursor bubble with no ``createdAt`` (builds before about 2025-09: the ones whose bubbles
still carry real ``tokenCount``s) is dated by its ``timingInfo`` wall times, as
S2thend/cursor-history dates it (specs/010-fix-timestamp-fallback): ``clientRpcSendTime``,
else ``clientSettleTime``, else ``clientEndTime`` (epoch ms, ``Date.now()``), never
``clientStartTime`` (the renderer's uptime).  Before, every such bubble's tokens were dated
by its composer's ``lastUpdatedAt`` (docs/providers/cursor.md, "Token rules")."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import cli_json
from cursor_builders import bubble, composer_data, make_state_db, state_db_path

C = "c6100000-0000-4000-8000-000000000001"
D1 = 1_754_000_000_000  # 2025-07-31T22:13:20Z
DAY = 86_400_000
MODEL = "claude-4-sonnet"

pytestmark = pytest.mark.usefixtures("only_cursor")


def _old_chat(home: Path, *extra_bubbles: dict) -> None:
    """An IDE chat of three days (created on D1, last updated two days later) whose bubbles
    name no ``createdAt``: its first reply sent on D1, its second on the last day."""
    first = bubble("a1", 2, "one", tokens=(100, 10), model=MODEL,
                   timingInfo={"clientStartTime": 98813.1, "clientRpcSendTime": D1 + 60_000,
                               "clientSettleTime": D1 + 70_000, "clientEndTime": D1 + 70_000})
    second = bubble("a2", 2, "two", tokens=(200, 20), model=MODEL,
                    timingInfo={"clientStartTime": 5000.0, "clientRpcSendTime": D1 + 2 * DAY - 60_000})
    bubbles = [bubble("u1", 1, "first"), first, bubble("u2", 1, "second"), second, *extra_bubbles]
    make_state_db(state_db_path(home), composers=[composer_data(
        C, name="old chat", created=D1, updated=D1 + 2 * DAY, model=MODEL,
        bubbles=[b["bubbleId"] for b in bubbles])], bubbles={C: bubbles})


def _days() -> dict[str, int]:
    return {row["key"]: row["tokens"]["total"] for row in cli_json("tokens", "--by", "day", "--tz", "UTC")["rows"]}


def test_a_bubble_without_created_at_is_dated_by_its_request_s_send_time(isolated_home: Path) -> None:
    _old_chat(isolated_home)
    assert _days() == {"2025-07-31": 110, "2025-08-02": 220}
    session = cli_json("show", C)["session"]
    assert [r["timestamp"] for r in session["responses"]] == ["2025-07-31T22:14:20.000Z", "2025-08-02T22:12:20.000Z"]
    # (``--since`` asks the calls' own times: the first day's call is before it)
    since = cli_json("tokens", "--since", "2025-08-01T00:00:00Z")
    assert since["total"]["total"] == 220


def test_settle_then_end_time_when_there_is_no_send_time_and_never_the_uptime(isolated_home: Path) -> None:
    """``clientStartTime`` counts milliseconds since the renderer started: a day and more of
    uptime is a number ``from_epoch`` would take for a time in 1970, so it is never read; a
    bubble with nothing else keeps its composer's time."""
    settled = bubble("a3", 2, "three", tokens=(1, 1), model=MODEL,
                     timingInfo={"clientStartTime": 100_000_000.5, "clientSettleTime": D1 + DAY})
    ended = bubble("a4", 2, "four", tokens=(2, 2), model=MODEL, timingInfo={"clientEndTime": D1 + DAY + 1})
    uptime_only = bubble("a5", 2, "five", tokens=(3, 3), model=MODEL, timingInfo={"clientStartTime": 100_000_000.5})
    _old_chat(isolated_home, settled, ended, uptime_only)
    assert _days() == {"2025-07-31": 110, "2025-08-01": 2 + 4, "2025-08-02": 220 + 6}


def test_created_at_wins_over_the_timing_info(isolated_home: Path) -> None:
    stamped = bubble("a3", 2, "three", tokens=(1, 1), model=MODEL, created="2025-08-01T12:00:00.000Z",
                     timingInfo={"clientRpcSendTime": D1})
    _old_chat(isolated_home, stamped)
    assert _days() == {"2025-07-31": 110, "2025-08-01": 2, "2025-08-02": 220}
