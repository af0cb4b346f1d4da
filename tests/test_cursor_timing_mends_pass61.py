"""What a Cursor bubble's ``timingInfo`` dates, pinned field by field, and ``list``'s bound
agreeing with the row's ``updated_at`` (docs/providers/cursor.md, "Freshness").

* The wall times are taken in order: send, settle, end; one under 2020 (no wall time) or past
  the supported years (``1e30``: told) gives way to the next.
* ``list --since`` reads sessions by a bound (``row.recency``): the last live bubble's time, or,
  when it has none (a prompt not answered yet), the nearest before it with one: a session
  ``list`` shows as updated in the window was left out of ``list --since``.
* Every reader takes the same time: ``list``'s bound (``bubbletimes``, a legacy inline
  conversation's ``composer._last_inline``), ``show``'s prompt times matched from a transcript
  (``ide.matched_turns``) and a chat only a workspace DB lists (``standalone``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import cli_json, invoke
from cursor_builders import (assistant, bubble, composer_data, make_state_db, make_workspace_db, state_db_path, user,
                             write_transcript)

pytestmark = pytest.mark.usefixtures("only_cursor")

C = "c6100000-0000-4000-8000-0000000000a1"
E = "c6100000-0000-4000-8000-0000000000a2"
D1 = 1_754_000_000_000  # 2025-07-31T22:13:20Z
DAY = 86_400_000
MODEL = "claude-4-sonnet"
SINCE = "2025-08-02T00:00:00Z"


def _days(*extra: str) -> dict[str, int]:
    return {row["key"]: row["tokens"]["total"] for row in cli_json("tokens", "--by", "day", "--tz", "UTC", *extra)["rows"]}


def _chat(home: Path, *replies: dict) -> None:
    bubbles = [bubble("u1", 1, "first"), *replies]
    make_state_db(state_db_path(home), composers=[composer_data(
        C, name="old chat", created=D1, updated=D1, model=MODEL, bubbles=[b["bubbleId"] for b in bubbles])],
        bubbles={C: bubbles})


def _reply(bubble_id: str, tokens: int, **timing: float) -> dict:
    return bubble(bubble_id, 2, "ok", tokens=(tokens, 0), model=MODEL, timingInfo=timing)


def test_each_wall_time_in_its_order(isolated_home: Path) -> None:
    _chat(isolated_home,
          # send before settle, each on its own day
          _reply("a1", 1, clientRpcSendTime=D1, clientSettleTime=D1 + DAY, clientEndTime=D1 + 2 * DAY),
          # settle before end
          _reply("a2", 2, clientSettleTime=D1 + DAY, clientEndTime=D1 + 2 * DAY),
          # a number before 2020 is no wall time (Cursor is younger; ``from_epoch`` would take an
          # uptime of a day, as here, for seconds: 1973): it gives way to the settle time, untold
          _reply("a3", 4, clientRpcSendTime=100_000_000.5, clientSettleTime=D1 + DAY))
    report = cli_json("tokens", "--by", "day", "--tz", "UTC")
    assert {row["key"]: row["tokens"]["total"] for row in report["rows"]} == {"2025-07-31": 1, "2025-08-01": 2 + 4}
    assert report["warnings"] == []


def test_a_send_time_past_the_supported_years_gives_way_and_is_told(isolated_home: Path) -> None:
    _chat(isolated_home, _reply("a1", 8, clientRpcSendTime=1e30, clientSettleTime=D1 + DAY),
          _reply("a2", 16, clientRpcSendTime=1e30, clientEndTime=D1 + 2 * DAY))
    report = cli_json("tokens", "--by", "day", "--tz", "UTC")
    assert {row["key"]: row["tokens"]["total"] for row in report["rows"]} == {"2025-08-01": 8, "2025-08-02": 16}
    assert any("time outside the supported range" in w["message"] for w in report["warnings"])


def _bound_home(home: Path) -> None:
    """``C``'s last live bubble (a prompt not answered yet) has no time; the reply before it was
    sent three days after its composer's ``lastUpdatedAt``.  ``E`` was updated a day after it."""
    mine = [bubble("u1", 1, "first"), _reply("a1", 110, clientStartTime=5.0, clientRpcSendTime=D1 + 3 * DAY),
            bubble("u2", 1, "second, not answered yet")]
    other = [bubble("u1", 1, "hi"), _reply("a1", 2, clientRpcSendTime=D1 + DAY)]
    make_state_db(state_db_path(home), composers=[
        composer_data(C, name="old chat", created=D1, updated=D1, model=MODEL, bubbles=[b["bubbleId"] for b in mine]),
        composer_data(E, name="other", created=D1, updated=D1 + DAY, model=MODEL, bubbles=[b["bubbleId"] for b in other])],
        bubbles={C: mine, E: other})


