"""Pass 55: a warm ``list --grep`` judges the kept rows by the fields the word is looked for
in, picked out by SQLite, and decodes only those it lists (``scan.grepkept``): a rare word's
``list`` decoded every one of the bench's 15,000 kept rows (1.1 CPU-s at scale 10, 0.7 now).
What it prints and says is as before, and as ``--no-cache`` has it: a session found by a
subagent's model, a row that kept a warning, the count of an empty list."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import rowreader
from builders import (claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user,
                      forget_remembered_answers, write_jsonl)
from spies import record_calls

runner = CliRunner()
SONNET = "claude-sonnet-4-5-20250929"
HAIKU = "claude-haiku-4-5-20251001"


def _native(number: int) -> str:
    return f"{number:08x}-6666-4000-8000-000000000000"


def _home(home: Path) -> None:
    for number in range(12):
        native = _native(number)
        stamp = f"2026-11-02T09:{number:02d}:00.000Z"
        claude_session_file(home, native, [
            claude_user(native, stamp, "needle here" if number == 4 else f"task {number}", uuid="u1"),
            claude_assistant(native, stamp, msg_id=f"m{number}", request_id=f"r{number}", usage=claude_usage(100, 10),
                             model=SONNET, uuid="a1", parentUuid="u1"),
        ])
    # Session 7's subagent ran on Haiku: its row names Sonnet, its calls' models find it.
    claude_subagent_file(home, _native(7), "a1b2c3d", [
        claude_user(_native(7), "2026-11-02T09:07:02.000Z", "explore", sidechain=True),
        claude_assistant(_native(7), "2026-11-02T09:07:03.000Z", msg_id="ms", request_id="rs",
                         usage=claude_usage(50, 5), model=HAIKU, sidechain=True),
    ])
    # A session that recorded nothing but a snapshot of files: ``list`` leaves it out uncounted.
    write_jsonl(home / ".claude" / "projects" / "-w-old" / f"{_native(98)}.jsonl", [
        {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}, "isSnapshotUpdate": False}])
    # An older session elsewhere, one of whose lines is no JSON: its kept row holds that warning.
    old = _native(99)
    write_jsonl(home / ".claude" / "projects" / "-w-old" / f"{old}.jsonl", [
        claude_user(old, "2026-10-01T09:00:00.000Z", "old work", cwd="/w/old"), "{not json",
        claude_assistant(old, "2026-10-01T09:00:01.000Z", msg_id="m99", request_id="r99", usage=claude_usage(1, 1),
                         cwd="/w/old")])


def _run(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _decoded(monkeypatch) -> list[str]:
    """The native ids of the kept rows decoded from now on."""
    return record_calls(monkeypatch, rowreader, "row_of_document", lambda document: document.get("native_id"))


@pytest.mark.parametrize("word, listed", [("needle", [4]), ("haiku", [7]), ("task 1", [11, 10, 1])])
def test_only_the_rows_listed_are_decoded(isolated_home: Path, monkeypatch, word: str, listed: list[int]) -> None:
    _home(isolated_home)
    _run("list", "--all")  # every row kept
    decoded = _decoded(monkeypatch)
    found = _run("list", "--grep", word, "--json")
    # (the rows that kept a warning or recorded nothing are read as before; no other row is decoded)
    assert sorted(decoded) == sorted([_native(n) for n in listed] + [_native(98), _native(99)])
    assert [f"claude:{_native(n)}" in found.stdout for n in listed] == [True] * len(listed)


@pytest.mark.parametrize("args", [("list", "--grep", "needle"), ("list", "--grep", "haiku", "--json"),
                                  ("list", "--grep", "nothing holds this"), ("list", "--grep", "task", "--all"),
                                  ("list", "--grep", "old", "--json"), ("list", "--grep", "task", "--limit", "2")])
def test_what_is_printed_and_said_is_as_without_the_cache(isolated_home: Path, args: tuple[str, ...]) -> None:
    _home(isolated_home)
    cold = _run(*args)
    forget_remembered_answers()
    warm = _run(*args)  # from the kept rows
    uncached = _run("--no-cache", *args)
    assert warm.stdout == cold.stdout == uncached.stdout
    assert warm.stderr == cold.stderr == uncached.stderr


def test_an_empty_list_counts_every_session(isolated_home: Path) -> None:
    _home(isolated_home)
    _run("list", "--all")
    assert "contains 'nothing holds this' (13 searched)" in _run("list", "--grep", "nothing holds this").output
