"""Pass 53, left3: what a user was told wrong or not at all.

* A Cursor chat held only by the state DB, taken from the index (a memo ref) by a run whose
  census saw nothing change, was "changed while being read; run the command again" when
  Cursor locked the DB before the chat's parse: nothing had changed, and the rediscovery's
  own warning (the DB locked) already says why the chat was left out (``OwnRefs.real_ref``).
* ``tokens <id>`` of a session that recorded no usage printed only "(+ 1 session that
  recorded no usage, not counted: …)": no line said what the answer was
  (``tokens_empty.recorded_none``).
* ``list --cwd`` of a folder that does not exist said only "no sessions under …"
  (``render.none_under``).
* ``show claude:<id>`` of a session captured by hooks under Cursor got no ``trace`` hint
  (``notfound._captured_only``), where ``trace claude:<id>`` offers the Cursor capture.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan.scan.scanner import Scanner
from bad_corpus import LiveWriter
from builders import invoke
from hooks_builders import Replay
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

KEPT = "a5300000-0000-4000-8000-00000000ee01"
TRANSCRIPT = "a5300000-0000-4000-8000-00000000ee02"
T0 = 1_780_000_000_000


@pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")
def test_a_db_only_chat_under_a_db_locked_since_the_census_is_not_changed(isolated_home: Path) -> None:
    write_transcript(isolated_home, "work-app", TRANSCRIPT, [user("old idea"), assistant("ok")])
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(KEPT, name="live chat", created=T0, updated=T0 + 1000, bubbles=["u"]),
        composer_data(TRANSCRIPT, name="transcript chat", created=T0, updated=T0 + 2000, bubbles=["v"]),
    ], bubbles={KEPT: [bubble("u", 1, "hi", tokens=(10, 20))], TRANSCRIPT: [bubble("v", 1, "old idea", tokens=(5, 5))]})
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        scanner.refs()
    with Scanner(use_cache=True, memo_discovery=True) as scanner:
        memo = {ref.id: ref for ref in scanner.refs()}
        with LiveWriter("exclusive", db):  # Cursor takes the DB between the census and the parse
            # Pass 56: a chat only the DB holds is kept at its last read while the DB is locked.
            kept = scanner.real_ref(memo[f"cursor:{KEPT}"])
            assert kept is not None and kept.native_id == KEPT
        messages = [w.message for w in scanner.warnings]
    assert not any("changed while being read" in m for m in messages), messages
    assert any("Cursor state DB not used (database is locked" in m for m in messages), messages


@pytest.mark.usefixtures("only_cursor")
def test_tokens_of_a_session_that_recorded_no_usage_says_so(isolated_home: Path) -> None:
    # A transcript with no state DB: its tokens are not recorded (``show``'s card says so).
    write_transcript(isolated_home, "work-app", TRANSCRIPT, [user("old idea"), assistant("ok")])
    result = invoke("tokens", f"cursor:{TRANSCRIPT}")
    assert result.exit_code == 0, result.stderr
    said = " ".join(result.stderr.split())
    # stderr, as an empty window's answer is: stdout stays empty for a pipe
    assert result.stdout == ""
    assert "no usage: the session asked for recorded none (its tokens are not recorded" in said, said
    document = orjson.loads(invoke("tokens", f"cursor:{TRANSCRIPT}", "--json").stdout)
    assert [row["tokens"] for row in document["rows"]] == [None]
    grouped = invoke("tokens", f"cursor:{TRANSCRIPT}", "--by", "model")
    assert "no usage: the session asked for recorded none" in " ".join(grouped.stderr.split())


@pytest.mark.usefixtures("only_cursor")
def test_a_cwd_that_does_not_exist_is_said_when_nothing_matched(isolated_home: Path, tmp_path: Path) -> None:
    write_transcript(isolated_home, "work-app", TRANSCRIPT, [user("old idea"), assistant("ok")])
    missing, there = tmp_path / "nonexist", tmp_path / "empty"
    there.mkdir()
    for command in ("list", "tokens"):
        said = " ".join(invoke(command, "--cwd", str(missing)).stderr.split())
        assert f"no sessions under {missing} (it does not exist; 1 elsewhere)" in said, said
        said = " ".join(invoke(command, "--cwd", str(there)).stderr.split())
        assert f"no sessions under {there} (1 elsewhere)" in said, said
    # A copied Windows home's path is never a folder here: not said of it
    said = " ".join(invoke("list", "--cwd", "C:\\Users\\me\\App").stderr.split())
    assert "(1 elsewhere)" in said and "does not exist" not in said, said


CURSOR_CAPTURED = "c0ffee00-1111-4222-8333-444455556666"


@pytest.mark.parametrize("query", ["claude:c0ffee00", f"claude:{CURSOR_CAPTURED}"])
def test_show_of_an_id_captured_under_another_agent_offers_its_trace(isolated_home: Path, query: str) -> None:
    # Cursor runs Claude models: a user types ``claude:`` for a session its hooks captured.
    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    Replay(data_dir, agent="cursor").send({"hook_event_name": "beforeSubmitPrompt", "conversation_id": CURSOR_CAPTURED,
                                           "generation_id": "g-1", "prompt": "hi"})
    result = invoke("show", query)
    assert result.exit_code == 1
    assert f"hint: `agentscan trace cursor:{CURSOR_CAPTURED}` shows the session captured under cursor" in result.stderr, \
        result.stderr


@pytest.mark.parametrize("command", [["list"], ["tokens", "--json"], ["hooks", "status"]])
def test_dash_v_after_a_command_names_version(command: list[str]) -> None:
    result = invoke(*command, "-V")
    assert result.exit_code == 2
    assert "No such option: -V (agentscan --version prints the version)" in result.stderr, result.stderr
