"""A Codex fork made by a build that writes no turn marker (``task_started``) of a parent
written by one that does: its copied history holds markers older than the fork, its own
turns none.  Those copied markers made the whole file a copy (``tokens: null``, 0 prompts,
the parent's title): the copy is told by its calls instead, as for a fork of no marker at
all (the parent's calls, else their dates, else the leading burst), the calls before the
last copied marker copies whatever those rules say.  The other variants stay as they were."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from codex_fork_builders import FORK_CALLS, PARENT_TURNS, total_of, write_fork, write_parent

P = "019c4900-0000-7000-8000-00000000000a"
F = "019c4900-0000-7000-8000-00000000000f"
START = datetime(2026, 7, 2, 15, 0, tzinfo=timezone.utc)
PARENT_TOTAL = total_of([call for turn in PARENT_TURNS for call in turn])
FORK_TOTAL = total_of(FORK_CALLS)
OWN = {"prompts": 1, "responses": 1, "tool_calls": 0}

#: (the parent's build writes markers, the fork's does, the copy's times rewritten)
VARIANTS = [
    pytest.param(False, False, True, id="neither-rewritten"),
    pytest.param(True, False, True, id="parent-only-rewritten"),  # the finding
    pytest.param(True, True, True, id="both-rewritten"),
    pytest.param(False, False, False, id="neither-kept"),
    pytest.param(True, False, False, id="parent-only-kept"),  # the finding
]


def _lay_out(codex: Path, parent_markers: bool, fork_markers: bool, rewrite: bool, *, parent: bool = True) -> None:
    family = write_parent(codex, P, START, markers=parent_markers, write=parent)
    write_fork(codex, family, F, START + timedelta(hours=5), markers=fork_markers, rewrite=rewrite)


def _figures(*cache: str) -> dict[str, Any]:
    rows = {row["native_id"]: row for row in cli_json(*cache, "list", "--all")["sessions"]}
    tokens = {row["key"]: row["tokens"]["total"] if row["tokens"] else None
              for row in cli_json(*cache, "tokens", "--by", "session")["rows"]}
    shown = cli_json(*cache, "show", F)["session"]
    return {"rows": rows, "tokens": tokens, "show": shown}


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
@pytest.mark.parametrize(("parent_markers", "fork_markers", "rewrite"), VARIANTS)
def test_a_fork_counts_its_own_part_whoever_wrote_the_markers(isolated_home: Path, cache: tuple[str, ...],
                                                             parent_markers: bool, fork_markers: bool,
                                                             rewrite: bool) -> None:
    _lay_out(isolated_home / ".codex", parent_markers, fork_markers, rewrite)
    for _ in range(2):  # cold, then the kept rows
        seen = _figures(*cache)
        fork, parent = seen["rows"][F], seen["rows"][P]
        assert fork["tokens"]["total"] == FORK_TOTAL
        assert seen["tokens"] == {f"codex:{F}": FORK_TOTAL, f"codex:{P}": PARENT_TOTAL}
        assert parent["tokens"]["total"] == PARENT_TOTAL
        assert fork["counts"] == OWN and fork["title"] == "now the fork"
        assert seen["show"]["tokens"]["total"] == FORK_TOTAL
        assert [prompt["text"] for prompt in seen["show"]["prompts"]] == ["now the fork"]
        assert seen["show"]["forked_after_prompts"] == 2
    text = CliRunner().invoke(app, [*cache, "show", F]).output
    assert "1 prompt, 1 response, 0 tool calls" in text


def test_copied_markers_alone_make_no_copy_of_the_calls_after_them() -> None:
    """The calls before the last copied marker are copies even where no other rule tells
    them (one copied call, its time rewritten: no burst; no parent to compare): the floor.
    The calls after it are the thread's own (before, none was)."""
    from agentscan.providers.codex.callscan import FileUsageScanner
    from codex_builders import Calls, task_started

    started = START + timedelta(hours=5)
    scanner = FileUsageScanner(replay=True, started=started)
    calls = Calls()
    scanner.feed(task_started(started, started_at=START.timestamp()))
    scanner.feed(calls.call(started, 1000, 0, 10))  # the copied turn's call
    scanner.feed(task_started(started, started_at=(START + timedelta(minutes=1)).timestamp()))  # (interrupted)
    scanner.feed(calls.call(started + timedelta(seconds=40), 3000, 0, 30))  # the fork's own, unmarked
    assert [event.counters[0] for event in scanner.own_events()] == [3000]
