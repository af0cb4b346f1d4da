"""A Cursor transcript prompt with no ``<timestamp>`` wrapper takes the time of the user
bubble its turn is matched to (``ide.matched_turns``), when the two say the same; before,
such a session with a ``composerData`` row and timed bubbles showed its prompts at ``-``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

SID = "a1b2c3d4-0000-4000-8000-000000000045"


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _session(home: Path, prompts: list[dict], user_texts: list[str]) -> dict:
    write_transcript(home, "home-me-app", SID, [record for prompt in prompts for record in (prompt, assistant("ok"))])
    bubbles = []
    for i, text in enumerate(user_texts):
        bubbles += [bubble(f"u{i}", 1, text, created=f"2026-11-29T1{i}:00:00.000Z"),
                    bubble(f"a{i}", 2, "ok", created=f"2026-11-29T1{i}:00:30.000Z", model="gpt-5")]
    make_state_db(state_db_path(home), composers=[composer_data(SID, name="t", bubbles=[b["bubbleId"] for b in bubbles])],
                  bubbles={SID: bubbles})
    result = invoke("show", SID, "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)["session"]


def test_a_prompt_without_a_wrapper_takes_its_bubble_s_time(isolated_home: Path) -> None:
    session = _session(isolated_home, [user("add a cache"), user("now test it")],
                       ["add a cache", "now test it"])
    assert [p["timestamp"] for p in session["prompts"]] == ["2026-11-29T10:00:00.000Z", "2026-11-29T11:00:00.000Z"]
    assert [r["model"] for r in session["responses"]] == ["gpt-5", "gpt-5"]


def test_the_wrapper_wins_and_a_bubble_saying_something_else_gives_no_time(isolated_home: Path) -> None:
    session = _session(isolated_home, [user("add a cache", stamp="Sunday, Nov 29, 2026, 9:30 AM (UTC+0)"),
                                       user("now test it")],
                       ["add a cache", "something else entirely"])
    assert [p["timestamp"] for p in session["prompts"]] == ["2026-11-29T09:30:00.000Z", None]


def test_turns_that_do_not_match_one_for_one_give_no_time(isolated_home: Path) -> None:
    session = _session(isolated_home, [user("add a cache"), user("now test it")], ["add a cache"])
    assert [p["timestamp"] for p in session["prompts"]] == [None, None]
