"""``tokens`` after a cold ``list --all`` parses no session the list's row passes read (pass 51).

A row's pass of a Claude session adds its calls up in ``WindowedTotals``; when every
counted call is still at hand and the pass said no warning, it keeps the session's usage
row (``rowsums.keep_usage``) from those calls, through ``tokens``' own steps.  The next
``tokens`` then reads it as it reads its own: the same report and warnings as a cold
``tokens``, and the same bytes in the index.  A session whose pass said something, or one
an agent wrote to lately (``tokens`` keeps its resume state), is parsed by ``tokens`` as before.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import orjson
import pytest

from builders import (
    claude_parses,
    REAL,
    _first_session_id,
    claude_assistant,
    claude_progress,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    invoke,
    lay_out_real_claude,
)

FIRST = "e9f146fa-0000-4000-8000-000000000051"
RESUMED = "b162b1ae-0000-4000-8000-000000000051"
ODD = "0dd0dd00-0000-4000-8000-000000000051"
AGENTS = "a9e47500-0000-4000-8000-000000000051"
#: a month before now: no agent is at work in these sessions
OLD = time.time() - 30 * 86400


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Claude sessions ``tokens``' parse read (``session_usage``)."""
    return claude_parses(monkeypatch)


def _history(session: str) -> list[dict]:
    return [claude_user(session, "2026-05-01T10:00:00.000Z", "fix the build", uuid="u1"),
            claude_assistant(session, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                             usage=claude_usage(100, 10), parentUuid="u1", uuid="a1"),
            # a streamed copy of the same call, larger: the copy kept
            claude_assistant(session, "2026-05-01T10:00:06.000Z", msg_id="m1", request_id="r1",
                             usage=claude_usage(100, 40), parentUuid="u1", uuid="a1b")]


def _home(home: Path) -> None:
    lay_out_real_claude(home)
    # (Besides: a run written inline in its parent's transcript, and a compaction.)
    for name in ("agentlogs-inline-sidechain-v2.0.13.jsonl", "agentlogs-compact-boundary-v2.0.13.jsonl"):
        sample = REAL / "claude" / name
        target = home / ".claude" / "projects" / "-agentlogs" / f"{_first_session_id(sample)}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample, target)
    claude_session_file(home, FIRST, _history(FIRST))
    # Resumed: the first session's records first (their sessionId kept), so the two share calls.
    claude_session_file(home, RESUMED, [
        *_history(FIRST),
        claude_user(RESUMED, "2026-05-02T09:00:00.000Z", "and now the tests", uuid="u2", parentUuid="a1"),
        claude_assistant(RESUMED, "2026-05-02T09:00:05.000Z", msg_id="m2", request_id="r2",
                         usage=claude_usage(200, 20), parentUuid="u2", uuid="a2")])
    # A value that is no count: its pass warns, so ``tokens`` parses it and says its own warning.
    claude_session_file(home, ODD, [
        claude_user(ODD, "2026-05-03T09:00:00.000Z", "odd", uuid="u3"),
        claude_assistant(ODD, "2026-05-03T09:00:05.000Z", msg_id="m3", request_id="r3",
                         usage=claude_usage(50, "lots"), parentUuid="u3", uuid="a3")])
    # A subagent with a transcript, its sidechain replay of a parent message, and a progress
    # copy of a call of a subagent without one.
    sub_call = claude_assistant(AGENTS, "2026-05-04T09:00:10.000Z", msg_id="m5", request_id="r5",
                                usage=claude_usage(70, 7), model="claude-haiku-4-5-20251001", uuid="s1")
    claude_session_file(home, AGENTS, [
        claude_user(AGENTS, "2026-05-04T09:00:00.000Z", "delegate", uuid="u4"),
        claude_assistant(AGENTS, "2026-05-04T09:00:05.000Z", msg_id="m4", request_id="r4",
                         usage=claude_usage(300, 30), parentUuid="u4", uuid="a4"),
        claude_progress(AGENTS, "2026-05-04T09:00:11.000Z", "gone1", sub_call),
    ])
    claude_subagent_file(home, AGENTS, "kept1", [
        {**sub_call, "isSidechain": True},
        claude_assistant(AGENTS, "2026-05-04T09:00:12.000Z", msg_id="m4", request_id="r9",
                         usage=claude_usage(300, 30), sidechain=True, uuid="s2")])
    for path in (home / ".claude").rglob("*"):
        if path.is_file():
            os.utime(path, (OLD, OLD))


def _tokens() -> tuple[str, str]:
    result = invoke("tokens", "--json")
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def _usage_rows(cache: Path) -> dict[str, tuple]:
    with sqlite3.connect(cache / "index.sqlite") as connection:
        rows = connection.execute("SELECT session_id, provider, fingerprint, sums, keys FROM usage").fetchall()
    connection.close()
    return {row[0]: row[1:] for row in rows}