def _listed(*args: str) -> list[tuple[str, str]]:
    return [(row["native_id"], row["updated_at"]) for row in cli_json("list", *args)["sessions"]]


def test_list_since_walks_back_to_the_last_bubble_with_a_time(isolated_home: Path) -> None:
    _bound_home(isolated_home)
    shown = _listed("--no-cache")
    assert shown[0] == (C, "2025-08-03T22:13:20.000Z")
    window = [(native_id, updated) for native_id, updated in shown if updated >= "2025-08-02"]
    assert _listed("--no-cache", "--since", SINCE) == window
    assert _listed("--since", SINCE) == window  # (cold, then warm: as ``--no-cache`` says)
    assert _listed("--since", SINCE) == window
    assert [row["key"] for row in cli_json("tokens", "--since", SINCE)["rows"]] == [f"cursor:{C}"]


def test_list_since_takes_a_last_bubble_dated_by_its_timing_info(isolated_home: Path) -> None:
    _chat(isolated_home, _reply("a1", 110, clientRpcSendTime=D1 + 3 * DAY))
    assert _listed("--since", SINCE) == [(C, "2025-08-03T22:13:20.000Z")]


def test_a_legacy_inline_conversation_s_bound_takes_its_timing_info(isolated_home: Path) -> None:
    # Builds that kept the bubbles inside ``composerData`` (``conversation``): no bubble rows.
    inline = [bubble("u1", 1, "first"), _reply("a1", 110, clientRpcSendTime=D1 + 3 * DAY)]
    make_state_db(state_db_path(isolated_home), composers=[composer_data(
        C, name="legacy", created=D1, updated=D1, model=MODEL, conversation=inline)])
    assert _listed("--no-cache") == [(C, "2025-08-03T22:13:20.000Z")]
    assert _listed("--since", SINCE) == [(C, "2025-08-03T22:13:20.000Z")]


def test_a_transcript_prompt_takes_its_user_bubble_s_timing_info(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-me-app", C, [user("add a cache"), assistant("ok")])
    bubbles = [bubble("u1", 1, "add a cache", timingInfo={"clientRpcSendTime": D1 + DAY}),
               _reply("a1", 3, clientRpcSendTime=D1 + DAY + 1000)]
    make_state_db(state_db_path(isolated_home), composers=[composer_data(
        C, name="t", created=D1, updated=D1, bubbles=[b["bubbleId"] for b in bubbles])], bubbles={C: bubbles})
    session = cli_json("show", C)["session"]
    assert [p["timestamp"] for p in session["prompts"]] == ["2025-08-01T22:13:20.000Z"]


def test_a_workspace_db_chat_is_dated_by_its_timing_info(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home))  # the global DB knows nothing of it
    make_workspace_db(isolated_home, "file:///Users/dev/src/oldapp", [{
        "composerId": C, "name": "Old composer", "createdAt": D1, "lastUpdatedAt": D1,
        "conversation": [bubble("b1", 1, "rename the helper", timingInfo={"clientRpcSendTime": D1 + 3 * DAY}),
                         _reply("b2", 1280, clientRpcSendTime=D1 + 3 * DAY + 10_000)]}])
    session = cli_json("show", C)["session"]
    assert [p["timestamp"] for p in session["prompts"]] == ["2025-08-03T22:13:20.000Z"]
    assert [r["timestamp"] for r in session["responses"]] == ["2025-08-03T22:13:30.000Z"]
    # Its bound takes its bubbles' times as its row does.
    assert _listed("--since", SINCE) == [(C, "2025-08-03T22:13:30.000Z")]
    assert invoke("list", "--since", SINCE).exit_code == 0
