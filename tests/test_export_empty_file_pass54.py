"""A failed first export into an existing empty file says what it left (pass 54).

An empty file at ``-o`` (``touch``ed, ``mktemp``'s) is the user's: a failed run does not
remove it, as it does an index it made itself.  But SQLite commits each table as it is made,
so the run left tables in it, and the error said "the index was left as it was"."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from builders import claude_sessions, invoke
from test_export_first_run_pass54 import _limited, _tables


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE stands in for a full disk")
def test_a_failed_export_into_an_empty_file_says_it_holds_part_of_an_index(isolated_home: Path,
                                                                         tmp_path: Path) -> None:
    claude_sessions(isolated_home, 400)  # more than 64 KiB to write
    out = tmp_path / "idx.sqlite"
    out.touch()
    done = subprocess.run([sys.executable, "-m", "agentscan", "--no-cache", "export", "-f", "sqlite", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, preexec_fn=_limited)
    assert done.returncode == 1, done.stderr
    said = " ".join(done.stderr.split())
    assert out.exists() and out.stat().st_size > 0 and _tables(out)  # the user's file, not removed
    assert "left as it was" not in said
    assert "idx.sqlite was empty, and now holds part of an index" in said and "the next export completes it" in said
    assert invoke("export", "-f", "sqlite", "-o", str(out), "--no-cache").exit_code == 0
    assert {"sessions_fts", "token_days", "subagents"} <= _tables(out)
    with sqlite3.connect(out) as conn:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (400,)
    conn.close()
