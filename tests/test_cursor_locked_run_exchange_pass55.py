"""A parent's run while the state DB is locked: its exchange is read from its own transcript,
or said not known (pass 55, mend).

A run its parent lists (``subComposerIds``) with a top-level transcript of its own is shown from
its bubbles, which the lock hides: ``show --json`` listed it with its kept tokens and model but
``prompts: []``, ``responses: []`` and no delegation (a known empty exchange, docs/json.md), and
``show --full`` left its ``↳ subagent`` block out.  Its transcript holds its exchange: read from
it (its replies' models, in the bubbles, not known).  A run only the DB holds has nothing else
to read: its exchange is said not known (``exchange_unknown``), on the card too."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript
from test_cursor_locked_family_pass55 import PARENT, RUN, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

QUIET_RUN = "a5500000-0000-4000-8000-0000000000f4"  # a run only the DB holds (no transcript)
T0 = 1_780_000_000_000


def _session(result) -> dict:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)["session"]


def test_a_run_with_a_transcript_of_its_own_keeps_its_exchange_under_a_lock(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("list").exit_code == 0
    read = _session(invoke("show", "--json", PARENT))
    with LiveWriter("exclusive", db):
        locked = _session(invoke("show", "--json", PARENT))
        full = invoke("show", "--full", PARENT)
    (run,), (was,) = locked["subagents"], read["subagents"]
    assert run["id"] == RUN and run["tokens"]["total"] == 10
    assert run["prompts"] == was["prompts"] == [{"text": "write the notes", "timestamp": None}]
    assert [response["text"] for response in run["responses"]] == ["Done."]
    assert locked["delegations"] == read["delegations"] and locked["delegations"]
    assert "exchange_unknown" not in run and "exchange_unknown" not in was
    assert full.exit_code == 0 and f"↳ subagent {RUN}" in full.stdout and "write the notes" in full.stdout


def test_a_run_only_the_db_holds_has_its_exchange_not_known_under_a_lock(isolated_home: Path) -> None:
    write_transcript(isolated_home, "work-app", PARENT, [user("plan the release"), assistant("Delegating.")])
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(PARENT, name="release plan", created=T0, updated=T0 + 1000, bubbles=["u1", "a1"],
                      sub_ids=[QUIET_RUN]),
        composer_data(QUIET_RUN, name="notes", created=T0, updated=T0 + 2000, bubbles=["u2", "a2"]),
    ], bubbles={PARENT: [bubble("u1", 1, "plan the release"), bubble("a1", 2, "Delegating.", tokens=(100, 20), model="gpt-5")],
                QUIET_RUN: [bubble("u2", 1, "write the notes"), bubble("a2", 2, "Done.", tokens=(7, 3), model="gpt-5")]})
    assert invoke("list").exit_code == 0
    read = _session(invoke("show", "--json", PARENT))
    with LiveWriter("exclusive", db):
        locked = _session(invoke("show", "--json", PARENT))
        card = invoke("show", PARENT)
    assert read["subagents"][0]["prompts"] and "exchange_unknown" not in read["subagents"][0]
    (run,) = locked["subagents"]
    assert run["id"] == QUIET_RUN and run["tokens"]["total"] == 10
    assert run["prompts"] == [] and run["exchange_unknown"] is True
    assert card.exit_code == 0 and "(its exchange not known: could not be read)" in card.stdout, card.stdout
