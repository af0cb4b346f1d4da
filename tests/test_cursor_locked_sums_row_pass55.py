"""A Cursor chat listed while its state DB is locked takes its tokens from the sums the index
keeps from a run that read the DB, the chat and the DB unchanged since (pass 55).

After only ``tokens`` had run (its sums kept, no row), ``list`` under the lock showed the chat
as ``-`` with ``tokens_unknown`` while ``tokens`` beside it showed its 120 kept tokens: the row
was rebuilt without the DB, and a Cursor row's tokens are only the DB's bubbles.  It takes them
from those sums now, as a Claude row does (``readsums.groups_read``); such a row is never kept,
so once the lock is gone the chat is read whole again and the warm answer is the cold one.

And a chat whose kept sums say it recorded no usage read "not archived" under the lock while
the chat beside it read "not known": its usage is known from those sums, its archived state is
not (no sums keep it)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from test_cursor_locked_kept_none_pass54 import QUIET, SPENT, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")


def _rows(result) -> dict[str, dict]:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return {row["native_id"]: row for row in orjson.loads(result.stdout)["sessions"]}


def test_a_row_built_under_the_lock_takes_the_kept_sums(isolated_home: Path) -> None:
    db = _home(isolated_home)
    cold = _rows(invoke("--no-cache", "list", "--json"))
    assert invoke("tokens", "--by", "day").exit_code == 0  # sums kept, no row
    with LiveWriter("exclusive", db):
        locked = _rows(invoke("list", "--json"))
        table = invoke("list")
        shown = invoke("show", "--json", SPENT)
    # ``show``'s card as ``list``'s row: its tokens and cost from the kept sums, not "not known".
    assert shown.exit_code == 0, shown.stderr
    card = orjson.loads(shown.stdout)["session"]
    assert card["tokens"] == cold[SPENT]["tokens"] and card["cost_usd"] == cold[SPENT]["cost_usd"]
    assert "tokens_unknown" not in card
    assert locked[SPENT]["tokens"] == cold[SPENT]["tokens"] and locked[SPENT]["tokens"]["total"] == 120
    assert locked[SPENT]["cost_usd"] == cold[SPENT]["cost_usd"] and locked[SPENT]["cost_usd"] is not None
    assert "tokens_unknown" not in locked[SPENT]
    assert locked[QUIET]["tokens"] is None and "tokens_unknown" not in locked[QUIET]
    spent = next(line for line in table.stdout.splitlines() if SPENT in line)
    assert " 120 " in spent, table.stdout
    # Neither chat's archived state is known under the lock (no row kept: only sums).
    assert locked[SPENT]["archived"] is None and locked[QUIET]["archived"] is None
    # The lock gone, the DB unchanged: the row read under it was not kept; warm is cold.
    warm = _rows(invoke("list", "--json"))
    assert warm == _rows(invoke("--no-cache", "list", "--json")) == cold
    assert warm[SPENT]["title"] == "spent chat"


def test_no_kept_sums_no_tokens(isolated_home: Path) -> None:
    db = _home(isolated_home)
    with LiveWriter("exclusive", db):
        locked = _rows(invoke("list", "--json"))
    assert locked[SPENT]["tokens"] is None and locked[SPENT]["tokens_unknown"] is True


def test_export_json_counts_the_sessions_held_for_the_lock(isolated_home: Path, tmp_path: Path) -> None:
    # ``export --json`` said nothing of sessions it did not write but in the warnings' words: a
    # cron job could not tell one a lock held out (written by a later run by itself) from an
    # unreadable file (which needs the user).  ``unread``: ``{"sessions", "locked"}``.
    db = _home(isolated_home)
    out = tmp_path / "sessions.jsonl"
    assert invoke("tokens", "--by", "day").exit_code == 0  # sums kept, no row: the spent chat is held out
    with LiveWriter("exclusive", db):
        held = invoke("export", "-f", "jsonl", "-o", str(out), "--json")
    assert held.exit_code == 0, held.stderr
    document = orjson.loads(held.stdout)
    assert document["sessions"] == 1 and document["unread"] == {"sessions": 1, "locked": 1}
    whole = orjson.loads(invoke("export", "-f", "jsonl", "-o", str(out), "--json").stdout)
    assert whole["sessions"] == 2 and whole["unread"] == {"sessions": 0, "locked": 0}
