"""What a Cursor row built under a locked state DB takes from the row the index keeps, and the
one most-used model rule, as a review of pass 56 found them (``cursor.keptrow``, ``mostused``).

* A workspace-only composer's row is read whole from its own workspace DB: it took the kept
  row's older name and model (beside a cost priced by the new model) while the global DB was
  locked.  Only a row built without the DB's facts takes them (``lends_kept``).
* A transcript written after the kept read: its mtime was dropped for the kept time, and
  ``list --since 1h`` left the chat out.  The newer of the two stands.
* A DB-only chat whose DB changed since its row was kept: its tokens the sums kept now, its
  time the kept row's, older than their calls; ``list --since`` left out what ``tokens --since``
  counted.  Its time is at least its newest kept call's quarter hour.
* A model was the one most live replies named, tokens or not, when read, and the one most calls
  ran (bubbles with tokens) from the kept sums under a lock: one reply without tokens named a
  run or a chat one way, then the other.  Both count calls.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import (
    assistant, bubble, composer_data, make_state_db, make_workspace_db, state_db_path, user, write_subagent,
    write_transcript,
)

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

SPENT = "a5600000-0000-4000-8000-00000000c001"
RUN = "a5600000-0000-4000-8000-00000000c002"
ALONE = "a5600000-0000-4000-8000-00000000e002"
WORKSPACE_CHAT = "5e1f0c3a-1111-4222-8333-444444444444"
T0 = 1_780_000_000_000


def _doc(result) -> dict:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)


def _by_id(result) -> dict[str, dict]:  # noqa: ANN001
    return {row["native_id"]: row for row in _doc(result)["sessions"]}


# -- a workspace-only composer keeps its own facts -----------------------------------------


def _workspace(home: Path, name: str, updated: int, model: str) -> None:
    shutil.rmtree(state_db_path(home).parent.parent / "workspaceStorage", ignore_errors=True)
    make_workspace_db(home, "file:///Users/dev/src/app", [{
        "composerId": WORKSPACE_CHAT, "name": name, "createdAt": 1_700_000_000_000, "lastUpdatedAt": updated,
        "conversation": [bubble("b1", 1, "rename the helper"),
                         bubble("b2", 2, "Renamed.", tokens=(1200, 80), model=model)]}])


def test_a_workspace_composer_read_whole_keeps_its_new_name_and_model(isolated_home: Path) -> None:
    db = make_state_db(state_db_path(isolated_home))
    _workspace(isolated_home, "Old name", 1_700_000_600_000, "claude-3.5-sonnet")
    assert _by_id(invoke("list", "--json"))[WORKSPACE_CHAT]["title"] == "Old name"  # (kept)
    _workspace(isolated_home, "New name", 1_790_000_600_000, "gpt-5")  # renamed, another model
    with LiveWriter("exclusive", db):
        locked = _by_id(invoke("list", "--json"))[WORKSPACE_CHAT]
    read = _by_id(invoke("list", "--json", "--no-cache"))[WORKSPACE_CHAT]
    assert (locked["title"], locked["model"]) == ("New name", "gpt-5"), locked
    for key in ("title", "model", "updated_at", "tokens", "cost_usd"):
        assert locked[key] == read[key], key


# -- a transcript written since the kept read ----------------------------------------------


def _home(home: Path) -> Path:
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, model="gpt-5",
                      fs_path=str(home / "app"), bubbles=["u1", "a1"]),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"), bubble("a1", 2, "Fixed.", tokens=(100, 20), model="gpt-5")]})


def test_fresh_activity_under_the_lock_is_listed_as_recent(isolated_home: Path) -> None:
    db = _home(isolated_home)
    read = _by_id(invoke("list", "--json"))[SPENT]
    write_transcript(isolated_home, "work-app", SPENT, [user("fix the build"), assistant("Fixed."), user("and the tests")])
    with LiveWriter("exclusive", db):
        listed = _by_id(invoke("list", "--json"))[SPENT]
        recent = _by_id(invoke("list", "--json", "--since", "1h"))
    assert SPENT in recent  # (left out: the kept time, months old, stood for the fresh mtime)
    assert listed["updated_at"] > read["updated_at"]
    assert listed["title"] == "spent chat" and listed["model"] == "gpt-5"  # (still lent)


# -- a DB-only chat whose DB changed since its row was kept --------------------------------


def _db_only(home: Path, *, later: bool) -> Path:
    path = state_db_path(home)
    for old in path.parent.glob("state.vscdb*"):
        old.unlink()
    bubbles = [bubble("u2", 1, "explain", created="2026-05-28T20:26:40Z"),
               bubble("a2", 2, "It is fine.", tokens=(200, 40), model="gpt-5", created="2026-05-28T20:26:41Z")]
    if later:  # a month on: another turn
        bubbles += [bubble("u3", 1, "again", created="2026-06-27T20:26:40Z"),
                    bubble("a3", 2, "more", tokens=(1000, 100), model="gpt-5", created="2026-06-27T20:26:41Z")]
    return make_state_db(path, composers=[composer_data(
        ALONE, name="ide chat", created=T0, updated=T0 + 2000, model="gpt-5", fs_path=str(home / "proj"),
        bubbles=[b["bubbleId"] for b in bubbles])], bubbles={ALONE: bubbles})


def test_a_db_only_chat_is_as_recent_as_its_kept_calls(isolated_home: Path) -> None:
    _db_only(isolated_home, later=False)
    assert invoke("list", "--json").exit_code == 0  # its row kept at the DB as it was
    db = _db_only(isolated_home, later=True)
    assert invoke("tokens", "--json").exit_code == 0  # the sums (and links) kept now, no row
    with LiveWriter("exclusive", db):
        listed = _by_id(invoke("list", "--json"))[ALONE]
        since = _by_id(invoke("list", "--json", "--since", "2026-06-01"))
        counted = _doc(invoke("tokens", "--json", "--since", "2026-06-01"))
    assert listed["tokens"]["total"] == 1340
    assert [row["key"] for row in counted["rows"]] == [f"cursor:{ALONE}"]
    assert ALONE in since, listed  # (``tokens --since`` counted it; ``list --since`` left it out)
    assert listed["updated_at"] >= "2026-06-27T20:15:00", listed["updated_at"]


# -- one most-used model rule, read or locked ----------------------------------------------


def test_a_runs_model_counts_calls_read_or_locked(isolated_home: Path) -> None:
    # One gpt-5 call, one claude-4-sonnet call, and a gpt-5 reply with no tokens: read, the
    # replies made gpt-5 the run's model; locked, the kept sums' calls tie, to claude-4-sonnet.
    write_transcript(isolated_home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    write_subagent(isolated_home, "work-app", SPENT, RUN, [user("look around"), assistant("ok")])
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, bubbles=["u1", "a1"], sub_ids=[RUN]),
        composer_data(RUN, created=T0, updated=T0 + 500, bubbles=["u3", "a3", "a5", "a4"]),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"), bubble("a1", 2, "Fixed.", tokens=(100, 20), model="gpt-5")],
                RUN: [bubble("u3", 1, "look around"), bubble("a3", 2, "ok", tokens=(30, 5), model="gpt-5"),
                      bubble("a5", 2, "reading", model="gpt-5"),
                      bubble("a4", 2, "done", tokens=(30, 5), model="claude-4-sonnet")]})
    read = _doc(invoke("show", "--json", SPENT))["session"]
    assert invoke("list").exit_code == 0
    with LiveWriter("exclusive", db):
        locked = _doc(invoke("show", "--json", SPENT))["session"]
    models = [{sub["id"]: sub["model"] for sub in doc["subagents"]} for doc in (read, locked)]
    assert models[0] == models[1] == {RUN: "claude-4-sonnet"}, models


def test_a_chats_model_counts_calls_read_or_locked(isolated_home: Path) -> None:
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(ALONE, name="ide chat", created=T0, updated=T0 + 2000,
                      fs_path=str(isolated_home / "proj"), bubbles=["u2", "a2", "a3", "a4"]),
    ], bubbles={ALONE: [bubble("u2", 1, "explain"), bubble("a2", 2, "It is fine.", tokens=(200, 40), model="gpt-5"),
                        bubble("a3", 2, "more", model="gpt-5"),  # a reply with no tokens
                        bubble("a4", 2, "x", tokens=(10, 1), model="claude-4-sonnet")]})
    assert invoke("tokens", "--json").exit_code == 0  # the sums kept, no row
    read = _by_id(invoke("list", "--json", "--no-cache"))[ALONE]
    with LiveWriter("exclusive", db):
        locked = _by_id(invoke("list", "--json"))[ALONE]
    assert read["model"] == locked["model"] == "claude-4-sonnet", (read["model"], locked["model"])


def test_replies_name_the_model_when_no_call_does(isolated_home: Path) -> None:
    # Current Cursor builds record no tokens for most bubbles: the replies' models stand then.
    make_state_db(state_db_path(isolated_home), composers=[
        composer_data(ALONE, name="ide chat", created=T0, updated=T0 + 2000,
                      fs_path=str(isolated_home / "proj"), bubbles=["u2", "a2"]),
    ], bubbles={ALONE: [bubble("u2", 1, "explain"), bubble("a2", 2, "It is fine.", model="gpt-5")]})
    assert _by_id(invoke("list", "--json"))[ALONE]["model"] == "gpt-5"
