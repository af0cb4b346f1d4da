"""Pass 56's review of its words commit (b8ddd8e).

* The near-miss id hint offered a prefix two sessions share (``abcdef12-…`` and ``abcdef34-…``
  for ``abcdeg``): ``show claude:abcdef`` then said "ambiguous".  It is offered when one session
  alone is that near.
* The one row of a kind spelt in two cases (``Explore``, ``explore``) was named by the oldest
  session's spelling on a tie, by its files' time: a ``touch`` flipped the JSON key.  Now by
  the spellings alone: the first in code-point order.
* A cold ``tokens`` counted ``caching sessions 1,502/1,502``, then ``1,502/3,004`` (each
  agent's sessions kept together, counted on): the total doubled in mid-phase.  That second
  write is a phase of its own, ``bundling each agent's sessions``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentscan.progress import BUNDLING, CACHING, Progress
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, cli_json, invoke


# --- the near-miss hint: one session, not one prefix ------------------------------------------------------


def _one_call(home: Path, native: str) -> None:
    claude_session_file(home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "go"),
        claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"m-{native}", request_id=f"r-{native}",
                         usage=claude_usage(100, 10)),
    ])


def test_a_prefix_two_sessions_share_is_not_offered(isolated_home: Path) -> None:
    _one_call(isolated_home, "abcdef12-0000-4000-8000-000000000000")
    _one_call(isolated_home, "abcdef34-0000-4000-8000-000000000000")
    said = invoke("show", "abcdeg").stderr
    assert "did you mean" not in said, said
    assert "list --grep TEXT" in said  # the usual hint in its place


def test_a_prefix_one_session_alone_is_near_is_offered(isolated_home: Path) -> None:
    _one_call(isolated_home, "abcdef12-0000-4000-8000-000000000000")
    _one_call(isolated_home, "99cdef34-0000-4000-8000-000000000000")
    assert invoke("show", "abcdeg").stderr.splitlines()[-1] == "hint: did you mean 'claude:abcdef'?"


# --- one kind, one name, whatever the files' times -----------------------------------------------------------

S1, S2 = "a9e00000-0000-4000-8000-000000000001", "a9e00000-0000-4000-8000-000000000002"


def _explore_runs(home: Path) -> list[Path]:
    """Two sessions, each with one delegated run: ``explore`` in S1, ``Explore`` in S2 (a tie)."""
    files = []
    for session, kind in ((S1, "explore"), (S2, "Explore")):
        files.append(claude_session_file(home, session, [claude_user(session, "2026-08-01T10:00:00.000Z", "go")]))
        run = claude_assistant(session, "2026-08-01T10:00:02.000Z", msg_id=f"m-{session}", request_id=f"r-{session}",
                               usage=claude_usage(input=20, output=1), uuid=f"u-{session}", sidechain=True,
                               agentId="arun")
        files.append(claude_subagent_file(home, session, "arun", [run], meta={"agentType": kind}))
    return files


@pytest.mark.parametrize("older", [S1, S2])
def test_a_tied_kinds_name_is_not_the_files_times(isolated_home: Path, older: str) -> None:
    for path in _explore_runs(isolated_home):
        age = 1_000_000 if older in str(path) else 2_000_000
        os.utime(path, (age, age))
    rows = {row["key"]: row for row in cli_json("--no-cache", "tokens", "--by", "agent")["rows"]}
    assert "explore" not in rows and len(rows["Explore"]["subagents"]) == 2


def test_the_spelling_first_in_code_point_order_names_the_row() -> None:
    from agentscan.scan.tokenagents import spellings

    # Whatever the number of runs of each, and the order they come in.
    found = {"claude:a": {"r": "explore"}, "claude:b": {"s": "explore", "t": "Explore", "u": "Plan"}}
    assert spellings(found) == {"claude:a": {"r": "Explore"}, "claude:b": {"s": "Explore", "t": "Explore", "u": "Plan"}}
    assert spellings(dict(reversed(found.items()))) == spellings(found)
    # One spelling of each: as found.
    assert spellings({"claude:a": {"r": "explore"}}) == {"claude:a": {"r": "explore"}}


# --- caching, then bundling: no total that doubles ---------------------------------------------------------


def test_the_caching_count_never_grows_its_total(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from builders import claude_sessions

    seen: list[tuple[str, int, int]] = []
    real = Progress.advance

    def advance(self: Progress, count: int = 1) -> None:
        real(self, count)
        seen.append((self.phase, self.done, self.total))

    monkeypatch.setattr(Progress, "advance", advance)
    claude_sessions(isolated_home, 6)
    assert invoke("tokens").exit_code == 0
    caching = [(done, total) for phase, done, total in seen if phase == CACHING]
    assert caching and {total for _, total in caching} == {6}, caching
    assert caching[-1] == (6, 6)
    # Each agent's sessions kept together: counted as a phase of its own, from none.
    bundling = [(done, total) for phase, done, total in seen if phase == BUNDLING]
    assert bundling == [(6, 6)], bundling
    phases = [phase for phase, _, _ in seen]
    assert phases.index(BUNDLING) > len(phases) - 1 - phases[::-1].index(CACHING)
