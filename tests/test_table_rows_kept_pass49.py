"""``tokens``' table takes DATE, CWD and TITLE from the rows the index keeps (pass 49).

A ``list --all`` keeps every session's row; the ``tokens`` after it found the same three
facts again in every session's files (at the bench's scale 1, 1.3 s of a loaded machine's
2.4 s).  A row kept for the session's files as they are is its facts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_sessions, forget_remembered_answers, invoke
from spies import record_calls


def test_the_table_after_list_all_finds_no_fact_again(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sessions(isolated_home, 30)
    fresh = invoke("--no-cache", "tokens").stdout
    assert invoke("list", "--all").exit_code == 0
    forget_remembered_answers()
    found = record_calls(monkeypatch, ClaudeProvider, "table_facts", lambda *args, **kwargs: None)
    assert invoke("tokens").stdout == fresh
    assert found == []  # (every fact came from a row kept by ``list --all``)


def test_a_session_grown_since_its_row_was_kept_is_found_again(isolated_home: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sessions(isolated_home, 30)
    invoke("list", "--all")
    grown = sorted((isolated_home / ".claude" / "projects").rglob("*.jsonl"))[0]
    with grown.open("ab") as handle:
        handle.write(grown.read_bytes().splitlines(keepends=True)[-1])  # (a copy of its last record)
    fresh = invoke("--no-cache", "tokens").stdout
    forget_remembered_answers()
    found = record_calls(monkeypatch, ClaudeProvider, "table_facts", lambda self, ref, *args, **kwargs: ref.native_id)
    assert invoke("tokens").stdout == fresh
    assert found == [grown.stem]
