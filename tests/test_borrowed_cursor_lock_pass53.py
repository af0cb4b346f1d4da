"""A Gemini chat in a hash-named project dir asks Cursor's state DB for its composers'
folders (``OwnRefs.borrowed_cwds``).  Locked by Cursor, that DB is another provider's
trouble: a cron's ``--strict list -p gemini`` must not wait on it, print its warning, nor
fail over it; the row built meanwhile is not kept (the lock gone, the folder is named);
a run that asks for Cursor still says it."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from cursor_builders import composer_data, make_state_db, state_db_path
from gemini_builders import hash_named_chat

runner = CliRunner()

#: a folder only a Cursor composer names: the Gemini chat in its hash dir borrows it
FOLDER = "/work/cursor-only"
COMPOSER = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
SAID = "Cursor state DB not used"


@pytest.fixture
def home(isolated_home: Path) -> Path:
    make_state_db(state_db_path(isolated_home), composers=[composer_data(COMPOSER, name="c", fs_path=FOLDER)])
    hash_named_chat(isolated_home, FOLDER)
    return isolated_home


def run(*argv: str) -> tuple[int, str, float]:
    start = time.monotonic()
    result = runner.invoke(app, list(argv))
    return result.exit_code, result.stdout + result.stderr, time.monotonic() - start


def gemini_cwd() -> str | None:
    code, out, _ = run("list", "-p", "gemini", "--json")
    assert code == 0, out
    (row,) = orjson.loads(out)["sessions"]
    return row["cwd"]


def test_a_locked_cursor_db_is_not_a_gemini_runs_trouble(home: Path) -> None:
    with closing(sqlite3.connect(state_db_path(home), isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        for _ in range(2):  # cold, warm
            code, out, took = run("--strict", "list", "-p", "gemini")
            assert code == 0 and SAID not in out, out
            assert took < 1.5, f"{took:.1f}s: waited on another provider's lock"
        # Asked for, Cursor still says it (and --strict fails over it).
        code, out, _ = run("--strict", "list", "-p", "cursor")
        assert code == 1 and SAID in out, out
        holder.execute("ROLLBACK")
    # The rows built without Cursor's folders were not kept: the folder is named now.
    assert gemini_cwd() == FOLDER
