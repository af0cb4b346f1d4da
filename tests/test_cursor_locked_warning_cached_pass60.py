"""Pins (it passed on the code before pass 60, which changed nothing here): under a locked
Cursor DB (another program's ``BEGIN EXCLUSIVE``) a cached ``tokens`` or ``list`` run after
Cursor wrote to the DB says the locked-DB warning ``--no-cache`` says, every run the DB is
locked, and the same figures (none: the DB's stamp is not the one its figures were kept at).

Not pinned: a DB locked and *unchanged* since a run read it.  A cached run then answers from
what it kept at the DB's stamp (the figures are the DB's, exactly) without opening the DB, so
it cannot know of the lock and says no warning, where ``--no-cache`` (which must open it)
says it and lists the session with no tokens."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bad_corpus import LiveWriter
from builders import ran
from cursor_builders import refund_chat

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

S = "11111111-aaaa-4bbb-8ccc-000000000060"
T0 = 1_780_000_000_000
LOCKED = "database is locked by Cursor or another program"


def _cursor_writes(db: Path) -> None:
    """A write elsewhere in the DB (UI state), as Cursor makes them all the time."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO ItemTable VALUES ('workbench.ui.state', 'x')")
        conn.commit()


@pytest.mark.parametrize("args", [("tokens",), ("tokens", "--json"), ("list", "--all", "--json")])
def test_every_cached_run_under_the_lock_says_what_no_cache_says(isolated_home: Path, args: tuple[str, ...]) -> None:
    db = refund_chat(isolated_home, S, T0)[0]
    ran(*args)  # its sums kept
    _cursor_writes(db)
    with LiveWriter("exclusive", db):
        fresh = ran("--no-cache", *args)
        runs = [ran(*args) for _ in range(3)]
    assert LOCKED in " ".join((fresh[0] + fresh[1]).split()), fresh
    for run in runs:
        if args[0] == "list":  # (its row as kept at its fingerprint: decided, pass 54)
            assert LOCKED in " ".join((run[0] + run[1]).split()), run
        else:
            assert run == fresh
