"""``show`` of a Cursor chat while the state DB is locked shows the row the index keeps from a
run that read it, the chat and the DB unchanged since, as ``list`` and ``tokens`` do (pass 55).

The card was built without the DB: the transcript's first prompt for a title, no cwd, model or
start, and "tokens not known (could not be read)", while ``list`` beside it showed the chat's
name, folder and tokens from that same kept row.  A chat changed since has no such row: its
card is still built without the DB, its tokens not known."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, user, write_transcript
from test_cursor_locked_kept_none_pass54 import HEADED, SPENT, _headed_home, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")


def _session(result) -> dict:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)["session"]


def test_show_takes_the_kept_row_while_the_db_is_locked(isolated_home: Path) -> None:
    db = _home(isolated_home)
    read = _session(invoke("show", "--json", SPENT))
    assert invoke("list").exit_code == 0  # (the row kept, as any list keeps it)
    with LiveWriter("exclusive", db):
        shown = _session(invoke("show", "--json", SPENT))
        card = invoke("show", SPENT)
    for key in ("title", "cwd", "model", "started_at", "updated_at", "tokens", "cost_usd", "counts"):
        assert shown[key] == read[key], key
    assert shown["title"] == "spent chat" and shown["tokens"]["total"] == 120
    assert "tokens_unknown" not in shown
    assert card.exit_code == 0 and "locked" in card.stderr
    lines = {line.split()[0]: line.split(None, 1)[1] for line in card.stdout.splitlines()[1:8] if line.strip()}
    assert lines["title"] == "spent chat" and lines["model"] == "gpt-5", card.stdout
    # Its transcript written since: the kept row is not this chat's now; built without the DB.
    write_transcript(isolated_home, "work-app", SPENT, [user("fix the build"), assistant("Fixed."), user("and the tests")])
    with LiveWriter("exclusive", db):
        changed = _session(invoke("show", "--json", SPENT))
    assert changed["tokens"] is None and changed["tokens_unknown"] is True
    assert changed["counts"]["prompts"] == 2


def test_show_of_a_headed_chat_keeps_its_workspace_folder(isolated_home: Path) -> None:
    db, _ = _headed_home(isolated_home)
    assert invoke("list").exit_code == 0
    with LiveWriter("exclusive", db):
        shown = _session(invoke("show", "--json", HEADED))
    assert shown["cwd"] == f"{isolated_home}/proj" and shown["title"] == "headed chat"
    assert shown["tokens"]["total"] == 120