def test_tokens_after_a_cold_list_all_reads_the_rows_sums(isolated_home: Path, tmp_path: Path, parses: list[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "cold"))
    cold = _tokens()
    cold_rows = _usage_rows(tmp_path / "cold")
    every = set(parses)
    assert {FIRST, RESUMED, ODD, AGENTS} <= every and ODD in cold[0] + cold[1], cold

    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "listed"))
    assert invoke("list", "--all", "--json").exit_code == 0
    listed_rows = _usage_rows(tmp_path / "listed")
    # Each usage row the list kept is byte for byte the one ``tokens`` keeps.
    assert listed_rows and {key: cold_rows[key] for key in listed_rows} == listed_rows
    assert {f"claude:{FIRST}", f"claude:{RESUMED}", f"claude:{AGENTS}", "claude:609efeca-2f51-4118-b077-e91c9fe63f73",
            } <= set(listed_rows)
    parses.clear()
    assert _tokens() == cold  # the same report, the same warnings
    # Only what the list left is parsed: the session whose pass warned among them; the two
    # that share calls are decoded again for the merge, as in any warm ``tokens``.
    assert ODD in parses and not set(parses) & {AGENTS}
    assert set(parses) - {FIRST, RESUMED} == every - {key.partition(":")[2] for key in listed_rows}
    assert _usage_rows(tmp_path / "listed") == cold_rows


def _resume_states(cache: Path) -> list[str]:
    with sqlite3.connect(cache / "index.sqlite") as connection:
        found = [row[0] for row in connection.execute("SELECT session_id FROM resume")]
    connection.close()
    return found


def _grow(path: Path, number: int, when: float) -> None:
    """An agent at work: a new call appended, the file dated ``when``."""
    with path.open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(FIRST, f"2026-05-01T10:0{number}:00.000Z", msg_id=f"m9{number}",
                                                   request_id=f"r9{number}", usage=claude_usage(5, 5),
                                                   uuid=f"a9{number}")) + b"\n")
    os.utime(path, (when, when))


@pytest.mark.parametrize("ahead", [0, 86400])
def test_a_session_summed_before_is_left_to_tokens(isolated_home: Path, parses: list[str], ahead: int) -> None:
    """A session whose sums the index held before: ``tokens``' parse may keep a resume state
    for it (``usageparse.UsageParser.keeps_state``: one written lately), so that its next
    growth is parsed from where it stopped, so the list keeps no usage row for it.  A file
    dated a day ahead was not written by an agent at work (``keeps_state`` keeps none)."""
    cache = Path(os.environ["AGENTSCAN_CACHE_DIR"])
    path = claude_session_file(isolated_home, FIRST, _history(FIRST))
    os.utime(path, (OLD, OLD))
    _tokens()
    _grow(path, 1, time.time() + ahead)
    before = _usage_rows(cache)
    parses.clear()
    assert invoke("list", "--all", "--json").exit_code == 0
    assert _usage_rows(cache) == before
    _tokens()
    assert parses == [FIRST]
    assert _resume_states(cache) == ([] if ahead else [f"claude:{FIRST}"])


def test_a_session_with_a_resume_state_keeps_it_current_after_a_list(isolated_home: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A session with a resume state that grew again, its file dated ten days back (a
    restore, ``touch -d``): the list kept its usage row and ``tokens`` then left the old
    state behind, which a cold ``tokens`` renews (review, pass 51)."""
    caches = {name: tmp_path / name for name in ("tokens", "listed")}

    def each(step) -> None:  # noqa: ANN001 - a step run over both caches, one after the other
        for name, cache in caches.items():
            monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(cache))
            step(name)

    path = claude_session_file(isolated_home, FIRST, _history(FIRST))
    os.utime(path, (OLD, OLD))
    each(lambda name: _tokens())
    _grow(path, 1, time.time())
    each(lambda name: _tokens())  # written lately: a resume state kept
    _grow(path, 2, time.time() - 10 * 86400)
    each(lambda name: name == "listed" and invoke("list", "--all", "--json"))
    each(lambda name: _tokens())
    indexes = {}
    for name, cache in caches.items():
        with sqlite3.connect(cache / "index.sqlite") as connection:
            indexes[name] = connection.execute("SELECT session_id, state FROM resume").fetchall()
        connection.close()
    assert indexes["listed"] == indexes["tokens"] and indexes["tokens"]


def test_a_new_session_written_lately_is_kept_by_the_list(isolated_home: Path, parses: list[str]) -> None:
    """Never summed before, it keeps no resume state in ``tokens``' parse either: kept."""
    claude_session_file(isolated_home, FIRST, _history(FIRST))
    assert invoke("list", "--all", "--json").exit_code == 0
    assert set(_usage_rows(Path(os.environ["AGENTSCAN_CACHE_DIR"]))) == {f"claude:{FIRST}"}
    _tokens()
    assert parses == []
