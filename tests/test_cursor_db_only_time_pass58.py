"""Pass 58: a chat only Cursor's state DB holds, listed under a lock from the links kept with the
DB's stamp (``keptfamily``) with only its sums kept (``tokens`` ran last), took its newest kept
call's quarter hour for its update time (``keptrow.with_sums``): ``updated 20:15`` for a reply
written at 20:26:41, a time nothing recorded.  The links keep the composer's own update time
(``lastUpdatedAt``) now, and the row shows it; the quarter hour stays a lower bound only where
the composer's own time is older than its kept calls (``lastUpdatedAt`` left at its creation)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import bubble, composer_data, make_state_db, state_db_path

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

ALONE = "a5800000-0000-4000-8000-00000000e002"
T0 = 1_780_000_000_000  # 2026-05-28T20:26:40Z
LATER = 1_782_592_001_000  # 2026-06-27T20:26:41Z: the second reply's time


def _db(home: Path, *, later: bool) -> Path:
    path = state_db_path(home)
    for old in path.parent.glob("state.vscdb*"):
        old.unlink()
    bubbles = [bubble("u2", 1, "explain", created="2026-05-28T20:26:40Z"),
               bubble("a2", 2, "It is fine.", tokens=(200, 40), model="gpt-5", created="2026-05-28T20:26:41Z")]
    if later:  # a month on: another turn, and Cursor's own time of it
        bubbles += [bubble("u3", 1, "again", created="2026-06-27T20:26:40Z"),
                    bubble("a3", 2, "more", tokens=(1000, 100), model="gpt-5", created="2026-06-27T20:26:41Z")]
    return make_state_db(path, composers=[composer_data(
        ALONE, name="ide chat", created=T0, updated=LATER if later else T0 + 1000, model="gpt-5",
        fs_path=str(home / "proj"), bubbles=[b["bubbleId"] for b in bubbles])], bubbles={ALONE: bubbles})


def _row(*args: str) -> dict:
    result = invoke("list", "--json", *args)
    assert result.exit_code == 0, result.stderr
    return {row["native_id"]: row for row in orjson.loads(result.stdout)["sessions"]}[ALONE]


@pytest.mark.parametrize("row_kept_before", [True, False])
def test_a_db_only_chat_under_a_lock_shows_its_own_update_time(isolated_home: Path, row_kept_before: bool) -> None:
    if row_kept_before:
        _db(isolated_home, later=False)
        assert invoke("list", "--json").exit_code == 0  # its row kept at the DB as it was
    db = _db(isolated_home, later=True)
    read = _row("--no-cache")
    assert invoke("tokens", "--json").exit_code == 0  # the sums and links kept now, no row
    with LiveWriter("exclusive", db):
        locked = _row()
        since = invoke("list", "--json", "--since", "2026-06-27T20:20:00")
        shown = invoke("show", ALONE, "--json")
    assert read["updated_at"].startswith("2026-06-27T20:26:41")
    assert locked["updated_at"] == read["updated_at"], locked  # (not 20:15:00, the quarter hour's start)
    assert ALONE in since.stdout
    assert orjson.loads(shown.stdout)["session"]["updated_at"] == read["updated_at"]
    assert locked["tokens"]["total"] == 1340 and locked["title"] == "ide chat"
