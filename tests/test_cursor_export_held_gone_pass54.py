"""A Cursor chat an SQLite export held at its old row while the state DB is corrupt is not
left marked gone (pass 54).

An earlier run that did not find the chat (its transcript moved away, its composer not in the
DB) marked its row ``gone_at``.  Found again while the state DB is corrupt, its row is held
as it was (its usage is not known: ``export.unread.usage_unknown``), and the hold kept the
``gone_at`` too: a query for the sessions still on disk left out a chat listed right there."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from builders import invoke
from cursor_builders import break_schema, make_state_db, refund_chat, state_db_path

pytestmark = pytest.mark.usefixtures("only_cursor")

C = "a5400000-0000-4000-8000-0000000000c4"


def _export(out: Path) -> str:
    result = invoke("export", "--format", "sqlite", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stderr.split())


def _row(out: Path) -> tuple:
    with closing(sqlite3.connect(out)) as conn:
        return conn.execute("SELECT id, tokens_total, gone_at, last_seen_at FROM sessions").fetchone()


def test_a_held_row_found_again_is_not_gone(isolated_home: Path, tmp_path: Path) -> None:
    db, transcript = refund_chat(isolated_home, C, 1_780_000_000_000)
    out = tmp_path / "index.sqlite"
    _export(out)
    whole = _row(out)
    assert whole[1] == 54_130 and whole[2] is None
    aside = tmp_path / "aside.jsonl"
    shutil.move(transcript, aside)  # the chat found nowhere: gone
    db.unlink()
    make_state_db(state_db_path(isolated_home))
    _export(out)
    assert _row(out)[2] is not None
    shutil.move(aside, transcript)  # back, while the DB is corrupt
    break_schema(db)
    said = _export(out)
    assert "left as it was in the index" in said, said
    found = _row(out)
    assert found[1] == 54_130, "its row held as it was"
    assert found[2] is None, "found this run: not gone"
