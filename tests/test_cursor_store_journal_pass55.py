"""An Agent CLI store whose rollback journal keeps changing under its lock is waited out once a
command (pass 55).

A store found locked is not waited for again while its files stay as they were (pass 54).  The
journal was one of them: the CLI holding the lock writes it as it goes, so a command read the
chat's meta, waited out the busy timeout, found the journal grown, and waited it out again for
the chat's messages.  A journal that appears or grows is no lock let go: one emptied or deleted,
or the store or its WAL changed, is."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from agentscan import Scanner
from agentscan.providers.cursor import storechat
from agentscan.toolkit import sqlite_ro
from cursor_builders import cli_chat_of_two_messages

C = "a5500000-0000-4000-8000-0000000000e5"

#: holds ``BEGIN EXCLUSIVE`` and rewrites one page after another (each first write of a page
#: adds it to the journal), until told to stop on stdin
_CHURN = r"""
import select, sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
conn.execute("PRAGMA cache_size = -262144")  # no page spilled to the store itself: the journal alone changes
conn.execute("BEGIN EXCLUSIVE")
rows = [row[0] for row in conn.execute("SELECT rowid FROM pad ORDER BY rowid")]
conn.execute("UPDATE pad SET data = zeroblob(3000) WHERE rowid = ?", (rows[0],))
print("ready", flush=True)
for rowid in rows[1:]:
    if select.select([sys.stdin], [], [], 0.002)[0]:
        break
    conn.execute("UPDATE pad SET data = zeroblob(3000) WHERE rowid = ?", (rowid,))
sys.stdin.readline()
conn.execute("ROLLBACK")
conn.close()
"""


@pytest.fixture(autouse=True)
def _short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_ro, "BUSY_TIMEOUT_MS", 300)


def test_a_churning_journal_is_waited_out_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = cli_chat_of_two_messages(isolated_home, C) / "store.db"
    with closing(sqlite3.connect(store)) as conn:  # pages for the writer to rewrite, one per row
        conn.execute("CREATE TABLE pad (data BLOB)")
        conn.executemany("INSERT INTO pad VALUES (randomblob(3000))", [()] * 4000)
        conn.commit()
    waits: list[Path] = []
    not_read = storechat.not_read

    def counted(path: Path, why: str, ctx) -> None:  # noqa: ANN001
        waits.append(path)
        not_read(path, why, ctx)

    monkeypatch.setattr(storechat, "not_read", counted)
    writer = subprocess.Popen([sys.executable, "-c", _CHURN, str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        with Scanner(home=isolated_home, provider_names=["cursor"]) as scanner:
            (row,) = scanner.list_sessions()
        journal = Path(f"{store}-journal")
        assert journal.exists() and journal.stat().st_size > 0  # (it was written meanwhile)
    finally:
        assert writer.stdin is not None
        writer.stdin.write("\n")
        writer.stdin.close()
        writer.wait(timeout=30)
        if writer.stdout is not None:
            writer.stdout.close()
    assert row.counts_partial  # not read: locked
    assert waits == [store], waits  # its meta and its messages: one wait, not two
