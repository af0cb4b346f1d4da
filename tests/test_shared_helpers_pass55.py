"""Helpers written more than once, now written once (pass 55):

* tests: the 200 ms busy timeout of a test that holds a database locked (``short_sqlite_wait``
  in conftest), copied into nine files;
* Claude: whether a record is a subagent's own (``senders.from_a_subagent``), the exemption
  from both rules of another sender's words, asked in three places;
* a file's stamp: ``toolkit.fsutil.stamp_now`` (a fresh stat's size and mtime, within a run:
  a Gemini chat replayed whole, a Cursor store found locked) and ``context.stat_stamp`` (kept
  in the index: what is remembered of a file, Claude's resume states).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TESTS = Path(__file__).parent


def test_one_short_busy_wait_for_every_test_that_holds_a_database_locked(short_sqlite_wait: None) -> None:
    from agentscan.toolkit import sqlite_ro

    assert sqlite_ro.BUSY_TIMEOUT_MS == 200
    copy = 'setattr(sqlite_ro, "BUSY_TIMEOUT_' + 'MS", 200)'  # (split: this file holds no copy)
    copies = [path.name for path in TESTS.glob("*.py") if path.name != "conftest.py"
              and copy in path.read_text(encoding="utf-8")]
    assert copies == [], copies


def test_a_subagents_record_is_told_by_one_rule() -> None:
    from agentscan.providers.claude import records, senders, titles

    task = {"type": "user", "agentId": "a1", "origin": {"kind": "coordinator"},
            "message": {"role": "user", "content": "<teammate-message teammate_id=\"t\">Build the API</teammate-message>"}}
    assert senders.from_a_subagent(task) and senders.from_a_subagent({"isSidechain": True})
    assert not senders.from_a_subagent({"isSidechain": "true"})
    assert not senders.sent_by_another(task["origin"], task)
    assert records.real_prompt_text(task) == task["message"]["content"]  # its task, as such
    assert titles.others_words(task) is None
    package = Path(records.__file__).parent
    rule = 'get("isSidechain") is True or "agentId" in record'
    said = [path.name for path in package.glob("*.py") if rule in path.read_text(encoding="utf-8")]
    assert said == ["senders.py"], said


def test_a_files_stamp_is_taken_one_way(tmp_path: Path) -> None:
    from agentscan import context
    from agentscan.providers.claude import incremental
    from agentscan.providers.cursor import storechat
    from agentscan.toolkit.fsutil import stamp_now

    path = tmp_path / "store.db"
    path.write_bytes(b"x" * 10)
    stat = os.stat(path)
    assert stamp_now(path) == (10, stat.st_mtime_ns) and stamp_now(tmp_path / "gone") is None
    assert storechat._stamp(path) == ((10, stat.st_mtime_ns), None, False)  # (no journal: no write held)
    assert incremental.stat_stamp is context.stat_stamp
    assert context.stat_stamp(stat) == f"10:{stat.st_mtime_ns}:{stat.st_ino}:{stat.st_ctime_ns}"  # (kept: its form holds)


@pytest.mark.parametrize("module", ["providers/gemini/provider.py", "providers/cursor/storechat.py",
                                    "providers/claude/incremental.py"])
def test_no_stamp_of_its_own(module: str) -> None:
    import agentscan

    text = (Path(agentscan.__file__).parent / module).read_text(encoding="utf-8")
    assert "os.stat(" not in text and "st_ctime_ns}" not in text
