"""A resumed Claude session does not claim the runs of the session it copied (pass 49).

``claude --resume`` copies the first session's records, its subagents' ``agent_progress``
records too, at the head of the new transcript.  The copied calls counted in the first
session (``tokens``), but the resumed row counted the run (``subagents: 1``), its card read
``212 total (1100 by subagents)`` and listed the run as "no transcript", and ``show <run>``
was ambiguous between the two.  The run is the first session's while that session is found;
once it is gone the resumed transcript holds the only copy, and counts it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from builders import (
    claude_assistant,
    claude_progress,
    claude_session_file,
    claude_usage,
    claude_user,
    REAL,
    invoke,
)
from claude_events import lower_row_limits, split_huge_passes

A, B, C = (f"{n * 8}-0000-4000-8000-000000000049" for n in "abc")
RUN = "a1234567"
SONNET = "claude-sonnet-4-5-20250929"


def _first(padding: int = 0) -> list[dict]:
    """A's records: a prompt, a subagent's call copied into a progress record, a reply
    (after ``padding`` turns: the run is then in a second half of the resumed transcript)."""
    turns = [record for n in range(padding) for record in (
        claude_user(A, "2026-05-01T09:00:00.000Z", f"warm-up {n}", uuid=f"w{n}"),
        claude_assistant(A, "2026-05-01T09:00:01.000Z", msg_id=f"wm{n}", request_id=f"wr{n}",
                         usage=claude_usage(1, 1), parentUuid=f"w{n}", uuid=f"wa{n}", model=SONNET))]
    delegated = claude_assistant(A, "2026-05-01T10:00:03.000Z", msg_id="sm1", request_id="sr1",
                                 usage=claude_usage(1000, 100), uuid="s1", model=SONNET)
    return [*turns, claude_user(A, "2026-05-01T10:00:00.000Z", "step 1", uuid="u1"),
            claude_progress(A, "2026-05-01T10:00:03.000Z", RUN, delegated, uuid="p1", parentUuid="u1"),
            claude_assistant(A, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10),
                             parentUuid="p1", uuid="a1", model=SONNET)]


def _own(session: str, day: int, used: int) -> list[dict]:
    return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{day}"),
            claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{day}", request_id=f"r{day}",
                             usage=claude_usage(used, 12), parentUuid=f"u{day}", uuid=f"a{day}", model=SONNET)]


def _resumed(home: Path, *, chain: bool = False, padding: int = 0) -> None:
    first, second = _first(padding), _own(B, 2, 200)
    claude_session_file(home, A, first)
    claude_session_file(home, B, [*first, *second])
    if chain:
        claude_session_file(home, C, [*first, *second, *_own(C, 3, 400)])


def _delete(home: Path, session: str) -> None:
    next((home / ".claude" / "projects").rglob(f"{session}.jsonl")).unlink()


def _listed(*args: str) -> dict[str, int]:
    return {row["id"]: row["subagents"] for row in orjson.loads(invoke(*args, "list", "--json").stdout)["sessions"]}


def _shown(session: str, *args: str) -> dict:
    return orjson.loads(invoke(*args, "show", session, "--json").stdout)["session"]


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_the_resumed_row_leaves_the_copied_run_to_the_session_it_copied(isolated_home: Path,
                                                                       cache: tuple[str, ...]) -> None:
    _resumed(isolated_home)
    expected = {f"claude:{A}": 1, f"claude:{B}": 0}
    assert _listed(*cache) == expected
    assert _listed(*cache) == expected  # (warm: the row kept in the index says the same)
    shown = _shown(B, *cache)
    assert shown["subagents"] == [] and shown["tokens"]["total"] == 212
    card = invoke(*cache, "show", B).stdout
    assert "by subagents" not in card and "subagents (" not in card and RUN not in card
    assert [run["id"] for run in _shown(A, *cache)["subagents"]] == [RUN]


def test_once_the_session_copied_is_gone_the_resumed_one_counts_its_run(isolated_home: Path) -> None:
    _resumed(isolated_home)
    assert _listed()[f"claude:{B}"] == 0
    _delete(isolated_home, A)
    assert _listed() == {f"claude:{B}": 1}
    shown = _shown(B)
    assert [(run["id"], run["tokens"]["total"]) for run in shown["subagents"]] == [(RUN, 1100)]
    assert shown["tokens"]["total"] == 1100 + 110 + 212


def test_show_of_the_run_opens_the_session_that_made_it(isolated_home: Path) -> None:
    _resumed(isolated_home, chain=True)
    result = invoke("show", RUN)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"claude:{A}"
    _delete(isolated_home, A)
    # (B and C both hold copies now: B's row counts the run, C's leaves it to B.)
    assert _listed() == {f"claude:{B}": 1, f"claude:{C}": 0}
    # Each holds a copy, neither is the maker: ``show`` opens the one ``list`` credits (pass 50).
    result = invoke("show", RUN)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"claude:{B}"


def test_a_chain_leaves_every_copied_run_where_it_counts(isolated_home: Path) -> None:
    _resumed(isolated_home, chain=True)
    assert _listed() == {f"claude:{A}": 1, f"claude:{B}": 0, f"claude:{C}": 0}
    assert _shown(C)["subagents"] == []


def test_the_resumed_row_is_the_same_read_by_halves(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import halfjoin
    from agentscan.toolkit import cores
    from spies import record_calls

    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    split_huge_passes(monkeypatch, on=True)
    joins = record_calls(monkeypatch, halfjoin, "_join_summaries", lambda main, second, results: len(second.copied_runs))
    _resumed(isolated_home, padding=60)
    assert _listed() == {f"claude:{A}": 1, f"claude:{B}": 0}
    assert 1 in joins  # (B was read by halves, the copied run in its second)


def test_the_resumed_row_is_the_same_from_a_kept_state(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)
    _resumed(isolated_home)
    assert _listed() == {f"claude:{A}": 1, f"claude:{B}": 0}
    # Grown: the row goes on from the state kept for it, which holds the copied runs.
    path = next((isolated_home / ".claude" / "projects").rglob(f"{B}.jsonl"))
    with path.open("ab") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in _own(B, 4, 300)))
    assert _listed() == {f"claude:{A}": 1, f"claude:{B}": 0}
    assert _shown(B)["subagents"] == []


def test_a_real_session_resumed_leaves_its_runs_to_it(isolated_home: Path) -> None:
    # The real ``258c7280`` transcript (its runs' progress records, one run with a file) resumed.
    projects = isolated_home / ".claude" / "projects"
    shutil.copytree(REAL / "claude" / "projects", projects, copy_function=shutil.copyfile)
    main = next(projects.rglob("258c7280-*.jsonl"))
    first = main.stem
    own = "dddddddd-0000-4000-8000-000000000049"
    resumed = main.with_name(f"{own}.jsonl")
    tail = _own(own, 9, 50)
    for record in tail:
        record["cwd"] = "/home/marco/projects/spotter"
    resumed.write_bytes(main.read_bytes() + b"".join(orjson.dumps(record) + b"\n" for record in tail))
    listed = _listed()
    assert listed[f"claude:{own}"] == 0 and listed[f"claude:{first}"] >= 1
    shown = _shown(own)
    assert shown["subagents"] == [] and shown["tokens"]["total"] == 62
